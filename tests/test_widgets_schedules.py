"""The training-run box through its widgets' traits: schedule a value of the selected node,
move the epoch, and see the grid, the plot and the history follow."""

from __future__ import annotations

import html
import json
import warnings
from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.schedule_view import DEFAULT_EPOCHS, schedule_plot
from test_widgets_panel import browser_update

from augexplorer import Random
from augexplorer.catalog import Catalog
from augexplorer.spec import Schedule, ScheduleTarget, from_json


@pytest.fixture
def explorer(catalog, tmp_path: Path) -> Explorer:  # type: ignore[no-untyped-def]
    return Explorer("basic", batch_size=4, autosave=tmp_path / "autosave.json", catalog=catalog)


def angles(explorer: Explorer) -> list[float]:
    assert explorer.result is not None
    return explorer.result.draws("rotate")["rotate"]["angle"]


def test_the_editor_offers_the_selected_nodes_numbers(explorer: Explorer) -> None:
    explorer.select("rotate")
    box = explorer.schedules
    assert list(box.target.options) == [
        "rotate.angle.low",
        "rotate.angle.high",
        "rotate.fill_value",
        "rotate.apply",
    ]
    box.target.value = "rotate.angle.high"
    assert (box.start.value, box.end.value) == (20.0, 20.0)  # flat at the value held
    assert box.epoch.disabled  # nothing follows the run yet
    assert "No value follows the run" in box.plot.value
    explorer.select("source")
    assert box.editor.layout.display == "none"


def test_scheduling_then_moving_the_epoch_changes_only_the_scheduled_value(
    explorer: Explorer,
) -> None:
    explorer.flush()
    explorer.select("rotate")
    box = explorer.schedules
    first = angles(explorer)
    box.target.value = "rotate.angle.high"
    box.curve.value = "linear"
    box.start.value, box.end.value = 20.0, 60.0
    box.apply.click()
    box.target.value = "rotate.angle.low"
    box.start.value, box.end.value = -20.0, -60.0
    box.apply.click()
    spec = explorer.spec
    assert spec.epochs == DEFAULT_EPOCHS
    assert spec.schedules[ScheduleTarget("rotate", "angle", "high")] == Schedule.linear(
        20, 60, begin=0, finish=DEFAULT_EPOCHS - 1
    )
    assert angles(explorer) == pytest.approx(first)  # epoch 0: the values held
    browser_update(box.epoch, value=DEFAULT_EPOCHS - 1)  # the slider let go at the last epoch
    assert explorer.controller.epoch == DEFAULT_EPOCHS - 1
    assert angles(explorer) == pytest.approx([a * 3 for a in first], rel=1e-5)
    assert f"epoch {DEFAULT_EPOCHS - 1} marked" in box.plot.value
    assert "rotate.angle.high" in box.plot.value
    note = explorer.node_panel.controls["angle"].schedule_note
    assert note.layout.display == "" and "high and low follow the run" in note.value
    assert explorer.node_panel.controls["fill_value"].schedule_note.layout.display == "none"
    rotate = next(n for n in explorer.graph.nodes if n["id"] == "rotate")
    assert rotate["randoms"] == [
        "angle ~ U(-60, 60)",  # the draw as the epoch previewed makes it
        "angle.high follows the run",
        "angle.low follows the run",
    ]
    # the epoch previewed is no edit: undo takes back the last schedule, not the epoch
    explorer.undo()
    assert ScheduleTarget("rotate", "angle", "low") not in explorer.spec.schedules
    assert explorer.controller.epoch == DEFAULT_EPOCHS - 1


def test_removing_a_schedule_and_a_shorter_run(explorer: Explorer) -> None:
    explorer.set_schedule("flip.apply", Schedule.linear(0.0, 1.0))
    explorer.set_epoch(50)
    explorer.select("flip")
    box = explorer.schedules
    box.target.value = "flip.apply"
    assert not box.remove.disabled
    browser_update(box.epochs.box, value="20")  # a shorter run: the epoch previewed follows
    explorer.flush()
    assert explorer.spec.epochs == 20 and box.epoch.max == 19 and box.epoch.value == 19
    box.remove.click()
    assert not explorer.spec.schedules
    explorer.flush()
    record = json.loads(Path(explorer.controller.autosave.path).read_text())
    saved = from_json(record["graph"])
    assert saved.epochs == 20 and not saved.schedules


def test_the_plot_draws_every_scheduled_value_with_the_epoch_marked() -> None:
    from augexplorer.presets import preset

    spec = (
        preset("basic")
        .with_epochs(10)
        .with_schedule("rotate.angle.high", Schedule.cosine(5, 40))
        .with_schedule("flip.apply", Schedule.steps([(0, 0.2), (5, 0.8)]))
    )
    svg = schedule_plot(spec, 4)
    assert svg.count("<polyline") == 2 and "epoch 4 marked" in svg
    assert "flip.apply = 0.2 at epoch 4" in svg and "0.2..0.8" in svg


def test_what_the_user_typed_in_the_editor_survives_a_redraw(explorer: Explorer) -> None:
    explorer.select("rotate")
    box = explorer.schedules
    box.target.value = "rotate.angle.high"
    browser_update(box.end.box, value="55")  # typed, not yet scheduled
    browser_update(box.curve, index=list(box.curve.options).index("cosine"))
    explorer.set_arg("resize", "resize_shorter", 250.0)  # another edit redraws the panel
    explorer.flush()
    assert (box.curve.value, box.end.value) == ("cosine", 55.0)
    box.apply.click()
    assert explorer.spec.schedules[ScheduleTarget("rotate", "angle", "high")].end == 55.0
    explorer.undo()  # the schedule taken back: the editor shows the value held again
    explorer.flush()
    assert (box.curve.value, box.end.value) == ("linear", 20.0)


def test_a_schedule_left_pointing_at_nothing_can_still_be_removed(explorer: Explorer) -> None:
    explorer.set_schedule("rotate.angle.high", Schedule.linear(20.0, 40.0))
    explorer.set_arg("rotate", "angle", 10.0)  # the draw made a constant: high is no more
    explorer.flush()
    assert explorer.state.failure is not None
    explorer.select("rotate")
    box = explorer.schedules
    assert "rotate.angle.high" in box.target.options
    box.target.value = "rotate.angle.high"
    box.remove.click()
    explorer.flush()
    assert not explorer.spec.schedules and explorer.state.failure is None


def test_setting_a_scheduled_argument_through_the_api_says_the_schedule_wins(
    tmp_path: Path, catalog: Catalog
) -> None:
    from augexplorer.schedules import SetUnderSchedule

    explorer = Explorer("basic", batch_size=2, autosave=tmp_path / "s.json", catalog=catalog)
    explorer.set_schedule("rotate.angle.high", Schedule.linear(5, 30))
    with pytest.warns(
        SetUnderSchedule, match=r"rotate.angle follows the run \(rotate.angle.high\)"
    ):
        explorer.set_arg("rotate", "angle", Random.uniform(-3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explorer.set_arg("crop", "crop", [200.0, 200.0])  # no schedule: nothing to say


# ---- the box's numbers are read in the kernel: what is not applied says why ----------------------


def said(line: object) -> str:
    return html.unescape(getattr(line, "value", ""))


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2.5", "'2.5' is not a whole number; the number of epochs must be between 1 and 100000"),
        ("0", "the number of epochs must be between 1 and 100000, not 0"),
        ("-5", "the number of epochs must be between 1 and 100000, not -5"),
        ("abc", "'abc' is not a whole number"),
        ("", "the box is empty"),
    ],
)
def test_epochs_typed_that_are_no_run_length_are_refused_with_the_reason(
    explorer: Explorer, typed: str, reason: str
) -> None:
    """The page's number box turned "2.5" into 25 epochs and 0 or -5 into 1, unsaid."""
    box = explorer.schedules
    steps = len(explorer.controller.history)
    browser_update(box.epochs.box, value=typed)
    explorer.flush()
    assert explorer.spec.epochs is None and box.epochs.value == DEFAULT_EPOCHS, "not applied"
    assert len(explorer.controller.history) == steps, "no undo step"
    assert box.epochs.box.value == typed, "what was typed stays in the box"
    assert reason in said(box.refused), said(box.refused)
    assert f"The number of epochs stays {DEFAULT_EPOCHS}." in said(box.refused)
    assert box.refused.layout.display == "" and "ax-input-refused" in box.epochs.box._dom_classes
    browser_update(box.epochs.box, value="30")  # fixed: applied, the reason gone
    explorer.flush()
    assert explorer.spec.epochs == 30 and box.epochs.box.value == "30"
    assert box.refused.value == "" and box.refused.layout.display == "none"
    assert "ax-input-refused" not in box.epochs.box._dom_classes


def test_each_run_length_typed_is_one_undo_step(explorer: Explorer) -> None:
    box = explorer.schedules
    # the page sends the box's text once it is typed (Enter, or leaving it), not key by key:
    # "25" is one value, never 2 then 25
    assert box.epochs.box.continuous_update is False
    steps = len(explorer.controller.history)
    browser_update(box.epochs.box, value="25")
    browser_update(box.epochs.box, value="40")  # at once after: a step of its own still
    explorer.flush()
    assert explorer.spec.epochs == 40 and len(explorer.controller.history) == steps + 2
    explorer.undo()
    assert explorer.spec.epochs == 25 and box.epochs.box.value == "25"
    explorer.undo()
    assert explorer.spec.epochs is None and box.epochs.box.value == str(DEFAULT_EPOCHS)


def test_refused_epochs_stay_typed_through_a_redraw_for_another_edit(explorer: Explorer) -> None:
    box = explorer.schedules
    browser_update(box.epochs.box, value="2.5")
    explorer.set_arg("rotate", "fill_value", 30.0)  # the panel redraws: the run's length did not
    explorer.flush()
    assert box.epochs.box.value == "2.5" and "not a whole number" in said(box.refused)
    # the length changed from elsewhere (undo of an earlier one): shown, the refusal gone
    browser_update(box.epochs.box, value="12")
    browser_update(box.epochs.box, value="abc")
    explorer.undo()
    explorer.flush()
    assert explorer.spec.epochs is None
    assert box.epochs.box.value == str(DEFAULT_EPOCHS) and box.refused.value == ""


def test_the_editor_takes_any_finite_start_and_end_and_whole_epochs(explorer: Explorer) -> None:
    explorer.select("rotate")
    box = explorer.schedules
    box.target.value = "rotate.angle.high"
    browser_update(box.start.box, value="-2.5")  # negative and fractional: a FloatText's range
    browser_update(box.end.box, value="1e1")
    browser_update(box.begin.box, value="3")
    browser_update(box.finish.box, value="12")
    assert (box.start.value, box.end.value, box.begin.value, box.finish.value) == (
        -2.5,
        10.0,
        3,
        12,
    )
    assert box.end.box.value == "10" and box.editor_refused.value == ""
    for field, typed, reason in (
        (box.start, "abc", "'abc' is not a number. The start value stays -2.5."),
        (box.end, "inf", "the end value must be a finite number, not inf. The end value stays 10."),
        (box.begin, "2.5", "'2.5' is not a whole number; the epoch “from” must be between 0"),
        (box.finish, "-5", "the epoch “to” must be between 0 and 100000, not -5"),
    ):
        browser_update(field.box, value=typed)
        assert field.box.value == typed and reason in said(box.editor_refused), typed
        assert "ax-input-refused" in field.box._dom_classes
    assert said(box.editor_refused).count("Not applied") == 4
    # Schedule takes the values in force, as the line says: the last good ones
    box.apply.click()
    explorer.flush()
    assert explorer.spec.schedules[ScheduleTarget("rotate", "angle", "high")] == Schedule.linear(
        -2.5, 10.0, begin=3, finish=12
    )
    # a value typed again that is good takes its box's reason away, the others' stay
    box.target.value = "rotate.angle.low"  # (the editor filled from another value first)
    box.target.value = "rotate.angle.high"
    browser_update(box.start.box, value="abc")
    browser_update(box.begin.box, value="x")
    browser_update(box.start.box, value="-2.5")
    assert "start value" not in said(box.editor_refused)
    assert "“from”" in said(box.editor_refused)
    assert "ax-input-refused" not in box.start.box._dom_classes
