"""torchvision's grey and half-precision tensors through the port: ``Grayscale()`` then
``ToTensor()`` and a one-value ``Normalize`` (the MNIST pipeline) run as a one-channel tensor,
``ToDtype(torch.float16)`` gives float16, and the float types DALI does not give are refused
with the fix; checked against real torchvision in the reference environment."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from augexplorer.engine import Session
from augexplorer.port.compare import compare_file
from augexplorer.port.door import port_file

SAMPLES = Path(__file__).resolve().parents[1] / "augexplorer" / "samples" / "images"

MNIST = textwrap.dedent(
    """
    from torchvision import transforms

    train_transform = transforms.Compose([
        transforms.Grayscale(),
        transforms.Resize((28, 28)),
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,)),
    ])
    """
)

HALF = textwrap.dedent(
    """
    import torch
    from torchvision.transforms import v2

    train_transform = v2.Compose([
        v2.ToImage(),
        v2.Resize((32, 32)),
        v2.ToDtype(torch.float16, scale=True),
        v2.Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]),
    ])
    """
)


def _images(count: int = 3, side: int = 96) -> list[np.ndarray]:
    out = []
    for file in sorted(SAMPLES.rglob("*.jpg"))[:count]:
        with Image.open(file) as opened:
            image = opened.convert("RGB")
            image.thumbnail((side, side))
            out.append(np.asarray(image))
    return out


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_grey_to_tensor_runs_as_one_channel(tmp_path: Path) -> None:
    ported = port_file(_write(tmp_path, MNIST))
    assert not ported.refusals
    result = Session(ported.spec, batch_size=2).run()
    arrays = result.arrays(result.final)
    assert [a.shape for a in arrays] == [(1, 28, 28)] * 2 and arrays[0].dtype == np.float32


def test_a_mean_per_rgb_channel_on_a_grey_image_is_refused_with_the_fix(tmp_path: Path) -> None:
    text = MNIST.replace("(0.1307,), (0.3081,)", "(0.5, 0.5, 0.5), (0.2, 0.2, 0.2)")
    ported = port_file(_write(tmp_path, text))
    (refusal,) = ported.refusals
    assert "Normalize" in str(refusal) and "grey here" in str(refusal)


def test_float16_is_float16(tmp_path: Path) -> None:
    ported = port_file(_write(tmp_path, HALF))
    assert not ported.refusals
    result = Session(ported.spec, batch_size=2).run()
    arrays = result.arrays(result.final)
    assert arrays[0].dtype == np.float16 and arrays[0].shape == (3, 32, 32)


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_float_types_dali_does_not_give_are_refused(tmp_path: Path, dtype: str) -> None:
    ported = port_file(_write(tmp_path, HALF.replace("float16", dtype)))
    assert any("torch.float32, or torch.float16" in str(r) for r in ported.refusals)


@pytest.mark.slow
@pytest.mark.parametrize("text", [MNIST, HALF], ids=["grey", "half"])
def test_against_real_torchvision(reference_python: str, tmp_path: Path, text: str) -> None:
    comparison = compare_file(
        _write(tmp_path, text), _images(), run_file=True, python=reference_python, draws=0
    )
    assert not comparison.original_error
    for ours, theirs in zip(comparison.ported, comparison.original, strict=True):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        # Resize within torchvision's own rounding: a few grey levels, in normalized units
        assert np.abs(ours.astype(np.float64) - theirs.astype(np.float64)).mean() < 0.05


@pytest.mark.parametrize("grey", ["Grayscale(3)", "RandomGrayscale(p=0.5)"])
def test_grey_after_to_tensor_is_refused_with_the_fix_not_ported_into_a_failing_graph(
    grey: str, tmp_path: Path
) -> None:
    """DALI's colour conversion takes HWC images: ported after ToTensor (CHW floats) it was
    graded exact and the graph could not run."""
    text = (
        "import torchvision.transforms as T\n"
        "t = T.Compose([T.ToTensor(), T.Normalize([0.5] * 3, [0.2] * 3), "
        f"T.{grey}])\n"
    )
    result = port_file(_write(tmp_path, text))
    (refusal,) = result.refusals
    assert "on a float tensor is not ported (fix: put it before ToTensor" in refusal.reason
    Session(result.spec, device_id=None).run()  # what is ported runs
