"""The panel's style sheets stay cheap for the page to apply on every edit."""

from __future__ import annotations

from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[1] / "widgets" / "static"


@pytest.mark.parametrize("sheet", sorted(STATIC.glob("*.css")), ids=lambda p: p.name)
def test_no_has_selectors(sheet: Path) -> None:
    """Chromium re-matches a `:has()` rule on any change inside its subject: the editing
    column's `:has(.ax-node-title)` restyled 768 elements (13-15 ms) on each key press of a
    slider in it (BENCHMARKS.md). Layouts key on classes the kernel or the view sets instead."""
    rules = [
        (number, line.strip())
        for number, line in enumerate(sheet.read_text().splitlines(), start=1)
        if ":has(" in line and not line.lstrip().startswith(("/*", "*"))
    ]
    assert not rules, f"{sheet.name}: {rules}"
