"""The live engine's outputs equal a hand-written DALI pipeline of the same operators and seeds.

The hand-written pipelines below use DALI directly (no augexplorer code), with the seeds the
engine's plan assigned, so a drift in the builder or the per-node runners shows up here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types

from augexplorer import Session
from augexplorer.data import samples_dir
from augexplorer.plan import Plan
from augexplorer.presets import IMAGENET_MEAN, IMAGENET_STD

BATCH = 6


def seeds(plan: Plan) -> dict[str, int]:
    return {step.id: step.seed for step in plan.steps if step.seed is not None}


def reader(s: dict[str, int], shuffle: bool = True) -> tuple[Any, Any]:
    return fn.readers.file(
        file_root=str(samples_dir()), random_shuffle=shuffle, seed=s["source"], name="source"
    )


def hand_basic(s: dict[str, int]) -> tuple[Any, ...]:
    jpegs, labels = reader(s)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_shorter=256.0)
    angle = fn.random.uniform(range=[-20.0, 20.0], dtype=types.FLOAT, seed=s["rotate_angle"])
    images = fn.rotate(images, angle=angle, fill_value=0.0)
    images = fn.crop(images, crop=[224.0, 224.0])
    horizontal = fn.random.coin_flip(probability=0.5, dtype=types.INT32, seed=s["flip_horizontal"])
    images = fn.flip(images, horizontal=horizontal)
    return images, labels


def hand_imagenet_train(s: dict[str, int]) -> tuple[Any, ...]:
    jpegs, labels = reader(s)
    images = fn.decoders.image_random_crop(
        jpegs,
        output_type=types.RGB,
        random_area=[0.08, 1.0],
        random_aspect_ratio=[0.75, 4.0 / 3.0],
        seed=s["decode"],
    )
    images = fn.resize(images, resize_x=224.0, resize_y=224.0)
    mirror = fn.random.coin_flip(probability=0.5, dtype=types.INT32, seed=s["normalize_mirror"])
    images = fn.crop_mirror_normalize(
        images,
        crop=[224.0, 224.0],
        mean=IMAGENET_MEAN,
        std=IMAGENET_STD,
        dtype=types.FLOAT,
        output_layout="CHW",
        mirror=mirror,
    )
    return images, labels


def hand_imagenet_val(s: dict[str, int]) -> tuple[Any, ...]:
    jpegs, labels = reader(s, shuffle=False)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_shorter=256.0)
    images = fn.crop_mirror_normalize(
        images,
        crop=[224.0, 224.0],
        mean=IMAGENET_MEAN,
        std=IMAGENET_STD,
        dtype=types.FLOAT,
        output_layout="CHW",
    )
    return images, labels


def hand_randaugment(s: dict[str, int]) -> tuple[Any, ...]:
    jpegs, labels = reader(s)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=224.0, resize_y=224.0)
    scale = 9.0 / 30.0
    steps: list[tuple[str, Callable[..., Any], dict[str, Any]]] = [
        ("rotate", fn.rotate, {"angle": (-30 * scale, 30 * scale), "keep_size": True}),
        ("brightness", fn.brightness, {"brightness": (1 - 0.9 * scale, 1 + 0.9 * scale)}),
        ("contrast", fn.contrast, {"contrast": (1 - 0.9 * scale, 1 + 0.9 * scale)}),
        ("saturation", fn.saturation, {"saturation": (1 - 0.9 * scale, 1 + 0.9 * scale)}),
        ("hue", fn.hue, {"hue": (-30 * scale, 30 * scale)}),
    ]
    for name, op, args in steps:
        kwargs: dict[str, Any] = {}
        for arg, value in args.items():
            if isinstance(value, tuple):
                kwargs[arg] = fn.random.uniform(
                    range=list(value), dtype=types.FLOAT, seed=s[f"{name}_{arg}"]
                )
            else:
                kwargs[arg] = value
        apply = fn.random.coin_flip(probability=0.3333, dtype=types.BOOL, seed=s[f"{name}_apply"])
        if apply:
            images = op(images, **kwargs)
    apply = fn.random.coin_flip(probability=0.3333, dtype=types.BOOL, seed=s["flip_apply"])
    if apply:
        images = fn.flip(images, horizontal=1)
    return images, labels


def hand_random_affine(s: dict[str, int]) -> tuple[Any, ...]:
    jpegs, labels = reader(s)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.resize(images, resize_x=256.0, resize_y=256.0)
    angle = fn.random.uniform(range=[-25.0, 25.0], dtype=types.FLOAT, seed=s["rotation_angle"])
    matrix = fn.transforms.rotation(angle=angle, center=[128.0, 128.0])
    scale = fn.random.uniform(range=[0.8, 1.2], shape=[2], dtype=types.FLOAT, seed=s["scale_scale"])
    matrix = fn.transforms.scale(matrix, scale=scale, center=[128.0, 128.0])
    images = fn.warp_affine(images, matrix=matrix, fill_value=0.0, inverse_map=False)
    return images, labels


HAND_WRITTEN: dict[str, Callable[[dict[str, int]], tuple[Any, ...]]] = {
    "basic": hand_basic,
    "imagenet_train": hand_imagenet_train,
    "imagenet_val": hand_imagenet_val,
    "randaugment": hand_randaugment,
    "random_affine": hand_random_affine,
}


def run_hand_written(name: str, plan: Plan, batches: int) -> list[list[list[np.ndarray]]]:
    """`batches` batches of the hand-written pipeline: each, its outputs' arrays."""
    s = seeds(plan)
    conditionals = name == "randaugment"

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, enable_conditionals=conditionals)
    def hand() -> tuple[Any, ...]:
        return HAND_WRITTEN[name](s)

    pipe = hand()
    pipe.build()
    return [
        [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()]
        for _ in range(batches)
    ]


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_engine_matches_hand_written_dali(name: str) -> None:
    # three batches: the random operators' generators carry their state from batch to batch,
    # and "next batch" must show what training draws there, not the first batch's draws again
    session = Session(name, batch_size=BATCH, device_id=None)
    expected = run_hand_written(name, session.plan, 3)
    for index, (expected_images, expected_labels) in enumerate(expected):
        result = session.run() if index == 0 else session.next_batch()
        images = result.arrays(result.plan.outputs["images"])
        labels = result.arrays(result.plan.outputs["labels"])
        assert len(images) == len(expected_images) == BATCH
        for got, want in zip(images, expected_images, strict=True):
            assert got.dtype == want.dtype
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want, err_msg=f"{name}, batch {index + 1}")
        for got, want in zip(labels, expected_labels, strict=True):
            np.testing.assert_array_equal(got, want)


def test_randaugment_applies_some_operations_and_skips_others() -> None:
    # The equivalence above would also hold if nothing were ever applied; make sure the coin
    # flips really split the batch.
    result = Session("randaugment", batch_size=16, device_id=None).run()
    applied = [flag for node in result.draws().values() for flag in node.get("apply", [])]
    assert any(applied) and not all(applied)
