"""DALI pipelines with ``if``/``elif``/``else`` blocks, written the way DALI users write them
(``enable_conditionals=True``). They join the import round trip corpus (:mod:`pipelines_corpus`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nvidia.dali import fn, pipeline_def, types


def _decoded(root: str, seed: int) -> tuple[Any, Any]:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=seed)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=32, resize_y=24), labels


@pipeline_def(enable_conditionals=True)
def flip_or_rotate(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 21)
    if fn.random.coin_flip(probability=0.5, seed=22):
        images = fn.flip(images, horizontal=1)
    else:
        images = fn.rotate(images, angle=10.0, fill_value=0)
    return images, labels


@pipeline_def(enable_conditionals=True)
def by_the_angle_sign(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 23)
    angle = fn.random.uniform(range=[-20.0, 20.0], seed=24)
    if fn.random.coin_flip(probability=0.3, seed=25):
        images = fn.flip(images, vertical=1, horizontal=0)
    elif angle < 0:
        images = fn.rotate(images, angle=angle, fill_value=0)
        images = fn.brightness(images, brightness=1.5)
    else:
        images = fn.flip(images, horizontal=1)
    return images, labels, angle


@pipeline_def(enable_conditionals=True)
def nested_ifs(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 26)
    if fn.random.coin_flip(probability=0.6, seed=27):
        images = fn.flip(images, horizontal=1)
        if fn.random.coin_flip(probability=0.5, seed=28):
            # drawn inside the branch: DALI draws it for the whole batch, then splits it
            angle = fn.random.uniform(range=[-30.0, 30.0], seed=29)
            images = fn.rotate(images, angle=angle, fill_value=0)
        else:
            images = fn.hsv(images, saturation=0.5)
    return images, labels


@pipeline_def(enable_conditionals=True)
def two_variables_one_if(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 30)
    gray = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)
    coin = fn.random.coin_flip(probability=0.5, seed=31)
    if coin:
        images = fn.flip(images, horizontal=1)
        gray = fn.flip(gray, vertical=1, horizontal=0)
    return images, labels, gray, coin


@pipeline_def(enable_conditionals=True)
def combined_predicate(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 32)
    bright = fn.random.coin_flip(probability=0.5, seed=33)
    angle = fn.random.uniform(range=[-10.0, 10.0], seed=34)
    if (bright != 0) & (angle > 0):
        images = fn.brightness(images, brightness=1.4)
    return images, labels


@pipeline_def(enable_conditionals=True)
def flip_and_negative_angle(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 35)
    flip = fn.random.coin_flip(probability=0.6, seed=36, dtype=types.BOOL)
    angle = fn.random.uniform(range=[-20.0, 20.0], seed=37)
    if flip and angle < 0:
        images = fn.rotate(images, angle=angle, fill_value=0)
    else:
        images = fn.flip(images, horizontal=1)
    return images, labels


@pipeline_def(enable_conditionals=True)
def unless_flipped(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 38)
    flip = fn.random.coin_flip(probability=0.5, seed=39, dtype=types.BOOL)
    if not flip:
        images = fn.hsv(images, saturation=0.3)
    return images, labels, flip


@pipeline_def(enable_conditionals=True)
def either_coin(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 40)
    a = fn.random.coin_flip(probability=0.3, seed=41, dtype=types.BOOL)
    b = fn.random.coin_flip(probability=0.3, seed=42, dtype=types.BOOL)
    if a or b:
        images = fn.flip(images, vertical=1, horizontal=0)
    return images, labels


@pipeline_def(enable_conditionals=True)
def logic_with_elif(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 43)
    a = fn.random.coin_flip(probability=0.5, seed=44, dtype=types.BOOL)
    b = fn.random.coin_flip(probability=0.5, seed=45, dtype=types.BOOL)
    angle = fn.random.uniform(range=[-30.0, 30.0], seed=46)
    if a and not b:
        images = fn.flip(images, horizontal=1)
    elif not (angle > 10 or b):
        images = fn.rotate(images, angle=angle, fill_value=0)
    elif a or (angle < -10 and b):
        images = fn.brightness(images, brightness=1.6)
        images = fn.hsv(images, hue=30.0)
    else:
        images = fn.flip(images, vertical=1, horizontal=0)
    return images, labels, a, b


@pipeline_def(enable_conditionals=True)
def float_inside_the_branch(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 47)
    if fn.random.coin_flip(probability=0.5, seed=52):
        # the type changes inside the block: DALI merges only at its end
        images = fn.cast(images, dtype=types.FLOAT)
        images = images * 0.5 + 20.0
        images = fn.cast(images, dtype=types.UINT8)
    return images, labels


@pipeline_def(enable_conditionals=True)
def channels_first_inside_the_branch(root: str, lists: str) -> Any:
    images, labels = _decoded(root, 49)
    angle = fn.random.uniform(range=[-20.0, 20.0], seed=50)
    if angle < 0:
        # the layout changes inside the block and comes back before its end
        images = fn.transpose(images, perm=[2, 0, 1])
        images = fn.flip(images, vertical=1, horizontal=0)
        images = fn.transpose(images, perm=[1, 2, 0])
    images = fn.rotate(images, angle=angle, fill_value=0)
    return images, labels


CONDITIONALS: dict[str, Callable[..., Any]] = {
    "flip_or_rotate": flip_or_rotate,
    "by_the_angle_sign": by_the_angle_sign,
    "nested_ifs": nested_ifs,
    "two_variables_one_if": two_variables_one_if,
    "combined_predicate": combined_predicate,
    "flip_and_negative_angle": flip_and_negative_angle,
    "unless_flipped": unless_flipped,
    "either_coin": either_coin,
    "logic_with_elif": logic_with_elif,
    "float_inside_the_branch": float_inside_the_branch,
    "channels_first_inside_the_branch": channels_first_inside_the_branch,
}
