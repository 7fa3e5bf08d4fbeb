"""The round trip of DALI code from the wild (tests/test_import_wild*.py): each file imported,
its graph exported, the module read back and run in one fresh process, beside the batches the
file's own pipeline gives."""

from __future__ import annotations

import runpy
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from exported_runner import run_exported

from augexplorer import Session
from augexplorer.export import export
from augexplorer.export.importer import import_graph
from augexplorer.spec import GraphSpec

RUNS = 2  # batches compared

Batches = list[list[list[np.ndarray]]]  # batch, output, sample


def run_up_to(path: Path, build: str) -> dict[str, Any]:
    """The names the file's code makes up to the line `build` (``"pipe.build()"``), after which
    an iterator or a loop would run its pipeline ahead: a fresh pipeline to read batches from."""
    source = path.with_name(f"{path.stem}_original.py")
    source.write_text(path.read_text().split(f"\n{build}")[0])
    return runpy.run_path(str(source))


def first_batches(pipe: Any) -> Batches:
    """The first RUNS batches of a DALI pipeline, built here: each output's samples as arrays."""
    pipe.build()
    return [
        [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()] for _ in range(RUNS)
    ]


class Imported(NamedTuple):
    original: Batches  # what the file's own pipeline gives
    graph: GraphSpec  # what the import made of it
    back: GraphSpec  # what its exported module reads back as
    caught: list[warnings.WarningMessage]  # what the import warned (where recorded)


def round_trips(
    folder: Path,
    templates: dict[str, str],
    write: Callable[[Path, str, str], Path],
    original_batches: Callable[[Path], Batches],
    *,
    record_warnings: bool = False,
) -> dict[str, Any]:
    """Each template written by `write`, imported, exported and read back (an :class:`Imported`
    by name), and what every module gave, under "exported". Without `record_warnings` a
    warning of the import goes to the test (ours are errors there)."""
    found: dict[str, Any] = {}
    jobs = []
    for name, template in templates.items():
        path = write(folder, name, template)
        with warnings.catch_warnings(record=record_warnings) as caught:
            if record_warnings:
                warnings.simplefilter("always")
            graph = import_graph(path, run_file=True)
        module = export(graph, folder / f"{name}_aug.py")
        original = original_batches(path)
        found[name] = Imported(original, graph, import_graph(module), caught or [])
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(folder / f"{name}.npz"),
                "batch_size": len(original[0][0]),
                "device": "cpu",
                "runs": RUNS,
            }
        )
    found["exported"] = run_exported(jobs, folder)
    return found


def assert_same(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    assert len(got) == len(want), what
    for index, (x, y) in enumerate(zip(got, want, strict=True)):
        assert x.dtype == y.dtype and x.shape == y.shape, f"{what}, sample {index}"
        np.testing.assert_array_equal(x, y, err_msg=f"{what}, sample {index}")


def assert_session_gives_the_files_batches(imported: Imported, name: str) -> None:
    session = Session(imported.graph, device_id=None)
    result = session.run()
    refs = list(result.plan.outputs.values())
    assert len(refs) == len(imported.original[0])
    for index, ref in enumerate(refs):
        assert_same(result.arrays(ref), imported.original[0][index], f"{name} output {index}")
    second = session.next_batch()
    for index, ref in enumerate(refs):
        want = imported.original[1][index]
        assert_same(second.arrays(ref), want, f"{name} batch 2 output {index}")


def assert_module_gives_the_files_batches(
    imported: Imported, saved: dict[str, np.ndarray], name: str
) -> None:
    for run, batches in enumerate(imported.original):
        prefix = f"run{run}_" if run else ""
        for index, want in enumerate(batches):
            got = [saved[f"{prefix}{index}_{i}"] for i in range(len(want))]
            assert_same(got, want, f"{name} batch {run + 1} output {index}")
