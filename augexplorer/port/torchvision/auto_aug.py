"""torchvision's AutoAugment, RandAugment and TrivialAugmentWide as auto_aug policy nodes, with
torchvision's defaults (nearest-neighbour sampling, fill 0) written out: AutoAugment as
torchvision's own sub-policies (``auto_aug.torchvision_auto_augment``), the other two as DALI's."""

from __future__ import annotations

from ...expressions.nodes import expression
from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import Symbol, TransformCall
from .arguments import BEFORE_FLOAT, INTERPOLATION, fill_value, image_fill, interpolation_name
from .grades import grade

# torchvision's AutoAugmentPolicy -> the policy_name of augexplorer's node that holds
# torchvision's own sub-policies (augexplorer.auto_aug_torchvision; DALI's auto_augment policies
# are other lists)
POLICIES = {"IMAGENET": "imagenet", "SVHN": "svhn", "CIFAR10": "cifar10"}


def _common(call: TransformCall, context: PortContext, index: int) -> dict[str, object]:
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"{call.name} works on uint8 images (fix: put it {BEFORE_FLOAT})")
    mode = interpolation_name(call.argument(index, "interpolation"), "NEAREST")
    return {
        "interp_type": INTERPOLATION[mode],
        "fill_value": int(fill_value(image_fill(call.argument(index + 1, "fill"), context.state))),
    }


def auto_augment(call: TransformCall, context: PortContext) -> Grade:
    policy = call.argument(0, "policy")
    name = policy.last if isinstance(policy, Symbol) else str(policy or "IMAGENET").upper()
    if name not in POLICIES:
        raise Refuse(f"policy {name} has no DALI counterpart")
    args = {"policy_name": POLICIES[name], **_common(call, context, 1)}
    if args["fill_value"] == 0:  # the node's default, torchvision's fill
        del args["fill_value"]
    context.add("auto_augment", "auto_aug.torchvision_auto_augment", args, seed=True)
    return grade(call.name, policy=name)


# torchvision's RandAugment translates by up to 150/331 of the image's width (x) or height (y)
TRANSLATE_REL = 150.0 / 331.0


def rand_augment(call: TransformCall, context: PortContext) -> Grade:
    args: dict[str, object] = {
        "n": int(call.argument(0, "num_ops", 2)),
        "m": int(call.argument(1, "magnitude", 9)),
        "num_magnitude_bins": int(call.argument(2, "num_magnitude_bins", 31)),
        **_common(call, context, 3),
    }
    # translations relative to each image's size, as torchvision's (DALI's own default is
    # up to 100 px whatever the size): the policy is given the images' (H, W)
    shape_id = context.fresh_id("rand_augment_shape")
    shape = expression(shape_id, f"{context.image.node}.shape()[0:2]")
    context.add_node(shape)
    args |= {"shape": Ref(shape_id), "max_translate_rel": TRANSLATE_REL}
    context.add("rand_augment", "auto_aug.rand_augment", args, seed=True)
    return grade(call.name)


def trivial_augment_wide(call: TransformCall, context: PortContext) -> Grade:
    args = {
        "num_magnitude_bins": int(call.argument(0, "num_magnitude_bins", 31)),
        **_common(call, context, 1),
    }
    context.add("trivial_augment_wide", "auto_aug.trivial_augment_wide", args, seed=True)
    return grade(call.name)
