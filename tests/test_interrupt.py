"""Ctrl-C during a command: one line, exit status 130, no traceback and no half-written file;
`bench` still prints the loaders it had measured."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from augexplorer.bench import suite
from augexplorer.cli import INTERRUPTED, main
from augexplorer.engine.session import Session
from augexplorer.profiling.staged import StagedGraph


def interrupt(*_args: Any, **_kwargs: Any) -> Any:
    raise KeyboardInterrupt


def check_interrupted(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Check the one line Ctrl-C leaves on stderr, after any progress lines; returns stdout."""
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert captured.err.splitlines()[-1] == (
        f"augexplorer {command}: interrupted (Ctrl-C); no file was left half-written"
    )
    return captured.out


def test_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(Session, "run", interrupt)
    out = tmp_path / "grid.png"
    assert main(["render", "basic", "--batch-size", "2", "-o", str(out)]) == INTERRUPTED == 130
    assert check_interrupted("render", capsys) == ""
    assert list(tmp_path.iterdir()) == []


def test_profile_in_the_middle_of_timing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(StagedGraph, "run", interrupt)  # after the first ordinary run
    chart = tmp_path / "profile.png"
    argv = ["profile", "basic", "--batch-size", "2", "--repeats", "1", "--chart", str(chart)]
    assert main(argv) == INTERRUPTED
    assert check_interrupted("profile", capsys) == ""
    assert list(tmp_path.iterdir()) == []


def test_bench_prints_what_it_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    measure: Callable[[Any, int], tuple[int, float]] = suite.time_batches
    calls: list[int] = []

    def first_then_interrupt(batches: Any, count: int) -> tuple[int, float]:
        calls.append(count)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return measure(batches, count)

    monkeypatch.setattr(suite, "time_batches", first_then_interrupt)
    argv = ["bench", "basic", "--batch-size", "4", "--images", "8", "--json", str(tmp_path / "b")]
    assert main(argv) == INTERRUPTED
    table = check_interrupted("bench", capsys)
    lines = table.splitlines()
    fused = next(line for line in lines if line.startswith("DALI fused") and " cpu " in line)
    assert "1.00x" in fused  # measured, and the only one
    exported = next(line for line in lines if line.startswith("DALI exported") and " cpu " in line)
    assert "not measured: interrupted" in exported
    assert list(tmp_path.iterdir()) == []


BENCH_FOREVER = ["bench", "basic", "--batch-size", "4", "--images", "8", "--rounds", "100000"]


def test_bench_sent_sigint_in_a_real_process() -> None:
    """As a terminal does on Ctrl-C: SIGINT to the whole process group, once the first loader
    has been measured and while the next runs."""
    process = subprocess.Popen(
        [sys.executable, "-m", "augexplorer", *BENCH_FOREVER],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stderr is not None
    progress = []
    for line in process.stderr:
        progress.append(line)
        if "images/s" in line:
            break
    os.killpg(process.pid, signal.SIGINT)
    try:
        out, err = process.communicate(timeout=120)  # a guard against a hang, not a timing
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, (progress, err)
    assert "Traceback" not in err
    assert err.splitlines()[-1] == (
        "augexplorer bench: interrupted (Ctrl-C); no file was left half-written"
    )
    assert "DALI fused (build_pipeline)" in out and "images/s" in out
