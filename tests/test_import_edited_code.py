"""An exported module whose pipeline code was edited by hand, imported back: the import reads
GRAPH, never the code, and says so where the code is not what GRAPH exports to, on the command
line too; an unedited module (with any decoder fusion) imports in silence."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from augexplorer import preset
from augexplorer.cli import main
from augexplorer.export import export
from augexplorer.export.edited_code import CodeEdited
from augexplorer.export.importer import import_graph


@pytest.mark.parametrize("fuse", ["exact", "all", "none"])
def test_an_unedited_module_imports_in_silence(tmp_path: Path, fuse: str) -> None:
    spec = preset("imagenet_train")
    module = export(spec, tmp_path / "aug.py", fuse_decoders=fuse)  # type: ignore[arg-type]
    # layout and comments are no edit
    module.write_text(
        module.read_text().replace("\n    return ", "\n    # the outputs\n    return ", 1)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert import_graph(module) == spec


def test_an_edited_pipeline_function_is_said(tmp_path: Path) -> None:
    spec = preset("basic")
    module = export(spec, tmp_path / "aug.py")
    text = module.read_text()
    assert "fill_value=0.0" in text
    module.write_text(text.replace("fill_value=0.0", "fill_value=9.0", 1))
    with pytest.warns(CodeEdited, match="without the code's edits"):
        imported = import_graph(module)
    assert imported == spec  # GRAPH's graph, as it says


def test_the_command_line_says_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = export(preset("basic"), tmp_path / "aug.py")
    module.write_text(module.read_text().replace("fill_value=0.0", "fill_value=9.0", 1))
    assert main(["import", str(module), "-o", str(tmp_path / "graph.json")]) == 0
    said = capsys.readouterr().err
    assert "note:" in said and "pipeline function is not what augexplorer writes" in said
