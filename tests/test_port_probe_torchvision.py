"""Probe findings in the torchvision port: refusal messages that named the wrong fix or leaked
the reader's objects, and transforms that leave the image as it is (Identity, ToPILImage)."""

from __future__ import annotations

import os
import subprocess

import pytest

from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.port.torchvision import port

HEADER = (
    "import torch\nimport torchvision.transforms as T\nimport torchvision.transforms.v2 as v2\n"
    "from torchvision import tv_tensors\n"
)


def _ported(compose: str) -> PortResult:
    (found,) = read_source(f"{HEADER}t = {compose}\n")
    return port(found.compose, batch_size=2)


def _refusal(compose: str) -> str:
    (refusal,) = _ported(compose).refusals
    return refusal.describe()


@pytest.mark.parametrize(
    "late",
    [
        "v2.ColorJitter(0.2, 0.2)",
        "v2.RandomInvert()",
        "v2.RandomAffine(10)",
        "v2.RandomPerspective()",
        "v2.RandomRotation(10)",
        "v2.TrivialAugmentWide()",
        "v2.Grayscale(3)",
    ],
)
def test_a_transform_after_to_dtype_float_names_to_dtype_in_its_fix(late: str) -> None:
    """There is no ToTensor in a v2 pipeline: "put it before ToTensor" sent the reader looking
    for one."""
    said = _refusal(f"v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True), {late}])")
    assert "before ToTensor or ToDtype to float" in said, said


def test_a_comprehension_of_transforms_is_said_to_be_unread_as_written() -> None:
    said = _refusal("T.Compose([T.RandomApply([T.ColorJitter(b, b, b)], p=0.5) for b in (0.2,)])")
    assert "for b in (0.2,)] not ported" in said, said  # as written: no stray "()"
    assert "comprehension" in said and "fix: write the transforms out" in said
    assert "custom class" not in said


def test_a_fill_per_type_is_shown_as_the_source_writes_it() -> None:
    """Ported now with the image's entry (tests/test_port_torchvision_as_written.py); the step
    still shows the dict as written, never the reader's objects."""
    result = _ported(
        "v2.Compose([v2.ToImage(), v2.RandomRotation(10, fill={tv_tensors.Image: 127, "
        "'others': 0})])"
    )
    (rotation,) = [s for s in result.steps if s.call.name == "RandomRotation"]
    said = rotation.call.text()
    assert "fill={tv_tensors.Image: 127, 'others': 0}" in said, said
    assert "Unknown(" not in said


@pytest.mark.parametrize(
    "compose",
    [
        "v2.Compose([v2.Identity(), v2.RandomHorizontalFlip()])",
        "T.Compose([T.ToPILImage(), T.RandomHorizontalFlip()])",
        "v2.Compose([v2.ToPILImage(), v2.RandomHorizontalFlip(), v2.Identity()])",
    ],
)
def test_identity_and_to_pil_image_on_the_graphs_images_are_nothing_to_do(compose: str) -> None:
    result = _ported(compose)
    assert not result.refusals, [r.describe() for r in result.refusals]
    kept = [s for s in result.steps if s.call.name in ("Identity", "ToPILImage")]
    assert kept and all(s.nodes == () and s.origin.fidelity == "exact" for s in kept)
    assert [s.call.name for s in result.steps if s.nodes] == ["RandomHorizontalFlip"]


@pytest.mark.parametrize("before", ["T.ToTensor()", "T.PILToTensor()"])
def test_to_pil_image_after_a_tensor_is_refused_with_why(before: str) -> None:
    said = _refusal(f"T.Compose([{before}, T.ToPILImage()])")
    assert "turns the tensor back into 8-bit HWC pixels" in said and "fix:" in said, said


REFERENCE = os.environ.get("AUGEXPLORER_REFERENCE_PYTHON")


@pytest.mark.skipif(not REFERENCE, reason="AUGEXPLORER_REFERENCE_PYTHON not set")
def test_torchvisions_to_pil_image_and_identity_keep_an_hwc_uint8_array_as_it_is() -> None:
    """The grade's claim, measured on torchvision itself: the same pixels out."""
    code = (
        "import numpy as np, torchvision.transforms as T, torchvision.transforms.v2 as v2\n"
        "a = np.random.default_rng(0).integers(0, 256, (37, 53, 3), dtype=np.uint8)\n"
        "for t in (T.ToPILImage(), v2.ToPILImage()):\n"
        "    assert np.array_equal(np.asarray(t(a)), a)\n"
        "assert v2.Identity()(a) is a\n"
        "print('same')\n"
    )
    assert REFERENCE is not None
    out = subprocess.run([REFERENCE, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "same", out.stderr
