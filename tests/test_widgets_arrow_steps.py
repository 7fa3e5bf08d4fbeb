"""Every number box steps by the arrow keys as a slider does: the box beside a slider by the
slider's step (resize_shorter's 1, a crop position's 0.01, the tile size's 20), a range's and a
uniform draw's ends by their slider's, a whole-number box by 1. The arrows in a box did nothing
while the same keys on its slider stepped it. The keys themselves are panel_keys.js's; the
browser test presses them."""

from __future__ import annotations

from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.arg_controls import STEP_CLASS, NumberSlider, RandomEditor, RangePair
from test_widgets_panel import browser_update

from augexplorer.spec import Random


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("reference", batch_size=2, autosave=tmp_path / "a.json", catalog=catalog)


def step_of(box: object) -> str | None:
    """The step the arrow keys move `box` by, as its class names it (None: its last digit)."""
    steps = [c[len(STEP_CLASS) :] for c in box._dom_classes if c.startswith(STEP_CLASS)]  # type: ignore[attr-defined]
    assert len(steps) <= 1, steps
    return steps[0] if steps else None


def editor(explorer: Explorer, node: str, name: str) -> object:
    explorer.select(node)
    explorer.flush()
    return explorer.node_panel.controls[name].editor


def test_a_box_beside_a_slider_steps_as_the_slider(explorer: Explorer) -> None:
    shorter = editor(explorer, "resize", "resize_shorter")
    assert isinstance(shorter, NumberSlider) and step_of(shorter.box) == "1"
    position = editor(explorer, "crop", "crop_pos_x")
    assert isinstance(position, NumberSlider) and step_of(position.box) == "0.01"
    assert step_of(explorer.grid.size.box) == "20"  # the tile size's
    explorer.select("flip")
    explorer.flush()
    browser_update(explorer.node_panel.apply, value=True)  # apply with probability
    explorer.flush()
    assert step_of(explorer.node_panel.probability.box) == "0.01"
    coin = explorer.node_panel.controls["horizontal"].editor
    assert isinstance(coin, RandomEditor)
    probability = coin.params["probability"]
    assert isinstance(probability, NumberSlider) and step_of(probability.box) == "0.01"


def test_a_draws_and_a_ranges_ends_step_as_their_slider(explorer: Explorer) -> None:
    angle = editor(explorer, "rotate", "angle")
    assert isinstance(angle, RandomEditor)
    assert step_of(angle.params["low"]) == step_of(angle.params["high"]) == "1"
    explorer.add("random_resized_crop")
    explorer.flush()
    node = next(n.id for n in explorer.spec.nodes if n.op == "random_resized_crop")
    area = editor(explorer, node, "random_area")
    assert isinstance(area, RangePair)
    assert step_of(area.low) == step_of(area.high) == "0.01"


def test_a_whole_number_box_steps_by_one_and_a_float_box_by_its_last_digit(
    explorer: Explorer,
) -> None:
    explorer.set_arg("resize", "minibatch_size", 32)
    box = editor(explorer, "resize", "minibatch_size")
    assert step_of(box) == "1"
    assert step_of(explorer.schedules.epochs.box) == "1"  # the training run's epochs
    explorer.set_arg("rotate", "angle", Random.normal(0.0, 5.0))
    normal = editor(explorer, "rotate", "angle")
    assert isinstance(normal, RandomEditor)
    assert step_of(normal.params["mean"]) is None  # no slider: a unit of its last digit
