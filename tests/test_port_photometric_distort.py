"""torchvision's RandomPhotometricDistort (transforms.v2) ported, against torchvision 0.29.1 on
PIL images: torchvision given the port's own draws of an image (the contrast before or after
saturation and hue, one of six channel orders) makes its pixels within the measured bound, and
the port draws them as torchvision does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from port_parity import difference, ported, reference, sample_images

from augexplorer.engine import Session
from augexplorer.port.torchvision.grades import GRADES

SETS = {
    "stronger": {"brightness": 1.2, "contrast": 0.7, "saturation": 1.3, "hue": 0.05},
    "weaker": {"brightness": 0.9, "contrast": 1.4, "saturation": 0.6, "hue": -0.04},
}


def with_draws(factors: dict[str, float], before: bool, order: tuple[int, ...]) -> str:
    """torchvision's transform with every step applied and these draws (its `transform` given
    the parameters `make_params` would have drawn)."""
    params = {f"{name}_factor": value for name, value in factors.items()}
    text = f"{{**{params!r}, 'contrast_before': {before}, 'channel_permutation': torch.tensor({list(order)})}}"
    return f"(lambda t: lambda image: t.transform(image, {text}))(v2.RandomPhotometricDistort())"


def channel_order(pick: int) -> tuple[int, ...]:
    """The channel each output channel reads, for the port's draw `pick` (0..5)."""
    return tuple((pick % 3 + channel * (1 + pick // 3)) % 3 for channel in range(3))


def ported_with_draws(factors: str, tmp: Path) -> tuple[list[np.ndarray], dict[str, str]]:
    """The port's pixels with every step applied and these factors pinned, and torchvision's
    transform given the same draws for each image (a case per image)."""
    values = SETS[factors]
    pinned = ", ".join(f"{name}=({value}, {value})" for name, value in values.items())
    result = ported(f"v2.RandomPhotometricDistort({pinned}, p=1.0)", sample_images(12), tmp)
    ran = Session(result.spec, device_id=None).run()
    ours = [np.asarray(a) for a in ran.arrays(result.spec.outputs["images"])]
    draws = ran.draws()
    firsts, picks = draws["contrast_first"]["drawn"], draws["permute_pick"]["drawn"]
    assert len(set(picks)) >= 4 and 0 < sum(firsts) < len(firsts)  # several draws are tried
    cases = {
        f"image_{index}": with_draws(values, bool(first), channel_order(int(pick)))
        for index, (first, pick) in enumerate(zip(firsts, picks, strict=True))
    }
    return ours, cases


@pytest.fixture(scope="module")
def pixels(
    reference_python: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[list[np.ndarray], list[np.ndarray]]]:
    """Per factor set: the port's pixels and torchvision's, each image given the port's draws
    (torchvision run once, in one reference process, for every set)."""
    tmp = tmp_path_factory.mktemp("photometric")
    ported_sets = {factors: ported_with_draws(factors, tmp) for factors in sorted(SETS)}
    cases = {
        f"{factors}/{name}": code
        for factors, (_, named) in ported_sets.items()
        for name, code in named.items()
    }
    theirs = reference(reference_python, cases, sample_images(12), tmp)
    return {
        factors: (ours, [theirs[f"{factors}/image_{i}"][i] for i in range(len(ours))])
        for factors, (ours, _) in ported_sets.items()
    }


@pytest.mark.slow
@pytest.mark.parametrize("factors", sorted(SETS))
def test_with_the_same_draws_the_pixels_are_torchvisions(
    factors: str, pixels: dict[str, tuple[list[np.ndarray], list[np.ndarray]]]
) -> None:
    ours, theirs = pixels[factors]
    found = [difference([a], [b]) for a, b in zip(ours, theirs, strict=True)]
    measured = GRADES["RandomPhotometricDistort"]
    assert measured.mean_abs is not None and measured.max_abs is not None
    assert all(d.shapes_agree for d in found)
    assert max(d.mean_abs for d in found) <= measured.mean_abs, [str(d) for d in found]
    assert max(d.max_abs for d in found) <= measured.max_abs, [str(d) for d in found]


def test_each_step_is_drawn_with_p_and_the_orders_uniformly(tmp_path: Path) -> None:
    images = sample_images(16)
    result = ported("v2.RandomPhotometricDistort(p=0.3)", images, tmp_path)
    session = Session(result.spec, device_id=None)
    drawn: dict[str, list[object]] = {}
    for _ in range(25):  # 400 draws of each
        for node, args in session.next_batch().draws().items():
            for values in args.values():
                drawn.setdefault(node, []).extend(values)
    for coin in ("brightness_apply", "contrast_apply", "saturation_apply", "hue_apply"):
        share = float(np.mean(drawn[coin]))
        assert 0.22 <= share <= 0.38, (coin, share)  # p = 0.3, 400 draws: 4 standard errors
    assert 0.4 <= float(np.mean(drawn["contrast_first"])) <= 0.6
    orders = np.bincount(np.asarray(drawn["permute_pick"], int), minlength=6)
    assert orders.min() >= 40 and orders.max() <= 95, orders  # 400 / 6 = 67 each
    assert min(drawn["contrast_draw"]) >= 0.5 and max(drawn["contrast_draw"]) <= 1.5  # type: ignore[type-var]


@pytest.mark.parametrize(
    ("call", "said"),
    [
        ("v2.RandomPhotometricDistort(brightness=0.2)", "takes a (min, max) pair"),
        ("v2.RandomPhotometricDistort(hue=(-0.6, 0.1))", "-0.5 <= min <= max <= 0.5"),
        ("v2.RandomPhotometricDistort(p=1.5)", "between 0 and 1"),
        ("v2.RandomPhotometricDistort(contrast=(-0.5, 1.5))", "a factor is not negative"),
        ("v2.Grayscale(1), v2.RandomPhotometricDistort()", "one-channel image"),
        ("v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.RandomPhotometricDistort()",
         "float tensor"),
    ],
)  # fmt: skip
def test_what_torchvision_refuses_or_the_port_cannot_take_is_refused(
    call: str, said: str, tmp_path: Path
) -> None:
    result = ported(call, sample_images(2), tmp_path)
    assert [r.reason for r in result.refusals if said in r.reason], result.refusals
