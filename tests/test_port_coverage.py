"""docs/porting.md is the coverage table the mappings and their measured grades make."""

from __future__ import annotations

from pathlib import Path

from augexplorer.port.coverage import table

DOC = Path(__file__).resolve().parents[1] / "docs" / "porting.md"


def test_the_coverage_table_is_current() -> None:
    assert DOC.read_text(encoding="utf-8") == table(), (
        "docs/porting.md is out of date: python -m augexplorer.port.coverage docs/porting.md"
    )


def test_every_ported_torchvision_class_is_in_the_table() -> None:
    from augexplorer.port.torchvision import EXAMPLES, MAPPING

    assert set(MAPPING.handlers) | set(MAPPING.groups) - {"Compose"} <= set(EXAMPLES)
