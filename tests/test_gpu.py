"""GPU paths: the same engine with mixed decoding and GPU operators. Skipped without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from augexplorer import Session, preset, validate
from augexplorer.catalog import load_catalog

pytestmark = pytest.mark.gpu


def test_auto_placement_decodes_mixed_and_runs_the_rest_on_the_gpu() -> None:
    session = Session("basic", batch_size=4)
    result = session.run()
    devices = {step_id: r.device for step_id, r in result.steps.items()}
    assert devices["decode"] == "mixed" and devices["rotate"] == "gpu"
    assert devices["rotate_angle"] == "cpu"
    assert type(result.output("flip")).__name__ == "TensorListGPU"
    assert result.arrays("flip")[0].shape == (224, 224, 3)


def test_gpu_edits_are_incremental_and_match_a_fresh_session() -> None:
    session = Session("reference", batch_size=4)
    session.run()
    edited = session.set_arg("brightness", "brightness", 1.4)
    assert edited.ran() == ["brightness"]
    fresh = Session(session.spec, batch_size=4).run()
    for a, b in zip(edited.arrays("brightness"), fresh.arrays("brightness"), strict=True):
        np.testing.assert_array_equal(a, b)


def test_gpu_and_cpu_geometry_agree() -> None:
    gpu = Session("imagenet_val", batch_size=4).run()
    cpu = Session("imagenet_val", batch_size=4, device_id=None).run()
    for a, b in zip(gpu.arrays("normalize"), cpu.arrays("normalize"), strict=True):
        assert a.shape == b.shape
        # Decoders differ in rounding between nvJPEG and libjpeg; the pictures agree closely.
        assert np.abs(a - b).mean() < 0.05


def test_cpu_only_session_on_a_gpu_machine_places_everything_on_the_cpu() -> None:
    result = Session("basic", batch_size=4, device_id=None).run()
    assert {r.device for r in result.steps.values()} == {"cpu"}


def test_probabilities_run_on_the_gpu() -> None:
    result = Session("randaugment", batch_size=8).run()
    assert result.steps["rotate"].device == "gpu"
    applied = [f for node in result.draws().values() for f in node.get("apply", [])]
    assert any(applied)


def test_validation_with_the_real_gpu_catalog() -> None:
    plan = validate(preset("imagenet_train"), load_catalog())
    assert plan.step("decode").device == "mixed"
