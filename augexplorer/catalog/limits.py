"""Valid ranges and string choices that DALI's schemas do not state, for a clear error at the edge
instead of a DALI failure at run time. Keys are (`fn` name or "*", argument name)."""

from __future__ import annotations

LIMITS: dict[tuple[str, str], tuple[float, float]] = {
    ("*", "probability"): (0.0, 1.0),
    ("*", "crop_pos_x"): (0.0, 1.0),
    ("*", "crop_pos_y"): (0.0, 1.0),
    ("*", "crop_pos_z"): (0.0, 1.0),
    ("*", "rel_start"): (0.0, 1.0),
    ("*", "rel_shape"): (0.0, 1.0),
    ("*", "resize_x"): (0.0, 16384.0),
    ("*", "resize_y"): (0.0, 16384.0),
    ("*", "resize_shorter"): (0.0, 16384.0),
    ("*", "resize_longer"): (0.0, 16384.0),
    ("*", "crop_h"): (0.0, 16384.0),
    ("*", "crop_w"): (0.0, 16384.0),
    ("*", "crop"): (0.0, 16384.0),
    ("*", "size"): (0.0, 16384.0),
    ("*", "num_attempts"): (1.0, 10000.0),
    ("*", "num_threads"): (1.0, 1024.0),
    ("python_function", "num_outputs"): (1.0, 64.0),
    ("jpeg_compression_distortion", "quality"): (1.0, 100.0),
    ("noise.salt_and_pepper", "prob"): (0.0, 1.0),
    ("noise.salt_and_pepper", "salt_vs_pepper"): (0.0, 1.0),
    ("noise.gaussian", "stddev"): (0.0, 1e6),
    ("gaussian_blur", "sigma"): (0.0, 1e3),
    ("gaussian_blur", "window_size"): (0.0, 1025.0),
    ("grid_mask", "ratio"): (0.0, 1.0),
    ("random_resized_crop", "random_area"): (0.0, 1.0),
    ("decoders.image_random_crop", "random_area"): (0.0, 1.0),
    ("saturation", "saturation"): (0.0, 1e3),
    ("brightness", "brightness"): (0.0, 1e3),
    ("contrast", "contrast"): (0.0, 1e3),
}

STRING_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("experimental.warp_perspective", "border_mode"): (
        "constant",
        "clamp",
        "reflect",
        "reflect_101",
        "wrap",
    ),
    ("pad", "axis_names"): ("H", "W", "C", "HW", "WH", "HWC"),
}
