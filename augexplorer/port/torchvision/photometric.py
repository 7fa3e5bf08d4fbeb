"""torchvision's RandomPhotometricDistort (transforms.v2; SSD's colour distortion).

Per image, each of brightness, contrast, saturation and hue is applied with probability p, with
its factor drawn from its range; a coin of 1/2 puts contrast before saturation and hue or after
them; last, with probability p, the channels are put in one of the six orders. The steps run in
torchvision's own fixed order, so unlike ColorJitter's port nothing is reordered.
"""

from __future__ import annotations

from ...spec import Clause, Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import BEFORE_FLOAT
from .color import brightness, contrast, drawn_once, hue_step, saturation
from .expression_steps import helper, image_from
from .geometry import uniform
from .grades import grade

DEFAULTS = {
    "brightness": (0.875, 1.125),
    "contrast": (0.5, 1.5),
    "saturation": (0.5, 1.5),
    "hue": (-0.05, 0.05),
}


def random_photometric_distort(call: TransformCall, context: PortContext) -> Grade:
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(
            f"RandomPhotometricDistort on a float tensor is not ported (fix: put it {BEFORE_FLOAT})"
        )
    ranges = {
        name: _pair(call.argument(index, name, default), name)
        for index, (name, default) in enumerate(DEFAULTS.items())
    }
    if context.state.get("channels", 3) != 3:
        raise Refuse(
            "RandomPhotometricDistort on a one-channel image is not ported (torchvision skips "
            "saturation and hue there; fix: put it before Grayscale)"
        )
    p = float(call.argument(4, "p", 0.5))
    if not 0 <= p <= 1:
        raise Refuse(f"p={p:g}: a probability is between 0 and 1")
    if not -0.5 <= ranges["hue"][0] <= ranges["hue"][1] <= 0.5:
        raise Refuse(f"hue={ranges['hue']}: torchvision takes -0.5 <= min <= max <= 0.5")

    def draw(name: str) -> object:
        low, high = ranges[name]
        return uniform(low, high, context.seed_for(call.name, name, str(len(context.nodes))))

    def applied(base: str) -> Clause | None:
        return Clause(context.coin(base, p)) if p < 1 else None

    def under(made: list[Ref], *clauses: Clause | None) -> None:
        context.run_under(made, [clause for clause in clauses if clause is not None])

    under([brightness(context, draw("brightness"))], applied("brightness_apply"))
    contrast_applied = applied("contrast_apply")
    first = context.coin("contrast_first", 0.5)
    # one factor, used where contrast runs: before saturation and hue or after them
    factor = drawn_once(context, "contrast_draw", *ranges["contrast"])
    before = contrast(context, lambda: factor)
    under([before], contrast_applied, Clause(first))
    under([saturation(context, draw("saturation"))], applied("saturation_apply"))
    under(hue_step(context, ranges["hue"]), applied("hue_apply"))
    after = contrast(context, lambda: factor)
    under([after], contrast_applied, Clause(first, holds=False))
    under(_permute_channels(context), applied("permute_apply"))
    return grade(call.name)


def _pair(value: object, name: str) -> tuple[float, float]:
    """torchvision takes (min, max) here, never one number (it indexes the value)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise Refuse(
            f"{name}={value!r}: RandomPhotometricDistort takes a (min, max) pair here "
            f"(torchvision fails on one number; fix: {name}=({DEFAULTS[name][0]}, "
            f"{DEFAULTS[name][1]}) is its default)"
        )
    low, high = float(value[0]), float(value[1])
    if low > high:
        raise Refuse(f"{name}={value!r}: min is above max")
    if name != "hue" and low < 0:
        raise Refuse(f"{name}={value!r}: a factor is not negative (torchvision fails on one drawn)")
    return low, high


def _permute_channels(context: PortContext) -> list[Ref]:
    """One of the six channel orders, drawn uniformly as torch.randperm(3) draws it: k in 0..5
    makes channel i read channel (k % 3 + i * (1 + k // 3)) % 3 (the three rotations, then the
    three reversed). Returns the nodes that make the image."""
    image = context.image
    pick = context.add(
        "permute_pick",
        "random.uniform",
        {"values": [float(k) for k in range(6)], "dtype": "INT32"},
        image=False,
        seed=True,
    )
    channels = []
    for i in range(3):
        source = helper(
            context, f"permute_from_{i}", f"({pick.node} % 3 + {i} * (1 + {pick.node} // 3)) % 3"
        )
        channels.append(helper(context, f"permuted_{i}", f"{image.node}[:, :, {source.node}]"))
    stacked = context.add("permuted", "stack", {"axis": 2}, inputs=tuple(channels), image=False)
    return image_from(context, stacked, "permute", "permute_channels")
