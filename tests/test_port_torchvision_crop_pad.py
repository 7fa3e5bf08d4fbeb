"""RandomCrop on an image smaller than the crop, against real torchvision: with pad_if_needed
the image lands at a uniform offset over the shortfall (torchvision pads both sides by it),
without it the run fails as torchvision raises.

The image is a coordinate image (red = column, green = row, blue = 0), so that where it landed
in each crop is read off the pixels: the offset is where its first pixel is, minus the
coordinates that pixel holds.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import ks_statistic, ported, run

from augexplorer.errors import RunError
from augexplorer.port.torchvision.grades import PAD_IF_NEEDED
from augexplorer.spec import Node

HEIGHT, WIDTH = 40, 48  # the image; the crop is 64, so 24 rows and 16 columns short
DRAWS = 600
FILL = 255

# (ported transform, the offsets it can give: rows, columns)
CASES: dict[str, tuple[str, range, range]] = {
    "pad_if_needed": (f"T.RandomCrop(64, pad_if_needed=True, fill={FILL})", range(25), range(17)),
    # padded by 4 first (48 x 56), then by the shortfall that is left
    "padding_and_pad_if_needed": (
        f"T.RandomCrop(64, padding=4, pad_if_needed=True, fill={FILL})",
        range(4, 21),
        range(4, 13),
    ),
    # the padded image is large enough: the usual draw, the image partly out of the window
    "padding_fits": (f"T.RandomCrop((44, 30), padding=4, fill={FILL})", range(5), range(-22, 5)),
}

# offsets(), as below, where torchvision runs
THEIRS = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    import torchvision.transforms as T
    from PIL import Image
    job = json.load(open(sys.argv[1]))
    image = Image.open(job["image"]).convert("RGB")
    torch.manual_seed(1)
    out = {}
    for name, code in job["cases"].items():
        transform = eval(code, {"T": T})
        crops = [np.asarray(transform(image)) for _ in range(job["draws"])]
        found = []
        for crop in crops:
            rows, columns = np.nonzero(crop[..., 2] == 0)
            top, left = int(rows.min()), int(columns.min())
            found.append((top - int(crop[top, left, 1]), left - int(crop[top, left, 0])))
        out[name] = {"offsets": found, "crops": [c.tolist() for c in crops[:8]]}
    for name, code in job["failing"].items():
        try:
            eval(code, {"T": T})(image)
            out[name] = "ran"
        except ValueError as error:
            out[name] = str(error)
    print(json.dumps(out))
    """
)

FAILING = {"no_pad": "T.RandomCrop(64)", "padding_too_small": "T.RandomCrop(64, padding=4)"}


def coordinate_image(path: Path) -> Path:
    from PIL import Image

    Image.fromarray(placed((HEIGHT, WIDTH, 3), 0, 0)).save(path)  # PNG: the values stay as they are
    return path


def offsets(crops: list[np.ndarray]) -> np.ndarray:
    """Where the image's top-left pixel lies in each crop (rows, columns; negative where it
    was cut off)."""
    found = []
    for crop in crops:
        rows, columns = np.nonzero(crop[..., 2] == 0)
        top, left = int(rows.min()), int(columns.min())
        found.append((top - int(crop[top, left, 1]), left - int(crop[top, left, 0])))
    return np.asarray(found)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return coordinate_image(tmp_path_factory.mktemp("crop_pad") / "coordinates.png")


@pytest.fixture(scope="module")
def draws(
    reference_python: str, image: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("crop_pad_draws")
    job = tmp / "job.json"
    cases = {name: code for name, (code, _, _) in CASES.items()}
    job.write_text(
        json.dumps({"image": str(image), "cases": cases, "draws": DRAWS, "failing": FAILING})
    )
    out = subprocess.run(
        [reference_python, "-c", THEIRS, str(job)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    theirs = json.loads(out)
    found: dict[str, Any] = {"failing": {name: theirs[name] for name in FAILING}}
    for name, code in cases.items():
        ours = run(ported(code, [image] * DRAWS, tmp))
        found[name] = {
            "ours": ours,
            "theirs": [np.asarray(crop, np.uint8) for crop in theirs[name]["crops"]],
            "their_offsets": np.asarray(theirs[name]["offsets"]),
        }
    return found


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_image_lands_where_torchvision_puts_it(case: str, draws: dict[str, Any]) -> None:
    _, rows, columns = CASES[case]
    ours, theirs = offsets(draws[case]["ours"]), draws[case]["their_offsets"]
    # every offset torchvision can give, and no other, on both sides
    for axis, expected in ((0, rows), (1, columns)):
        assert set(ours[:, axis].tolist()) == set(expected), (case, axis)
        assert set(theirs[:, axis].tolist()) == set(expected), (case, axis)
        statistic, p = ks_statistic(ours[:, axis].tolist(), theirs[:, axis].tolist())
        assert p > 0.01, f"{case} axis {axis}: KS {statistic:.3f}, p {p:.3g}"


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_crop_holds_the_image_and_the_fill(case: str, draws: dict[str, Any]) -> None:
    """Each crop is the image at its offset on the fill, as torchvision's crops are."""
    for side in ("ours", "theirs"):
        crops = draws[case][side]
        for crop, (top, left) in zip(crops, offsets(crops), strict=True):
            np.testing.assert_array_equal(crop, placed(crop.shape, top, left), err_msg=side)


def placed(shape: tuple[int, ...], top: int, left: int) -> np.ndarray:
    """The coordinate image at (top, left) on the fill, cut to `shape`."""
    source = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    source[..., 0] = np.arange(WIDTH)[None, :]
    source[..., 1] = np.arange(HEIGHT)[:, None]
    expected = np.full(shape, FILL, np.uint8)
    y0, x0 = max(top, 0), max(left, 0)
    y1, x1 = min(top + HEIGHT, shape[0]), min(left + WIDTH, shape[1])
    expected[y0:y1, x0:x1] = source[y0 - top : y1 - top, x0 - left : x1 - left]
    return expected


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "node", "shape"),
    [
        ("no_pad", "random_crop", "[64, 64]"),
        ("padding_too_small", "random_crop_size_check", "[56, 56]"),
    ],
)
def test_an_image_smaller_than_the_crop_fails_as_in_torchvision(
    case: str, node: str, shape: str, image: Path, draws: dict[str, Any], tmp_path: Path
) -> None:
    assert "larger than input image size" in draws["failing"][case]  # torchvision's ValueError
    with pytest.raises(RunError) as raised:
        run(ported(FAILING[case], [image] * 4, tmp_path))
    assert raised.value.node == node
    # said in torchvision's words, with its own fix; DALI's text (the window it tried) beside it
    assert "torchvision RandomCrop(64" in str(raised.value)
    assert "pass pad_if_needed=True to RandomCrop" in str(raised.value)
    assert f"slice_shape={{{shape[1:-1].replace(', ', ' x ')} x 3}}" in raised.value.dali_message


def test_pad_if_needed_is_said_in_the_note(tmp_path: Path, image: Path) -> None:
    result = ported(CASES["pad_if_needed"][0], [image], tmp_path)
    crop = result.spec.node("random_crop")
    assert isinstance(crop, Node) and crop.origin is not None
    assert PAD_IF_NEEDED in crop.origin.differences
    plain = ported("T.RandomCrop(32)", [image], tmp_path).spec.node("random_crop")
    assert isinstance(plain, Node) and plain.origin is not None
    assert PAD_IF_NEEDED not in plain.origin.differences


def test_padding_modes_other_than_constant_are_refused_with_pad_if_needed(
    tmp_path: Path, image: Path
) -> None:
    result = ported(
        "T.RandomCrop(64, pad_if_needed=True, padding_mode='reflect')", [image], tmp_path
    )
    assert [r.call.name for r in result.refusals] == ["RandomCrop"]
    assert "padding_mode='reflect'" in result.refusals[0].reason


@pytest.mark.slow
def test_the_size_check_runs_only_where_random_apply_applies_the_crop(
    image: Path, tmp_path: Path
) -> None:
    """torchvision raises only when RandomApply's coin applies the crop: the ported check runs
    under the same coin (it ran on every sample, failing where the crop never applied)."""
    never = run(
        ported("T.RandomApply([T.RandomCrop(64, padding=4)], p=0.0)", [image] * 4, tmp_path)
    )
    for out in never:
        np.testing.assert_array_equal(out, placed((HEIGHT, WIDTH, 3), 0, 0))
    with pytest.raises(RunError) as raised:
        run(ported("T.RandomApply([T.RandomCrop(64, padding=4)], p=0.99)", [image] * 4, tmp_path))
    assert raised.value.node == "random_crop_size_check"
