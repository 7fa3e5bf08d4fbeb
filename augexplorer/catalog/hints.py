"""Curated UI hints for the image operators people tune most.

Everything here is a suggestion for a control (slider range and step); the catalog itself, with
types, defaults and docs, is generated from DALI's schemas. Keys are `fn` names and DALI argument
names exactly as DALI spells them.
"""

from __future__ import annotations

from typing import Any

from .model import Hint, OpInfo

HINTS: dict[str, dict[str, Hint]] = {
    # +-90 rather than +-180: the slider moves in finer steps; the box takes any angle
    "rotate": {"angle": Hint(-90, 90, 1), "fill_value": Hint(0, 255, 1)},
    "resize": {
        "resize_x": Hint(16, 1024, 1),
        "resize_y": Hint(16, 1024, 1),
        "resize_shorter": Hint(16, 1024, 1),
        "resize_longer": Hint(16, 1024, 1),
    },
    "random_resized_crop": {
        "size": Hint(16, 1024, 1),
        "random_area": Hint(0.01, 1, 0.01, pair=True),
        "random_aspect_ratio": Hint(0.25, 4, 0.01, pair=True),
    },
    "crop": {
        "crop_h": Hint(8, 1024, 1),
        "crop_w": Hint(8, 1024, 1),
        "crop_pos_x": Hint(0, 1, 0.01),
        "crop_pos_y": Hint(0, 1, 0.01),
    },
    "crop_mirror_normalize": {
        "crop_h": Hint(8, 1024, 1),
        "crop_w": Hint(8, 1024, 1),
        "crop_pos_x": Hint(0, 1, 0.01),
        "crop_pos_y": Hint(0, 1, 0.01),
        "mirror": Hint(0, 1, 1),
        "scale": Hint(0, 4, 0.05),
    },
    "flip": {"horizontal": Hint(0, 1, 1), "vertical": Hint(0, 1, 1)},
    "brightness": {"brightness": Hint(0, 3, 0.01), "brightness_shift": Hint(-1, 1, 0.01)},
    "contrast": {"contrast": Hint(0, 3, 0.05), "contrast_center": Hint(0, 255, 1)},
    "brightness_contrast": {
        "brightness": Hint(0, 3, 0.05),
        "brightness_shift": Hint(-1, 1, 0.01),
        "contrast": Hint(0, 3, 0.05),
    },
    "hue": {"hue": Hint(-180, 180, 1)},
    "saturation": {"saturation": Hint(0, 3, 0.05)},
    "hsv": {"hue": Hint(-180, 180, 1), "saturation": Hint(0, 3, 0.05), "value": Hint(0, 3, 0.05)},
    "color_twist": {
        "brightness": Hint(0, 3, 0.05),
        "contrast": Hint(0, 3, 0.05),
        "hue": Hint(-180, 180, 1),
        "saturation": Hint(0, 3, 0.05),
    },
    "gaussian_blur": {"sigma": Hint(0, 10, 0.1), "window_size": Hint(1, 31, 2)},
    "noise.gaussian": {"mean": Hint(-50, 50, 1), "stddev": Hint(0, 100, 1)},
    "noise.salt_and_pepper": {"prob": Hint(0, 0.5, 0.005), "salt_vs_pepper": Hint(0, 1, 0.05)},
    "noise.shot": {"factor": Hint(0, 100, 0.5)},
    "jpeg_compression_distortion": {"quality": Hint(1, 100, 1)},
    "sphere": {},
    "water": {
        "ampl_x": Hint(0, 50, 0.5),
        "ampl_y": Hint(0, 50, 0.5),
        "freq_x": Hint(0, 1, 0.01),
        "freq_y": Hint(0, 1, 0.01),
    },
    "transforms.rotation": {"angle": Hint(-90, 90, 1)},
    "transforms.scale": {"scale": Hint(0.1, 3, 0.05)},
    "transforms.shear": {"angles": Hint(-45, 45, 1)},
    "transforms.translation": {"offset": Hint(-256, 256, 1)},
    "slice": {"rel_start": Hint(0, 1, 0.01), "rel_shape": Hint(0, 1, 0.01)},
    "paste": {"ratio": Hint(1, 4, 0.05), "paste_x": Hint(0, 1, 0.01), "paste_y": Hint(0, 1, 0.01)},
    "pad": {"fill_value": Hint(0, 255, 1)},
    "erase": {"fill_value": Hint(0, 255, 1)},
    "grid_mask": {
        "ratio": Hint(0, 1, 0.01),
        "tile": Hint(4, 256, 1),
        "angle": Hint(-3.15, 3.15, 0.01),
    },
    "experimental.warp_perspective": {},
    "warp_affine": {"fill_value": Hint(0, 255, 1)},
    "random.uniform": {"range": Hint(-180, 180, 0.5)},
    "random.normal": {"mean": Hint(-10, 10, 0.1), "stddev": Hint(0, 10, 0.1)},
    "random.coin_flip": {"probability": Hint(0, 1, 0.01)},
    "decoders.image_random_crop": {
        "num_attempts": Hint(1, 100, 1),
        "random_area": Hint(0.01, 1, 0.01, pair=True),
        "random_aspect_ratio": Hint(0.25, 4, 0.01, pair=True),
    },
    "jitter": {"nDegree": Hint(1, 10, 1)},
    "cast": {},
    "laplacian": {"window_size": Hint(3, 23, 2)},
    "normalize": {"mean": Hint(0, 255, 0.5), "stddev": Hint(0.01, 255, 0.5)},
}

# Starting values for a new node, so that it shows its controls and a visible effect at once
# (DALI's defaults do nothing, or fail, on an image for many of these). JSON values, as a graph
# holds them; "perm" for transpose is chosen from the layout it reads (see starting_values).
STARTERS: dict[str, dict[str, Any]] = {
    "brightness": {"brightness": 1.4},
    "brightness_contrast": {"brightness": 1.3, "contrast": 1.3},
    "contrast": {"contrast": 1.5},
    "hue": {"hue": 30.0},
    "saturation": {"saturation": 1.8},
    "hsv": {"hue": 30.0, "saturation": 1.5, "value": 1.1},
    "color_twist": {"hue": 20.0, "saturation": 1.4, "contrast": 1.2, "brightness": 1.1},
    "color_space_conversion": {"image_type": "RGB", "output_type": "BGR"},
    "clahe": {"clip_limit": 2.0, "tiles_x": 8, "tiles_y": 8},
    "jpeg_compression_distortion": {"quality": 10},
    "gaussian_blur": {"sigma": 2.0},
    "noise.gaussian": {"stddev": 20.0},
    "noise.salt_and_pepper": {"prob": 0.05},
    "noise.shot": {"factor": 20.0},
    "rotate": {"angle": 15.0},
    "flip": {"horizontal": 1},
    # a crop larger than a small image pads it rather than failing
    "crop": {"crop": [200.0, 200.0], "out_of_bounds_policy": "pad"},
    "crop_mirror_normalize": {
        "crop": [200.0, 200.0],
        "mirror": 1,
        "out_of_bounds_policy": "pad",
    },
    "resize": {"resize_shorter": 160.0},
    "resize_crop_mirror": {"resize_shorter": 256.0, "crop": [224.0, 224.0]},
    "random_resized_crop": {"size": [224.0, 224.0]},
    "warp_affine": {"matrix": [1.0, 0.2, 0.0, 0.1, 1.0, 0.0]},  # a visible shear
    "experimental.warp_perspective": {
        "matrix": [1.0, 0.1, 0.0, 0.05, 1.0, 0.0, 0.0004, 0.0002, 1.0]
    },
    "water": {"ampl_x": 10.0, "ampl_y": 10.0},
    "paste": {"ratio": 1.5, "fill_value": [0, 0, 0]},
    "pad": {"axis_names": "HW", "align": [100, 100], "fill_value": 128.0},
    "slice": {"axis_names": "HW", "rel_start": [0.1, 0.1], "rel_shape": [0.8, 0.8]},
    "erase": {
        "axis_names": "HW",
        "anchor": [0.25, 0.25],
        "shape": [0.3, 0.3],
        "normalized": True,
        "fill_value": [0.0],
    },
    "cast": {"dtype": "FLOAT"},
    "transforms.rotation": {"angle": 15.0},
    "transforms.scale": {"scale": [1.2, 1.2]},
    "transforms.shear": {"angles": [10.0, 0.0]},
    "transforms.translation": {"offset": [20.0, 0.0]},
    # two operations at magnitude 9 of 30 bins (as the dali_rand_augment preset): with m=0 most
    # of its operations have no strength and the new node seems to do nothing
    "auto_aug.rand_augment": {"n": 2, "m": 9},
}

# transpose: from the layout it reads to the other common one
TRANSPOSE_PERMS: dict[str, list[int]] = {"HWC": [2, 0, 1], "CHW": [1, 2, 0]}


# Operators whose starting output size is set by these arguments (grown to what later crops
# need); the rest keep or grow the size, but slice's relative window shrinks it.
SIZED = {
    "crop": "crop",
    "crop_mirror_normalize": "crop",
    "resize_crop_mirror": "crop",
    "random_resized_crop": "size",
}
SHRINKS_RELATIVELY = frozenset({"slice"})


def starting_values(op: str, layout: str = "", min_size: float = 0.0) -> dict[str, Any]:
    """The curated starting arguments of a new `op` node that reads images of `layout`, with
    any output size it sets at least `min_size` (what a fixed-size crop after it needs)."""
    values = {
        name: list(v) if isinstance(v, list) else v for name, v in STARTERS.get(op, {}).items()
    }
    if op == "transpose":
        values["perm"] = list(TRANSPOSE_PERMS.get(layout, [2, 0, 1]))
    sized = SIZED.get(op)
    if sized is not None and min_size:
        values[sized] = [max(float(v), float(min_size)) for v in values[sized]]
    shorter = values.get("resize_shorter")
    if op == "resize" and min_size and isinstance(shorter, (int, float)):
        values["resize_shorter"] = max(float(shorter), float(min_size))
    return values


def tunable_args(op: OpInfo, limit: int = 4) -> list[str]:
    """The arguments a node of `op` shows before any is set: the curated ones, else its first
    per-sample numbers (what can be tuned per image)."""
    hinted = [arg.name for arg in op.args if arg.hint is not None]
    if hinted:
        return hinted
    numbers = [
        arg.name
        for arg in op.args
        if arg.per_sample and (arg.is_numeric or arg.kind == "BOOL") and not arg.is_vector
    ]
    return numbers[:limit]
