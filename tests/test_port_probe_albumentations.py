"""Probe findings in the albumentations port, each against albumentations 2.0.8 itself: crops
larger than the image (RandomSizedCrop clips its window; RandomCrop pads where asked),
INTER_AREA resizes, and transforms that leave the image as it is."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from augexplorer.engine import Session
from augexplorer.port.albumentations import port
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.spec import Source

A = pytest.importorskip("albumentations")
cv2 = pytest.importorskip("cv2")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")


def _ported(code: str, batch: int) -> PortResult:
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    return port(found.compose, batch_size=batch)


def _run(code: str, images: list[np.ndarray]) -> list[np.ndarray]:
    """The port of `code` on `images` (arrays, HWC uint8 RGB), in order."""
    result = _ported(code, len(images))
    assert not result.refusals, [r.describe() for r in result.refusals]
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    session = Session(spec, data=(images, [0] * len(images)), device_id=None)
    return [np.asarray(a) for a in session.run().arrays(spec.outputs["images"])]


def _theirs(code: str, images: list[np.ndarray]) -> list[np.ndarray]:
    transform = A.Compose([eval(code, {"A": A, "cv2": cv2})])  # the test's own literal
    return [transform(image=image)["image"] for image in images]


def _coordinates(height: int, width: int) -> np.ndarray:
    """Red is the column, green the row (mod 256), blue a ramp: a window shows where it was."""
    image = np.zeros((height, width, 3), np.uint8)
    image[..., 0] = (np.arange(width) % 256).astype(np.uint8)[None, :]
    image[..., 1] = (np.arange(height) % 256).astype(np.uint8)[:, None]
    image[..., 2] = ((np.arange(height)[:, None] + np.arange(width)[None, :]) % 256).astype(
        np.uint8
    )
    return image


def test_random_sized_crop_taller_than_the_image_is_clipped_to_it() -> None:
    """min_max_height (200, 300) on images under 200 px: albumentations' get_crop_coords
    crops the whole image (min(crop, side)), then resizes; the port failed "the window
    crop_w ... reaches outside the image"."""
    code = "A.RandomSizedCrop(min_max_height=(200, 300), size=(256, 256), p=1.0)"
    images = [_coordinates(150, 180), _coordinates(120, 190), _coordinates(199, 64)]
    for ours, theirs in zip(_run(code, images), _theirs(code, images), strict=True):
        assert ours.shape == theirs.shape == (256, 256, 3)
        assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1


def test_random_sized_crop_clips_one_side_and_draws_along_the_other() -> None:
    """120 rows, 250 columns: every row kept, 200-250 of the columns, as albumentations."""
    code = "A.RandomSizedCrop(min_max_height=(200, 300), size=(64, 64), p=1.0)"
    images = [_coordinates(120, 250)] * 16
    for ours in _run(code, images):
        assert ours.shape == (64, 64, 3)
        # green is the row: the top row is row 0, the bottom row 119 (every row kept)
        assert ours[0, :, 1].max() <= 2 and ours[-1, :, 1].min() >= 117
        # red is the column: 200 to 250 columns (less a few at the resized edges)
        span = int(ours[:, -1, 0].mean()) - int(ours[:, 0, 0].mean())
        assert 190 <= span <= 250


def _photos() -> list[np.ndarray]:
    from port_parity import sample_images

    return [cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB) for p in sample_images(19)]


def _mean_max(ours: list[np.ndarray], theirs: list[np.ndarray]) -> tuple[float, int]:
    assert [a.shape for a in ours] == [b.shape for b in theirs]
    diffs = [np.abs(a.astype(int) - b.astype(int)) for a, b in zip(ours, theirs, strict=True)]
    return float(np.concatenate([d.ravel() for d in diffs]).mean()), max(
        int(d.max()) for d in diffs
    )


@pytest.mark.parametrize(
    ("code", "mean_bound", "max_bound"),
    [
        # every photo shrinks (the smallest is 150 x 120)
        ("A.Resize(120, 90, interpolation=cv2.INTER_AREA)", 1.49, 41),
        ("A.Resize(64, 64, interpolation=cv2.INTER_AREA)", 1.93, 44),
        # every photo grows (the largest is 427 x 640)
        ("A.Resize(1024, 1024, interpolation=cv2.INTER_AREA)", 2.29, 119),
        # the probe's pipeline: some photos shrink, some grow, two by exactly half
        ("A.LongestMaxSize(max_size=256, interpolation=cv2.INTER_AREA)", 0.96, 60),
    ],
)
def test_inter_area_is_antialiased_linear_within_its_measured_figures(
    code: str, mean_bound: float, max_bound: int
) -> None:
    """INTER_AREA was refused, and the resize dropped; it is DALI's antialiased linear, graded
    approximate with the figures measured here (the grade sentence quotes them)."""
    photos = _photos()
    result = _ported(code, len(photos))
    (step,) = result.steps
    assert step.origin.fidelity == "approximate"
    assert "INTER_AREA" in " ".join(step.origin.differences)
    mean, worst = _mean_max(_run(code, photos), _theirs(code, photos))
    assert mean <= mean_bound + 0.005 and worst <= max_bound
    assert mean > mean_bound - 0.3  # the grade does not overstate the difference either


def test_inter_area_shrinks_closer_than_plain_linear_would() -> None:
    """Why antialiased linear: plain INTER_LINEAR is twice as far from OpenCV's INTER_AREA
    where every photo shrinks by a factor that is not a whole fraction."""
    photos = _photos()
    code = "A.Resize(120, 90, interpolation=cv2.INTER_AREA)"
    ours, theirs = _run(code, photos), _theirs(code, photos)
    linear = _theirs("A.Resize(120, 90)", photos)
    assert _mean_max(ours, theirs)[0] < 0.6 * _mean_max(linear, theirs)[0]


@pytest.mark.parametrize(
    "options",
    [
        "",
        "fill=17",
        "border_mode=cv2.BORDER_REFLECT_101",
        "border_mode=cv2.BORDER_REPLICATE, pad_position='top_left'",
        "border_mode=cv2.BORDER_REFLECT, pad_position='bottom_right'",
    ],
)
def test_random_crop_pads_an_image_smaller_than_it_as_albumentations(options: str) -> None:
    """pad_if_needed=True was refused ("crop with out_of_bounds_policy='pad' by hand"). An
    image smaller than the crop both ways is padded to exactly its size: one window, the same
    pixels as albumentations' (its pad_position, border_mode and fill)."""
    code = f"A.RandomCrop(height=256, width=256, pad_if_needed=True, {options})"
    images = [_coordinates(150, 180), _coordinates(201, 97), _coordinates(256, 255)]
    result = _ported(code, len(images))
    (step,) = result.steps
    assert step.origin.fidelity == "distribution"
    for ours, theirs in zip(_run(code, images), _theirs(code, images), strict=True):
        assert ours.shape == theirs.shape == (256, 256, 3)
        assert np.array_equal(ours, theirs)


def test_random_crop_pads_one_side_and_draws_the_window_along_the_other() -> None:
    """300 rows, 200 columns, a 256 crop: the columns padded (28 each side, centred), the
    window's rows drawn: each output is a window of albumentations' padded image."""
    code = "A.RandomCrop(256, 256, pad_if_needed=True, border_mode=cv2.BORDER_REFLECT_101)"
    image = _coordinates(300, 200)
    padded = A.PadIfNeeded(256, 256, border_mode=cv2.BORDER_REFLECT_101)(image=image)["image"]
    assert padded.shape == (300, 256, 3)
    tops = set()
    for ours in _run(code, [image] * 12):
        (top,) = [y for y in range(45) if np.array_equal(ours, padded[y : y + 256])]
        tops.add(top)
    assert len(tops) > 3  # drawn per image


def test_center_crop_pads_as_albumentations() -> None:
    code = "A.CenterCrop(256, 256, pad_if_needed=True, border_mode=cv2.BORDER_REFLECT_101)"
    images = [_coordinates(150, 180), _coordinates(300, 201), _coordinates(97, 400)]
    for ours, theirs in zip(_run(code, images), _theirs(code, images), strict=True):
        assert np.array_equal(ours, theirs)


def test_random_crop_random_pad_position_is_refused_naming_it() -> None:
    code = "A.RandomCrop(256, 256, pad_if_needed=True, pad_position='random')"
    (refusal,) = _ported(code, 2).refusals
    assert "pad_position='random'" in refusal.reason


@pytest.mark.parametrize("code", ["A.ToRGB()", "A.ToRGB(num_output_channels=3, p=0.5)"])
def test_to_rgb_on_the_graphs_rgb_images_is_nothing_to_do(code: str) -> None:
    """2.0.8's ToRGB returns a 3-channel image as it is (with a warning): no node, exact."""
    result = _ported(code, 2)
    assert not result.refusals, [r.describe() for r in result.refusals]
    (step,) = result.steps
    assert step.nodes == () and step.origin.fidelity == "exact"
    images = _photos()[:4]
    for ours, theirs, image in zip(_run(code, images), _theirs(code, images), images, strict=True):
        assert np.array_equal(ours, theirs) and np.array_equal(theirs, image)


def test_a_clipped_random_sized_crop_places_its_window_as_albumentations() -> None:
    """Rows clipped to the image's 120 (every draw of 130-200), the width drawn and placed:
    the window's first column drawn alike (two-sample KS over 320 draws a side)."""
    from test_port_albumentations_draws import _same_distribution

    code = "A.RandomSizedCrop((130, 200), size=(64, 64), interpolation=cv2.INTER_NEAREST_EXACT)"
    image = _coordinates(120, 250)
    _same_distribution(code, image, lambda out: float(out[0, 0, 0]))
    _same_distribution(code, image, lambda out: float(out[0, -1, 0]) - float(out[0, 0, 0]))


def test_a_padded_random_crop_places_its_window_as_albumentations() -> None:
    """Padded to 256 columns (28 each side), 300 rows: the window's top row drawn alike."""
    from test_port_albumentations_draws import _same_distribution

    code = "A.RandomCrop(256, 256, pad_if_needed=True)"
    _same_distribution(code, _coordinates(300, 200), lambda out: float(out[0, 40, 1]))


def test_the_exported_loader_runs_random_sized_crop_on_small_images(tmp_path: Path) -> None:
    """The probe's exported loader failed with DALI's raw error on images under 300 px: the
    module exported from the port gives albumentations' pixels there."""
    from exported_runner import run_exported
    from port_parity import file_list

    from augexplorer.export import export
    from augexplorer.port.build import DataSource

    code = "A.RandomSizedCrop(min_max_height=(200, 300), size=(256, 256), p=1.0)"
    images = [_coordinates(150, 180), _coordinates(120, 190)]
    paths = []
    for index, image in enumerate(images):
        paths.append(tmp_path / f"small{index}.png")
        cv2.imwrite(str(paths[-1]), cv2.cvtColor(image, cv2.COLOR_RGB2BGR))
    listed = file_list(paths, tmp_path)
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    data = DataSource("file_list", str(listed), shuffle=False)
    result = port(found.compose, data=data, batch_size=len(images))
    module = export(result.spec, tmp_path / "small_loader.py")
    job = {
        "name": "small",
        "module": str(module),
        "out": str(tmp_path / "small.npz"),
        "batch_size": len(images),
        "device": "cpu",
        "data": str(listed),
    }
    outputs = run_exported([job], tmp_path)["small"]
    theirs = _theirs(code, images)
    for index, expected in enumerate(theirs):
        ours = outputs[f"0_{index}"]
        assert ours.shape == expected.shape == (256, 256, 3)
        assert np.abs(ours.astype(int) - expected.astype(int)).max() <= 1


@pytest.mark.parametrize(
    "code",
    [
        "A.Affine(scale=(0.7, 0.7), rotate=(15, 15), interpolation=cv2.INTER_AREA, p=1)",
        "A.Rotate(limit=(17, 17), interpolation=cv2.INTER_AREA, p=1)",
        "A.ShiftScaleRotate((0.05, 0.05), (-0.3, -0.3), (10, 10), interpolation=cv2.INTER_AREA, "
        "border_mode=0, p=1)",
        "A.SafeRotate((25, 25), interpolation=cv2.INTER_AREA, p=1)",
    ],
)
def test_an_affine_warp_given_inter_area_is_linear_as_opencvs(code: str) -> None:
    """OpenCV's warpAffine reads INTER_AREA as INTER_LINEAR: the port warps linearly, exact
    (the same bound as INTER_LINEAR's), where it refused."""
    photos = _photos()[:6]
    result = _ported(code, len(photos))
    assert {step.origin.fidelity for step in result.steps} == {"exact"}
    mean, worst = _mean_max(_run(code, photos), _theirs(code, photos))
    assert mean <= 0.01 and worst <= 1, (mean, worst)


@pytest.mark.parametrize("limit", [0.3, -0.29, 0.29, -0.37, 0.15])
def test_random_scale_of_a_fixed_factor_sizes_as_albumentations(limit: float) -> None:
    """albumentations floors height * scale in float64: in float32, 1.3 times 180 rows is
    233.99998 and the port gave 233 where albumentations gives 234 (found measuring the
    INTER_AREA figures on the 19 photos)."""
    rng = np.random.default_rng(3)
    shapes = [(180, 240), (240, 180), (100, 300), (327, 190)]
    shapes += [(int(h), int(w)) for h, w in rng.integers(20, 700, (60, 2))]
    images = [np.zeros((h, w, 3), np.uint8) for h, w in shapes]
    code = f"A.RandomScale(({limit}, {limit}), p=1)"
    ours = [a.shape for a in _run(code, images)]
    theirs = [a.shape for a in _theirs(code, images)]
    wrong = [(s, o, t) for s, o, t in zip(shapes, ours, theirs, strict=True) if o != t]
    assert not wrong, wrong


@pytest.mark.parametrize(
    ("code", "mean_bound", "max_bound"),
    [
        # every photo shrinks: INTER_AREA throughout
        ("A.SmallestMaxSize(max_size=100, area_for_downscale='image')", 1.29, 44),
        # some shrink (INTER_AREA there), some grow (INTER_LINEAR there)
        ("A.LongestMaxSize(max_size=256, area_for_downscale='image')", 0.63, 43),
        ("A.RandomScale((-0.45, -0.45), area_for_downscale='image_mask', p=1)", 0.92, 43),
    ],
)
def test_area_for_downscale_of_a_uniform_scale_is_antialiased_linear(
    code: str, mean_bound: float, max_bound: int
) -> None:
    """One factor for both sides: albumentations' INTER_AREA where it is below 1, INTER_LINEAR
    where not, is what DALI's antialiased linear does (it antialiases only what shrinks)."""
    photos = _photos()
    (step,) = _ported(code, len(photos)).steps
    assert step.origin.fidelity == "approximate"
    assert "area_for_downscale" in " ".join(step.origin.differences)
    mean, worst = _mean_max(_run(code, photos), _theirs(code, photos))
    assert mean <= mean_bound + 0.005 and worst <= max_bound
    assert mean > mean_bound - 0.3


def test_area_for_downscale_where_every_photo_grows_is_exact_linear() -> None:
    photos = _photos()
    code = "A.SmallestMaxSize(max_size=600, area_for_downscale='image')"
    mean, worst = _mean_max(_run(code, photos), _theirs(code, photos))
    assert mean <= 0.15 and worst <= 1
