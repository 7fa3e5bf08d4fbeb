"""Statistics over many draws and many images (augexplorer.stats), on real DALI (CPU)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from augexplorer.cli import main
from augexplorer.spec import GraphSpec, Node, Probability, Random, Ref, Source, chain
from augexplorer.stats import RunningMoments, collect_stats, wilson_interval
from augexplorer.stats.moments import moments_from_histograms

Z_999 = 3.29  # two-sided 99.9% normal quantile


def arrays_graph(*steps: tuple[str, str, dict], batch_size: int = 4) -> GraphSpec:
    return chain(Source("source", "arrays"), *steps, batch_size=batch_size)


def known_images() -> tuple[list[np.ndarray], list[int]]:
    rng = np.random.default_rng(7)
    shapes = [(12, 20), (16, 16), (10, 30)]
    images = [rng.integers(0, 256, (*shape, 3), dtype=np.uint8) for shape in shapes]
    return images, [0, 1, 1]


def read_order(count: int, batch_size: int, batches: int) -> list[int]:
    """The images an array source reads, in order: batches wrap around the list."""
    return [i % count for i in range(batch_size * batches)]


# ---- running sums ---------------------------------------------------------------------------
def test_running_moments_match_numpy_block_by_block() -> None:
    rng = np.random.default_rng(1)
    blocks = [rng.normal(100.0, 30.0, (3, n)) for n in (1, 50, 7, 1000)]
    moments = RunningMoments()
    for block in blocks:
        moments.add(block)
    everything = np.concatenate(blocks, axis=1)
    np.testing.assert_allclose(moments.mean, everything.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(moments.std, everything.std(axis=1), rtol=1e-10)
    np.testing.assert_array_equal(moments.min, everything.min(axis=1))
    np.testing.assert_array_equal(moments.max, everything.max(axis=1))
    assert list(moments.count) == [everything.shape[1]] * 3


def test_moments_from_histograms_are_exact() -> None:
    values = np.random.default_rng(2).integers(3, 250, (2, 5000))
    histograms = np.stack([np.bincount(row, minlength=256) for row in values])
    moments = moments_from_histograms(histograms)
    np.testing.assert_allclose(moments.mean, values.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(moments.std, values.std(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(moments.min, values.min(axis=1))
    np.testing.assert_array_equal(moments.max, values.max(axis=1))


def test_wilson_interval_holds_the_rate_and_narrows_with_trials() -> None:
    low, high = wilson_interval(30, 100)
    wide = high - low
    assert low < 0.3 < high
    low, high = wilson_interval(300, 1000)
    assert low < 0.3 < high and high - low < wide


def test_wilson_interval_holds_a_rate_of_none_or_all() -> None:
    """No success or every one: an end is the rate itself, never a rounding past it (the plot's
    error bars are the distances to the ends and must not be negative)."""
    for trials in range(1, 400):
        for successes in (0, trials):
            low, high = wilson_interval(successes, trials)
            assert low <= successes / trials <= high, (successes, trials)


# ---- node outputs against numpy ---------------------------------------------------------------
def test_node_figures_equal_numpy_over_every_sample_read() -> None:
    images, labels = known_images()
    spec = arrays_graph(
        ("flip", "flip", {"horizontal": 1}),
        (
            "normalize",
            "crop_mirror_normalize",
            {"mean": [10.0, 20.0, 30.0], "std": [2.0, 4.0, 8.0], "dtype": "FLOAT"},
        ),
        batch_size=2,
    )
    stats = collect_stats(spec, (images, labels), batches=3, device_id=None)
    order = read_order(len(images), 2, 3)
    read = [images[i] for i in order]
    pixels = np.concatenate([image.reshape(-1, 3) for image in read]).astype(np.float64)

    flipped = stats.output("flip")
    assert flipped is not None and flipped.samples == 6 and flipped.dtype == "uint8"
    np.testing.assert_allclose(flipped.moments.mean, pixels.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(flipped.moments.std, pixels.std(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(flipped.moments.min, pixels.min(axis=0))
    np.testing.assert_array_equal(flipped.moments.max, pixels.max(axis=0))
    assert flipped.high_share == pytest.approx(np.count_nonzero(pixels == 255) / pixels.size)
    heights = [image.shape[0] for image in read]
    widths = [image.shape[1] for image in read]
    assert flipped.heights.mean[0] == pytest.approx(np.mean(heights))
    assert flipped.widths.max[0] == max(widths)
    assert flipped.aspects.mean[0] == pytest.approx(np.mean(np.divide(widths, heights)))

    normalized = stats.output("normalize")
    assert normalized is not None and normalized.dtype == "float32"
    expected = (pixels - [10.0, 20.0, 30.0]) / [2.0, 4.0, 8.0]
    np.testing.assert_allclose(normalized.moments.mean, expected.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(normalized.moments.std, expected.std(axis=0), rtol=1e-5)
    np.testing.assert_allclose(normalized.moments.min, expected.min(axis=0), rtol=1e-5)

    (counts,) = stats.labels
    assert dict(counts.columns[0]) == {0: order.count(0), 1: order.count(1) + order.count(2)}


# ---- draws and branch rates -------------------------------------------------------------------
def tiny_images(count: int = 8, size: int = 4) -> list[np.ndarray]:
    return [np.full((size, size, 3), 30 * i % 256, dtype=np.uint8) for i in range(count)]


def test_apply_rate_of_p_03_over_4000_draws_is_inside_the_binomial_bound() -> None:
    spec = arrays_graph(("bright", "brightness", {"brightness": 1.5}), batch_size=100)
    spec = spec.set_probability("bright", Probability(0.3))
    stats = collect_stats(spec, tiny_images(), batches=40, device_id=None)
    rate = stats.rate("bright")
    assert rate.trials == 4000
    bound = Z_999 * np.sqrt(0.3 * 0.7 / 4000)
    assert abs(rate.rate - 0.3) < bound
    assert rate.agrees()
    assert not [w for w in stats.warnings if w.node == "bright"]


def test_nested_conditionals_run_together_at_the_product_of_their_probabilities() -> None:
    spec = arrays_graph(
        ("outer", "brightness", {"brightness": 1.2}),
        ("inner", "contrast", {"contrast": 0.8}),
        batch_size=100,
    )
    spec = spec.set_probability("outer", Probability(0.6)).set_probability(
        "inner", Probability(0.5)
    )
    stats = collect_stats(spec, tiny_images(), batches=40, device_id=None)
    nested = stats.rate("inner", nested=True)
    assert nested.together_with == ("outer",)
    assert nested.expected == pytest.approx(0.3)
    assert abs(nested.rate - 0.3) < Z_999 * np.sqrt(0.3 * 0.7 / nested.trials)
    assert abs(stats.rate("outer").rate - 0.6) < Z_999 * np.sqrt(0.6 * 0.4 / 4000)


def test_rare_branch_is_called_out_with_its_count() -> None:
    spec = arrays_graph(("rotate", "rotate", {"angle": 10.0}), batch_size=100)
    spec = spec.set_probability("rotate", Probability(0.001))
    stats = collect_stats(spec, tiny_images(), batches=20, device_id=None)
    rate = stats.rate("rotate")
    (warning,) = [w for w in stats.warnings if w.node == "rotate"]
    assert f"`rotate` ran on {rate.successes:,} of 2,000 samples" in warning.message
    assert warning.argument == "probability"


def test_random_argument_histogram_matches_its_declared_distribution() -> None:
    spec = arrays_graph(
        ("rotate", "rotate", {"angle": Random.uniform(-30, 30)}),
        ("flip", "flip", {"horizontal": Random.choice([0, 1], p=[0.8, 0.2])}),
        batch_size=100,
    )
    stats = collect_stats(spec, tiny_images(), batches=20, device_id=None)
    angle = stats.draw("rotate", "angle")
    assert angle.total == 2000 and angle.below == 0 and angle.above == 0
    assert angle.counts.sum() == 2000
    assert abs(angle.moments.mean[0]) < Z_999 * 60 / np.sqrt(12 * 2000)
    flip = stats.draw("flip", "horizontal")
    assert flip.values == (0.0, 1.0) and flip.other == 0
    share = flip.counts[1] / flip.total
    assert abs(share - 0.2) < Z_999 * np.sqrt(0.2 * 0.8 / 2000)


# ---- warnings ---------------------------------------------------------------------------------
def test_normalization_warning_for_0_1_mean_std_on_uint8_pixels() -> None:
    spec = arrays_graph(
        (
            "normalize",
            "crop_mirror_normalize",
            {"mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225], "dtype": "FLOAT"},
        )
    )
    images = [np.full((8, 8, 3), 120, dtype=np.uint8) + i for i in range(4)]
    stats = collect_stats(spec, images, batches=2, device_id=None)
    (warning,) = [w for w in stats.warnings if w.node == "normalize"]
    assert "0-1 values applied to 0-255 pixels" in warning.message
    assert warning.argument == "mean" and "255" in warning.fix
    assert "NOT normalized: mean or std far from 0 and 1" in stats.summary()


@pytest.mark.parametrize("name", ["imagenet_train", "imagenet_val"])
def test_imagenet_presets_normalize_quietly(name: str) -> None:
    stats = collect_stats(name, batches=2, batch_size=4, device_id=None)
    assert stats.output("normalize") is not None
    assert not [w for w in stats.warnings if w.node == "normalize"]
    assert stats.to_json()["outputs"][-1]["near_unit"] is True
    assert "normalized: mean near 0, std near 1" in stats.summary()


def test_fill_warning_for_a_large_rotation_on_a_fixed_canvas() -> None:
    wide = [np.full((24, 96, 3), 200, dtype=np.uint8) for _ in range(4)]
    spec = arrays_graph(
        (
            "rotate",
            "rotate",
            {"angle": Random.uniform(70, 110), "keep_size": True, "fill_value": 0.0},
        )
    )
    stats = collect_stats(spec, wide, batches=2, device_id=None)
    fill = stats.fill("rotate")
    assert fill is not None and fill.samples == 8 and fill.mean_share > 0.5
    (warning,) = [w for w in stats.warnings if w.node == "rotate"]
    assert "of samples after `rotate` are more than half fill" in warning.message
    assert warning.argument == "angle"


@pytest.mark.parametrize(("typed", "stored"), [(1e9, 255.0), (-5.0, 0.0)])
def test_a_fill_value_beyond_the_pixels_type_is_counted_as_dali_stores_it(
    typed: float, stored: float
) -> None:
    """DALI saturates the fill to uint8 (1e9 is 255, -5 is 0): the fill share is that of the
    value stored, not 0 because no pixel equals the number typed."""
    wide = [np.full((24, 96, 3), 100, dtype=np.uint8) for _ in range(4)]

    def share(fill: float) -> float:
        spec = arrays_graph(
            ("rotate", "rotate", {"angle": 90.0, "keep_size": True, "fill_value": fill})
        )
        figures = collect_stats(spec, wide, batches=1, device_id=None).fill("rotate")
        assert figures is not None
        return figures.mean_share

    assert share(stored) > 0.5
    assert share(typed) == share(stored)


def test_small_rotation_on_a_growing_canvas_is_quiet() -> None:
    spec = arrays_graph(("rotate", "rotate", {"angle": Random.uniform(-5, 5), "fill_value": 0.0}))
    stats = collect_stats(spec, tiny_images(4, 32), batches=2, device_id=None)
    fill = stats.fill("rotate")
    assert fill is not None and fill.mean_share < 0.2
    assert not stats.warnings


# ---- runs -------------------------------------------------------------------------------------
def test_same_spec_data_and_seeds_give_the_same_figures() -> None:
    def figures() -> dict:
        stats = collect_stats("basic", batches=2, batch_size=4, device_id=None)
        return {key: value for key, value in stats.to_json().items() if key != "seconds"}

    assert figures() == figures()


def test_cancel_stops_after_the_current_batch() -> None:
    cancel = threading.Event()
    seen: list[int] = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done == 2:
            cancel.set()

    stats = collect_stats(
        arrays_graph(("flip", "flip", {})),
        tiny_images(),
        batches=50,
        device_id=None,
        progress=progress,
        cancel=cancel,
    )
    assert stats.cancelled and stats.batches == 2 and seen == [1, 2]
    assert stats.output("flip").samples == 8  # type: ignore[union-attr]


def test_cli_writes_json_and_a_png_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, out_png = tmp_path / "stats.json", tmp_path / "stats.png"
    code = main(
        [
            "stats",
            "basic",
            "--batches",
            "2",
            "--batch-size",
            "4",
            "--json",
            str(out_json),
            "--plot",
            str(out_png),
        ]
    )
    assert code == 0
    figures = json.loads(out_json.read_text())
    assert figures["samples"] == 8 and figures["draws"][0]["node"] == "rotate"
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "rotate.angle" in capsys.readouterr().out


def test_cli_refuses_an_existing_output_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    existing = tmp_path / "stats.json"
    existing.write_text("keep")
    assert main(["stats", "basic", "--json", str(existing)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert existing.read_text() == "keep"


def test_the_engine_does_not_import_matplotlib() -> None:
    code = "import sys, augexplorer.stats; print('matplotlib' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_a_graph_that_fails_names_the_node() -> None:
    from augexplorer.errors import RunError

    spec = arrays_graph(("crop", "crop", {"crop": [64.0, 64.0]}))
    with pytest.raises(RunError) as raised:
        collect_stats(spec, tiny_images(), batches=2, device_id=None)
    assert raised.value.node == "crop"


def test_a_failure_on_a_later_batch_names_the_node_that_failed() -> None:
    from augexplorer.errors import RunError

    # the first batch (checked by the live engine) crops fine; the second holds small images
    images = tiny_images(4, size=80) + tiny_images(4, size=20)
    spec = arrays_graph(("crop", "crop", {"crop": [64.0, 64.0]}), ("flip", "flip", {}))
    with pytest.raises(RunError, match="out of bounds") as raised:
        collect_stats(spec, images, batches=2, device_id=None)
    assert raised.value.node == "crop"
    assert raised.value.dali_message.startswith("on batch 2 of the statistics run: ")


def test_a_failure_read_ahead_names_the_batch_it_was_on(tmp_path: Path) -> None:
    # A file reader runs a batch ahead while the last one is counted: the failure of the third
    # batch is still reported as the third's.
    from PIL import Image

    from augexplorer.errors import RunError

    for index in range(12):
        size = 20 if index >= 8 else 80
        pixels = np.full((size, size, 3), index * 20, np.uint8)
        Image.fromarray(pixels).save(tmp_path / f"{index:02d}.jpg")
    spec = chain(
        Source("source", "folder", str(tmp_path), shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("crop", "crop", {"crop": [64.0, 64.0]}),
        batch_size=4,
    )
    with pytest.raises(RunError, match="out of bounds") as raised:
        collect_stats(spec, batches=3, device_id=None)
    assert raised.value.node == "crop"
    assert raised.value.dali_message.startswith("on batch 3 of the statistics run: ")


def test_a_graph_with_no_random_argument_still_has_node_figures() -> None:
    spec = arrays_graph(("flip", "flip", {}))
    assert isinstance(spec.nodes[1], Node) and spec.outputs["images"] == Ref("flip")
    stats = collect_stats(spec, tiny_images(), batches=1, device_id=None)
    assert not stats.draws and not stats.rates and stats.output("flip") is not None


# ---- labels -----------------------------------------------------------------------------------
def test_multi_label_file_lists_are_counted_per_column(tmp_path: Path) -> None:
    from augexplorer.data import samples_dir

    photos = sorted(samples_dir().glob("*/*.jpg"))[:3]
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{photo} {i} {7 + i % 2}\n" for i, photo in enumerate(photos)))
    spec = chain(
        Source("source", "file_list", str(listing), shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        batch_size=3,
    )
    stats = collect_stats(spec, batches=2, device_id=None)
    (counts,) = stats.labels
    assert [dict(column) for column in counts.columns] == [{0: 2, 1: 2, 2: 2}, {7: 4, 8: 2}]


def test_a_starved_class_is_called_out() -> None:
    images = tiny_images(20)
    labels = [0] * 19 + [1]
    stats = collect_stats(
        arrays_graph(("flip", "flip", {}), batch_size=20),
        (images, labels),
        batches=3,
        device_id=None,
    )
    (warning,) = [w for w in stats.warnings if w.node == "source"]
    assert "class `1` is 5% of the 60 samples read" in warning.message


def test_a_session_gives_its_graph_and_data() -> None:
    from augexplorer import Session

    images, labels = known_images()
    session = Session(
        arrays_graph(("flip", "flip", {}), batch_size=3), (images, labels), device_id=None
    )
    stats = collect_stats(session, batches=2)
    assert stats.samples == 6 and stats.output("flip").samples == 6  # type: ignore[union-attr]


def test_a_node_under_a_condition_is_counted_where_its_condition_held() -> None:
    """if coin: flip, else: rotate (node conditions): each ran where its clause held, and
    together they cover every sample once."""
    from augexplorer.spec import Clause

    spec = (
        arrays_graph(
            ("flip", "flip", {"horizontal": 1}), ("rotate", "rotate", {"angle": 90.0}), batch_size=8
        )
        .insert_after(
            None, Node("coin", "random.coin_flip", args={"probability": 0.3}), rewire=False
        )
        .set_condition("flip", (Clause(Ref("coin")),))
        .set_condition("rotate", (Clause(Ref("coin"), holds=False),))
    )
    stats = collect_stats(spec, known_images()[0], batches=40, device_id=None)
    flipped = stats.rate("flip", "when")
    rotated = stats.rate("rotate", "when")
    assert flipped.trials == rotated.trials == 320
    assert flipped.successes + rotated.successes == 320
    assert abs(flipped.rate - 0.3) < Z_999 * np.sqrt(0.3 * 0.7 / flipped.trials)
    assert flipped.expected is None and "coin" in flipped.what


def test_branches_that_never_run_together_are_no_finding() -> None:
    # found in a newcomer's trial: a OneOf's branches (exclusive conditions, after one another in
    # the graph) were warned of as "its condition almost never holds", three times over
    pytest.importorskip("albumentations")
    from augexplorer.port.albumentations import port
    from augexplorer.port.reading import read_source
    from augexplorer.spec import Source

    (found,) = read_source(
        "import albumentations as A\n"
        "t = A.Compose([A.OneOf([A.Blur(p=1), A.MotionBlur(p=1), A.HorizontalFlip(p=1)], p=0.9)])\n"
    )
    spec = port(found.compose, batch_size=50).spec
    spec = spec.with_source(Source("reader", "arrays")).remove("decode")
    stats = collect_stats(spec, tiny_images(size=16), batches=4, device_id=None)
    assert any(rate.together_with and rate.successes == 0 for rate in stats.rates)
    assert not [w for w in stats.warnings if "almost never" in str(w)], stats.warnings


@pytest.mark.parametrize("batches", [5, 10])
def test_the_readers_padding_is_not_counted(batches: int) -> None:
    """19 photos in batches of 4: the reader pads each epoch's fifth batch with a repeat of its
    last file, which training's loader drops on one rank. Counted, it made "20 samples" of 19
    and one class one image larger than the folder holds."""
    from collections import Counter

    from augexplorer.data import samples_dir

    folder = samples_dir()
    photos = sorted(folder.glob("*/*.jpg"))
    on_disk = Counter(photo.parent.name for photo in photos)
    spec = chain(
        Source("source", "folder", str(folder), shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        batch_size=4,
    )
    stats = collect_stats(spec, batches=batches, device_id=None)
    epochs = batches // 5
    assert stats.samples == len(photos) * epochs == 19 * epochs
    (counts,) = stats.labels
    classes = sorted(on_disk)  # DALI numbers the class folders in sorted order
    assert {classes[label]: n for label, n in counts.columns[0].items()} == {
        name: n * epochs for name, n in on_disk.items()
    }
    assert all(output.samples == 19 * epochs for output in stats.outputs)
    assert "less the reader's padding" in stats.summary()
