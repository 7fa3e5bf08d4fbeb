"""transforms.v2's random resizes and zoom out (RandomShortestSize, RandomResize, ScaleJitter,
RandomZoomOut) against real torchvision: the draws the port made, given to torchvision's own
transform in place of torch's generator, give the port's sizes to the pixel and its pixels
within the figures grades.py gives; torchvision's own draws give the same distribution of
sizes and offsets (two-sample KS, or the same set of sizes); the export runs what the
explorer runs."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from port_parity import difference, ks_statistic, ported, run, sample_images

from augexplorer import Session
from augexplorer.export import export
from augexplorer.port.torchvision.grades import GRADES

# case: (transforms, the class whose grade in grades.py bounds its pixels); ZoomOut's fill per
# channel, to see it on the canvas
CASES: dict[str, tuple[str, str]] = {
    "shortest": ("v2.RandomShortestSize([100, 120, 150], max_size=180)", "RandomShortestSize"),
    "shortest_bicubic": (
        "v2.RandomShortestSize([90, 130], interpolation=v2.InterpolationMode.BICUBIC)",
        "RandomShortestSize",
    ),
    "resize": ("v2.RandomResize(64, 128)", "RandomResize"),
    "jitter": ("v2.ScaleJitter((160, 120), scale_range=(0.5, 1.5))", "ScaleJitter"),
    "zoom_out": (
        "v2.RandomZoomOut(fill=(10, 20, 30), side_range=(1.0, 2.0), p=1.0)",
        "RandomZoomOut",
    ),
}
MIN_SIZES = {"shortest": [100, 120, 150], "shortest_bicubic": [90, 130]}

# Each case's transform on each image, torch.rand and torch.randint answering from the queue
# of draws given (the port's), so that torchvision computes its sizes from the same numbers.
GIVEN = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    import torchvision.transforms.v2 as v2
    from PIL import Image
    job = json.load(open(sys.argv[1]))
    queue = []
    torch.rand = lambda *size, **kw: torch.tensor(queue.pop(0), dtype=torch.float32)
    torch.randint = lambda *args, **kw: torch.tensor(queue.pop(0))
    out = {}
    for name, code in job["cases"].items():
        transform = eval(code, {"v2": v2})
        for index, path in enumerate(job["images"]):
            queue[:] = job["draws"][name][index]
            out[f"{name}/{index}"] = np.asarray(transform(Image.open(path).convert("RGB")))
            assert not queue, (name, queue)
    np.savez(sys.argv[2], **out)
    """
)

# torchvision's own draws: the sizes (and ZoomOut's corners) its make_params gives each image
DRAWN = textwrap.dedent(
    """
    import json, sys
    import torch
    import torchvision.transforms.v2 as v2
    from PIL import Image
    job = json.load(open(sys.argv[1]))
    torch.manual_seed(5)
    out = {}
    for name, code in job["cases"].items():
        transform = eval(code, {"v2": v2})
        found = []
        for path in job["images"]:
            image = Image.open(path)
            params = transform.make_params([image])
            if "padding" in params:
                left, top, right, bottom = params["padding"]
                h, w = image.height + top + bottom, image.width + left + right
                found.append([h, w, top, left])
            else:
                size = params["size"]
                found.append(list(size) if len(size) == 2 else [size[0], -1])
        out[name] = found
    print(json.dumps(out))
    """
)

# distributions: wide ranges on two small images, many draws
SPREAD: dict[str, str] = {
    "shortest": "v2.RandomShortestSize([20, 30, 40, 50], max_size=70)",
    "resize": "v2.RandomResize(16, 48)",
    "jitter": "v2.ScaleJitter((64, 48), scale_range=(0.1, 2.0))",
    "zoom_out": "v2.RandomZoomOut(side_range=(1.0, 4.0), p=1.0)",
}
DRAWS = 360  # per side


def _call(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True, check=True, timeout=300).stdout


def _our_draws(name: str, session: Session, count: int) -> list[list[list[float]]]:
    """The queue of torch.rand / torch.randint answers each image's draws make in
    torchvision, read from the port's draw nodes."""

    def values(node: str) -> list[Any]:
        return [np.asarray(a).tolist() for a in session.arrays(node)[:count]]

    if name.startswith("shortest"):
        return [[[MIN_SIZES[name].index(v)]] for v in values("shortest_size")]
    if name == "resize":
        return [[[v + 64]] for v in values("resize_draw")]
    if name == "jitter":
        return [[u] for u in values("jitter_draw")]
    # the p coin, the ratio, then (left, top): the port's draw holds (ratio, top, left)
    return [[[0.0], [r], [left, top]] for r, top, left in values("zoom_out_draw")]


@pytest.fixture(scope="module")
def given(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Per case: the port's outputs and torchvision's for the port's draws, 12 photos."""
    tmp = tmp_path_factory.mktemp("v2_sizes")
    images = sample_images(12)
    ours, draws = {}, {}
    for name, (code, _) in CASES.items():
        result = ported(code, images, tmp)
        assert not result.refusals
        session = Session(result.spec, device_id=None).run()
        ours[name] = [np.asarray(a) for a in session.arrays(result.spec.outputs["images"])]
        draws[name] = _our_draws(name, session, len(images))
    job = tmp / "job.json"
    cases = {name: code for name, (code, _) in CASES.items()}
    job.write_text(json.dumps({"cases": cases, "images": [str(p) for p in images], "draws": draws}))
    _call([reference_python, "-c", GIVEN, str(job), str(tmp / "theirs.npz")])
    stored = np.load(tmp / "theirs.npz")
    theirs = {name: [stored[f"{name}/{i}"] for i in range(len(images))] for name in CASES}
    return {"ours": ours, "theirs": theirs}


def _small_images(tmp: Path) -> list[Path]:
    """A landscape and a portrait image, small so that many draws run quickly."""
    from PIL import Image

    rng = np.random.default_rng(0)
    paths = []
    for height, width in ((30, 45), (52, 36)):
        path = tmp / f"noise_{height}x{width}.png"
        Image.fromarray(rng.integers(0, 256, (height, width, 3), np.uint8)).save(path)
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def spread(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Per case: (height, width[, top, left]) of each output, the port's and torchvision's."""
    tmp = tmp_path_factory.mktemp("v2_sizes_spread")
    images = _small_images(tmp) * (DRAWS // 2)
    job = tmp / "job.json"
    job.write_text(json.dumps({"cases": SPREAD, "images": [str(p) for p in images]}))
    theirs = json.loads(_call([reference_python, "-c", DRAWN, str(job)]))
    found = {}
    for name, code in SPREAD.items():
        result = ported(code, images, tmp)
        session = Session(result.spec, device_id=None).run()
        outputs = session.arrays(result.spec.outputs["images"])
        sizes = np.asarray([np.asarray(a).shape[:2] for a in outputs], np.float64)
        if name == "zoom_out":
            corners = np.asarray([np.asarray(a) for a in session.arrays("zoom_out_offset")])
            sizes = np.concatenate([sizes, corners], axis=1)
        their = np.asarray(theirs[name], np.float64)
        if name == "resize":  # torchvision gives the shorter side alone: the sides it makes
            shorter = np.asarray([min(np.asarray(a).shape[:2]) for a in outputs])
            sizes, their = shorter[:, None], their[:, :1]
        found[name] = {"ours": sizes, "theirs": their}
    return found


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_draws_give_torchvision_sizes_and_pixels(case: str, given: dict[str, Any]) -> None:
    ours, theirs = given["ours"][case], given["theirs"][case]
    assert [a.shape for a in ours] == [b.shape for b in theirs], case
    assert len({a.shape for a in ours}) > 3, "the draws did not vary"
    grade = GRADES[CASES[case][1]]
    assert grade.mean_abs is not None and grade.max_abs is not None
    found = difference(ours, theirs)
    assert found.mean_abs <= grade.mean_abs and found.max_abs <= grade.max_abs, found


@pytest.mark.slow
@pytest.mark.parametrize("case", ["shortest", "resize"])
def test_picked_sizes_are_torchvision_sizes(case: str, spread: dict[str, Any]) -> None:
    """A pick among sizes: the same sizes on both sides, at rates a KS test cannot tell apart."""
    ours, theirs = spread[case]["ours"], spread[case]["theirs"]
    assert set(map(tuple, ours.tolist())) == set(map(tuple, theirs.tolist()))
    statistic, p = ks_statistic(ours[:, 0], theirs[:, 0])
    assert p > 0.01, f"{case}: KS {statistic:.3f}, p {p:.3g}"


@pytest.mark.slow
@pytest.mark.parametrize("case", ["jitter", "zoom_out"])
def test_drawn_sizes_follow_torchvision(case: str, spread: dict[str, Any]) -> None:
    ours, theirs = spread[case]["ours"], spread[case]["theirs"]
    for column in range(ours.shape[1]):
        statistic, p = ks_statistic(ours[:, column], theirs[:, column])
        assert p > 0.01, f"{case} column {column}: KS {statistic:.3f}, p {p:.3g}"
    assert ours[:, :2].min() >= 1


@pytest.mark.slow
def test_zoom_out_applies_with_its_p(tmp_path: Path) -> None:
    images = _small_images(tmp_path) * 200
    result = ported("v2.RandomZoomOut(side_range=(2.0, 3.0), p=0.3)", images, tmp_path)
    session = Session(result.spec, device_id=None).run()
    outputs = session.arrays(result.spec.outputs["images"])
    decoded = session.arrays("decode")
    grown = np.asarray(
        [
            np.asarray(a).shape[0] > np.asarray(b).shape[0]
            for a, b in zip(outputs, decoded, strict=True)
        ]
    )
    assert abs(grown.mean() - 0.3) < 4 * np.sqrt(0.3 * 0.7 / len(images)), grown.mean()


@pytest.mark.slow
def test_on_the_tensor_the_same_canvas_holds_the_float_fill(tmp_path: Path) -> None:
    """After ToTensor (CHW floats) the zoom reads height and width from their axes: the same
    draws give the same canvas, the image's values over 255 and the float fill."""
    images = sample_images(4)
    plain = run(ported("v2.RandomZoomOut(fill=64, side_range=(1.0, 2.0), p=1.0)", images, tmp_path))
    chw = run(
        ported(
            "v2.ToImage(), v2.ToDtype(torch.float32, scale=True), "
            "v2.RandomZoomOut(fill=64 / 255, side_range=(1.0, 2.0), p=1.0)",
            images,
            tmp_path,
        )
    )
    for hwc, tensor in zip(plain, chw, strict=True):
        np.testing.assert_allclose(tensor.transpose(1, 2, 0) * 255, hwc, atol=1e-3)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("v2.RandomZoomOut(side_range=(0.5, 2))", "Invalid side range"),
        ("v2.RandomResize(5, 5)", "max_size=5 is not above min_size=5"),
        ("v2.ScaleJitter((100, 100), interpolation='nearest-exact')", "NEAREST-EXACT"),
        ("v2.ScaleJitter(100)", "target_size=100 is not a pair"),
        ("v2.RandomShortestSize(min_size=[])", "min_size=[]"),
    ],
)
def test_what_cannot_be_matched_is_refused(code: str, said: str, tmp_path: Path) -> None:
    result = ported(code, sample_images(1), tmp_path)
    (refused,) = result.refusals
    assert said in refused.reason
    assert not result.steps


@pytest.mark.slow
def test_the_export_runs_what_the_explorer_runs(tmp_path: Path) -> None:
    images = sample_images(8)
    code = ", ".join(CASES[name][0] for name in ("shortest", "jitter", "resize", "zoom_out"))
    result = ported(code, images, tmp_path)
    explorer = run(result)
    module = export(result.spec, tmp_path / "sizes_aug.py")
    job = {"name": "p", "module": str(module), "out": str(tmp_path / "p.npz"), "batch_size": 8}
    exported = run_exported([{**job, "device": "cpu"}], tmp_path)["p"]
    assert len({a.shape for a in explorer}) > 1
    for sample, ours in enumerate(explorer):
        np.testing.assert_array_equal(exported[f"0_{sample}"], ours)
