"""Forms only ``transforms.v2`` takes: ``Resize(size=None, max_size=N)`` (the longer side to N;
v1's Resize fails on size=None) and ``ToDtype(torch.uint8)`` on an image still uint8 (nothing
to do)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from augexplorer.engine import Session
from augexplorer.port.door import port_call
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.spec import Source

V2 = "import torch\nfrom torchvision.transforms import v2\n"
SHAPES = [(300, 200), (200, 300), (250, 250), (333, 500), (120, 90), (175, 280), (11, 264)]
SHAPES += [(725, 1856), (7, 3), (199, 597)]
# torchvision 0.29.1's output (height, width) for SHAPES, made in the reference environment:
# v2.Resize(size=None, max_size=m)(Image.fromarray(np.zeros((h, w, 3), np.uint8))).size[::-1]
RESIZED = {
    200: [
        *[(200, 133), (133, 200), (200, 200), (133, 200), (200, 150), (125, 200), (8, 200)],
        *[(78, 200), (200, 85), (66, 200)],
    ],
    113: [
        *[(113, 75), (75, 113), (113, 113), (75, 113), (113, 84), (70, 113), (4, 113)],
        *[(44, 113), (113, 48), (37, 113)],
    ],
}


def _ported(text: str, imports: str = V2) -> PortResult:
    (found,) = read_source(f"{imports}t = v2.Compose([{text}])\n")
    return port_call(found.compose)


def _run(result: PortResult, images: list[np.ndarray]) -> list[np.ndarray]:
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    spec = dataclasses.replace(spec, batch_size=len(images))
    session = Session(spec, data=(images, [0] * len(images)), device_id=None)
    return [np.asarray(a) for a in session.run().arrays(spec.outputs["images"])]


@pytest.mark.parametrize("longest", sorted(RESIZED))
def test_v2_resize_of_no_size_sizes_the_longer_side_as_torchvision(longest: int) -> None:
    result = _ported(f"v2.Resize(size=None, max_size={longest})")
    assert not result.refusals, [r.reason for r in result.refusals]
    images = [np.zeros((h, w, 3), np.uint8) for h, w in SHAPES]
    assert [a.shape[:2] for a in _run(result, images)] == RESIZED[longest]


@pytest.mark.parametrize(
    ("imports", "text", "said"),
    [
        (
            "import torchvision.transforms as v2\n",
            "v2.Resize(None, max_size=200)",
            "size=None: torchvision.transforms' Resize fails on it (TypeError: Size should be "
            "int or sequence) (fix: a size; or v2.Resize(size=None, max_size=N), which sizes "
            "the longer side to N)",
        ),
        (
            V2,
            "v2.Resize(size=None)",
            "size=None with max_size=None: v2's Resize fails on it, as it takes the longer side "
            "from max_size (fix: max_size=N, an int)",
        ),
    ],
)
def test_resize_of_no_size_is_refused_where_torchvision_fails(
    imports: str, text: str, said: str
) -> None:
    (refused,) = _ported(text, imports).refusals
    assert refused.reason == said


@pytest.mark.parametrize(
    "text",
    [
        "v2.ToImage(), v2.ToDtype(torch.uint8, scale=True)",
        "v2.ToImage(), v2.ToDtype(torch.uint8)",
        "v2.PILToTensor(), v2.ConvertImageDtype(torch.uint8)",
    ],
)
def test_to_uint8_on_a_uint8_image_is_nothing_to_do(text: str) -> None:
    result = _ported(text)
    assert not result.refusals, [r.reason for r in result.refusals]
    step = result.steps[-1]
    assert (step.nodes, step.origin.fidelity) == ((), "exact")
    image = np.arange(5 * 7 * 3, dtype=np.uint8).reshape(5, 7, 3)
    (out,) = _run(result, [image])
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, image.transpose(2, 0, 1))  # ToImage's CHW, unchanged


def test_to_uint8_on_a_float_tensor_is_still_refused() -> None:
    (refused,) = _ported(
        "v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.ToDtype(torch.uint8, scale=True)"
    ).refusals
    assert "ToDtype to uint8 is not ported" in refused.reason
