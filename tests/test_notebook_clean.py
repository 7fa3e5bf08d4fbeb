"""The notebook cleaner: what a JupyterLab run and save leave in a notebook is found and removed,
and nothing a reader or jupytext needs goes with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from augexplorer_widgets.notebook_clean import main, stray_content, strip

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def saved_after_a_run() -> dict[str, Any]:
    """A notebook as JupyterLab saves it after running it with a panel shown."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "kernelspec": KERNELSPEC,
            "jupytext": {"formats": "ipynb,py:percent"},
            "language_info": {"name": "python", "version": "3.11.9"},
            "widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}},
        },
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# Title"},
            {
                "cell_type": "code",
                "id": "b",
                "execution_count": 3,
                "metadata": {"scrolled": True, "lines_to_next_cell": 2, "tags": ["keep"]},
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "hi\n"}],
                "source": "print('hi')",
            },
        ],
    }


def test_a_saved_run_is_found_and_stripped_to_what_the_source_needs() -> None:
    saved = saved_after_a_run()
    found = stray_content(saved)
    assert found == [
        "notebook metadata 'language_info'",
        "notebook metadata 'widgets'",
        "cell 1: outputs",
        "cell 1: execution_count",
        "cell 1: metadata 'scrolled'",
    ]
    clean = strip(saved)
    assert stray_content(clean) == []
    assert clean["metadata"] == {
        "kernelspec": KERNELSPEC,
        "jupytext": {"formats": "ipynb,py:percent"},
    }
    code = clean["cells"][1]
    assert code["outputs"] == [] and code["execution_count"] is None
    assert code["metadata"] == {"lines_to_next_cell": 2, "tags": ["keep"]}
    assert [cell["source"] for cell in clean["cells"]] == ["# Title", "print('hi')"]
    assert saved["cells"][1]["outputs"], "strip returns a new notebook; the input is unchanged"


def test_the_command_checks_and_strips_in_place(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "run.ipynb"
    path.write_text(json.dumps(saved_after_a_run()), encoding="utf-8")
    assert main(["--check", str(path)]) == 1
    assert "cell 1: outputs" in capsys.readouterr().out
    assert stray_content(json.loads(path.read_text(encoding="utf-8"))), "--check writes nothing"

    assert main([str(path)]) == 0
    assert stray_content(json.loads(path.read_text(encoding="utf-8"))) == []
    assert main(["--check", str(path)]) == 0
    assert main([]) == 2
