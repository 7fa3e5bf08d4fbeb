"""RandomAdjustSharpness: applied with torchvision's probability, and refused where torchvision
refuses it or the port cannot take the image. Its pixels against torchvision's:
tests/test_port_torchvision.py and tests/test_port_torchvision_v2.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from port_parity import ported, run, sample_images


def test_half_the_images_keep_their_pixels_at_p_one_half(tmp_path: Path) -> None:
    images = sample_images(16)
    always = run(ported("T.CenterCrop(64), T.RandomAdjustSharpness(4, p=1.0)", images, tmp_path))
    never = run(ported("T.CenterCrop(64), T.RandomAdjustSharpness(4, p=0.0)", images, tmp_path))
    half = run(ported("T.CenterCrop(64), T.RandomAdjustSharpness(4)", images, tmp_path))
    assert all(not np.array_equal(a, n) for a, n in zip(always, never, strict=True))
    sharpened = [np.array_equal(h, a) for h, a in zip(half, always, strict=True)]
    kept = [np.array_equal(h, n) for h, n in zip(half, never, strict=True)]
    assert all(s != k for s, k in zip(sharpened, kept, strict=True))  # one or the other
    assert 2 <= sum(sharpened) <= 14  # p = 0.5 over 16 images (fails with chance 0.0004)


@pytest.mark.parametrize(
    ("call", "said"),
    [
        ("T.RandomAdjustSharpness(-1)", "a factor of 0 or more"),
        ("T.ToTensor(), T.RandomAdjustSharpness(2)", "float tensor"),
    ],
)
def test_what_torchvision_refuses_or_the_port_cannot_take_is_refused(
    call: str, said: str, tmp_path: Path
) -> None:
    result = ported(call, sample_images(2), tmp_path)
    assert [r.reason for r in result.refusals if said in r.reason], result.refusals


def test_an_image_two_pixels_across_or_less_stays_as_it_is(tmp_path: Path) -> None:
    """PIL leaves an image with no inside as it is; the port's filter of the inside alone made
    DALI refuse the whole batch ("Filter ... is bigger than the sample")."""
    images = sample_images(3)
    for size in ("(2, 5)", "(5, 2)", "(1, 1)"):
        before = run(ported(f"T.Resize({size})", images, tmp_path))
        after = run(
            ported(f"T.Resize({size}), T.RandomAdjustSharpness(3, p=1.0)", images, tmp_path)
        )
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True)), size
