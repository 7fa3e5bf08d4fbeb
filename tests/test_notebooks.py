"""The teaching notebooks: each `.py` source and its `.ipynb` twin say the same thing, and every
notebook runs top to bottom without an error (on a copy, in a temporary folder).

The execution tests start a real Jupyter kernel running this interpreter, so the notebooks see
exactly the packages the test suite sees.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import pytest
from augexplorer_widgets.notebook_clean import stray_content, strip
from nbclient import NotebookClient

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
SOURCES = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.py"))
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("[0-9][0-9]_*.ipynb"))
EXPECTED_KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
CELL_TIMEOUT_S = 300
MARKDOWN_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _ids(paths: list[Path]) -> list[str]:
    return [path.stem for path in paths]


def _cells(notebook: Any) -> list[tuple[str, str]]:
    """What a reader sees: each cell's type and source, without trailing blank lines."""
    return [(cell.cell_type, cell.source.rstrip()) for cell in notebook.cells]


# ---- the .py sources and the .ipynb twins stay in step -------------------------------------------
def test_notebooks_are_found() -> None:
    assert SOURCES, f"no notebook sources (NN_name.py) in {NOTEBOOKS_DIR}"


@pytest.mark.parametrize("source", SOURCES, ids=_ids(SOURCES))
def test_source_has_an_ipynb_twin_with_the_same_cells(source: Path) -> None:
    twin = source.with_suffix(".ipynb")
    assert twin.exists(), f"{twin.name} is missing: run `jupytext --to ipynb {source.name}`"
    from_text = jupytext.read(source, fmt="py:percent")
    from_ipynb = nbformat.read(twin, as_version=4)
    assert _cells(from_ipynb) == _cells(from_text), (
        f"{twin.name} and {source.name} differ: run `jupytext --to ipynb {source.name}` "
        "(or `jupytext --to py:percent` the other way) after editing one of them"
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_ipynb_has_a_py_source(notebook: Path) -> None:
    assert notebook.with_suffix(".py").exists(), (
        f"{notebook.name} has no jupytext source: run `jupytext --to py:percent {notebook.name}`"
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_ipynb_names_its_kernel_and_holds_no_outputs(notebook: Path) -> None:
    # Without a kernelspec JupyterLab stops at a "Select Kernel" dialog; what a run leaves
    # (outputs, execution counts, widget state, language_info) would go stale and bloat diffs.
    content = json.loads(notebook.read_text(encoding="utf-8"))
    assert content["metadata"].get("kernelspec") == EXPECTED_KERNELSPEC
    stray = stray_content(content)
    assert not stray, (
        f"{notebook.name} holds what a run left: {'; '.join(stray)}. Clear it with "
        f"`.venv/bin/python -m augexplorer_widgets.notebook_clean notebooks/{notebook.name}`"
    )


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_pictures_a_notebook_shows_are_in_the_repository(notebook: Path) -> None:
    # a markdown image is read relative to the notebook's folder, on GitHub as in JupyterLab
    nb = nbformat.read(notebook, as_version=4)
    links = [
        link
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for link in MARKDOWN_IMAGE.findall(cell.source)
        if "://" not in link
    ]
    for link in links:
        picture = notebook.parent / link
        assert picture.is_file(), f"{notebook.name} shows {link}, which is not in {picture.parent}"
        assert picture.read_bytes().startswith(PNG_SIGNATURE), f"{link} is not a PNG file"


def test_the_quickstart_opens_with_a_picture_of_its_panel() -> None:
    # a reader of a static view sees what the first cell gives before running anything (the
    # picture is made by tests/browser/test_quickstart_picture.py)
    first = nbformat.read(NOTEBOOKS_DIR / "01_quickstart.ipynb", as_version=4).cells[0]
    assert first.cell_type == "markdown"
    assert MARKDOWN_IMAGE.findall(first.source) == ["images/quickstart-panel.png"]


# ---- every notebook runs ---------------------------------------------------------------------
@pytest.fixture
def python3_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A `python3` kernelspec that runs this interpreter, found before any other on the machine
    (a user-level `python3` kernel could otherwise point at a different Python)."""
    kernel_dir = tmp_path / "jupyter" / "kernels" / "python3"
    kernel_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3",
        "language": "python",
    }
    (kernel_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return "python3"


@pytest.mark.notebooks
@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_runs_top_to_bottom(
    notebook: Path,
    tmp_path: Path,
    python3_kernel: str,
    record_property: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workdir = tmp_path / "run"
    workdir.mkdir()
    # the kernel's temporary folder, watched for what the notebook leaves behind
    kernel_temp = tmp_path / "temp"
    kernel_temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(kernel_temp))
    copy = workdir / notebook.name
    shutil.copy(notebook, copy)  # never execute (or write outputs into) the repository's file
    nb = nbformat.read(copy, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("import sys\nprint(sys.prefix)"))

    client = NotebookClient(
        nb,
        kernel_name=python3_kernel,
        timeout=CELL_TIMEOUT_S,
        resources={"metadata": {"path": str(workdir)}},
    )
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    seconds = time.perf_counter() - start
    record_property("execution_seconds", round(seconds, 1))
    print(f"{notebook.name}: executed in {seconds:.1f} s")
    nbformat.write(nb, copy)  # the executed copy stays in tmp_path for inspection

    # A virtual environment's python is a link to the base interpreter: compare prefixes.
    kernel_prefix = "".join(
        output.get("text", "") for output in nb.cells[-1].outputs if output.output_type == "stream"
    ).strip()
    assert kernel_prefix == sys.prefix, (
        f"the notebook ran in the Python at {kernel_prefix}, not the test's {sys.prefix}"
    )
    errors = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors

    # a reader runs the notebooks again and again: each temporary folder one makes (our names
    # start "augexplorer-") is gone once it has run and its kernel has stopped
    left = sorted(path.name for path in kernel_temp.glob("augexplorer-*"))
    assert not left, f"{notebook.name} left temporary folders behind: {left}"

    # What the run left is what the cleaner strips: a run saved over the repository's file and
    # cleaned gives the committed file back.
    ran = json.loads(copy.read_text(encoding="utf-8"))
    ran["cells"] = ran["cells"][:-1]  # the prefix cell added above
    assert stray_content(ran), "the executed copy should hold outputs"
    assert strip(ran) == json.loads(notebook.read_text(encoding="utf-8"))
