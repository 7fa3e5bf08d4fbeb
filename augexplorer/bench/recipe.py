"""Which graphs have a torchvision / albumentations equivalent, and with what parameters.

Only the two ImageNet recipes are recognised, by the shape of the graph, not its name:
- train: random-crop decode (area and aspect ratio ranges) -> resize to S x S -> crop S x S,
  mirror by a coin flip, normalize to CHW float (torchvision's RandomResizedCrop(S),
  RandomHorizontalFlip, ToTensor, Normalize);
- val: decode -> resize the shorter side to R -> centre crop S x S, normalize to CHW float
  (Resize(R), CenterCrop(S), ToTensor, Normalize).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..plan import Plan, Step


@dataclass(frozen=True)
class Recipe:
    kind: str  # "train" or "val"
    size: int  # output is size x size, CHW float
    mean: tuple[float, float, float]  # on the 0-255 scale, as DALI takes it
    std: tuple[float, float, float]
    scale: tuple[float, float] = (0.08, 1.0)  # train: area fraction of the random crop
    ratio: tuple[float, float] = (3 / 4, 4 / 3)  # train: aspect ratio range of the random crop
    flip_probability: float = 0.0  # train: horizontal flip
    resize_shorter: int = 0  # val: shorter side before the centre crop

    def describe(self) -> str:
        mean = ", ".join(f"{m / 255:.3f}" for m in self.mean)
        std = ", ".join(f"{s / 255:.3f}" for s in self.std)
        tail = f"to a {self.size}x{self.size} CHW float32 tensor normalized by mean ({mean}), std ({std}) on 0-1 values"
        if self.kind == "train":
            return (
                f"random resized crop (area {self.scale[0]:g}-{self.scale[1]:g}, aspect "
                f"{self.ratio[0]:.3g}-{self.ratio[1]:.3g}) resized bilinearly to "
                f"{self.size}x{self.size}, horizontal flip with p={self.flip_probability:g}, "
                + tail
            )
        return (
            f"shorter side resized bilinearly to {self.resize_shorter}, centre crop "
            f"{self.size}x{self.size}, " + tail
        )


def recipe_for(plan: Plan) -> Recipe | None:
    """The recipe a graph follows, or None when it has no torchvision/albumentations version."""
    nodes = [step for step in plan.steps if step.role == "node"]
    ops = [step.op for step in nodes]
    if ops == ["decoders.image_random_crop", "resize", "crop_mirror_normalize"]:
        return _train(plan, *nodes)
    if ops == ["decoders.image", "resize", "crop_mirror_normalize"]:
        return _val(*nodes)
    return None


def _normalize_args(step: Step) -> tuple[int, Any, Any] | None:
    """(crop size, mean, std) of a centred square crop normalized to CHW float, else None."""
    args = step.args
    crop = args.get("crop")
    centred = args.get("crop_pos_x", 0.5) == 0.5 and args.get("crop_pos_y", 0.5) == 0.5
    if (
        args.get("dtype") != "FLOAT"
        or args.get("output_layout") != "CHW"
        or not isinstance(crop, list)
        or len(crop) != 2
        or crop[0] != crop[1]
        or len(args.get("mean", [])) != 3
        or len(args.get("std", [])) != 3
        or not centred
        or args.get("pad_output")
    ):
        return None
    return int(crop[0]), tuple(args["mean"]), tuple(args["std"])


def _train(plan: Plan, decode: Step, resize: Step, normalize: Step) -> Recipe | None:
    normalized = _normalize_args(normalize)
    size_x, size_y = resize.args.get("resize_x"), resize.args.get("resize_y")
    if normalized is None or size_x is None or size_x != size_y or int(size_x) != normalized[0]:
        return None
    mirror = normalize.arg_inputs.get("mirror")
    if mirror is None:
        return None
    flip = plan.step(mirror.node)
    if flip.op != "random.coin_flip":
        return None
    return Recipe(
        kind="train",
        size=normalized[0],
        mean=normalized[1],
        std=normalized[2],
        scale=_pair(decode.args.get("random_area", (0.08, 1.0))),
        ratio=_pair(decode.args.get("random_aspect_ratio", (3 / 4, 4 / 3))),
        flip_probability=float(flip.args.get("probability", 0.5)),
    )


def _val(decode: Step, resize: Step, normalize: Step) -> Recipe | None:
    normalized = _normalize_args(normalize)
    shorter = resize.args.get("resize_shorter")
    if normalized is None or shorter is None or "mirror" in normalize.arg_inputs:
        return None
    if normalize.args.get("mirror"):
        return None
    return Recipe(
        kind="val",
        size=normalized[0],
        mean=normalized[1],
        std=normalized[2],
        resize_shorter=int(shorter),
    )


def _pair(value: Any) -> tuple[float, float]:
    low, high = value
    return float(low), float(high)
