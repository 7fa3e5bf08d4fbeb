"""Claims a notebook quotes from elsewhere in the project stay true to their source."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_gpu_figures_notebook_05_quotes_are_benchmarks_md_figures() -> None:
    notebook = (ROOT / "notebooks" / "05_where_time_goes.py").read_text(encoding="utf-8")
    benchmarks = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    section = benchmarks[benchmarks.index("## On a GPU (2026-11-22)") :]
    assert "One NVIDIA H100 80GB" in section and "16 CPU cores" in section
    for figure in ("1732.8", "12482.2", "12519.7", "7.20", "7.22", "1424.9", "1579.9"):
        assert figure in notebook, f"notebook 05 no longer quotes {figure}"
        assert figure in section, f"BENCHMARKS.md's GPU section has no {figure}"
    assert "2026-11-22" in notebook and "H100" in notebook
