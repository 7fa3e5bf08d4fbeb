"""The panel's UI-free parts: history, controller, autosave, coalescing, argument controls."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from augexplorer_widgets.arg_controls import (
    NumberSlider,
    constant_from,
    constant_widget,
    make_random,
    parse_vector,
    read_constant,
)
from augexplorer_widgets.autosave import Autosave
from augexplorer_widgets.coalesce import Coalescer
from augexplorer_widgets.history import History
from augexplorer_widgets.state import Controller, check_node_name

from augexplorer import Session
from augexplorer.catalog import ArgInfo, Hint
from augexplorer.catalog.limits import NEEDS_ONE_OF
from augexplorer.presets import preset
from augexplorer.spec import Random, Ref


@pytest.fixture
def controller(catalog) -> Controller:  # type: ignore[no-untyped-def]
    return Controller(Session("basic", batch_size=4, catalog=catalog), rng_seed=1)


# ---- history ------------------------------------------------------------------------------------
def test_history_undo_redo_and_merge() -> None:
    a = preset("basic")
    b, c, d = (a.set_arg("rotate", "fill_value", v) for v in (1.0, 2.0, 3.0))
    history = History(a)
    history.push(b, merge_key="rotate.fill_value")
    history.push(c, merge_key="rotate.fill_value")  # same drag: replaces b
    assert len(history) == 2 and history.current == c
    history.push(d)
    assert history.undo() == c and history.undo() == a and not history.can_undo
    assert history.redo() == c
    history.push(b)  # a new edit drops what was undone
    assert not history.can_redo and history.current == b


def test_values_typed_one_after_another_are_steps_of_their_own() -> None:
    """A drag's values arrive milliseconds apart and merge; values typed seconds apart (128,
    then 300, then -5) stay steps, so undo can go back to 300."""
    now = [0.0]
    a = preset("basic")
    history = History(a, clock=lambda: now[0])
    for at, value in ((0.0, 1.0), (0.03, 2.0), (0.06, 3.0), (4.0, 128.0), (9.0, 300.0)):
        now[0] = at
        history.push(a.set_arg("rotate", "fill_value", value), merge_key="rotate.fill_value")
    assert [s.label for s in history.steps()] == ["start: basic", "edit", "edit", "edit"]
    assert history.current.node("rotate").args["fill_value"] == 300.0
    assert history.undo().node("rotate").args["fill_value"] == 128.0
    assert history.undo().node("rotate").args["fill_value"] == 3.0  # the drag's last value


def test_history_limit_keeps_the_newest() -> None:
    spec = preset("basic")
    history = History(spec, limit=3)
    for value in range(5):
        history.push(spec.set_arg("rotate", "fill_value", float(value)))
    assert len(history) == 3
    assert history.current.node("rotate").args["fill_value"] == 4.0


# ---- controller ---------------------------------------------------------------------------------
def test_edit_runs_only_what_changed_and_keeps_before(controller: Controller) -> None:
    first = controller.refresh()
    assert first.ok and first.result is not None
    state = controller.set_arg("rotate", "fill_value", 128.0)
    assert state.ok
    assert set(state.result.ran()) == {"rotate", "crop", "flip"}  # type: ignore[union-attr]
    before = state.before.of(Ref("flip")) if state.before is not None else None
    assert before is not None and len(before.arrays) == 4
    assert before.arrays[0].shape == state.result.arrays("flip")[0].shape  # type: ignore[union-attr]


def test_before_holds_the_graph_s_output_when_it_is_not_a_node_s_first() -> None:
    """A/B compares an output with the same output before: a graph whose output is a node's
    second output (here the source's labels) has that one kept, beside the node's first."""
    from dataclasses import replace

    from augexplorer_widgets.snapshot import take_snapshot

    spec = preset("basic")
    labels = Ref("source", 1)
    spec = replace(spec, outputs={"labels": labels, **spec.outputs}, batch_size=4)
    result = Session(spec, device_id=None).run()
    assert result.final == labels
    kept = take_snapshot(result).of(labels)
    assert kept is not None
    assert [a.tolist() for a in kept.arrays] == [a.tolist() for a in result.arrays(labels)]
    decoded = take_snapshot(result).of(Ref("decode"))  # and every node's first output
    assert decoded is not None and decoded.arrays[0].ndim == 3


def test_invalid_edit_keeps_spec_and_last_good_result(controller: Controller) -> None:
    good = controller.refresh().result
    state = controller.set_arg("resize", "resize_shorter", -3.0)
    assert state.failure is not None and state.failure.kind == "invalid"
    assert state.result is good
    assert state.spec.node("resize").args["resize_shorter"] == -3.0
    assert "resize_shorter" in state.failure.argument_messages("resize")
    assert "resize" in state.failure.node_messages()
    fixed = controller.undo()
    assert fixed.ok and fixed.result is not good


def test_run_error_names_the_node(controller: Controller) -> None:
    controller.refresh()
    state = controller.set_arg("crop", "crop", [4000.0, 4000.0])
    state = controller.set_arg("crop", "out_of_bounds_policy", "error")
    assert state.failure is not None
    assert state.failure.kind in ("run", "invalid")
    assert "crop" in state.failure.node_messages()


def test_add_insert_remove_move_duplicate_rewire(controller: Controller) -> None:
    controller.refresh()
    state = controller.add_op("gaussian_blur", after="rotate")
    assert state.ok and state.selected == "gaussian_blur"
    assert state.spec.node("gaussian_blur").inputs[0].node == "rotate"
    assert state.spec.node("crop").inputs[0].node == "gaussian_blur"
    state = controller.duplicate("gaussian_blur")
    assert state.ok and state.selected == "gaussian_blur_2"
    state = controller.move("gaussian_blur_2", -1)
    assert state.spec.ids().index("gaussian_blur_2") < state.spec.ids().index("gaussian_blur")
    state = controller.remove("gaussian_blur_2")
    assert "gaussian_blur_2" not in state.spec and state.ok
    state = controller.rewire("crop", 0, "resize")
    assert state.ok and state.spec.node("crop").inputs[0].node == "resize"
    for _ in range(5):
        state = controller.undo()
    assert state.spec == controller.history.current
    assert "gaussian_blur" not in state.spec


@pytest.mark.parametrize("op", sorted(NEEDS_ONE_OF))
def test_a_new_node_starts_with_what_its_operator_needs(controller: Controller, op: str) -> None:
    # these operators fail without one of some optional arguments: the panel gives them one
    controller.refresh()
    state = controller.add_op(op, after="flip")
    assert state.ok, state.failure
    assert state.result is not None and state.selected in state.result.steps


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "needs a name"),
        ("my crop", "'my_crop'"),
        ("3x", "'n_3x'"),
        ("café", "not a valid node name"),
        ("class", "taken by Python"),
        ("pipeline", "exported module"),
    ],
)
def test_node_names_must_be_identifiers(name: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        check_node_name(name)


def test_rename_keeps_references_and_selection(controller: Controller) -> None:
    controller.refresh()
    controller.select("crop")
    state = controller.rename("crop", " center ")
    assert state.ok and state.selected == "center"
    assert state.spec.node("flip").inputs[0].node == "center"
    with pytest.raises(ValueError, match="already exists"):
        controller.rename("center", "flip")
    assert controller.undo().spec.ids() == preset("basic").ids()


def test_unavailable_op_is_refused_with_its_reason(controller: Controller) -> None:
    unavailable = [op for op in controller.catalog if not op.available]
    if not unavailable:
        pytest.skip("every operator runs on this machine")
    with pytest.raises(ValueError, match="cannot run here"):
        controller.add_op(unavailable[0].name)


def test_history_lines_of_weight_edits_read_apart(controller: Controller) -> None:
    controller.set_arg("rotate", "angle", Random.choice([0.0, 90.0], [1.0, 1.0]))
    controller.set_arg("rotate", "angle", Random.choice([0.0, 90.0], [1.0, 3.0]))
    lines = [step.label for step in controller.state.history[-2:]]
    assert lines == ["rotate.angle ~ choice(0, 90)", "rotate.angle ~ choice(0, 90) weighted 1, 3"]


def test_reroll_changes_draws_and_seed_lock_keeps_them(controller: Controller) -> None:
    first = controller.refresh().result
    assert first is not None
    draws = first.draws("rotate")["rotate"]["angle"]
    same = controller.set_arg("rotate", "fill_value", 10.0).result
    assert same is not None and same.draws("rotate")["rotate"]["angle"] == draws
    rerolled = controller.reroll().result
    assert rerolled is not None and rerolled.draws("rotate")["rotate"]["angle"] != draws
    controller.set_seed_locked(False)
    unlocked = controller.set_arg("rotate", "fill_value", 20.0).result
    assert unlocked is not None
    assert (
        unlocked.draws("rotate")["rotate"]["angle"] != rerolled.draws("rotate")["rotate"]["angle"]
    )


def test_preset_keeps_source_and_batch(controller: Controller) -> None:
    controller.refresh()
    state = controller.pick_preset("imagenet_val")
    assert state.ok and state.spec.batch_size == 4 and "normalize" in state.spec


def test_save_and_load_round_trip(controller: Controller, tmp_path: Path) -> None:
    controller.set_arg("rotate", "fill_value", 77.0)
    path = controller.save(tmp_path / "g.json")
    controller.set_arg("rotate", "fill_value", 0.0)
    state = controller.load(path)
    assert state.spec.node("rotate").args["fill_value"] == 77.0
    with pytest.raises(FileExistsError):
        controller.save(path)


# ---- autosave -----------------------------------------------------------------------------------
def test_autosave_writes_every_edit_and_offers_restore(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / ".augexplorer" / "autosave.json"
    controller = Controller(
        Session("basic", batch_size=4, catalog=catalog), autosave=Autosave(path)
    )
    controller.set_arg("rotate", "fill_value", 42.0, run=False)
    saved = json.loads(path.read_text())
    assert saved["graph"]["format"] == "augexplorer.graph"
    # After a kernel restart: a fresh panel on the preset is offered the edited graph.
    offer = Autosave(path).offer(preset("basic"))
    assert offer is not None and offer.spec.node("rotate").args["fill_value"] == 42.0
    assert Autosave(path).offer(offer.spec) is None  # nothing to offer when it is the same


def test_unreadable_autosave_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "autosave.json"
    path.write_text("{not json")
    autosave = Autosave(path)
    assert autosave.load() is None and "could not be read" in str(autosave.last_error)


# ---- coalescing ---------------------------------------------------------------------------------
def test_coalescer_runs_once_for_a_burst_inside_an_event_loop() -> None:
    import asyncio

    seen: list[int] = []
    latest = {"value": 0}
    coalescer = Coalescer(lambda: seen.append(latest["value"]), delay_s=0.001)

    async def burst() -> None:
        for value in range(1, 21):
            latest["value"] = value
            coalescer.request()
        await asyncio.sleep(0.05)

    in_own_thread(lambda: asyncio.run(burst()))
    assert seen == [20] and coalescer.runs == 1


def test_coalescer_without_a_loop_runs_at_once() -> None:
    seen: list[int] = []
    coalescer = Coalescer(lambda: seen.append(1))

    def twice() -> None:
        coalescer.request()
        coalescer.request()

    in_own_thread(twice)
    assert seen == [1, 1]


def in_own_thread(work: Callable[[], object]) -> None:
    """Run `work` where no event loop runs, whatever else this process runs (Playwright's sync
    API leaves one running in the main thread when the browser tests share the process)."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            work()
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]


# ---- argument controls --------------------------------------------------------------------------
def _arg(**kw) -> ArgInfo:  # type: ignore[no-untyped-def]
    base = dict(
        name="x",
        kind="FLOAT",
        is_vector=False,
        default=0.0,
        has_default=True,
        required=False,
        per_sample=True,
    )
    base.update(kw)
    return ArgInfo(**base)  # type: ignore[arg-type]


def test_controls_follow_the_schema() -> None:
    import ipywidgets as widgets

    number = constant_widget(_arg(hint=Hint(-180, 180, 1)), 3.0)
    assert isinstance(number, NumberSlider) and isinstance(number.slider, widgets.FloatSlider)
    number.box.value = "500"  # typed beyond the slider: kept exactly, the slider rests at its end
    assert number.value == 500.0 and number.slider.value == 180.0
    number.slider.value = -20.0
    assert number.value == -20.0 and number.box.value == "-20"
    # Numbers without a slider are text boxes read here, so text that is no number can say why.
    plain = constant_widget(_arg(), 3.0)
    assert isinstance(plain, widgets.Text) and plain.value == "3"
    assert read_constant(_arg(), plain) == 3.0 and isinstance(read_constant(_arg(), plain), float)
    whole = constant_widget(_arg(kind="INT32", default=0), 2)
    assert isinstance(whole, widgets.Text) and whole.value == "2"
    whole.value = "2.5"
    with pytest.raises(ValueError, match=r"'2\.5' is not a whole number"):
        read_constant(_arg(kind="INT32", default=0), whole)
    assert isinstance(constant_widget(_arg(kind="BOOL", default=False), True), widgets.Checkbox)
    enum = constant_widget(
        _arg(kind="INTERP_TYPE", choices=("INTERP_NN", "INTERP_LINEAR")), "INTERP_NN"
    )
    assert isinstance(enum, widgets.Dropdown)
    vector = constant_widget(_arg(is_vector=True), [224.0, 200.0])
    assert isinstance(vector, widgets.Text) and vector.value == "224, 200"
    assert read_constant(_arg(is_vector=True), vector) == [224.0, 200.0]


def test_vector_parsing_names_the_bad_element() -> None:
    assert parse_vector("1, 2 3", integer=True) == [1, 2, 3]
    with pytest.raises(ValueError, match="'abc' is not a number"):
        parse_vector("1, abc", integer=False)


def test_random_toggle_round_trip() -> None:
    angle = _arg(hint=Hint(-180, 180, 1))
    random = make_random(angle, 10.0)
    assert random.dist == "uniform" and random.low < 10.0 < random.high
    assert constant_from(angle, random) == pytest.approx(10.0)
    flip = _arg(kind="INT32", default=1, hint=Hint(0, 1, 1))
    assert make_random(flip, 1).dist == "coin_flip"
    assert constant_from(flip, Random.coin_flip(0.7)) == 1


def test_coalescer_runs_a_lone_request_on_the_next_turn_and_spaces_a_burst() -> None:
    """A single slider step waits for no timer; requests right after a flush wait `delay_s`."""
    import asyncio

    times: list[float] = []
    coalescer = Coalescer(lambda: times.append(asyncio.get_running_loop().time()), delay_s=0.2)

    started: list[float] = []

    async def steps() -> None:
        started.append(asyncio.get_running_loop().time())
        coalescer.request()  # quiet before: runs on the next turn
        await asyncio.sleep(0.01)
        coalescer.request()  # just after a flush: waits out the delay
        await asyncio.sleep(0.4)

    in_own_thread(lambda: asyncio.run(steps()))
    assert coalescer.runs == 2
    assert times[0] - started[0] < 0.1  # far less than the 0.2 s delay
    assert times[1] - times[0] >= 0.19


def test_an_at_once_coalescer_runs_a_lone_request_inside_it_and_settles_the_rest() -> None:
    """The slider's flush runs inside the message that asked (no turn of the loop between the
    step and its pictures); work with `settle_s` always waits, even after a quiet spell."""
    import asyncio

    seen: list[str] = []
    edits = Coalescer(lambda: seen.append("run"), delay_s=0.2, at_once=True)
    panel = Coalescer(lambda: seen.append("panel"), settle_s=0.05)

    async def steps() -> None:
        edits.request()
        seen.append("asked")
        panel.request()
        edits.request()  # right after a run: waits out the delay
        seen.append("asked again")
        await asyncio.sleep(0.1)
        seen.append("0.1 s")
        await asyncio.sleep(0.3)

    in_own_thread(lambda: asyncio.run(steps()))
    assert seen == ["run", "asked", "asked again", "panel", "0.1 s", "run"]
