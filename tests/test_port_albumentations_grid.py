"""albumentations' XYMasking ported, against real albumentations (2.0.8) in the reference
environment (``AUGEXPLORER_REFERENCE_PYTHON``): the stripes are whole rows and columns filled
as albumentations fills them, and they are drawn as albumentations draws them (two-sample KS
over 320 draws a side, on which columns and rows are erased)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
from port_parity import ks_statistic

from augexplorer.engine import Session
from augexplorer.port.albumentations import port
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.spec import Source

BATCH, ROUNDS = 40, 8  # 320 draws a side
P_VALUE = 0.01
HEIGHT, WIDTH = 200, 300

REFERENCE = textwrap.dedent(
    """
    import json, sys
    import numpy as np, cv2
    import albumentations as A

    job = json.load(open(sys.argv[1]))
    out = {}
    for name, code in job["draws"].items():
        image = np.full((*job["sizes"][name], 3), 255, np.uint8)
        transform = A.Compose([eval(code, {"A": A, "cv2": cv2})])
        transform.set_random_seed(7)
        out[name] = np.stack(
            [transform(image=image)["image"] for _ in range(job["count"])]
        )
    np.savez_compressed(sys.argv[2], **out)
    """
)

DRAWS = {
    "columns": "A.XYMasking(num_masks_x=(1, 3), mask_x_length=(10, 20), p=1)",
    # one stripe: its width is its length, drawn among 10, 11 and 12
    "one": "A.XYMasking(num_masks_x=(1, 1), mask_x_length=(10, 12), p=1)",
    # single numbers are ranges from 0 (albumentations' schema widens them), a fill per channel
    "both": (
        "A.XYMasking(num_masks_x=2, num_masks_y=(1, 2), mask_x_length=(0, 30), "
        "mask_y_length=15, fill=(10, 20, 30), p=1)"
    ),
}
XY_MASKING = sorted(DRAWS)
GRID_DROPOUT = {
    "grid_default": "A.GridDropout(p=1)",
    "grid_default_small": "A.GridDropout(p=1)",
    "grid_units": "A.GridDropout(ratio=0.3, unit_size_range=(10, 30), p=1)",
    # a grid whose parts are uneven (57 = 4 * 14 + 1, 91 = 7 * 13): their order is drawn
    "grid_counts": (
        "A.GridDropout(ratio=0.4, holes_number_xy=(4, 7), random_offset=False, shift_xy=(3, 2), "
        "fill=(10, 20, 30), p=1)"
    ),
    # an even grid and a fixed shift: nothing is drawn, the same pixels
    "grid_fixed": (
        "A.GridDropout(ratio=0.4, holes_number_xy=(10, 10), random_offset=False, "
        "shift_xy=(3, 2), p=1)"
    ),
}
DRAWS.update(GRID_DROPOUT)
SIZES = {"grid_default_small": (57, 91), "grid_counts": (57, 91), "grid_units": (120, 170)}


def _ported(code: str, **data: object) -> PortResult:
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose, **data)  # type: ignore[arg-type]
    assert not result.refusals, [r.describe() for r in result.refusals]
    return result


def _theirs(python: str, tmp: Path) -> dict[str, np.ndarray]:
    job = tmp / "job.json"
    count = BATCH * ROUNDS
    sizes = {name: SIZES.get(name, (HEIGHT, WIDTH)) for name in DRAWS}
    job.write_text(json.dumps({"draws": DRAWS, "sizes": sizes, "count": count}))
    subprocess.run(
        [python, "-c", REFERENCE, str(job), str(tmp / "reference.npz")],
        check=True,
        timeout=600,
        capture_output=True,
    )
    found = np.load(tmp / "reference.npz")
    return {name: found[name] for name in DRAWS}


def _ours(code: str, size: tuple[int, int] = (HEIGHT, WIDTH)) -> np.ndarray:
    result = _ported(code, batch_size=BATCH)
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    white = np.full((*size, 3), 255, np.uint8)
    session = Session(spec, data=([white] * BATCH, [0] * BATCH), device_id=None)
    found: list[np.ndarray] = []
    ran = session.run()
    for _ in range(ROUNDS):
        found += [np.asarray(out) for out in ran.arrays(spec.outputs["images"])]
        ran = session.reroll()
    return np.stack(found)


@pytest.fixture(scope="module")
def albumentations_stripes(
    reference_python: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, np.ndarray]:
    return _theirs(reference_python, tmp_path_factory.mktemp("xy_masking"))


def _stripes(images: np.ndarray, fill: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Which columns and rows each image has erased whole; fails unless every pixel is either
    the white it was or the fill, and every filled pixel lies in a filled row or column."""
    filled = (images == np.asarray(fill, np.uint8)).all(axis=-1)
    white = (images == 255).all(axis=-1)
    assert (filled | white).all()
    columns, rows = filled.all(axis=1), filled.all(axis=2)
    assert (filled == (columns[:, None, :] | rows[:, :, None])).all()
    return columns, rows


def _first(marks: np.ndarray) -> np.ndarray:
    """The first erased column (or row) of each image, -1 where none is."""
    return np.where(marks.any(axis=1), marks.argmax(axis=1), -1)


@pytest.mark.parametrize("name", XY_MASKING)
def test_xy_masking_draws_its_stripes_as_albumentations(
    name: str, albumentations_stripes: dict[str, np.ndarray]
) -> None:
    code = DRAWS[name]
    fill = (10, 20, 30) if "fill=" in code else (0, 0, 0)
    ours = _stripes(_ours(code), fill)
    theirs = _stripes(albumentations_stripes[name], fill)
    for axis, (mine, real) in zip(("columns", "rows"), zip(ours, theirs, strict=True), strict=True):
        if not real.any():
            assert not mine.any(), f"{code}: the port erases {axis}"
            continue
        for what, measure in (("share", lambda m: m.mean(axis=1)), ("first", _first)):
            statistic, p = ks_statistic(measure(mine), measure(real))
            assert p > P_VALUE, f"{code}, {axis} {what}: KS {statistic:.3f}, p {p:.2g}"
    # the draws vary: a fixed stripe on both sides would pass the tests above
    assert len({tuple(np.flatnonzero(c)) for c in ours[0]}) > 20


def test_xy_masking_draws_a_stripes_length_among_whole_pixels_as_albumentations(
    albumentations_stripes: dict[str, np.ndarray],
) -> None:
    """Both ends of the length range included, as Python's randint includes them (chi-square
    over the three widths)."""
    from scipy.stats import chi2_contingency

    ours = _stripes(_ours(DRAWS["one"]), (0, 0, 0))[0].sum(axis=1)
    theirs = _stripes(albumentations_stripes["one"], (0, 0, 0))[0].sum(axis=1)
    assert set(ours) == set(theirs) == {10, 11, 12}
    table = [[int((found == width).sum()) for width in (10, 11, 12)] for found in (ours, theirs)]
    assert chi2_contingency(table).pvalue > P_VALUE, table


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("A.XYMasking()", "mask_x_length or mask_y_length above 0"),
        ("A.XYMasking(num_masks_x=1, mask_x_length=10, fill='random')", "fill='random'"),
        ("A.XYMasking(num_masks_x=(1, 2.5), mask_x_length=10)", "num_masks_x=(1, 2.5)"),
        ("A.GridDropout(fill='inpaint_ns')", "fill='inpaint_ns'"),
        ("A.GridDropout(unit_size_range=(10, 10))", "fix: (low, low + 1)"),
    ],
)
def test_dropout_options_the_port_cannot_do_are_refused(code: str, said: str) -> None:
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    (refusal,) = port(found.compose).refusals
    assert said in refusal.reason


def test_xy_masking_with_no_stripe_is_no_node() -> None:
    """Counts of 0: albumentations draws no stripe, the port adds no node."""
    result = _ported("A.XYMasking(num_masks_x=0, mask_x_length=10, p=1)")
    (step,) = result.steps
    assert step.nodes == ()


def _holes(images: np.ndarray, fill: tuple[int, int, int]) -> np.ndarray:
    """Where each image is filled; fails unless every pixel is the white it was or the fill."""
    filled = (images == np.asarray(fill, np.uint8)).all(axis=-1)
    assert (filled | (images == 255).all(axis=-1)).all()
    return filled


@pytest.mark.filterwarnings("ignore:ks_2samp. Exact calculation unsuccessful:RuntimeWarning")
@pytest.mark.parametrize("name", sorted(set(GRID_DROPOUT) - {"grid_fixed"}))
def test_grid_dropout_draws_its_holes_as_albumentations(
    name: str, albumentations_stripes: dict[str, np.ndarray]
) -> None:
    code = GRID_DROPOUT[name]
    fill = (10, 20, 30) if "fill=" in code else (0, 0, 0)
    ours = _holes(_ours(code, SIZES.get(name, (HEIGHT, WIDTH))), fill)
    theirs = _holes(albumentations_stripes[name], fill)
    measures = {
        "share": lambda h: h.mean(axis=(1, 2)),
        "first column": lambda h: _first(h.any(axis=1)),
        "first row": lambda h: _first(h.any(axis=2)),
        "columns touched": lambda h: h.any(axis=1).mean(axis=1),
        # where the holes sit on average: every hole's offset and every part's order moves it
        "centre x": lambda h: (h * np.arange(h.shape[2])).sum(axis=(1, 2)) / h.sum(axis=(1, 2)),
        "centre y": lambda h: (
            (h * np.arange(h.shape[1])[:, None]).sum(axis=(1, 2)) / h.sum(axis=(1, 2))
        ),
    }
    for what, measure in measures.items():
        statistic, p = ks_statistic(measure(ours), measure(theirs))
        assert p > P_VALUE, f"{code}, {what}: KS {statistic:.3f}, p {p:.2g}"
    # the draws vary: one fixed grid on both sides would pass the tests above (with a fixed
    # shift, only which of the four rows is the longer one is drawn)
    seen = len({h.tobytes() for h in ours})
    assert seen == 4 if name == "grid_counts" else seen > 20
    assert seen == len({h.tobytes() for h in theirs})


def test_grid_dropout_of_a_fixed_grid_gives_albumentations_pixels(
    albumentations_stripes: dict[str, np.ndarray],
) -> None:
    ours = _ours(GRID_DROPOUT["grid_fixed"])
    theirs = albumentations_stripes["grid_fixed"]
    assert (ours == theirs).all()
    assert 0.1 < (ours[0, ..., 0] == 0).mean() < 0.3
