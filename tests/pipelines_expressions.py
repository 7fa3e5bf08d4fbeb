"""DALI pipelines that compute on data nodes, written the way DALI users write them: constants
(NumPy arrays, lists, ``types.Constant``), arithmetic, comparisons and logical operators,
``nvidia.dali.math`` functions, ``.shape()`` and subscripts (by numbers and by data nodes).
They join the import round trip corpus (:mod:`pipelines_corpus`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali import math as dmath


def _decoded(root: str, seed: int) -> tuple[Any, Any]:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=seed)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=32, resize_y=24), labels


@pipeline_def
def blend_two_views(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 11)
    flipped = fn.flip(images, horizontal=1)
    blended = 0.7 * images + 0.3 * flipped
    return blended, labels


@pipeline_def
def numpy_constant_argument(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 12)
    resized = fn.resize(images, size=np.array([20.0, 16.0], dtype=np.float32))
    rotated = fn.rotate(images, angle=15.0, size=np.array([40.0, 30.0]), fill_value=0)
    return resized, labels, rotated


@pipeline_def
def choice_over_a_list(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 13)
    angle = fn.random.choice([0.0, 90.0, 180.0, 270.0], seed=5)
    return fn.rotate(images, angle=angle), labels, angle


@pipeline_def
def sizes_from_shapes(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 14)
    half = images.shape()[1::-1] * 0.5
    smaller = fn.resize(images, size=half)
    height = images.shape()[0]
    return smaller, labels, half, height


@pipeline_def
def drawn_angle_doubled(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 15)
    angle = fn.random.uniform(range=[-10.0, 10.0], seed=3) * 2
    rotated = fn.rotate(images, angle=angle, fill_value=0)
    negative = -angle
    return rotated, labels, negative


@pipeline_def
def masks_and_integers(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 16)
    mask = (images > 128) & (images < 200)
    outside = ~mask | (images == 0)
    odd = images // 2 % 7 != 1
    squared = images**2 - images
    return mask, labels, outside, odd, squared


@pipeline_def
def channels_and_crops(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 17)
    red = images[:, :, 0]
    corner = images[2:10, 4:20]
    mirrored = images[:, ::-1]
    return red, labels, corner, mirrored


@pipeline_def
def constant_arrays(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 18)
    weights = types.Constant(np.array([0.5, 1.0, 2.0], dtype=np.float32), layout="C")
    weighted = fn.cast(images, dtype=types.FLOAT) * weights
    table = types.Constant(np.arange(6, dtype=np.uint8).reshape(2, 3))
    return weighted, labels, table


@pipeline_def(enable_conditionals=True)
def inverted_sometimes(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 19)
    images = fn.cast(images, dtype=types.FLOAT)
    if fn.random.coin_flip(probability=0.5, seed=7):
        images = 255.0 - images
    return images, labels


@pipeline_def
def math_functions(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 20)
    flipped = fn.flip(images, horizontal=1)
    clamped = dmath.clamp(images * 2, 0, 255)
    values = fn.cast(images, dtype=types.FLOAT) / 255.0
    waves = dmath.sin(values * 3.0) + dmath.cos(dmath.sqrt(values)) * dmath.exp(-values)
    distance = abs(images - 128)  # Python's abs: DALI's math.abs
    darker = dmath.min(images, dmath.max(flipped, 10))
    steps = dmath.floor(values * 4.0) + dmath.ceil(dmath.log(values + 1.0))
    angle = dmath.atan2(values, dmath.fpow(values + 0.5, 2.0))
    shifted = (images >> 2) << 1
    return clamped, labels, waves, distance, darker, steps, angle, shifted


@pipeline_def
def clamped_drawn_angle(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 21)
    angle = dmath.clamp(fn.random.normal(seed=8) * 20.0, -15.0, 15.0)
    return fn.rotate(images, angle=angle, fill_value=0), labels, angle


@pipeline_def
def indices_from_data(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 22)
    channel = fn.random.uniform(range=[0, 2], dtype=types.INT32, seed=9)
    one_channel = images[:, :, channel]
    top = fn.random.uniform(range=[0, 8], dtype=types.INT32, seed=10)
    band = images[top : top + 10, 2:]
    upper_half = images[: images.shape()[0] // 2]
    return one_channel, labels, band, upper_half


@pipeline_def
def vectors_per_sample(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 23)
    cropped = fn.crop(images, crop=fn.random.uniform(range=[10.0, 20.0], shape=[2], seed=11))
    half = images.shape()[1::-1] * 0.5
    resized = fn.resize(images, size=half, roi_start=[2.0, 3.0], roi_end=[20.0, 22.0])
    mean = fn.random.uniform(range=[0.0, 128.0], shape=[3], seed=13)
    normalized = fn.crop_mirror_normalize(
        images, crop=[16.0, 16.0], mean=mean, std=[58.0, 57.0, 57.5], mirror=1
    )
    rotation = fn.transforms.rotation(angle=fn.random.uniform(range=[-20.0, 20.0], seed=14))
    warped = fn.warp_affine(images, matrix=rotation, fill_value=0)
    fixed = fn.warp_affine(images, matrix=[1.0, 0.2, 0.0, 0.1, 1.0, 2.0], size=[20.0, 30.0])
    erased = fn.erase(
        images, anchor=[4.0, 6.0], shape=[8.0, 8.0], axis_names="HW", fill_value=[255.0, 0.0, 0.0]
    )
    return cropped, labels, resized, normalized, warped, fixed, erased


EXPRESSIONS: dict[str, Callable[..., Any]] = {
    "blend_two_views": blend_two_views,
    "numpy_constant_argument": numpy_constant_argument,
    "choice_over_a_list": choice_over_a_list,
    "sizes_from_shapes": sizes_from_shapes,
    "drawn_angle_doubled": drawn_angle_doubled,
    "masks_and_integers": masks_and_integers,
    "channels_and_crops": channels_and_crops,
    "constant_arrays": constant_arrays,
    "inverted_sometimes": inverted_sometimes,
    "math_functions": math_functions,
    "clamped_drawn_angle": clamped_drawn_angle,
    "indices_from_data": indices_from_data,
    "vectors_per_sample": vectors_per_sample,
}
