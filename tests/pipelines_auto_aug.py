"""DALI pipelines that call DALI's ``auto_aug`` policies, written the way DALI users write them
(``enable_conditionals=True``, uint8 HWC images, a seed for the policy). They join the import
round trip corpus (:mod:`pipelines_corpus`): each call becomes one policy node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment


def _decoded(root: str, seed: int) -> tuple[Any, Any, Any]:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=seed)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return jpegs, fn.resize(images, resize_x=32, resize_y=24), labels


@pipeline_def(enable_conditionals=True)
def rand_augment_n2_m9(root: str, lists: str) -> Any:
    _jpegs, images, labels = _decoded(root, 41)
    images = rand_augment.rand_augment(images, n=2, m=9, seed=42)
    return images, labels


@pipeline_def(enable_conditionals=True)
def trivial_augment_some_excluded(root: str, lists: str) -> Any:
    _jpegs, images, labels = _decoded(root, 43)
    images = trivial_augment.trivial_augment_wide(
        images,
        num_magnitude_bins=11,
        excluded=["identity", "equalize"],
        interp_type=types.INTERP_NN,
        seed=44,
    )
    return images, labels


@pipeline_def(enable_conditionals=True)
def auto_augment_with_shapes(root: str, lists: str) -> Any:
    jpegs, images, labels = _decoded(root, 45)
    images = auto_augment.auto_augment(
        images, policy_name="svhn", shape=fn.peek_image_shape(jpegs), seed=46
    )
    images = fn.flip(images, horizontal=fn.random.coin_flip(seed=47))
    return images, labels


AUTO_AUG: dict[str, Callable[..., Any]] = {
    "rand_augment_n2_m9": rand_augment_n2_m9,
    "trivial_augment_some_excluded": trivial_augment_some_excluded,
    "auto_augment_with_shapes": auto_augment_with_shapes,
}
