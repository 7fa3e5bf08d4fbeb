"""A ported node's grade and an operator's summary are cut, where the panel's column needs it,
at a word with " …" and the whole text on hover: they were cut mid-word ("angle drawn unifo")
with nothing to say more followed."""

from __future__ import annotations

import dataclasses
import html
import re

from augexplorer_widgets.node_panel import DIFFERENCES_CHARS, origin_html

from augexplorer.spec import Node, Origin

WORDS = "the angle drawn uniformly as torchvision draws it, then rotated about the centre; "


def shown(node: Node) -> str:
    """The grade's text as the panel shows it (not the hover)."""
    found = re.search(r"<div class='ax-muted'>(.*?)</div>", origin_html(node))
    assert found is not None
    return html.unescape(found.group(1))


def node(differences: str) -> Node:
    origin = Origin("torchvision", "RandomRotation(15)", "approximate", 3, (differences,))
    return dataclasses.replace(Node("rotate", "rotate"), origin=origin)


def test_a_long_grade_is_cut_at_a_word_and_said_whole_on_hover() -> None:
    long = WORDS * 10
    text = shown(node(long))
    assert text.endswith(" …") and len(text) <= DIFFERENCES_CHARS
    assert long.startswith(text[: -len(" …")])
    assert text[: -len(" …")].split(" ")[-1] in WORDS.split(" ")  # a whole word ends it
    assert f"title='{html.escape(long, quote=True)}'" in origin_html(node(long))


def test_a_grade_that_fits_is_shown_whole() -> None:
    sentence = WORDS * 3
    assert shown(node(sentence)) == sentence.strip()
