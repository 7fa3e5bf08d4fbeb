"""What ported random transforms draw against what torchvision draws, over many samples: crop
and erasing windows by two-sample Kolmogorov-Smirnov tests, coins and picks by their rates."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import ks_statistic, ported, sample_images

from augexplorer import Session
from augexplorer.spec import Ref

REPEAT = 40  # 12 images x 40 = 480 draws per side

THEIRS = textwrap.dedent(
    """
    import json, sys, torch
    import torchvision.transforms as T
    torch.manual_seed(1)
    shapes = json.load(open(sys.argv[1]))
    crop, erase, resized, shift = [], [], [], []
    for h, w in shapes:
        crop.append(T.RandomCrop.get_params(torch.zeros(3, h + 8, w + 8), (120, 120)))
        i, j, eh, ew, _ = T.RandomErasing.get_params(
            torch.zeros(3, 120, 120), scale=(0.02, 0.33), ratio=(0.3, 3.3), value=[0]
        )
        erase.append((eh, ew))
        i, j, rh, rw = T.RandomResizedCrop.get_params(
            torch.zeros(3, h, w), scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)
        )
        resized.append((rh, rw))
        _, (tx, ty), _, _ = T.RandomAffine.get_params((0, 0), (0.1, 0.2), None, None, [w, h])
        shift.append((tx, ty))
    print(json.dumps({"crop": crop, "erase": erase, "resized": resized, "shift": shift}))
    """
)


@pytest.fixture(scope="module")
def draws(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("draws")
    images = sample_images(12) * REPEAT
    result = ported(
        "T.RandomAffine(0, translate=(0.1, 0.2)), T.RandomCrop(120, padding=4), T.ToTensor(), "
        "T.RandomErasing(p=1.0)",
        images,
        tmp,
    )
    session = Session(result.spec, device_id=None).run()
    shapes = [np.asarray(a).shape[:2] for a in session.arrays("decode")]
    (tmp / "shapes.json").write_text(json.dumps([list(map(int, s)) for s in shapes]))
    out = subprocess.run(
        [reference_python, "-c", THEIRS, str(tmp / "shapes.json")],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    theirs = {k: np.asarray(v, dtype=np.float64) for k, v in json.loads(out).items()}
    ours = {
        "crop": np.asarray([np.asarray(a) for a in session.arrays("crop_start_int")]) + 4,
        "erase": np.asarray([np.asarray(a) for a in session.arrays(Ref("erase_window", 1))]),
        "resized": _dali_resized_crop_windows(shapes),
        "shapes": np.asarray(shapes, dtype=np.float64),
        "shift": np.asarray([np.asarray(a) for a in session.arrays("translate_offset")]),
    }
    return {"ours": ours, "theirs": theirs}


def _dali_resized_crop_windows(shapes: list[tuple[int, int]]) -> np.ndarray:
    """The windows DALI's crop-window generator draws with RandomResizedCrop's arguments (the
    generator random_resized_crop draws with), one per image shape."""
    from nvidia.dali import fn, pipeline_def, types

    shape_data = [np.asarray([h, w], dtype=np.int64) for h, w in shapes]

    @pipeline_def(batch_size=len(shapes), num_threads=1, device_id=None, seed=7)
    def windows():  # type: ignore[no-untyped-def]
        shape = fn.external_source(source=lambda: shape_data, batch=True, dtype=types.INT64)
        _, size = fn.random_crop_generator(
            shape, random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3], num_attempts=10
        )
        return size

    pipe = windows()
    pipe.build()
    (sizes,) = pipe.run()
    return np.asarray([np.asarray(s) for s in sizes], dtype=np.float64)


@pytest.mark.slow
def test_random_crop_corners_are_drawn_as_torchvision_draws_them(draws: dict[str, Any]) -> None:
    ours, theirs = draws["ours"]["crop"], draws["theirs"]["crop"]
    shapes = draws["ours"]["shapes"]
    room = shapes + 8 - 120
    for axis in (0, 1):
        statistic, p = ks_statistic(ours[:, axis] / room[:, axis], theirs[:, axis] / room[:, axis])
        assert p > 0.01, f"axis {axis}: KS {statistic:.3f}, p {p:.3g}"
    assert ours.min() >= 0 and (ours <= room).all()


@pytest.mark.slow
def test_erased_windows_are_drawn_as_torchvision_draws_them(draws: dict[str, Any]) -> None:
    ours, theirs = draws["ours"]["erase"], draws["theirs"]["erase"]
    area = 120.0 * 120.0
    statistic, p = ks_statistic(ours.prod(axis=1) / area, theirs.prod(axis=1) / area)
    assert p > 0.01, f"area: KS {statistic:.3f}, p {p:.3g}"
    statistic, p = ks_statistic(
        np.log(ours[:, 0] / ours[:, 1]), np.log(theirs[:, 0] / theirs[:, 1])
    )
    assert p > 0.01, f"aspect: KS {statistic:.3f}, p {p:.3g}"


@pytest.mark.slow
def test_resized_crop_windows_are_drawn_as_torchvision_draws_them(draws: dict[str, Any]) -> None:
    ours, theirs = draws["ours"]["resized"], draws["theirs"]["resized"]
    area = draws["ours"]["shapes"].prod(axis=1)
    statistic, p = ks_statistic(ours.prod(axis=1) / area, theirs.prod(axis=1) / area)
    assert p > 0.01, f"area: KS {statistic:.3f}, p {p:.3g}"
    statistic, p = ks_statistic(
        np.log(ours[:, 1] / ours[:, 0]), np.log(theirs[:, 1] / theirs[:, 0])
    )
    assert p > 0.01, f"aspect: KS {statistic:.3f}, p {p:.3g}"


@pytest.mark.slow
def test_coins_and_picks_follow_the_probabilities(tmp_path: Path) -> None:
    images = sample_images(12) * REPEAT
    result = ported(
        "T.RandomApply([T.RandomInvert(p=1.0)], p=0.3), "
        "T.RandomChoice([T.RandomVerticalFlip(1.0), T.RandomHorizontalFlip(1.0)], p=[1, 3])",
        images,
        tmp_path,
    )
    session = Session(result.spec, device_id=None).run()
    coins = np.asarray([bool(np.asarray(a)) for a in session.arrays("random_apply")])
    picks = np.asarray([int(np.asarray(a)) for a in session.arrays("random_choice")])
    n = len(images)
    # within 4 standard deviations of the binomial rate
    assert abs(coins.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / n), coins.mean()
    assert abs((picks == 1).mean() - 0.75) < 4 * np.sqrt(0.75 * 0.25 / n), picks.mean()
    inverted = session.arrays("invert")
    decoded = session.arrays("decode")
    for index in range(8):  # an inverted image where the coin fell, the image elsewhere
        expected = 255 - np.asarray(decoded[index]) if coins[index] else np.asarray(decoded[index])
        np.testing.assert_array_equal(np.asarray(inverted[index]), expected)


@pytest.mark.slow
def test_affine_translations_are_drawn_as_torchvision_draws_them(draws: dict[str, Any]) -> None:
    ours, theirs = draws["ours"]["shift"], draws["theirs"]["shift"]
    width_height = draws["ours"]["shapes"][:, ::-1]
    for axis, limit in ((0, 0.1), (1, 0.2)):
        scaled = (ours[:, axis] / width_height[:, axis], theirs[:, axis] / width_height[:, axis])
        statistic, p = ks_statistic(*scaled)
        assert p > 0.01, f"axis {axis}: KS {statistic:.3f}, p {p:.3g}"
        assert np.all(np.abs(ours[:, axis]) <= np.round(limit * width_height[:, axis]))
