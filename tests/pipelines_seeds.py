"""DALI pipelines seeded only by the pipeline's own ``seed=``: their readers and random operators
have no seed of their own, so DALI derives one for each. They join the import round trip corpus
(:mod:`pipelines_corpus`): an import gives each operator the seed DALI derived.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.auto_aug import rand_augment


def _small(jpegs: Any) -> Any:
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=32, resize_y=24)


@pipeline_def(seed=1234)
def shuffled_by_the_pipeline_seed(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, initial_fill=7)
    return _small(jpegs), labels


@pipeline_def(seed=99)
def draws_by_the_pipeline_seed(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(file_root=root)
    images = _small(jpegs)
    angle = fn.random.uniform(range=[-30.0, 30.0])
    images = fn.rotate(images, angle=angle, fill_value=0)
    return images, labels, angle


@pipeline_def(seed=2024, enable_conditionals=True)
def some_seeded_some_derived(root: str, lists: str) -> Any:
    # DALI derives seeds only for the operators given none: the reader and the coin flips here,
    # skipping the uniform draw that has its own
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = _small(jpegs)
    images = fn.flip(images, horizontal=fn.random.coin_flip())
    scale = fn.random.uniform(range=[0.5, 1.5], seed=8)
    images = fn.brightness(images, brightness=scale)
    if fn.random.coin_flip(probability=0.5):
        images = fn.rotate(images, angle=15.0, fill_value=0)
    crop = fn.random_resized_crop(images, size=[16, 16])
    return images, labels, crop


@pipeline_def(seed=7, enable_conditionals=True)
def derived_around_a_policy(root: str, lists: str) -> Any:
    # the policy's operators carry its seed; the draws after it still take derived seeds
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = rand_augment.rand_augment(_small(jpegs), n=1, m=5, seed=3)
    images = fn.rotate(images, angle=fn.random.uniform(range=[-10.0, 10.0]), fill_value=0)
    return images, labels


SEEDS: dict[str, Callable[..., Any]] = {
    "shuffled_by_the_pipeline_seed": shuffled_by_the_pipeline_seed,
    "draws_by_the_pipeline_seed": draws_by_the_pipeline_seed,
    "some_seeded_some_derived": some_seeded_some_derived,
    "derived_around_a_policy": derived_around_a_policy,
}
