"""The live engine feeds per-sample constants at run time (so an edit re-uses a built pipeline):
every per-sample argument of every image operator in the catalog must then give what the same
constant gives in a plain DALI pipeline."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types

from augexplorer import Session
from augexplorer.builder import dali_value, resolve_fn
from augexplorer.catalog import ArgInfo, OpInfo, load_catalog
from augexplorer.catalog.fed_shapes import NOT_FED
from augexplorer.catalog.hints import HINTS
from augexplorer.data import samples_dir
from augexplorer.engine.runners import fed_args
from augexplorer.spec import GraphSpec, Node, Ref, Source

BATCH = 2
SIZE = 24

# Arguments an operator needs besides the one under test.
BASE: dict[str, dict[str, Any]] = {
    "rotate": {"angle": 10.0},
    "crop": {"crop": [16.0, 16.0]},
    "crop_mirror_normalize": {"crop": [16.0, 16.0]},
    "paste": {"ratio": 1.5, "fill_value": [0, 0, 0]},
    "resize": {"resize_x": 20.0},
    "random_resized_crop": {"size": [16, 16]},
}
# ... and what replaces them for some arguments (DALI takes one way of giving a size).
BASE_FOR: dict[tuple[str, str], dict[str, Any]] = {
    ("crop", "crop_h"): {"crop_w": 12.0},
    ("crop", "crop_w"): {"crop_h": 10.0},
    ("crop_mirror_normalize", "crop_h"): {"crop_w": 12.0},
    ("crop_mirror_normalize", "crop_w"): {"crop_h": 10.0},
    ("resize", "resize_shorter"): {},
    ("resize", "resize_longer"): {},
}


def base_args(info: OpInfo, arg: ArgInfo) -> dict[str, Any]:
    return BASE_FOR.get((info.name, arg.name), BASE.get(info.name, {}))


# Values to test where the schema's default or hint gives none that changes the output.
VALUES: dict[tuple[str, str], Any] = {
    ("rotate", "angle"): 33.0,
    ("resize", "resize_x"): 18.0,
    ("resize", "resize_y"): 14.0,
    ("resize", "resize_shorter"): 12.0,
    ("resize", "resize_longer"): 20.0,
    ("crop", "crop_h"): 10.0,
    ("crop", "crop_w"): 12.0,
    ("crop_mirror_normalize", "crop_h"): 10.0,
    ("crop_mirror_normalize", "crop_w"): 12.0,
    ("crop_mirror_normalize", "mirror"): 1,
    ("flip", "horizontal"): 0,
    ("flip", "vertical"): 1,
    ("noise.salt_and_pepper", "pepper_val"): 20.0,
    ("noise.salt_and_pepper", "salt_val"): 200.0,
    ("paste", "ratio"): 2.0,
    ("paste", "min_canvas_size"): 60.0,
    ("grid_mask", "tile"): 8,
    ("grid_mask", "shift_x"): 3.0,
    ("grid_mask", "shift_y"): 5.0,
    ("sphere", "mask"): 0,
    ("water", "mask"): 0,
    ("brightness_contrast", "contrast_center"): 100.0,
    ("contrast", "contrast_center"): 100.0,
    ("normalize", "mean"): 100.0,
    ("normalize", "stddev"): 30.0,
    ("jpeg_compression_distortion", "quality"): 20,
}
# Arguments for volumes (a third spatial dimension): images have none.
VOLUME_ONLY = {"crop_d", "crop_pos_z", "resize_z", "depthwise"}


def image_operators() -> list[OpInfo]:
    """The curated image operators (those with UI hints) that read an image and run here."""
    catalog = load_catalog(gpu=False)
    found = []
    for name in HINTS:
        info = catalog.get(name)
        if info is None or not info.available or info.min_inputs < 1:
            continue
        if name.startswith("decoders.") or name in ("cast",):
            continue
        found.append(info)
    return found


def scalar_per_sample(info: OpInfo) -> list[ArgInfo]:
    return [
        arg
        for arg in info.args
        if arg.per_sample and not arg.is_vector and arg.name not in VOLUME_ONLY
    ]


def value_for(info: OpInfo, arg: ArgInfo) -> Any:
    if (info.name, arg.name) in VALUES:
        return VALUES[(info.name, arg.name)]
    if arg.choices:  # enums: one that is not the default
        return next(c for c in arg.choices if c != arg.default)
    if arg.hint is not None:
        middle = arg.hint.low + (arg.hint.high - arg.hint.low) * 0.3
        return round(middle) if arg.is_integer else float(middle)
    raise AssertionError(f"give {info.name}.{arg.name} a test value in VALUES")


CASES = [(info, arg) for info in image_operators() for arg in scalar_per_sample(info)]


def graph_of(info: OpInfo) -> GraphSpec:
    nodes: list[Any] = [
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
    ]
    for arg in scalar_per_sample(info):
        args = {**base_args(info, arg), arg.name: value_for(info, arg)}
        nodes.append(Node(f"n_{arg.name}", info.name, (Ref("small"),), args))
    return GraphSpec(nodes=tuple(nodes), batch_size=BATCH)


def plain_dali(info: OpInfo, seeds: dict[str, int]) -> dict[str, list[np.ndarray]]:
    """The same calls with every value a constant, written with DALI alone."""
    names = [arg.name for arg in scalar_per_sample(info)]

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def plain() -> tuple[Any, ...]:
        jpegs, _ = fn.readers.file(
            file_root=str(samples_dir()), random_shuffle=False, seed=seeds["source"]
        )
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=float(SIZE), resize_y=float(SIZE))
        outputs = []
        for arg in scalar_per_sample(info):
            constants = {**base_args(info, arg), arg.name: value_for(info, arg)}
            kwargs = {k: dali_value(info.arg(k), v) for k, v in constants.items()}
            seed = seeds.get(f"n_{arg.name}")
            if seed is not None:
                kwargs["seed"] = seed
            outputs.append(resolve_fn(info.name)(images, **kwargs))
        return tuple(outputs)

    pipe = plain()
    pipe.build()
    return {
        name: [np.array(out.at(i)) for i in range(len(out))]
        for name, out in zip(names, pipe.run(), strict=True)
    }


@pytest.mark.parametrize("info", image_operators(), ids=lambda info: info.name)
def test_fed_arguments_match_constants(info: OpInfo) -> None:
    if not scalar_per_sample(info):
        pytest.skip(f"{info.name} has no per-sample scalar argument")
    session = Session(graph_of(info), device_id=None)
    result = session.run()
    seeds = {step.id: step.seed for step in session.plan.steps if step.seed is not None}
    expected = plain_dali(info, seeds)
    for arg in scalar_per_sample(info):
        step = session.plan.step(f"n_{arg.name}")
        numeric = arg.kind not in ("INTERP_TYPE",) and (info.name, arg.name) not in NOT_FED
        # every numeric one really goes through the fed path, but those DALI reads differently
        assert (arg.name in fed_args(step)) == numeric, f"{info.name}.{arg.name}"
        got = result.arrays(Ref(f"n_{arg.name}"))
        for index, (x, y) in enumerate(zip(got, expected[arg.name], strict=True)):
            assert x.shape == y.shape and x.dtype == y.dtype, f"{info.name}.{arg.name} #{index}"
            np.testing.assert_array_equal(x, y, err_msg=f"{info.name}.{arg.name} #{index}")


def test_every_case_is_covered() -> None:
    # the operators above hold the arguments people tune most; none may slip out of the test
    names = {f"{info.name}.{arg.name}" for info, arg in CASES}
    assert {"normalize.mean", "normalize.stddev", "rotate.angle", "brightness.brightness"} <= names
    assert len(CASES) > 50
