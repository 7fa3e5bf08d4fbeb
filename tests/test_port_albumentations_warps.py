"""albumentations' Perspective ported, against real albumentations (2.0.8) in the reference
environment (``AUGEXPLORER_REFERENCE_PYTHON``): the same corners give albumentations' pixels
(its normal draws replaced by fixed values on both sides), and the corners are drawn as
albumentations draws them (two-sample KS over 320 draws a side). The bounds are the figures the
port's grade gives (grey levels of 0-255)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import difference, file_list, ks_statistic, run, sample_images

from augexplorer.engine import Session
from augexplorer.expressions.nodes import constant
from augexplorer.port.albumentations import port
from augexplorer.port.build import DataSource
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.spec import Source

# Fixed normal draws (x, y of the top-left, top-right, bottom-right, bottom-left corners, in
# units of the scale): moderate ones, large ones whose offsets wrap at 0.32, and tiny ones
NORMALS = {
    "moderate": [0.3, -0.5, 1.2, 0.8, -1.5, 0.2, 0.9, -1.1],
    "wrapping": [0.9, -1.5, 3.6, 2.4, -4.5, 0.6, 2.7, -3.3],
    # corners under a pixel from the edges: the border (fill, reflection) is sampled there
    "edge": [0.005, -0.004, 0.006, 0.003, -0.005, 0.002, 0.004, -0.006],
}
# (transform as written, mean |diff| bound, max |diff| bound): the grade's claims
PIXELS = [
    ("A.Perspective(scale=(0.1, 0.1), p=1)", 0.001, 1),
    ("A.Perspective(scale=(0.1, 0.1), keep_size=False, p=1)", 0.001, 1),
    ("A.Perspective(scale=(0.1, 0.1), interpolation=cv2.INTER_CUBIC, p=1)", 0.001, 1),
    ("A.Perspective(scale=(0.1, 0.1), border_mode=cv2.BORDER_REFLECT_101, p=1)", 0.001, 1),
    ("A.Perspective(scale=(0.1, 0.1), fill=(10, 200, 30), keep_size=False, p=1)", 0.001, 1),
]
# nearest sampling: another source pixel where a sample falls on a tie
NEAREST = ("A.Perspective(scale=(0.1, 0.1), interpolation=cv2.INTER_NEAREST, p=1)", 0.001, 89)
IMAGES = 19  # the bundled photos, as the grade's figures
BATCH, ROUNDS = 40, 8  # 320 draws a side
P_VALUE = 0.01

REFERENCE = textwrap.dedent(
    """
    import json, sys
    import numpy as np, cv2
    import albumentations as A

    class Fixed:
        # stands for the transform's generator: its normal draws are the given values
        def __init__(self, values):
            self.values = np.asarray(values, float).reshape(4, 2)
        def normal(self, loc, scale, size):
            return loc + scale * self.values

    job = json.load(open(sys.argv[1]))
    out = {}
    for name, case in job["pixels"].items():
        transform = eval(case["code"], {"A": A, "cv2": cv2})
        for index, path in enumerate(job["images"]):
            image = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)
            transform.random_generator = Fixed(case["normals"])
            out[f"{name}/{index}"] = transform(image=image)["image"]
    image = np.load(job["coordinates"])
    for name, code in job["draws"].items():
        transform = A.Compose([eval(code, {"A": A, "cv2": cv2})])
        transform.set_random_seed(7)
        found = []
        for _ in range(job["count"]):
            result = transform(image=image)["image"]
            found.append([*result[0, 0, :2], *result.shape[:2]])
        out[name] = np.asarray(found, np.float64)
    np.savez(sys.argv[2], **out)
    """
)


def _reference(python: str, tmp: Path, **job: Any) -> Any:
    job.setdefault("pixels", {})
    job.setdefault("draws", {})
    job.setdefault("images", [])
    coordinates = tmp / "coordinates.npy"
    np.save(coordinates, _coordinates())
    path = tmp / "job.json"
    path.write_text(json.dumps({**job, "coordinates": str(coordinates), "count": BATCH * ROUNDS}))
    subprocess.run(
        [python, "-c", REFERENCE, str(path), str(tmp / "reference.npz")],
        check=True,
        timeout=600,
        capture_output=True,
    )
    return np.load(tmp / "reference.npz")


def _coordinates(height: int = 200, width: int = 256) -> np.ndarray:
    """An image whose red channel is x and green channel is y: a warp shows where it samples."""
    image = np.zeros((height, width, 3), np.uint8)
    image[..., 0] = np.arange(width, dtype=np.uint8)[None, :]
    image[..., 1] = np.arange(height, dtype=np.uint8)[:, None]
    return image


def _ported(code: str, **data: Any) -> PortResult:
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose, **data)
    assert not result.refusals, [r.describe() for r in result.refusals]
    return result


def _with_normals(result: PortResult, normals: list[float]) -> PortResult:
    """The port with its normal draw replaced by `normals` (every image the same)."""
    (draw,) = [n for n in result.spec.operators() if n.op == "random.normal"]
    spec = result.spec.replace_node(constant(draw.id, normals, "FLOAT", shape=[8]))
    return PortResult(spec, result.steps, result.refusals)


CASES = [(code, normals) for code, _, _ in [*PIXELS, NEAREST] for normals in sorted(NORMALS)]


@pytest.fixture(scope="module")
def albumentations_pixels(
    reference_python: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], list[np.ndarray]]:
    """Every case's albumentations output on the photos, from one run of the reference."""
    images = sample_images(IMAGES)
    cases = {
        f"case{i}": {"code": code, "normals": NORMALS[normals]}
        for i, (code, normals) in enumerate(CASES)
    }
    found = _reference(
        reference_python,
        tmp_path_factory.mktemp("perspective"),
        pixels=cases,
        images=[str(p) for p in images],
    )
    return {
        case: [found[f"case{i}/{j}"] for j in range(len(images))] for i, case in enumerate(CASES)
    }


@pytest.mark.parametrize("normals", sorted(NORMALS))
@pytest.mark.parametrize(("code", "mean_bound", "max_bound"), [*PIXELS, NEAREST])
def test_perspective_gives_albumentations_pixels_for_the_same_corners(
    code: str,
    mean_bound: float,
    max_bound: float,
    normals: str,
    albumentations_pixels: dict[tuple[str, str], list[np.ndarray]],
    tmp_path: Path,
) -> None:
    images = sample_images(IMAGES)
    theirs = albumentations_pixels[(code, normals)]
    data = DataSource("file_list", str(file_list(images, tmp_path)), shuffle=False)
    result = _ported(code, data=data, batch_size=len(images))
    ours = run(_with_normals(result, NORMALS[normals]))
    found = difference(ours, theirs)
    assert found.shapes_agree, [(a.shape, b.shape) for a, b in zip(ours, theirs, strict=True)]
    assert found.mean_abs <= mean_bound and found.max_abs <= max_bound, f"{code}: {found}"
    (step,) = result.steps
    expected = "approximate" if (code, mean_bound, max_bound) == NEAREST else "exact"
    assert step.origin.fidelity == expected, step.origin.differences


def _ours(code: str) -> np.ndarray:
    """The top-left output pixel's red and green (where it samples the coordinates image) and
    the output's height and width, for 320 draws."""
    result = _ported(code, batch_size=BATCH)
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    image = _coordinates()
    session = Session(spec, data=([image] * BATCH, [0] * BATCH), device_id=None)
    found: list[list[float]] = []
    ran = session.run()
    for _ in range(ROUNDS):
        for out in ran.arrays(spec.outputs["images"]):
            out = np.asarray(out)
            found.append([float(out[0, 0, 0]), float(out[0, 0, 1]), *map(float, out.shape[:2])])
        ran = session.reroll()
    return np.asarray(found)


DRAWS = {
    "default": "A.Perspective(keep_size=False, p=1)",
    # large scales, whose offsets wrap at 0.32 of the side
    "wide": "A.Perspective(scale=(0.2, 0.5), keep_size=False, p=1)",
    # the image's size kept: the output's top-left pixel still samples the top-left corner
    "kept": "A.Perspective(scale=(0.05, 0.2), p=1)",
}


@pytest.fixture(scope="module")
def albumentations_draws(
    reference_python: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, np.ndarray]:
    """Each of DRAWS' corners and sizes as albumentations draws them (each transform seeded
    on its own), from one run of the reference."""
    found = _reference(reference_python, tmp_path_factory.mktemp("draws"), draws=DRAWS)
    return {name: found[name] for name in DRAWS}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_perspective_draws_its_corners_as_albumentations(
    name: str, albumentations_draws: dict[str, np.ndarray]
) -> None:
    code = DRAWS[name]
    theirs = albumentations_draws[name]
    ours = _ours(code)
    measured = ("top-left x", "top-left y", "height", "width")
    if "keep_size=False" not in code:
        measured = measured[:2]
        assert set(ours[:, 3]) == set(theirs[:, 3]) == {256}
    for column, what in enumerate(measured):
        statistic, p = ks_statistic(ours[:, column], theirs[:, column])
        assert p > P_VALUE, f"{code}, {what}: KS statistic {statistic:.3f}, p {p:.2g}"
    # the draws vary: a constant on both sides would pass the test above
    assert len(set(ours[:, 0])) > 10


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("A.Perspective(fit_output=True)", "fit_output=True"),
        ("A.Perspective(interpolation=cv2.INTER_AREA)", "interpolation=AREA"),
        ("A.Perspective(interpolation=cv2.INTER_LANCZOS4)", "no Lanczos sampling"),
    ],
)
def test_perspective_options_the_port_cannot_do_are_refused(code: str, said: str) -> None:
    """Each refusal names the argument and what to use instead."""
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    (refusal,) = port(found.compose).refusals
    assert said in refusal.reason
    assert "fix" in refusal.reason or "use INTER_LINEAR" in refusal.reason


def test_perspective_applies_with_its_p() -> None:
    (found,) = read_source("import albumentations as A\nt = A.Compose([A.Perspective()])\n")
    spec = port(found.compose).spec
    (warp,) = [n for n in spec.operators() if n.op == "experimental.warp_perspective"]
    assert warp.probability is not None and warp.probability.p == 0.5


@pytest.mark.parametrize("keep_size", [True, False])
def test_perspectives_fill_never_shows(keep_size: bool, tmp_path: Path) -> None:
    """The grade says the border is never sampled: fill 0 and 255 give the same pixels, even
    with every corner under a pixel from the image's edges."""
    images = sample_images(4)
    data = DataSource("file_list", str(file_list(images, tmp_path)), shuffle=False)
    filled = []
    for fill in (0, 255):
        code = f"A.Perspective(scale=(0.1, 0.1), fill={fill}, keep_size={keep_size}, p=1)"
        result = _ported(code, data=data, batch_size=len(images))
        filled.append(run(_with_normals(result, NORMALS["edge"])))
    assert difference(*filled).max_abs == 0
    (result,) = [_ported("A.Perspective()")]
    assert any("never shows" in d for d in result.steps[0].origin.differences)
