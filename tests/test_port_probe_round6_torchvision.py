"""Probe findings, round 6 (torchvision): the training files newcomers bring.

- ``get_transform(IMG, train=True)`` and ``get_transform(IMG, train=False)``, or
  ``build_transforms(cfg, train=...)`` with a module-level settings dict: the function is
  called twice with the same size or settings, only the flag differs. Its size was "known only
  when the file runs" (only a function's one call was read), and a list built under
  ``if train:`` was refused whole.
- Diffusion models' ``Lambda(lambda t: (t * 2) - 1)`` after ToTensor (to [-1, 1]), and other
  arithmetic lambdas: refused as Python code, though they are one expression node.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_port_compare import _images

from augexplorer.port.compare import compare_file
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source

# ---- a function called twice, the same size or settings at each call -------------------------

BRANCHES = """
import torchvision.transforms as T

IMG = 128

def build(size, train=True):
    if train:
        return T.Compose([T.RandomResizedCrop(size), T.RandomHorizontalFlip(), T.ToTensor()])
    return T.Compose([T.Resize(size), T.CenterCrop(size), T.ToTensor()])

train_tf = build(IMG, train=True)
val_tf = build(IMG, train=False)
"""

APPENDED = """
import torchvision.transforms as T

IMG = 128

def get_transform(size, train):
    t = [T.Resize(size), T.CenterCrop(size)]
    if train:
        t.append(T.RandomHorizontalFlip())
    t.append(T.ToTensor())
    return T.Compose(t)

train_tf = get_transform(IMG, train=True)
val_tf = get_transform(IMG, train=False)
"""

SETTINGS = """
import torchvision.transforms as T

cfg = {"img_size": 128, "crop_scale": (0.2, 1.0), "mean": [0.485, 0.456, 0.406]}

def build_transforms(cfg, train=True):
    if train:
        return T.Compose([
            T.RandomResizedCrop(cfg["img_size"], scale=cfg["crop_scale"]),
            T.ToTensor(),
            T.Normalize(cfg["mean"], [0.229, 0.224, 0.225]),
        ])
    return T.Compose([
        T.Resize(int(cfg["img_size"] / 0.875)),
        T.CenterCrop(cfg["img_size"]),
        T.ToTensor(),
        T.Normalize(cfg["mean"], [0.229, 0.224, 0.225]),
    ])

train_tf = build_transforms(cfg, train=True)
val_tf = build_transforms(cfg, train=False)
"""


def _write(folder: Path, text: str, name: str = "train.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def _ported(text: str, name: str):  # type: ignore[no-untyped-def]
    found = {p.name: p for p in read_source(text)}
    return found[name], port_call(found[name].compose)


@pytest.mark.parametrize(
    ("name", "first"),
    [("build(train=True)", "RandomResizedCrop(128)"), ("val_tf", "Resize(128)")],
)
def test_a_size_every_call_gives_alike_is_read(name: str, first: str) -> None:
    found, result = _ported(BRANCHES, name)
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert result.steps[0].call.text() == first
    assert "size=128, as each of the file's 2 calls of build gives it (lines 11, 12)" in (
        " ".join(found.defaults)
    )


def test_a_list_appended_under_the_flag_is_read_for_each_call() -> None:
    found = {p.name: p for p in read_source(APPENDED)}
    assert not any(p.unreadable for p in found.values())
    train = found["train_tf"].compose
    val = found["val_tf"].compose
    assert [c.text() for c in train.children] == [
        "Resize(128)",
        "CenterCrop(128)",
        "RandomHorizontalFlip()",
        "ToTensor()",
    ]
    assert [c.name for c in val.children] == ["Resize", "CenterCrop", "ToTensor"]
    assert found["train_tf"].alias_of == "get_transform(train=True)"


@pytest.mark.parametrize("name", ["train_tf", "val_tf"])
def test_a_settings_dict_given_to_both_calls_is_read(name: str) -> None:
    found, result = _ported(SETTINGS, name)
    assert not result.refusals, [r.describe() for r in result.refusals]
    texts = [s.call.text() for s in result.steps]
    assert texts[0] in ("RandomResizedCrop(128, scale=(0.2, 1.0))", "Resize(146)")
    assert "as each of the file's 2 calls of build_transforms gives it" in " ".join(found.defaults)


def test_calls_giving_different_sizes_leave_it_unknown_with_the_fix() -> None:
    text = BRANCHES.replace("val_tf = build(IMG,", "val_tf = build(160,")
    _, result = _ported(text, "val_tf")
    reasons = " ".join(r.reason for r in result.refusals)
    assert "known only when the file runs" in reasons and "--param size=VALUE" in reasons


def test_one_name_of_two_values_at_the_two_calls_is_unknown() -> None:
    """The same text, `IMG`, assigned again between the calls: two values, so not read."""
    text = BRANCHES.replace("val_tf = build(", "IMG = 160\nval_tf = build(")
    _, result = _ported(text, "train_tf")
    assert any("--param size=VALUE" in r.reason for r in result.refusals)


def test_compare_builds_the_call_as_the_port_read_it(reference_python: str, tmp_path: Path) -> None:
    path = _write(tmp_path, APPENDED)
    comparison = compare_file(
        path, _images(3), run_file=True, python=reference_python, pipeline="val_tf", draws=0
    )
    assert comparison.original_error == ""
    pairs = list(zip(comparison.ported, comparison.original, strict=True))
    assert len(pairs) == 3
    assert all(ours.shape == theirs.shape == (128, 128, 3) for ours, theirs in pairs)
    # the same pixels up to Resize's resampling (a fraction of a grey level)
    assert max(np.abs(ours - theirs).mean() * 255 for ours, theirs in pairs) < 1.0


# ---- Lambda: arithmetic on the float tensor ----------------------------------------------------

LAMBDAS = """
import torch
from torchvision.transforms import CenterCrop, Compose, Lambda, Normalize, ToTensor

lambdas = Compose([
    CenterCrop(128),
    ToTensor(),
    Lambda(lambda t: (t * 2) - 1),
    Lambda(lambda x: torch.clamp(x * 255, min=-200, max=200) / 255),
    Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]),
    Lambda(lambda t: t.mul(0.5).add(-0.25).clamp(-1, 1) ** 2),
])
"""


def _lambda_result(before: str, body: str):  # type: ignore[no-untyped-def]
    text = (
        "import torch\nimport torchvision.transforms as T\n"
        f"t = T.Compose([{before}T.Lambda({body})])\n"
    )
    (found,) = read_source(text)
    return port_call(found.compose)


@pytest.mark.parametrize(
    ("body", "expression"),
    [
        ("lambda t: (t * 2) - 1", "to_tensor * 2.0 - 1.0"),
        ("lambda x: x.mul(255)", "to_tensor * 255.0"),
        ("lambda x: torch.clamp(x, 0, 1)", "math.clamp(to_tensor, 0.0, 1.0)"),
        ("lambda x: x.clamp(min=-1, max=1) / 2", "math.clamp(to_tensor, -1.0, 1.0) / 2.0"),
    ],
)
def test_an_arithmetic_lambda_is_one_expression_node(body: str, expression: str) -> None:
    result = _lambda_result("T.ToTensor(), ", body)
    assert not result.refusals, [r.describe() for r in result.refusals]
    step = result.steps[-1]
    assert step.origin.fidelity == "exact"
    (node,) = step.nodes
    assert node.op == "expression" and node.args["expression"] == expression


def test_an_arithmetic_lambda_on_a_pil_image_is_refused_as_torchvision_fails() -> None:
    (refusal,) = _lambda_result("", "lambda t: t * 2 - 1").refusals
    assert "torchvision fails on it" in refusal.reason
    assert "(fix: put it after ToTensor())" in refusal.reason


def test_an_arithmetic_lambda_on_a_uint8_tensor_is_refused_with_the_fix() -> None:
    (refusal,) = _lambda_result("T.PILToTensor(), ", "lambda t: t * 2").refusals
    assert "uint8 tensor is not ported" in refusal.reason
    assert "ToDtype(torch.float32, scale=True)" in refusal.reason


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("lambda t: t.flip(-1)", "t.flip(-1) is not arithmetic"),
        ("lambda t: t * scale", "it reads scale, known only when the file runs"),
        ("lambda t: t.clamp(min=0)", "both min and max are read"),
    ],
)
def test_any_other_lambda_is_refused_saying_which_part(body: str, said: str) -> None:
    (refusal,) = _lambda_result("T.ToTensor(), ", body).refusals
    assert said in refusal.reason and "python_function" in refusal.reason
    assert "lambda img: img.convert('RGB')" in refusal.reason


def test_a_lambda_returning_its_input_is_refused_saying_to_leave_it_out() -> None:
    (refusal,) = _lambda_result("", "lambda x: x").refusals
    assert "returns its input as it is" in refusal.reason
    assert "(fix: leave it out)" in refusal.reason and "torchvision fails" not in refusal.reason


def test_the_convert_lambda_is_still_ported_with_no_node() -> None:
    result = _lambda_result("", "lambda img: img.convert('RGB')")
    assert not result.refusals
    assert result.steps[-1].nodes == ()


def test_arithmetic_lambdas_give_torchvisions_values(reference_python: str, tmp_path: Path) -> None:
    comparison = compare_file(
        _write(tmp_path, LAMBDAS), _images(4), run_file=True, python=reference_python, draws=0
    )
    assert comparison.original_error == ""
    lambdas = [s for s in comparison.steps if s.transform.startswith("Lambda")]
    assert [s.grade for s in lambdas] == ["exact"] * 3
    for ours, theirs in zip(comparison.ported, comparison.original, strict=True):
        assert ours.shape == theirs.shape == (128, 128, 3)
        assert np.abs(ours - theirs).max() < 1e-5
        # squared after the clamp to [-1, 1]: they ran, the clamp too
        assert theirs.min() >= 0 and (theirs == 1.0).mean() > 0.01


# ---- a fill per channel for RandomRotation and RandomAffine -----------------------------------
# fill=(124, 116, 104), the ImageNet mean in pixels, was refused ("DALI fills with one value for
# every channel"), with no fix.

FILLS = """
import torchvision.transforms as T
from torchvision.transforms import v2

rotated = T.Compose([
    T.RandomRotation(degrees=(20, 20), fill=(124, 116, 104)),
    T.RandomRotation(degrees=(30, 30), expand=True, fill=(255, 0, 128)),
])
tensors = v2.Compose([
    v2.ToImage(),
    v2.RandomAffine(degrees=(10, 10), scale=(0.8, 0.8), fill=(124.6, 116, 104)),
])
perspective = T.Compose([T.RandomPerspective(0.5, p=1.0, fill=(124, 116, 104))])
"""


def _filled(code: str):  # type: ignore[no-untyped-def]
    text = (
        f"import torchvision.transforms as T\nfrom torchvision.transforms import v2\nt = {code}\n"
    )
    (found,) = read_source(text)
    result = port_call(found.compose)
    assert not result.refusals, [r.describe() for r in result.refusals]
    return result


@pytest.mark.parametrize(
    ("code", "fills"),
    [
        ("T.Compose([T.RandomRotation(15, fill=(124, 116, 104))])", [124.0, 116.0, 104.0]),
        # PIL's fill colour is whole numbers: torchvision truncates each on a PIL image
        ("T.Compose([T.RandomAffine(10, fill=[124.9, 116.2, 104.0])])", [124.0, 116.0, 104.0]),
        # on a uint8 tensor torchvision rounds it half to even (round 7)
        (
            "v2.Compose([v2.ToImage(), v2.RandomAffine(10, fill=(124.5, 116, 104))])",
            [124.0, 116.0, 104.0],
        ),
    ],
)
def test_a_fill_per_channel_is_ported(code: str, fills: list[float]) -> None:
    step = _filled(code).steps[-1]
    warps = [n for n in step.nodes if n.op in ("rotate", "warp_affine")]
    assert len(warps) == 2 and all(n.args["fill_value"] == 0.0 for n in warps)
    (constant_node,) = [n for n in step.nodes if n.op == "constant" and n.id.endswith("_fill")]
    assert constant_node.args["values"] == fills
    assert any("A fill per channel" in said for said in step.origin.differences)


def test_a_perspective_fills_each_channel_with_its_own_value() -> None:
    step = _filled("T.Compose([T.RandomPerspective(fill=(124.7, 116, 104))])").steps[-1]
    (warp,) = [n for n in step.nodes if n.op == "experimental.warp_perspective"]
    assert warp.args["fill_value"] == [124.0, 116.0, 104.0]  # truncated on a PIL image


def test_a_fill_per_channel_where_none_is_ported_says_the_fix() -> None:
    text = "import torchvision.transforms as T\nt = T.Compose([T.RandAugment(fill=[1, 2, 3])])\n"
    (found,) = read_source(text)
    (refusal,) = port_call(found.compose).refusals
    assert "(fix: one value for all channels, such as fill=0)" in refusal.reason


def test_a_fill_per_channel_under_random_apply_runs() -> None:
    from augexplorer.engine import Session

    result = _filled(
        "T.Compose([T.Resize((64, 64)), T.RandomApply([T.RandomRotation(30, fill=(255, 0, 0))])])"
    )
    session = Session(result.spec, device_id=None).run()
    outputs = [np.asarray(a) for a in session.arrays(result.spec.outputs["images"])]
    assert all(o.shape == (64, 64, 3) and o.dtype == np.uint8 for o in outputs)


def test_fills_per_channel_give_torchvisions_pixels(reference_python: str, tmp_path: Path) -> None:
    path = _write(tmp_path, FILLS)
    images = _images(4)
    for name, fill in (
        ("rotated", (255, 0, 128)),  # the expanded canvas's corner
        ("tensors", (125, 116, 104)),  # a tensor's fill rounded, not truncated
    ):
        comparison = compare_file(
            path, images, run_file=True, python=reference_python, pipeline=name, draws=0
        )
        assert comparison.original_error == ""
        for ours, theirs in zip(comparison.ported, comparison.original, strict=True):
            assert ours.shape == theirs.shape
            gaps = np.abs(ours.astype(int) - theirs.astype(int))
            assert gaps.mean() < 0.05, name  # only nearest sampling's ties differ
            # the corner the image leaves is each channel's fill, on both sides
            assert tuple(theirs[0, 0]) == tuple(ours[0, 0]) == fill, name
    # the corners drawn at random, on each side by its own generator: the fill is there
    comparison = compare_file(
        path, images, run_file=True, python=reference_python, pipeline="perspective", draws=0
    )
    assert comparison.original_error == ""
    for side in (comparison.ported, comparison.original):
        for output in side:
            assert (output == np.array([124, 116, 104], np.uint8)).all(axis=2).sum() > 100


# ---- v2.GaussianNoise -------------------------------------------------------------------------
# Refused ("DALI has no equivalent of GaussianNoise"), though it is a normal draw per value added
# to the tensor.

NOISE = {
    "floats": "v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.GaussianNoise(sigma=0.2)",
    "floats_clean": "v2.ToImage(), v2.ToDtype(torch.float32, scale=True)",
    "bytes": "v2.ToImage(), v2.GaussianNoise(mean=0.05, sigma=0.2)",
    "wrapped": "v2.ToImage(), v2.GaussianNoise(sigma=0.2, clip=False)",
    "bytes_clean": "v2.ToImage()",
}


def test_gaussian_noise_on_a_pil_image_is_refused_as_torchvision_fails() -> None:
    (found,) = read_source(
        "from torchvision.transforms import v2\nt = v2.Compose([v2.GaussianNoise()])\n"
    )
    (refusal,) = port_call(found.compose).refusals
    assert "not implemented for PIL images" in refusal.reason
    assert "(fix: put it after ToImage()" in refusal.reason


def test_gaussian_noise_adds_what_torchvision_adds(reference_python: str, tmp_path: Path) -> None:
    """The noise each side adds (output less the image without it), over every value of two
    photos: the same distribution, truncation toward zero and clipping on uint8 included."""
    from port_parity import ported, reference, run, sample_images
    from scipy.stats import ks_2samp

    images = sample_images(2)
    cases = {name: f"v2.Compose([{code}])" for name, code in NOISE.items()}
    theirs = reference(reference_python, cases, images, tmp_path)
    ours = {name: run(ported(code, images, tmp_path)) for name, code in NOISE.items()}
    for name, clean in (
        ("floats", "floats_clean"),
        ("bytes", "bytes_clean"),
        ("wrapped", "bytes_clean"),
    ):
        assert [a.dtype for a in ours[name]] == [a.dtype for a in theirs[name]]
        added = {}
        for side, outputs in (("theirs", theirs), ("ours", ours)):
            pairs = zip(outputs[name], outputs[clean], strict=True)
            added[side] = np.concatenate([(a.astype(float) - b).ravel() for a, b in pairs])
        assert ks_2samp(added["theirs"], added["ours"]).pvalue > 0.05, name
        assert abs(added["theirs"].mean() - added["ours"].mean()) < 0.02 * added["theirs"].std()
