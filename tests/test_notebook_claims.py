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


def _section(text: str, heading: str) -> str:
    """The section of `text` under `heading`, up to the next second-level heading."""
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start : end if end != -1 else None]


def test_the_torchvision_run_notebook_05_quotes_is_benchmarks_md_run() -> None:
    notebook = (ROOT / "notebooks" / "05_where_time_goes.py").read_text(encoding="utf-8")
    benchmarks = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    against = _section(benchmarks, "## Your pipeline against its port")
    assert "torchvision ImageNet train" in against and "RandomResizedCrop(224)" in against
    for figure in ("105.7", "206.7", "1.96x", "2026-11-26", "2-core", "256 images"):
        assert figure in notebook, f"notebook 05 no longer quotes {figure}"
        assert figure in against, f"BENCHMARKS.md's section on --against has no {figure}"
    # the notebook says no GPU run of torchvision itself is recorded: true while the GPU
    # section holds no original DataLoader
    assert "No run of torchvision itself on a GPU machine" in notebook
    gpu = _section(benchmarks, "## On a GPU (2026-11-22)")
    assert "original DataLoader" not in gpu and "--against" not in gpu
