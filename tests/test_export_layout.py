"""Exported code is laid out by ruff's formatter (black's style, 100 columns), the same whatever
configuration sits near the user's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from augexplorer.export.layout import LayoutError, formatted

MESSY = "import os\ndef f( a,b ):\n  return {'a':a,'b':b,'long':[1,2,3]}\n"
TIDY = 'import os\n\n\ndef f(a, b):\n    return {"a": a, "b": b, "long": [1, 2, 3]}\n'


def test_lays_out_code_as_black_does() -> None:
    assert formatted(MESSY) == TIDY
    assert formatted(TIDY) == TIDY


def test_a_users_formatter_settings_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a project of the user's asking for 40 columns and single quotes, where the export runs
    (tmp_path / "pyproject.toml").write_text(
        "[tool.ruff]\nline-length = 40\n[tool.ruff.format]\nquote-style = 'single'\n"
    )
    (tmp_path / "ruff.toml").write_text("line-length = 40\n")
    monkeypatch.chdir(tmp_path)
    assert formatted(MESSY) == TIDY


def test_text_that_is_not_python_is_a_bug_said_as_such() -> None:
    with pytest.raises(LayoutError, match="a bug in augexplorer's exporter") as refused:
        formatted("def f(:\n")
    assert "ruff could not format the generated code" in str(refused.value)
