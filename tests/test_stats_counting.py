"""Counting a batch at once (augexplorer.stats.host, augexplorer.stats.pixels,
augexplorer.stats.counting): the whole batch's uint8 pixels in one buffer give exactly the counts
sample-by-sample counting gives, and those are numpy's."""

from __future__ import annotations

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types

from augexplorer.stats.counting import channel_counts, matching_pixels
from augexplorer.stats.fill import fill_share
from augexplorer.stats.host import HostViews, cpu_views
from augexplorer.stats.pixels import OutputStats


def per_channel_counts(pixels: np.ndarray) -> np.ndarray:
    return np.stack([np.bincount(column, minlength=256) for column in pixels.T])


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("pixel_count", [0, 1, 2, 5, 4096 * 65 + 11])
def test_channel_counts_equal_bincount_per_channel(channels: int, pixel_count: int) -> None:
    rng = np.random.default_rng(channels * pixel_count)
    pixels = rng.integers(0, 256, (pixel_count, channels), dtype=np.uint8)
    counts = channel_counts(pixels.reshape(-1), channels)
    np.testing.assert_array_equal(counts, per_channel_counts(pixels).reshape(channels, 256))


def test_channel_counts_refuse_what_is_not_whole_uint8_pixels() -> None:
    with pytest.raises(ValueError, match="do not make pixels of 3 channels"):
        channel_counts(np.zeros(7, np.uint8), 3)
    with pytest.raises(ValueError, match="uint8"):
        channel_counts(np.zeros(6, np.int16), 3)


@pytest.mark.parametrize("step", [1, 2, 3])
@pytest.mark.parametrize("value", [[0], [7, 0, 7], [255, 255, 255]])
def test_matching_pixels_count_what_numpy_counts(step: int, value: list[int]) -> None:
    rng = np.random.default_rng(step)
    image = rng.integers(0, 2, (37, 41, 3), dtype=np.uint8) * np.uint8(7)
    image[5:20, 3:30] = value if len(value) == 3 else value * 3
    grid = image[::step, ::step]
    wanted = np.resize(np.array(value, np.uint8), 3)
    expected = int(np.count_nonzero((grid == wanted).all(axis=-1)))
    assert matching_pixels(image, np.array(value), step) == (
        expected,
        grid.shape[0] * grid.shape[1],
    )
    planar = np.ascontiguousarray(np.moveaxis(image, -1, 0))  # CHW: read through its strides
    share = fill_share(planar, 0, [float(v) for v in value], step=step)
    assert share == pytest.approx(expected / (grid.shape[0] * grid.shape[1]))


def ragged(shapes: list[tuple[int, ...]], seed: int = 3) -> HostViews:
    """Samples of these shapes one after the other in one buffer, as DALI holds a batch."""
    rng = np.random.default_rng(seed)
    flat = rng.integers(0, 256, sum(int(np.prod(shape)) for shape in shapes), dtype=np.uint8)
    views, offset = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        views.append(flat[offset : offset + size].reshape(shape))
        offset += size
    return HostViews(views, flat)


@pytest.mark.parametrize(
    ("shapes", "layout"),
    [
        ([(30, 50, 3), (64, 70, 3), (1, 1, 3)], "HWC"),
        ([(30, 50), (90, 91)], ""),
        ([(20, 20, 4), (0, 5, 4)], "HWC"),
        ([(3, 20, 30), (3, 10, 10)], "CHW"),  # channels first: counted sample by sample
    ],
)
def test_a_batch_in_one_buffer_counts_as_its_samples_do(
    shapes: list[tuple[int, ...]], layout: str
) -> None:
    batch = ragged(shapes)
    at_once, one_by_one = OutputStats("x", "x", "op"), OutputStats("x", "x", "op")
    at_once.add_batch(batch, layout)
    one_by_one.add_batch(list(batch), layout)
    assert at_once.histograms is not None and one_by_one.histograms is not None
    np.testing.assert_array_equal(at_once.histograms, one_by_one.histograms)
    assert (at_once.values, at_once.samples, at_once.shapes, at_once.clip_range) == (
        one_by_one.values,
        one_by_one.samples,
        one_by_one.shapes,
        one_by_one.clip_range,
    )
    np.testing.assert_array_equal(at_once.heights.mean, one_by_one.heights.mean)


def test_known_counts_are_used_only_where_they_count_the_batch() -> None:
    batch = ragged([(10, 12, 3), (7, 9, 3)])
    truth = per_channel_counts(batch.flat.reshape(-1, 3))  # type: ignore[union-attr]
    reused = OutputStats("x", "x", "flip")
    assert reused.add_batch(batch, "HWC", same_values=truth) is truth
    wrong = truth.copy()
    wrong[0, 0] += 1  # one value more than the batch holds: counted afresh
    recounted = OutputStats("x", "x", "flip")
    counts = recounted.add_batch(batch, "HWC", same_values=wrong)
    assert counts is not None and counts is not wrong
    np.testing.assert_array_equal(recounted.histograms, truth)


def run_once(crop: bool) -> object:
    @pipeline_def(batch_size=3, num_threads=1, device_id=None)
    def images():  # type: ignore[no-untyped-def]
        sides = fn.random.uniform(range=[8, 40], shape=[2], dtype=types.INT32, seed=5)
        shape = fn.cat(sides, fn.constant(idata=[3], dtype=types.INT32))
        noise = fn.random.uniform(range=[0, 255], shape=shape, seed=6)
        pixels = fn.cast(noise, dtype=types.UINT8)
        return fn.crop(pixels, crop=(6, 6)) if crop else pixels

    pipeline = images()
    pipeline.build()
    (batch,) = pipeline.run()
    return batch


@pytest.mark.parametrize("crop", [False, True], ids=["ragged", "dense"])
def test_cpu_views_are_dalis_samples_and_their_buffer(crop: bool) -> None:
    batch = run_once(crop)
    assert batch.is_dense_tensor() == crop  # type: ignore[attr-defined]
    views = cpu_views(batch)
    expected = [np.asarray(batch[index]) for index in range(len(batch))]  # type: ignore[arg-type]
    assert len(views) == len(expected) == 3
    for view, sample in zip(views, expected, strict=True):
        np.testing.assert_array_equal(view, sample)
    assert views.flat is not None
    np.testing.assert_array_equal(views.flat, np.concatenate([s.reshape(-1) for s in expected]))
    kept = views.first(2)
    assert len(kept) == 2 and kept.flat is not None
    assert kept.flat.size == expected[0].size + expected[1].size


def test_an_output_equal_to_its_input_has_its_counts_and_a_changed_one_its_own() -> None:
    from augexplorer.spec import Source, chain
    from augexplorer.stats import collect_stats

    rng = np.random.default_rng(11)
    images = [rng.integers(0, 256, (20 + i, 30, 3), dtype=np.uint8) for i in range(3)]
    spec = chain(
        Source("source", "arrays"),
        ("same", "brightness_contrast", {"brightness": 1.0, "contrast": 1.0}),
        ("dim", "brightness_contrast", {"brightness": 0.5}),
        batch_size=3,
    )
    stats = collect_stats(spec, (images, [0, 1, 2]), batches=2, device_id=None)
    read = np.concatenate([image.reshape(-1, 3) for image in images * 2])
    same, dim = stats.output("same"), stats.output("dim")
    assert same is not None and dim is not None and dim.histograms is not None
    np.testing.assert_array_equal(same.histograms, per_channel_counts(read))
    assert dim.histograms.sum() == read.size and dim.histograms[:, 129:].sum() == 0


def test_loops_compile_where_numba_finds_nowhere_to_cache_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """numba raises "cannot cache function ...: no locator available" on a read-only install
    under a user without a writable home: every statistics run failed there."""
    from augexplorer.stats import counting_loops

    numbas = counting_loops.njit

    def no_cache(**options: object) -> object:
        if options.get("cache"):
            raise RuntimeError("cannot cache function 'loop': no locator available")
        return numbas(**options)  # numba's own, without a cache

    monkeypatch.setattr(counting_loops, "njit", no_cache)

    def total(values: np.ndarray) -> int:
        return int(values.sum())

    compiled = counting_loops.compiled(total)
    monkeypatch.undo()
    assert compiled(np.arange(5)) == 10 and compiled.py_func is total


@pytest.mark.parametrize("channels", [1, 2, 4])
def test_matching_pixels_of_other_channel_counts(channels: int) -> None:
    rng = np.random.default_rng(channels)
    image = rng.integers(0, 2, (23, 19, channels), dtype=np.uint8)
    value = np.zeros(channels, np.uint8)
    for step in (1, 2):
        grid = image[::step, ::step]
        expected = int(np.count_nonzero((grid == value).all(axis=-1)))
        looked_at = grid.shape[0] * grid.shape[1]
        assert matching_pixels(image, value, step) == (expected, looked_at)
        # read through strides: the channels of a planar copy moved last
        planar = np.ascontiguousarray(np.moveaxis(image, -1, 0))
        assert matching_pixels(np.moveaxis(planar, 0, -1), value, step) == (expected, looked_at)
