"""Curated UI hints for the image operators people tune most.

Everything here is a suggestion for a control (slider range and step); the catalog itself, with
types, defaults and docs, is generated from DALI's schemas. Keys are `fn` names and DALI argument
names exactly as DALI spells them.
"""

from __future__ import annotations

from .model import Hint

HINTS: dict[str, dict[str, Hint]] = {
    "rotate": {"angle": Hint(-180, 180, 1), "fill_value": Hint(0, 255, 1)},
    "resize": {
        "resize_x": Hint(16, 1024, 1),
        "resize_y": Hint(16, 1024, 1),
        "resize_shorter": Hint(16, 1024, 1),
        "resize_longer": Hint(16, 1024, 1),
    },
    "random_resized_crop": {"size": Hint(16, 1024, 1)},
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
    "brightness": {"brightness": Hint(0, 3, 0.05), "brightness_shift": Hint(-1, 1, 0.01)},
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
    "transforms.rotation": {"angle": Hint(-180, 180, 1)},
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
    "decoders.image_random_crop": {"num_attempts": Hint(1, 100, 1)},
    "jitter": {"nDegree": Hint(1, 10, 1)},
    "cast": {},
    "normalize": {"mean": Hint(0, 255, 0.5), "stddev": Hint(0.01, 255, 0.5)},
}
