"""DALI's origin recording is off while the engine builds, and as it was everywhere else
(augexplorer/engine/origin_stacks.py)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def
from nvidia.dali._utils import dali_trace

from augexplorer import GraphSpec, Node, Ref, RunError, Session, Source, preset
from augexplorer.engine import dali_builds
from augexplorer.engine.origin_stacks import without_origin_stacks

IMAGES = [np.full((8, 8, 3), 40 * i, np.uint8) for i in range(2)]


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def _users_own_pipeline() -> Any:
    images = fn.external_source(source=lambda: IMAGES, layout="HWC")
    return fn.crop(images, crop=(64, 64))  # larger than the 8x8 images: fails when run


def test_an_engine_build_records_no_origins_and_leaves_the_switch_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import nvidia.dali.ops as dali_ops

    recorded = 0
    record = dali_ops._dali_trace.extract_stack

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal recorded
        recorded += 1
        return record(*args, **kwargs)

    monkeypatch.setattr(dali_ops._dali_trace, "extract_stack", counted)
    assert dali_trace.is_tracing_enabled()
    # a source, a plain step, a random one and a policy under AutoGraph
    session = Session(preset("trivial_augment_wide"), batch_size=2, device_id=None)
    session.run()
    session.set_arg("augment", "fill_value", 9)
    assert recorded == 0
    assert dali_trace.is_tracing_enabled()
    _users_own_pipeline()  # defined outside the engine: recorded
    assert recorded > 0


def test_a_users_own_pipeline_built_after_the_engine_still_names_its_line() -> None:
    spec = GraphSpec(
        (Source("source", "arrays"), Node("crop", "crop", (Ref("source"),), {"crop": [64, 64]})),
        batch_size=len(IMAGES),
    )
    with pytest.raises(RunError) as engines:  # the engine's error, in its own words
        Session(spec, IMAGES, device_id=None).run()
    assert engines.value.node == "crop"
    pipe = _users_own_pipeline()
    pipe.build()
    with pytest.raises(RuntimeError) as users:
        pipe.run()
    assert "return fn.crop(images, crop=(64, 64))" in str(users.value)


def _in_a_build_on_another_thread() -> tuple[threading.Event, threading.Event, threading.Thread]:
    inside, leave = threading.Event(), threading.Event()

    def build() -> None:
        with without_origin_stacks():
            inside.set()
            leave.wait(10)

    thread = threading.Thread(target=build)
    thread.start()
    assert inside.wait(10)
    return inside, leave, thread


def test_a_build_on_another_thread_leaves_this_threads_recording_on() -> None:
    _inside, leave, thread = _in_a_build_on_another_thread()
    try:
        assert dali_trace.is_tracing_enabled()
        with without_origin_stacks():
            assert not dali_trace.is_tracing_enabled()
        assert dali_trace.is_tracing_enabled()
    finally:
        leave.set()
        thread.join(10)


def test_an_operator_made_during_another_threads_build_is_called_after_it() -> None:
    # DALI reads the switch when an operator object is made and when it is called: switched
    # process-wide, an object made during the panel's background build and called after it
    # failed ('Flip' object has no attribute '_definition_frame_end')
    from nvidia.dali import ops

    _inside, leave, thread = _in_a_build_on_another_thread()
    flip = ops.Flip(horizontal=1)
    leave.set()
    thread.join(10)

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def users() -> Any:
        return flip(fn.external_source(source=lambda: IMAGES, layout="HWC"))

    pipe = users()
    pipe.build()
    (out,) = pipe.run()
    assert np.array_equal(np.array(out.at(1)), IMAGES[1][:, ::-1])


def test_a_switch_turned_off_by_the_user_stays_off() -> None:
    dali_trace.set_tracing(enabled=False)
    try:
        with without_origin_stacks():
            pass
        assert not dali_trace.is_tracing_enabled()
    finally:
        dali_trace.set_tracing(enabled=True)
    assert dali_trace.is_tracing_enabled()


def test_origins_recorded_leaves_dalis_recording_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dali_builds, "origins_recorded", True)
    with dali_builds.engine_build():
        assert dali_trace.is_tracing_enabled()
