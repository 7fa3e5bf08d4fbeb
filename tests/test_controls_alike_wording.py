"""Controls behave alike and refusals read alike: a probability past [0, 1] is refused in one
wording with one fix wherever it is typed or written (a coin's argument, a coin flip drawn for an
argument, a node's apply probability, an expression's); numbers in refusals read as typed (50,
not 50.0); ticking "apply with probability" and typing the probability are two undo steps.
Real DALI on the CPU; messages as the page sends them."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import NumberSlider, RandomEditor
from test_widgets_panel import browser_update

from augexplorer import validate
from augexplorer.catalog import load_catalog
from augexplorer.errors import GraphInvalid, Problem
from augexplorer.presets import preset
from augexplorer.spec import GraphSpec, Node, Probability, Random, Ref

REASON = "1.5 is out of range [0, 1] (fix: use a value in [0, 1])"


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)


def said(widget: object) -> str:
    return html.unescape(getattr(widget, "value", ""))


def select(explorer: Explorer, node: str) -> None:
    explorer.select(node)
    explorer.flush()


def p_of(explorer: Explorer, node: str) -> float | None:
    found = explorer.spec.node(node)
    assert isinstance(found, Node)
    return found.probability.p if found.probability is not None else None


def problems(spec: GraphSpec) -> list[Problem]:
    with pytest.raises(GraphInvalid) as invalid:
        validate(spec, load_catalog())
    return invalid.value.problems


# ---- a probability refused: one wording, one fix ----------------------------------------------


def test_every_probability_box_refuses_past_1_in_the_same_words(explorer: Explorer) -> None:
    """The node's apply box read "a probability must be between 0 and 1, not 1.5" where a
    coin's probability argument read "1.5 is out of range [0, 1]" with its fix."""
    explorer.add("random.coin_flip")
    explorer.flush()
    coin = next(n.id for n in explorer.spec.nodes if n.op == "random.coin_flip")
    select(explorer, coin)
    argument = explorer.node_panel.controls["probability"]
    assert isinstance(argument.editor, NumberSlider)
    browser_update(argument.editor.box, value="1.5")
    explorer.flush()
    assert f"Not applied: {REASON}. probability stays 0.5." in said(argument.message)

    select(explorer, "flip")
    browser_update(explorer.node_panel.apply, value=True)
    explorer.flush()
    browser_update(explorer.node_panel.probability.box, value="1.5")
    explorer.flush()
    message = said(explorer.node_panel.probability_message)
    assert f"Not applied: {REASON}. The probability stays 0.5." in message, message
    assert p_of(explorer, "flip") == 0.5
    assert explorer.node_panel.probability.slider.value == 0.5, "the slider stays in force"
    assert explorer.node_panel.probability.box.value == "1.5", "what was typed stays"

    drawn = explorer.node_panel.controls["horizontal"]  # a coin flip drawn for an argument
    assert isinstance(drawn.editor, RandomEditor)
    box = drawn.editor.params["probability"]
    assert isinstance(box, NumberSlider)
    browser_update(box.box, value="1.5")
    explorer.flush()
    assert f"the coin flip's probability {REASON}" in said(drawn.message)
    assert box.slider.value == 0.5 and box.box.value == "1.5"
    flip = explorer.spec.node("flip")
    assert isinstance(flip, Node) and flip.args["horizontal"] == Random.coin_flip(0.5)


def _expression_applied(p: float) -> GraphSpec:
    spec = preset("basic")
    node = Node("inverted", "expression", (Ref("crop"),), {"expression": "255 - crop"})
    return spec.insert_after("crop", node).set_probability("inverted", Probability(p))


@pytest.mark.parametrize(
    ("spec", "node", "argument", "message"),
    [
        (
            preset("basic").set_probability("rotate", Probability(1.5)),
            "rotate",
            "probability",
            "1.5 is out of range [0, 1]",
        ),
        (_expression_applied(1.5), "inverted", "probability", "1.5 is out of range [0, 1]"),
        (
            preset("basic").set_arg("flip", "horizontal", Random.coin_flip(1.5)),
            "flip",
            "horizontal",
            "the coin flip's probability 1.5 is out of range [0, 1]",
        ),
    ],
    ids=["apply", "expression-apply", "coin-flip-drawn"],
)
def test_the_graph_checks_word_every_probability_alike(
    spec: GraphSpec, node: str, argument: str, message: str
) -> None:
    """The graph's own checks said "apply probability 1.5 is not in [0, 1]" and "coin flip
    probability must be in [0, 1]", each with the fix "use a value from 0 to 1"."""
    found = [p for p in problems(spec) if p.node == node and p.argument == argument]
    assert [(p.message, p.fix) for p in found] == [(message, "use a value in [0, 1]")]


# ---- numbers as the boxes write them -----------------------------------------------------------


def test_a_reversed_range_reads_as_typed(explorer: Explorer) -> None:
    """50 typed as the low end of U(-20, 20) read "uniform range is reversed (50.0 > 20.0)"."""
    select(explorer, "rotate")
    control = explorer.node_panel.controls["angle"]
    assert isinstance(control.editor, RandomEditor)
    browser_update(control.editor.params["low"], value="50")
    explorer.flush()
    assert "Not applied: uniform range is reversed (50 > 20)" in said(control.message)


def test_the_checks_write_whole_floats_without_a_point() -> None:
    spec = preset("basic")
    reversed_draw = spec.set_arg("rotate", "angle", Random.uniform(50.0, 20.0))
    assert problems(reversed_draw)[0].message == "uniform range is reversed (50 > 20)"
    empty = spec.set_arg("rotate", "angle", Random.uniform(20.0, 20.0))
    assert problems(empty)[0].message == "uniform range 20..20 is empty"
    window = Node("window", "random_resized_crop", (Ref("crop"),), {"random_area": [1.0, 0.08]})
    message = problems(spec.insert_after("crop", window))[0].message
    assert message == (
        "the range [1, 0.08] is empty: its low end is above its high end (write [0.08, 1])"
    )
    normal = spec.set_arg("crop", "crop_pos_x", Random.normal(0.5, 0.2))
    problem = problems(normal)[0]
    assert "N(0.5, 0.2)" in problem.message and "math.clamp(draw, 0, 1)" in (problem.fix or "")


# ---- undo steps --------------------------------------------------------------------------------


def test_ticking_apply_and_typing_the_probability_are_two_undo_steps(explorer: Explorer) -> None:
    """Both shared the merge key `flip.apply`, so a probability typed within a second of the
    tick merged into it: one undo took back both."""
    select(explorer, "flip")
    steps = len(explorer.state.history)
    browser_update(explorer.node_panel.apply, value=True)
    explorer.flush()
    browser_update(explorer.node_panel.probability.box, value="0.3")
    explorer.flush()
    assert p_of(explorer, "flip") == 0.3
    assert len(explorer.state.history) == steps + 2
    explorer.undo()
    explorer.flush()
    assert p_of(explorer, "flip") == 0.5, "the typing is undone first, apply stays ticked"
    explorer.undo()
    explorer.flush()
    assert p_of(explorer, "flip") is None


def test_moves_of_the_probability_still_merge_as_an_arguments_do(explorer: Explorer) -> None:
    select(explorer, "flip")
    browser_update(explorer.node_panel.apply, value=True)
    explorer.flush()
    explorer.set_arg("flip", "vertical", 1)  # another edit between, then a drag
    explorer.flush()
    steps = len(explorer.state.history)
    for value in (0.51, 0.52, 0.53):
        browser_update(explorer.node_panel.probability.slider, value=value)
        explorer.flush()
    assert p_of(explorer, "flip") == 0.53 and len(explorer.state.history) == steps + 1
    browser_update(explorer.node_panel.apply, value=False)  # switched off: a step of its own
    explorer.flush()
    assert len(explorer.state.history) == steps + 2
