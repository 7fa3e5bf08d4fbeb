"""Text typed into a node's probability box and refused stays the user's when they look at
another node and come back, as an argument's refused text does (test_widgets_refused_kept.py):
1.5 typed into flip's probability was forgotten once another node was selected, the box back at
0.5 with no reason. It stays (box, reason, outline) until typed over, apply is switched off, or
the graph changes the probability some other way (undo); the graph keeps the value in force.
Real DALI on the CPU; messages as the page sends them."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.node_panel import NodePanel
from test_widgets_panel import browser_update


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)
    select(explorer, "flip")
    browser_update(explorer.node_panel.apply, value=True)  # applied with p = 0.5
    # another edit between: a probability typed next is an undo step of its own, however soon
    explorer.set_arg("flip", "vertical", 1)
    explorer.flush()
    return explorer


def select(explorer: Explorer, node: str | None) -> NodePanel:
    explorer.select(node)
    explorer.flush()
    return explorer.node_panel


def p_in_force(explorer: Explorer) -> float | None:
    probability = explorer.spec.node("flip").probability
    return probability.p if probability is not None else None


def shows_refused(panel: NodePanel, typed: str, reason: str) -> None:
    said = html.unescape(panel.probability_message.value)
    assert panel.probability.box.value == typed
    assert said.startswith("⚠ Not applied") and reason in said, said
    assert "The probability stays 0.5" in said, said
    assert "ax-arg-error" in panel.probability._dom_classes
    assert panel.probability.slider.value == 0.5, "the slider stays at the value in force"


def shows_applied(panel: NodePanel, value: str) -> None:
    assert panel.probability.box.value == value and panel.probability_message.value == ""
    assert "ax-arg-error" not in panel.probability._dom_classes


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("1.5", "1.5 is out of range [0, 1] (fix: use a value in [0, 1])"),
        ("-0.2", "-0.2 is out of range [0, 1] (fix: use a value in [0, 1])"),
        ("abc", "'abc' is not a number"),
    ],
)
def test_a_refused_probability_is_kept_while_other_nodes_are_shown(
    explorer: Explorer, typed: str, reason: str
) -> None:
    browser_update(explorer.node_panel.probability.box, value=typed)
    explorer.flush()
    for elsewhere in ("rotate", None, "source"):  # another node, none, the data source
        select(explorer, elsewhere)
        shows_refused(select(explorer, "flip"), typed, reason)
        assert p_in_force(explorer) == 0.5
    # an edit of another argument of the node leaves it too
    explorer.set_arg("flip", "vertical", 0)
    explorer.flush()
    shows_refused(explorer.node_panel, typed, reason)
    # a good value typed takes its place, and is what shows from then on
    browser_update(explorer.node_panel.probability.box, value="0.25")
    explorer.flush()
    assert p_in_force(explorer) == 0.25
    select(explorer, "rotate")
    shows_applied(select(explorer, "flip"), "0.25")


def test_each_node_keeps_its_own_refused_probability(explorer: Explorer) -> None:
    browser_update(explorer.node_panel.probability.box, value="1.5")
    panel = select(explorer, "rotate")
    browser_update(panel.apply, value=True)
    explorer.flush()
    shows_applied(explorer.node_panel, "0.5")  # flip's text is not rotate's
    browser_update(explorer.node_panel.probability.box, value="abc")
    shows_refused(select(explorer, "flip"), "1.5", "1.5 is out of range [0, 1]")
    shows_refused(select(explorer, "rotate"), "abc", "'abc' is not a number")


def test_undo_of_the_probability_elsewhere_takes_back_what_was_typed(explorer: Explorer) -> None:
    """The probability the text was refused against undone while another node was shown: the
    box shows the one in force, and redo does not bring the text back."""
    browser_update(explorer.node_panel.probability.box, value="0.3")
    explorer.flush()
    browser_update(explorer.node_panel.probability.box, value="1.5")
    select(explorer, "rotate")
    explorer.undo()
    explorer.flush()
    assert p_in_force(explorer) == 0.5
    shows_applied(select(explorer, "flip"), "0.5")
    explorer.redo()
    explorer.flush()
    shows_applied(explorer.node_panel, "0.3")


def test_undo_while_the_node_is_shown_takes_back_what_was_typed(explorer: Explorer) -> None:
    browser_update(explorer.node_panel.probability.box, value="0.3")
    explorer.flush()
    browser_update(explorer.node_panel.probability.box, value="-0.2")
    explorer.undo()
    explorer.flush()
    shows_applied(explorer.node_panel, "0.5")
    select(explorer, "rotate")
    shows_applied(select(explorer, "flip"), "0.5")


def test_apply_switched_off_takes_back_what_was_typed(explorer: Explorer) -> None:
    browser_update(explorer.node_panel.probability.box, value="1.5")
    browser_update(explorer.node_panel.apply, value=False)
    explorer.flush()
    assert p_in_force(explorer) is None
    browser_update(select(explorer, "flip").apply, value=True)
    explorer.flush()
    assert p_in_force(explorer) == 0.5
    shows_applied(explorer.node_panel, "0.5")
