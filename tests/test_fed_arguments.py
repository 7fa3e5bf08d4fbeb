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
from augexplorer.spec import GraphSpec, Node, Random, Ref, Source

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


# ---- vectors -------------------------------------------------------------------------------------

# Each per-sample vector argument of the curated operators: (arguments it needs besides, value).
VECTOR_CASES: dict[tuple[str, str], tuple[dict[str, Any], list[Any]]] = {
    ("rotate", "size"): ({"angle": 10.0}, [40.0, 30.0]),
    ("resize", "size"): ({}, [20.0, 16.0]),
    ("resize", "roi_start"): ({"size": [20.0, 16.0], "roi_end": [20.0, 22.0]}, [2.0, 3.0]),
    ("resize", "roi_end"): ({"size": [20.0, 16.0], "roi_start": [2.0, 3.0]}, [20.0, 22.0]),
    ("crop", "crop"): ({}, [16.0, 12.0]),
    ("crop_mirror_normalize", "crop"): ({}, [16.0, 12.0]),
    ("crop_mirror_normalize", "mean"): ({}, [10.0, 20.0, 30.0]),
    ("crop_mirror_normalize", "std"): ({}, [2.0, 3.0, 4.0]),
    ("gaussian_blur", "sigma"): ({}, [1.0, 2.0]),
    ("gaussian_blur", "window_size"): ({}, [3, 5]),
    ("transforms.rotation", "center"): ({"angle": 10.0}, [3.0, 4.0]),
    ("transforms.scale", "scale"): ({}, [1.5, 2.0]),
    ("transforms.scale", "center"): ({"scale": [1.5, 2.0]}, [3.0, 4.0]),
    ("transforms.shear", "shear"): ({}, [0.1, 0.2]),
    ("transforms.shear", "angles"): ({}, [10.0, 20.0]),
    ("transforms.shear", "center"): ({"shear": [0.1, 0.2]}, [3.0, 4.0]),
    ("transforms.translation", "offset"): ({}, [3.0, 4.0]),
    ("slice", "rel_start"): ({}, [0.1, 0.2]),
    ("slice", "rel_shape"): ({"rel_start": [0.1, 0.2]}, [0.5, 0.5]),
    ("slice", "rel_end"): ({"rel_start": [0.1, 0.2]}, [0.8, 0.9]),
    ("slice", "start"): ({}, [2, 3]),
    ("slice", "shape"): ({"start": [2, 3]}, [10, 12]),
    ("slice", "end"): ({"start": [2, 3]}, [20, 20]),
    ("slice", "axes"): ({"start": [2, 3], "shape": [10, 12]}, [1, 0]),
    ("pad", "shape"): ({"axes": [0, 1]}, [30, 30]),
    ("pad", "align"): ({"axes": [0, 1]}, [4, 4]),
    ("pad", "axes"): ({"shape": [30, 30]}, [0, 1]),
    ("erase", "anchor"): ({"shape": [5.0, 6.0], "axis_names": "HW"}, [2.0, 3.0]),
    ("erase", "shape"): ({"anchor": [2.0, 3.0], "axis_names": "HW"}, [5.0, 6.0]),
    ("erase", "fill_value"): (
        {"anchor": [2.0, 3.0], "shape": [5.0, 6.0], "axis_names": "HW"},
        [10.0, 20.0, 30.0],
    ),
    ("warp_affine", "matrix"): ({}, [1.0, 0.1, 2.0, 0.0, 1.0, 3.0]),
    ("warp_affine", "size"): ({"matrix": [1.0, 0.1, 2.0, 0.0, 1.0, 3.0]}, [30.0, 40.0]),
    ("experimental.warp_perspective", "matrix"): (
        {},
        [1.0, 0.1, 2.0, 0.0, 1.0, 3.0, 0.001, 0.0, 1.0],
    ),
    ("experimental.warp_perspective", "size"): (
        {"matrix": [1.0, 0.1, 2.0, 0.0, 1.0, 3.0, 0.0, 0.0, 1.0]},
        [30.0, 40.0],
    ),
    ("laplacian", "scale"): ({"dtype": "FLOAT"}, [2.0]),
    ("laplacian", "window_size"): ({"dtype": "FLOAT"}, [5]),
    ("laplacian", "smoothing_size"): ({"dtype": "FLOAT", "window_size": [5]}, [3]),
    ("random.uniform", "range"): ({}, [2.0, 5.0]),
    ("random.uniform", "values"): ({}, [1.0, 2.0, 4.0]),
    ("random.uniform", "shape"): ({}, [2, 3]),
    ("random.normal", "shape"): ({}, [2, 3]),
    ("random.coin_flip", "shape"): ({}, [2, 3]),
}
# Axes of a rotation in 3-D (volumes): images have none.
VECTOR_VOLUME_ONLY = {("rotate", "axis"), ("transforms.rotation", "axis")}


def vector_operators() -> list[OpInfo]:
    """The curated operators with per-sample vector arguments that run here."""
    catalog = load_catalog(gpu=False)
    found = []
    for name in HINTS:
        info = catalog.get(name)
        if info is not None and info.available and vector_per_sample(info):
            found.append(info)
    return found


def vector_per_sample(info: OpInfo) -> list[ArgInfo]:
    return [
        arg
        for arg in info.args
        if arg.per_sample
        and arg.is_vector
        and arg.is_numeric
        and (info.name, arg.name) not in VECTOR_VOLUME_ONLY
    ]


def vector_graph(info: OpInfo) -> GraphSpec:
    nodes: list[Any] = [
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
    ]
    inputs = (Ref("small"),) if info.min_inputs else ()
    for arg in vector_per_sample(info):
        base, value = VECTOR_CASES[(info.name, arg.name)]
        nodes.append(Node(f"v_{arg.name}", info.name, inputs, {**base, arg.name: value}))
    return GraphSpec(nodes=tuple(nodes), batch_size=BATCH)


def plain_vectors(info: OpInfo, seeds: dict[str, int]) -> dict[str, list[np.ndarray]]:
    """The same calls with every vector a constant list, written with DALI alone."""
    names = [arg.name for arg in vector_per_sample(info)]

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def plain() -> tuple[Any, ...]:
        jpegs, _ = fn.readers.file(
            file_root=str(samples_dir()), random_shuffle=False, seed=seeds["source"]
        )
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=float(SIZE), resize_y=float(SIZE))
        outputs = []
        for name in names:
            base, value = VECTOR_CASES[(info.name, name)]
            constants = {**base, name: value}
            kwargs = {k: dali_value(info.arg(k), v) for k, v in constants.items()}
            seed = seeds.get(f"v_{name}")
            if seed is not None:
                kwargs["seed"] = seed
            inputs = [images] if info.min_inputs else []
            outputs.append(resolve_fn(info.name)(*inputs, **kwargs))
        return tuple(outputs)

    pipe = plain()
    pipe.build()
    return {
        name: [np.array(out.at(i)) for i in range(len(out))]
        for name, out in zip(names, pipe.run(), strict=True)
    }


@pytest.mark.parametrize("info", vector_operators(), ids=lambda info: info.name)
def test_fed_vectors_match_constants(info: OpInfo) -> None:
    session = Session(vector_graph(info), device_id=None)
    result = session.run()
    seeds = {step.id: step.seed for step in session.plan.steps if step.seed is not None}
    expected = plain_vectors(info, seeds)
    for arg in vector_per_sample(info):
        what = f"{info.name}.{arg.name}"
        assert arg.name in fed_args(session.plan.step(f"v_{arg.name}")), what  # really fed
        got = result.arrays(Ref(f"v_{arg.name}"))
        for index, (x, y) in enumerate(zip(got, expected[arg.name], strict=True)):
            assert x.shape == y.shape and x.dtype == y.dtype, f"{what} #{index}"
            np.testing.assert_array_equal(x, y, err_msg=f"{what} #{index}")


def test_every_vector_case_is_covered() -> None:
    cases = {
        (info.name, arg.name) for info in vector_operators() for arg in vector_per_sample(info)
    }
    assert cases == set(VECTOR_CASES)
    assert {("crop", "crop"), ("crop_mirror_normalize", "mean"), ("warp_affine", "matrix")} <= cases


def test_drawn_vectors_feed_as_dali_draws_them() -> None:
    # a per-sample vector draw is the argument input a DALI user writes: fn.random.* with shape
    draws = {
        ("crop", "crop"): ({}, Random.uniform(10.0, 20.0, shape=2, seed=21)),
        ("slice", "rel_start"): ({"rel_shape": [0.5, 0.5]}, Random.uniform(0.0, 0.4, shape=2)),
        ("crop_mirror_normalize", "mean"): ({}, Random.normal(100.0, 20.0, shape=3, seed=22)),
        ("gaussian_blur", "sigma"): ({}, Random.choice([0.5, 1.0, 2.0], shape=2, seed=23)),
    }
    nodes: list[Any] = [
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
    ]
    for (op, name), (base, draw) in draws.items():
        nodes.append(Node(f"d_{name}", op, (Ref("small"),), {**base, name: draw}))
    session = Session(GraphSpec(nodes=tuple(nodes), batch_size=BATCH), device_id=None)
    result = session.run()
    plan = session.plan

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def plain() -> tuple[Any, ...]:
        source = plan.step("source")
        jpegs, _ = fn.readers.file(
            file_root=str(samples_dir()), random_shuffle=False, seed=source.seed
        )
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=float(SIZE), resize_y=float(SIZE))
        outputs = []
        for (op, name), (base, draw) in draws.items():
            step = plan.step(f"d_{name}")
            drawn = plan.step(step.arg_inputs[name].node)  # the draw step validation made
            assert drawn.seed is not None and (draw.seed is None or drawn.seed == draw.seed)
            shape = [draw.shape]
            if draw.dist == "uniform":
                value = fn.random.uniform(range=[draw.low, draw.high], shape=shape, seed=drawn.seed)
            elif draw.dist == "normal":
                value = fn.random.normal(
                    mean=draw.mean, stddev=draw.stddev, shape=shape, seed=drawn.seed
                )
            else:
                value = fn.random.uniform(values=list(draw.values), shape=shape, seed=drawn.seed)
            outputs.append(resolve_fn(op)(images, **base, **{name: value}))
        return tuple(outputs)

    pipe = plain()
    pipe.build()
    for (_, name), out in zip(draws, pipe.run(), strict=True):
        got = result.arrays(Ref(f"d_{name}"))
        for index, x in enumerate(got):
            y = np.array(out.at(index))
            assert x.shape == y.shape and x.dtype == y.dtype, f"{name} #{index}"
            np.testing.assert_array_equal(x, y, err_msg=f"{name} #{index}")


def test_editing_a_vector_reuses_the_built_pipeline() -> None:
    spec = GraphSpec(
        nodes=(
            Source("source", shuffle=False),
            Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
            Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
            Node("crop", "crop", (Ref("small"),), {"crop": [16.0, 12.0]}),
            Node(
                "warp", "warp_affine", (Ref("small"),), {"matrix": [1.0, 0.0, 2.0, 0.0, 1.0, 3.0]}
            ),
        ),
        batch_size=BATCH,
    )
    session = Session(spec, device_id=None)
    session.run()
    runners = len(session._runners)
    edited = session.set_arg("crop", "crop", [10.0, 14.0])
    assert edited.ran() == ["crop"]
    assert all(x.shape == (10, 14, 3) for x in edited.arrays(Ref("crop")))
    small = edited.arrays(Ref("small"))
    shifted = session.set_arg("warp", "matrix", [1.0, 0.0, 0.0, 0.0, 1.0, 0.0])  # identity
    for got, image in zip(shifted.arrays(Ref("warp")), small, strict=True):
        np.testing.assert_array_equal(got, image)
    assert len(session._runners) == runners  # the same pipelines ran with the new values


def test_batch_normalization_takes_its_mean_and_stddev_as_constants() -> None:
    """normalize with batch=True refuses mean and stddev as per-sample inputs, which is how the
    engine passes constants elsewhere: there it bakes them, and gives what DALI gives."""
    args = {"batch": True, "mean": 100.0, "stddev": 40.0, "dtype": "FLOAT"}
    spec = GraphSpec(
        nodes=(
            Source("source", shuffle=False),
            Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
            Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
            Node("norm", "normalize", (Ref("small"),), args),
        ),
        batch_size=BATCH,
    )
    session = Session(spec, device_id=None)
    result = session.run()
    assert not {"mean", "stddev"} & set(fed_args(session.plan.step("norm")))
    info = load_catalog()["normalize"]
    source_seed = session.plan.step("source").seed

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def plain() -> Any:
        jpegs, _ = fn.readers.file(
            file_root=str(samples_dir()), random_shuffle=False, seed=source_seed
        )
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=float(SIZE), resize_y=float(SIZE))
        return fn.normalize(images, **{k: dali_value(info.arg(k), v) for k, v in args.items()})

    pipe = plain()
    pipe.build()
    (expected,) = pipe.run()
    for got, want in zip(result.arrays(Ref("norm")), expected, strict=True):
        np.testing.assert_allclose(got, np.array(want), rtol=1e-6)
    # an edit of a baked constant builds anew, and setting batch off feeds them again
    edited = session.set_arg("norm", "stddev", 20.0)
    assert np.allclose(edited.arrays(Ref("norm"))[0], 2 * result.arrays(Ref("norm"))[0], atol=1e-4)
    per_sample = session.set_arg("norm", "batch", False)
    assert {"mean", "stddev"} <= set(fed_args(session.plan.step("norm")))
    assert per_sample.arrays(Ref("norm"))[0].dtype == np.float32
