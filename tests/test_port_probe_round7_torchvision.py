"""Probe findings, round 7 (torchvision), each checked against torchvision 0.29.1 itself:

- v2's ``ToDtype(torch.float32, scale=True)`` given a PIL image (no ``ToImage()`` before it)
  returns it unchanged; the port converted it. ``ConvertImageDtype`` first (v1's fails on a PIL
  image) stays a pipeline written for tensors, which it converts.
- ``RandomOrder([...])`` ran its transforms in the order written; torchvision shuffles them.
- MoCo v2's, SimCLR's and DINO's own ``GaussianBlur`` classes (PIL's blur at a drawn radius)
  were refused as classes of one's own.
- A fill with a fraction (``fill=127.6``, ``fill=0.5``): torchvision truncates it on a PIL
  image and rounds it half to even on a uint8 tensor; DALI's warps round it half away from 0.
- Found on the way: a crop or a pad under RandomApply or RandomChoice failed to run (its shape
  arithmetic ran under the condition, so DALI merged an int64 vector with the image).
"""

from __future__ import annotations

import itertools
import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import file_list, ported, run, sample_images
from scipy.stats import kstest

from augexplorer.engine import Session
from augexplorer.port.build import DataSource
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source
from augexplorer.port.torchvision import port

HEADER = "import torch\nimport torchvision.transforms as T\nfrom torchvision.transforms import v2\n"

# ---- the project's own blur classes, as MoCo v2 (and SimCLR) and DINO write them ---------------

MOCO_BLUR = '''
class GaussianBlur(object):
    """Gaussian blur augmentation in SimCLR https://arxiv.org/abs/2002.05709"""

    def __init__(self, sigma=[.1, 2.]):
        self.sigma = sigma

    def __call__(self, x):
        sigma = random.uniform(self.sigma[0], self.sigma[1])
        x = x.filter(ImageFilter.GaussianBlur(radius=sigma))
        return x
'''

DINO_BLUR = '''
class GaussianBlur(object):
    """
    Apply Gaussian Blur to the PIL image.
    """
    def __init__(self, p=0.5, radius_min=0.1, radius_max=2.):
        self.prob = p
        self.radius_min = radius_min
        self.radius_max = radius_max

    def __call__(self, img):
        do_it = random.random() <= self.prob
        if not do_it:
            return img

        return img.filter(
            ImageFilter.GaussianBlur(
                radius=random.uniform(self.radius_min, self.radius_max)
            )
        )
'''

# the same blur with the coin the other way round, and super().__init__()
COIN_FIRST_BLUR = """
class GaussianBlur:
    def __init__(self, p, sigma=(0.1, 2.0)):
        super().__init__()
        self.p = p
        self.sigma = sigma

    def __call__(self, image):
        if random.random() < self.p:
            return image.filter(ImageFilter.GaussianBlur(random.uniform(self.sigma[0], self.sigma[1])))
        return image
"""

# shapes that do something else: refused as today
OTHER_CLASSES = {
    "median": MOCO_BLUR.replace(
        "ImageFilter.GaussianBlur(radius=sigma)", "ImageFilter.MedianFilter(3)"
    ),
    "also_prints": MOCO_BLUR.replace(
        "        return x\n", "        print(sigma)\n        return x\n"
    ),
    "box": MOCO_BLUR.replace("ImageFilter.GaussianBlur", "ImageFilter.BoxBlur"),
    "two_blurs": MOCO_BLUR.replace(
        "        return x\n", "        return x.filter(ImageFilter.GaussianBlur(1))\n"
    ),
}
TODAYS_REFUSAL = (
    "GaussianBlur is a class of your own, not torchvision's GaussianBlur, so it cannot be read "
    "without running it"
)


def _file(classes: str, compose: str) -> str:
    return (
        "import random\nfrom PIL import ImageFilter\nimport torch\n"
        "import torchvision.transforms as T\nfrom torchvision.transforms import v2\n"
        f"{textwrap.dedent(classes)}\nt = T.Compose([{compose}])\n"
    )


def _port_text(text: str):  # type: ignore[no-untyped-def]
    (found,) = read_source(text)
    return port_call(found.compose)


def _port_code(code: str):  # type: ignore[no-untyped-def]
    return _port_text(f"{HEADER}t = {code}\n")


# ---- the reference run: every torchvision figure of this file, in one subprocess --------------

ORDERED = ["T.CenterCrop(100)", "T.Pad(8, fill=200)", "T.RandomInvert(p=1.0)"]
ORDERS = list(itertools.permutations(range(3)))
FILLS = (0.5, 2.5, 127.5, 127.6)
RADII = (0.5, 1.0, 2.0)
DRAWS = 1200

REFERENCE = textwrap.dedent(
    """
    import itertools, json, random, sys
    import numpy as np
    import torch
    import torchvision.transforms as T
    from torchvision.transforms import v2
    from PIL import Image, ImageFilter
    job = json.load(open(sys.argv[1]))
    images = [Image.open(p).convert("RGB") for p in job["images"]]
    out, meta = {}, {}

    def keep(name, transform):
        for index, image in enumerate(images):
            torch.manual_seed(0)
            result = transform(image)
            meta[f"{name}/{index}"] = type(result).__name__
            out[f"{name}/{index}"] = np.asarray(result)

    for name, code in job["cases"].items():
        keep(name, eval(code, {"T": T, "v2": v2, "torch": torch}))
    try:
        T.ConvertImageDtype(torch.float32)(images[0])
        meta["v1_convert"] = "converted"
    except Exception as error:
        meta["v1_convert"] = type(error).__name__
    # the class as the file writes it, at one radius
    scope = {"random": random, "ImageFilter": ImageFilter}
    exec(job["moco"], scope)
    for radius in job["radii"]:
        keep(f"moco/{radius}", scope["GaussianBlur"]([radius, radius]))
    # the orders torchvision draws: each transform records its index as it runs
    for version, module in (("v1", T), ("v2", v2)):
        seen = []
        steps = [module.Lambda(lambda x, i=i: seen.append(i) or x) for i in range(3)]
        shuffled = module.RandomOrder(steps)
        random.seed(0)
        torch.manual_seed(0)
        counts = {}
        for _ in range(job["draws"]):
            seen.clear()
            shuffled(images[0])
            counts[str(tuple(seen))] = counts.get(str(tuple(seen)), 0) + 1
        meta[f"orders/{version}"] = counts
    np.savez(sys.argv[2], **out)
    json.dump(meta, open(sys.argv[3], "w"))
    """
)


def _cases() -> dict[str, str]:
    cases = {
        "to_dtype": "v2.Compose([v2.ToDtype(torch.float32, scale=True)])",
        "convert": "v2.Compose([v2.ConvertImageDtype(torch.float32)])",
        "convert_default": "v2.Compose([v2.ConvertImageDtype()])",
        "to_dtype_tensor": "v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])",
        "convert_tensor": "T.Compose([T.PILToTensor(), T.ConvertImageDtype(torch.float32)])",
        "zoom_pil": "v2.Compose([v2.RandomZoomOut(fill=127.6, side_range=(2.0, 2.0), p=1.0)])",
    }
    for index, order in enumerate(ORDERS):
        cases[f"order/{index}"] = f"T.Compose([{', '.join(ORDERED[i] for i in order)}])"
    for fill in FILLS:
        cases[f"pil/{fill}"] = f"T.Compose([T.RandomRotation((30, 30), fill={fill})])"
        cases[f"tensor/{fill}"] = (
            f"v2.Compose([v2.ToImage(), v2.RandomRotation((30, 30), fill={fill})])"
        )
        cases[f"affine/{fill}"] = f"T.Compose([T.RandomAffine((20, 20), fill={fill})])"
    cases["tensor_channels"] = (
        "v2.Compose([v2.ToImage(), v2.RandomRotation((30, 30), fill=(124.5, 116, 2.5))])"
    )
    return cases


@pytest.fixture(scope="module")
def theirs(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("round7")
    images = sample_images(3)
    job = folder / "job.json"
    job.write_text(
        json.dumps(
            {
                "cases": _cases(),
                "images": [str(p) for p in images],
                "moco": MOCO_BLUR,
                "radii": list(RADII),
                "draws": DRAWS,
            }
        )
    )
    arrays, meta = folder / "out.npz", folder / "meta.json"
    subprocess.run(
        [reference_python, "-c", REFERENCE, str(job), str(arrays), str(meta)],
        check=True,
        timeout=600,
        capture_output=True,
    )
    data = np.load(arrays)
    return {"arrays": {k: data[k] for k in data.files}, "meta": json.loads(meta.read_text())}


def _theirs(theirs: dict[str, Any], name: str) -> list[np.ndarray]:
    return [theirs["arrays"][f"{name}/{i}"] for i in range(3)]


def _ours(code: str, tmp_path: Path, **changes: Any) -> list[np.ndarray]:
    """The port of `code` (inside T.Compose) on the 3 photos; `changes`: node -> args set."""
    result = ported(code, sample_images(3), tmp_path)
    assert not result.refusals, [r.describe() for r in result.refusals]
    spec = result.spec
    for node, args in changes.items():
        for name, value in args.items():
            spec = spec.set_arg(node, name, value)
    session = Session(spec, device_id=None).run()
    return [np.asarray(a) for a in session.arrays(spec.outputs["images"])]


# ---- 1. ToDtype and ConvertImageDtype on a PIL image ------------------------------------------

PASSING = {"to_dtype": "v2.ToDtype(torch.float32, scale=True)"}


@pytest.mark.parametrize("name", sorted(PASSING))
def test_a_pil_image_passes_to_dtype_unchanged_as_torchvision_passes_it(
    name: str, theirs: dict[str, Any], tmp_path: Path
) -> None:
    assert all(theirs["meta"][f"{name}/{i}"] == "Image" for i in range(3))  # still PIL there
    result = _port_code(f"v2.Compose([{PASSING[name]}])")
    (step,) = result.steps
    assert step.nodes == () and step.origin.fidelity == "exact"
    said = " ".join(step.origin.differences)
    assert "returns the image unchanged" in said
    assert "(fix: put ToImage() first to convert)" in said
    for ours, reference in zip(_ours(PASSING[name], tmp_path), _theirs(theirs, name), strict=True):
        assert ours.dtype == reference.dtype == np.uint8
        np.testing.assert_array_equal(ours, reference)


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("to_dtype_tensor", "v2.ToImage(), v2.ToDtype(torch.float32, scale=True)"),
        ("convert_tensor", "T.PILToTensor(), T.ConvertImageDtype(torch.float32)"),
    ],
)
def test_a_tensor_is_still_converted(
    name: str, code: str, theirs: dict[str, Any], tmp_path: Path
) -> None:
    for ours, reference in zip(_ours(code, tmp_path), _theirs(theirs, name), strict=True):
        assert ours.dtype == reference.dtype == np.float32 and ours.shape == reference.shape
        assert np.abs(ours - reference).max() < 1e-6


@pytest.mark.parametrize(
    "code",
    [
        "T.Compose([T.ConvertImageDtype(torch.float32)])",
        "v2.Compose([v2.ConvertImageDtype(torch.float32)])",
        "v2.Compose([v2.ConvertImageDtype()])",
    ],
)
def test_convert_image_dtype_first_is_a_pipeline_written_for_tensors(
    code: str, theirs: dict[str, Any]
) -> None:
    """v1's ConvertImageDtype fails on a PIL image, so a pipeline with it before any conversion
    is given tensors (read_image's, as Compare gives them): it converts, v1 and v2 alike, and
    is not taken for v2's ToDtype passing a PIL image."""
    assert theirs["meta"]["v1_convert"] == "TypeError"
    result = _port_code(code)
    assert not result.refusals
    (step,) = result.steps
    assert step.nodes and "returns the image unchanged" not in " ".join(step.origin.differences)


# ---- 2. RandomOrder ---------------------------------------------------------------------------

ORDER_CODE = f"T.RandomOrder([{', '.join(ORDERED)}])"


def test_random_order_ports_each_order_once_per_transform() -> None:
    result = _port_code(f"T.Compose([{ORDER_CODE}])")
    assert not result.refusals
    group, *children = result.steps
    assert group.origin.fidelity == "distribution"
    (pick,) = [n for n in group.nodes if n.op == "random.choice"]
    assert pick.args["p"] == pytest.approx([1 / 6] * 6)
    # one step per transform, as written, holding its 6 copies
    assert [s.call.name for s in children] == ["CenterCrop", "Pad", "RandomInvert"]
    assert sum(n.op == "slice" for n in children[0].nodes) == 6


@pytest.mark.parametrize("index", range(len(ORDERS)))
def test_random_order_gives_torchvisions_pixels_for_each_order(
    index: int, theirs: dict[str, Any], tmp_path: Path
) -> None:
    """The order's draw pinned to one order: torchvision's Compose in that order."""
    pinned = [1.0 if i == index else 0.0 for i in range(len(ORDERS))]
    ours = _ours(ORDER_CODE, tmp_path, random_order={"p": pinned})
    for mine, reference in zip(ours, _theirs(theirs, f"order/{index}"), strict=True):
        assert mine.shape == reference.shape
        np.testing.assert_array_equal(mine, reference)


def test_random_order_rates_are_uniform_as_torchvisions(
    theirs: dict[str, Any], tmp_path: Path
) -> None:
    """Each order's rate within its 99.9% binomial interval of 1/6, here and in torchvision
    (v1's random.shuffle, v2's torch.randperm)."""
    tiny = tmp_path / "tiny.png"
    from PIL import Image

    Image.fromarray(np.arange(48, dtype=np.uint8).reshape(4, 4, 3)).save(tiny)
    code = "T.RandomOrder([T.RandomInvert(p=1.0), T.RandomHorizontalFlip(p=1.0), T.Grayscale(3)])"
    result = ported(code, [tiny] * DRAWS, tmp_path)
    session = Session(result.spec, device_id=None).run()
    picks = np.asarray([int(np.asarray(a)) for a in session.arrays("random_order")])
    ours = np.bincount(picks, minlength=6)
    expected, spread = DRAWS / 6, 3.29 * np.sqrt(DRAWS * (1 / 6) * (5 / 6))
    assert np.all(np.abs(ours - expected) < spread), ours
    for version in ("v1", "v2"):
        counts = theirs["meta"][f"orders/{version}"]
        assert len(counts) == 6 and sum(counts.values()) == DRAWS
        assert all(abs(c - expected) < spread for c in counts.values()), counts


def test_more_than_three_transforms_run_in_the_order_written_graded_approximate() -> None:
    code = "T.RandomOrder([T.RandomInvert(), T.Grayscale(3), T.RandomHorizontalFlip(), T.Pad(2)])"
    result = _port_code(f"T.Compose([{code}])")
    group = result.steps[0]
    assert group.origin.fidelity == "approximate"
    assert "they run in the order written" in group.origin.differences[0]
    assert "(fix: split it into RandomOrder groups of at most 3" in group.origin.differences[0]
    assert not any(n.op == "random.choice" for s in result.steps for n in s.nodes)
    assert [s.call.name for s in result.steps[1:]] == [
        "RandomInvert",
        "Grayscale",
        "RandomHorizontalFlip",
        "Pad",
    ]


def test_a_transform_refused_inside_random_order_is_refused_once() -> None:
    result = _port_code("T.Compose([T.RandomOrder([T.RandomInvert(), T.AugMix()])])")
    assert [r.call.name for r in result.refusals] == ["AugMix"]


@pytest.mark.parametrize(
    "code",
    [
        "T.RandomApply([T.Pad(8)])",
        "T.RandomApply([T.CenterCrop(100)])",
        "T.RandomChoice([T.CenterCrop(100), T.Pad(8, fill=200)])",
    ],
)
def test_a_crop_or_pad_under_a_condition_runs(code: str, tmp_path: Path) -> None:
    images = sample_images(4)
    outputs = run(ported(code, images, tmp_path))
    assert len(outputs) == 4 and all(o.dtype == np.uint8 for o in outputs)


# ---- 3. the project's own blur classes --------------------------------------------------------


@pytest.mark.parametrize(
    ("classes", "call", "low", "high", "p"),
    [
        (MOCO_BLUR, "GaussianBlur([.1, 2.])", 0.1, 2.0, 1.0),
        (MOCO_BLUR, "GaussianBlur(sigma=[0.5, 1.5])", 0.5, 1.5, 1.0),
        (DINO_BLUR, "GaussianBlur(0.1)", 0.1, 2.0, 0.1),
        (DINO_BLUR, "GaussianBlur(p=1.0, radius_max=3)", 0.1, 3.0, 1.0),
        (COIN_FIRST_BLUR, "GaussianBlur(0.3)", 0.1, 2.0, 0.3),
    ],
)
def test_own_blur_classes_are_read_as_pils_blur(
    classes: str, call: str, low: float, high: float, p: float
) -> None:
    result = _port_text(_file(classes, call))
    assert not result.refusals, [r.describe() for r in result.refusals]
    (step,) = result.steps
    assert step.origin.fidelity == "approximate"
    assert "max 30" in step.origin.differences[0]
    (draw,) = [n for n in step.nodes if n.op == "random.uniform"]
    assert draw.args["range"] == [low, high]
    (blur,) = [n for n in step.nodes if n.op == "gaussian_blur"]
    assert blur.args["window_size"][0] == 2 * int(np.ceil(3 * high)) + 1
    applied = blur.probability.p if blur.probability is not None else 1.0
    assert applied == pytest.approx(p)


def test_mocos_blur_under_random_apply_is_ported() -> None:
    result = _port_text(_file(MOCO_BLUR, "T.RandomApply([GaussianBlur([.1, 2.])], p=0.5)"))
    assert not result.refusals
    assert [s.call.name for s in result.steps] == ["RandomApply", "GaussianBlur"]


@pytest.mark.parametrize("name", sorted(OTHER_CLASSES))
def test_classes_doing_something_else_stay_refused(name: str) -> None:
    (refusal,) = _port_text(_file(OTHER_CLASSES[name], "GaussianBlur([.1, 2.])")).refusals
    assert TODAYS_REFUSAL in refusal.reason


def test_an_own_blur_after_to_tensor_is_refused_as_the_file_fails() -> None:
    (refusal,) = _port_text(_file(MOCO_BLUR, "T.ToTensor(), GaussianBlur()")).refusals
    assert "(AttributeError)" in refusal.reason and "(fix: put it before ToTensor()" in (
        refusal.reason
    )


@pytest.mark.parametrize("radius", RADII)
def test_own_blur_against_pils(radius: float, theirs: dict[str, Any], tmp_path: Path) -> None:
    """The class itself, run in the reference environment, against its port at one radius:
    PIL's extended box against DALI's Gaussian (the grade's figures)."""
    text = _file(MOCO_BLUR, f"GaussianBlur([{radius}, {radius}])")
    (found,) = read_source(text)
    data = DataSource("file_list", str(file_list(sample_images(3), tmp_path)), shuffle=False)
    result = port(found.compose, data=data, batch_size=3)
    ours = run(result)
    pairs = zip(ours, _theirs(theirs, f"moco/{radius}"), strict=True)
    gaps = [np.abs(a.astype(int) - b) for a, b in pairs]
    assert max(g.mean() for g in gaps) < 0.75
    assert max(g.max() for g in gaps) <= 30


def test_own_blur_draws_its_radius_and_coin(tmp_path: Path) -> None:
    """DINO's p and radius range: the sigma drawn uniformly (KS), the blur applied at p's rate
    (99.9% binomial interval)."""
    from PIL import Image

    noise = tmp_path / "noise.png"
    Image.fromarray(np.random.default_rng(0).integers(0, 256, (16, 16, 3), np.uint8)).save(noise)
    (found,) = read_source(_file(DINO_BLUR, "GaussianBlur(0.3, 0.5, 1.5)"))
    data = DataSource("file_list", str(file_list([noise] * 600, tmp_path)), shuffle=False)
    result = port(found.compose, data=data, batch_size=600)
    session = Session(result.spec, device_id=None).run()
    sigmas = np.asarray([float(np.asarray(a)) for a in session.arrays("blur_sigma")])
    assert kstest((sigmas - 0.5) / 1.0, "uniform").pvalue > 0.001
    original = np.asarray(Image.open(noise))
    outputs = session.arrays(result.spec.outputs["images"])
    blurred = np.mean([not np.array_equal(np.asarray(o), original) for o in outputs])
    assert abs(blurred - 0.3) < 3.29 * np.sqrt(0.3 * 0.7 / 600), blurred


# ---- 4. a fill with a fraction ----------------------------------------------------------------


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize(
    ("kind", "code"),
    [
        ("pil", "T.RandomRotation((30, 30), fill={fill})"),
        ("tensor", "v2.ToImage(), v2.RandomRotation((30, 30), fill={fill})"),
        ("affine", "T.RandomAffine((20, 20), fill={fill})"),
    ],
)
def test_a_fractional_fill_is_torchvisions(
    kind: str, code: str, fill: float, theirs: dict[str, Any], tmp_path: Path
) -> None:
    """On a PIL image torchvision truncates the fill, on a uint8 tensor it rounds it half to
    even (0.5 -> 0, 2.5 -> 2, 127.5 and 127.6 -> 128)."""
    expected = int(fill) if kind != "tensor" else round(fill)
    for ours, reference in zip(
        _ours(code.format(fill=fill), tmp_path), _theirs(theirs, f"{kind}/{fill}"), strict=True
    ):
        assert ours.shape == reference.shape
        corner = (0, 0, 0) if kind == "tensor" else (0, 0)
        assert ours[corner].tolist() == reference[corner].tolist()
        assert np.all(np.asarray(reference[corner]) == expected)
        assert np.abs(ours.astype(int) - reference).mean() < 0.05  # nearest sampling's ties


def test_a_fill_per_channel_on_a_tensor_is_rounded_half_to_even(
    theirs: dict[str, Any], tmp_path: Path
) -> None:
    code = "v2.ToImage(), v2.RandomRotation((30, 30), fill=(124.5, 116, 2.5))"
    for ours, reference in zip(
        _ours(code, tmp_path), _theirs(theirs, "tensor_channels"), strict=True
    ):
        assert ours[:, 0, 0].tolist() == reference[:, 0, 0].tolist() == [124, 116, 2]


def test_zoom_out_takes_a_fractional_fill_truncated(theirs: dict[str, Any], tmp_path: Path) -> None:
    """RandomZoomOut refused fill=127.6 ("not measured"); torchvision truncates it, as DALI's
    slice does: the canvas's corner is 127 on both sides."""
    code = "v2.RandomZoomOut(fill=127.6, side_range=(2.0, 2.0), p=1.0)"
    for ours, reference in zip(_ours(code, tmp_path), _theirs(theirs, "zoom_pil"), strict=True):
        assert ours.shape == reference.shape
        assert ours[0, 0].tolist() == reference[0, 0].tolist() == [127, 127, 127]
