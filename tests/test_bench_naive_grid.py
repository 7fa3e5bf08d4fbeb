"""The edit-to-pixels benchmark's naive rebuild draws the grid the engine draws: its ratio
compares two ways of making the same picture, not a picture against a different one."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np

from augexplorer import Session
from augexplorer.data import open_source
from augexplorer.render import render_node

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_edit_to_pixels.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_edit_to_pixels", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_naive_rebuild_draws_the_grid_of_the_cached_engine() -> None:
    bench = _bench()
    session = Session(bench.graph(4, None))
    session.run()
    engine = np.asarray(render_node(session.set_arg("brightness", "brightness", 0.8)))
    data = {s.id: open_source(s.source) for s in session.plan.steps if s.source is not None}
    naive = np.asarray(bench.naive_grid(session, data, 0.8))
    assert naive.shape == engine.shape
    assert np.array_equal(naive, engine)
