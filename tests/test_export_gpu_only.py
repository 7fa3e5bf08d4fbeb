"""A graph with a GPU-only operator (jitter has no CPU backend) exported: with device="cpu" its
module said every operator runs on the CPU, and DALI then failed with "input 0 for gpu operator
jitter is stored on incompatible device cpu". The module now refuses device="cpu" itself,
naming the operator and the fix, and its docstring says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from exported_runner import exported_module

from augexplorer import preset
from augexplorer.spec import Node


def test_device_cpu_is_refused_by_name_where_an_operator_runs_only_on_the_gpu(
    tmp_path: Path,
) -> None:
    spec = preset("basic").insert_after("flip", Node("jitter", "jitter", device="gpu"))
    module = exported_module(spec, tmp_path, "aug_jitter")
    text = " ".join((tmp_path / "aug_jitter.py").read_text().split())
    assert 'GPU-only operators (jitter) have no CPU backend: with device="cpu" the pipeline' in text
    assert "every operator runs on the CPU" not in text
    with pytest.raises(ValueError, match=r"jitter runs only on the GPU, so device='cpu' cannot"):
        module.make_loader(batch_size=2, device="cpu", num_threads=1)


def test_a_graph_without_one_has_no_such_check(tmp_path: Path) -> None:
    exported_module(preset("basic"), tmp_path, "aug_plain")
    text = (tmp_path / "aug_plain.py").read_text()
    assert "only on the GPU" not in text and 'With device="cpu" every operator runs' in text
