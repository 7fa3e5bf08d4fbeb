"""A misspelt argument name given to Session.set_arg is refused and not kept: kept, it failed
every later call (the corrected one too, with "did you mean 'angle'?" after angle= was given),
and export and reroll after it. A refused value of a real argument is kept, as before: the
user's graph is never lost."""

from __future__ import annotations

import pytest

from augexplorer import Random, Session
from augexplorer.errors import GraphInvalid


def test_a_misspelt_argument_is_refused_and_the_corrected_call_runs() -> None:
    session = Session("basic", device_id=None)
    session.run()
    with pytest.raises(GraphInvalid, match="did you mean 'angle'"):
        session.set_arg("rotate", "angel", Random.uniform(-10, 10))
    assert "angel" not in session.spec.node("rotate").args
    result = session.set_arg("rotate", "angle", Random.uniform(-10, 10))
    assert result.arrays(result.plan.outputs["images"])
    with pytest.raises(GraphInvalid):  # a value the argument cannot take stays, said
        session.set_arg("rotate", "fill_value", "grey")
    assert session.spec.node("rotate").args["fill_value"] == "grey"


def test_a_misspelt_node_says_the_nearest_node() -> None:
    """A node-name typo was a bare KeyError: 'rotat'; it now says what to type, and is still a
    KeyError for code that catches one."""
    session = Session("basic", device_id=None)
    with pytest.raises(
        KeyError, match="the graph has no node 'rotat' \\(fix: did you mean 'rotate'\\?\\)"
    ):
        session.set_arg("rotat", "angle", 5.0)
    with pytest.raises(KeyError) as missing:
        session.spec.node("zzz")
    assert "its nodes: source, decode" in str(missing.value)


def test_a_run_after_a_refused_edit_says_it_again_rather_than_show_the_last_graph() -> None:
    """The refused value is kept in session.spec; run() returned the last good graph's batch
    without a word, pictures that were not session.spec's. It now raises the edit's error; the
    panel's navigation (epochs, next batch) keeps showing the last graph that ran."""
    session = Session("basic", device_id=None)
    good = session.run()
    with pytest.raises(GraphInvalid, match="resize_shorter") as refused:
        session.set_arg("resize", "resize_shorter", -5.0)
    assert session.spec.node("resize").args["resize_shorter"] == -5.0  # kept
    with pytest.raises(GraphInvalid) as again:
        session.run()
    assert str(again.value) == str(refused.value)
    assert (
        session.next_batch().plan.spec.node("resize").args["resize_shorter"]
        == (good.plan.spec.node("resize").args["resize_shorter"])
    )
    # fixed, it runs the graph as it now is
    fixed = session.set_arg("resize", "resize_shorter", 300.0)
    assert fixed.plan.spec.node("resize").args["resize_shorter"] == 300.0
    assert session.run().plan.spec.node("resize").args["resize_shorter"] == 300.0
