"""A vector argument holding one value, which DALI broadcasts over the spatial axes as a
constant (`fn.resize(size=256)`, as DALI's ResNet-50 example resizes for validation) but refuses
fed as a 1-element tensor, runs in the live engine as the constant runs in plain DALI."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types
from test_fed_arguments import BATCH, SIZE, VECTOR_CASES

from augexplorer import Session
from augexplorer.builder import dali_value, resolve_fn
from augexplorer.catalog import load_catalog
from augexplorer.catalog.fed_shapes import NOT_FED_ONE_VALUE
from augexplorer.data import samples_dir
from augexplorer.engine.runners import fed_args
from augexplorer.spec import GraphSpec, Node, Ref, Source


def one_value_args(op: str, name: str) -> dict[str, Any]:
    base, value = VECTOR_CASES[(op, name)]
    return {**base, name: value[:1]}


def plain(op: str, args: dict[str, Any], seed: int) -> list[np.ndarray]:
    info = load_catalog(gpu=False)[op]

    @pipeline_def(batch_size=BATCH, num_threads=1, device_id=None)
    def constant() -> Any:
        jpegs, _ = fn.readers.file(file_root=str(samples_dir()), random_shuffle=False, seed=seed)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=float(SIZE), resize_y=float(SIZE))
        kwargs = {k: dali_value(info.arg(k), v) for k, v in args.items()}
        return resolve_fn(op)(*([images] if info.min_inputs else []), **kwargs)

    pipe = constant()
    pipe.build()
    (out,) = pipe.run()
    return [np.array(out.at(i)) for i in range(len(out))]


@pytest.mark.parametrize("case", sorted(NOT_FED_ONE_VALUE), ids="{0[0]}.{0[1]}".format)
def test_one_value_runs_as_the_constant_does(case: tuple[str, str]) -> None:
    op, name = case
    info = load_catalog(gpu=False)[op]
    args = one_value_args(op, name)
    inputs = (Ref("small"),) if info.min_inputs else ()
    graph = GraphSpec(
        nodes=(
            Source("source", shuffle=False),
            Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
            Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
            Node("v", op, inputs, args),
        ),
        batch_size=BATCH,
    )
    session = Session(graph, device_id=None)
    result = session.run()
    assert name not in fed_args(session.plan.step("v"))  # baked, as the exported module does
    want = plain(op, args, session.plan.step("source").seed or 0)
    got = result.arrays(Ref("v"))
    for index, (x, y) in enumerate(zip(got, want, strict=True)):
        assert x.shape == y.shape and x.dtype == y.dtype, f"{op}.{name} #{index}"
        np.testing.assert_array_equal(x, y, err_msg=f"{op}.{name} #{index}")


def test_two_values_are_still_fed() -> None:
    graph = GraphSpec(
        nodes=(
            Source("source", shuffle=False),
            Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
            Node("v", "resize", (Ref("decode"),), {"size": [20.0, 16.0]}),
        ),
        batch_size=BATCH,
    )
    session = Session(graph, device_id=None)
    assert fed_args(session.plan.step("v")) == ("size",)
