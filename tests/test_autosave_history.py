"""The undo history survives a kernel restart with the autosave.

A restart is a new panel on the same autosave file. Restoring the autosaved graph brings back its
undo steps with their labels; a history that cannot be read never costs the graph: the graph
restores alone and the file is kept aside, byte for byte, as any damaged autosave is.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.autosave import Autosave
from augexplorer_widgets.history import History, Record
from augexplorer_widgets.history_file import STEPS_KEPT, HistoryWriter, read_history

from augexplorer.presets import preset
from augexplorer.spec import GraphSpec

EDITS: tuple[tuple[str, str, Any], ...] = (
    ("rotate", "fill_value", 5.0),
    ("resize", "resize_shorter", 300.0),
    ("flip", "horizontal", 0),
)


def labels(explorer: Explorer) -> list[str]:
    return [step.label for step in explorer.state.history]


def on_screen(explorer: Explorer) -> str:
    return next(step.label for step in explorer.state.history if step.current)


def banner_text(explorer: Explorer) -> str:
    return html.unescape(explorer.banner.text.value)


def edited(catalog: Any, path: Path) -> tuple[list[GraphSpec], list[str]]:
    """A panel that made EDITS, one undo step each: the graphs and labels of its history."""
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    graphs = [explorer.spec]
    for node, arg, value in EDITS:
        graphs.append(explorer.set_arg(node, arg, value).spec)
    assert len(explorer.state.history) == len(EDITS) + 1, "each edit is a step of its own"
    return graphs, labels(explorer)


def test_undo_goes_back_step_by_step_through_the_edits_made_before_a_restart(
    catalog: Any, tmp_path: Path
) -> None:
    path = tmp_path / "autosave.json"
    graphs, steps = edited(catalog, path)
    assert steps[1:] == [
        "rotate.fill_value = 5",
        "resize.resize_shorter = 300",
        "flip.horizontal = 0",
    ]

    restarted = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    assert restarted.banner.shown and not restarted.state.can_undo
    restarted.banner.restore.click()
    assert restarted.spec == graphs[-1] and restarted.state.ok
    assert labels(restarted) == steps, "the same steps, with what each did"
    shown = [label for label, _ in restarted.toolbar.history.options]
    assert all(step in text for step, text in zip(steps, shown, strict=True))
    for back in range(len(graphs) - 2, -1, -1):
        restarted.undo()
        assert restarted.spec == graphs[back] and on_screen(restarted) == steps[back]
    assert not restarted.state.can_undo
    restarted.redo()
    assert restarted.spec == graphs[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["autosave.json"], "nothing kept aside"


def test_steps_undone_before_a_restart_can_be_redone_after_it(catalog: Any, tmp_path: Path) -> None:
    path = tmp_path / "autosave.json"
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    start = explorer.spec
    explorer.set_arg("rotate", "fill_value", 5.0)
    last = explorer.set_arg("flip", "horizontal", 0).spec
    middle = explorer.undo().spec

    restarted = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    restarted.banner.restore.click()
    assert restarted.spec == middle and restarted.state.can_redo
    assert restarted.redo().spec == last

    # Undone to the very start: the graph is the one the panel starts with, so nothing is
    # offered, and its history goes on all the same.
    restarted.undo()
    restarted.undo()
    again = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    assert not again.banner.shown and again.spec == start
    assert again.state.can_redo and again.redo().spec == middle


def test_edits_made_before_restoring_stay_in_the_history(catalog: Any, tmp_path: Path) -> None:
    path = tmp_path / "autosave.json"
    graphs, _ = edited(catalog, path)
    restarted = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    mine = restarted.set_arg("rotate", "angle", 3.0).spec  # before answering the offer
    restarted.banner.restore.click()
    assert restarted.spec == graphs[-1]
    for _ in range(len(graphs)):
        restarted.undo()
    assert restarted.spec == mine, "undo reaches the graph shown before restoring"
    assert "restored the autosaved history" in labels(restarted)[2]


def test_an_autosave_without_a_history_restores_its_graph(catalog: Any, tmp_path: Path) -> None:
    """Written before the history was kept: the graph alone, and nothing said to be damaged."""
    path = tmp_path / "autosave.json"
    graph = preset("basic").set_arg("rotate", "fill_value", 99.0)
    Autosave(path).save(graph)
    assert "history" not in json.loads(path.read_text())
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    assert explorer.banner.shown and "could not be read" not in banner_text(explorer)
    explorer.banner.restore.click()
    assert explorer.spec == graph
    assert labels(explorer) == ["start: basic", "restored the autosaved graph"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["autosave.json"]


# ---- a damaged history ----------------------------------------------------------------------


def good_autosave(path: Path) -> dict[str, Any]:
    """An autosave of three steps, written as a panel writes it."""
    start = preset("basic")
    graphs = (start, start.set_arg("rotate", "fill_value", 5.0))
    graphs += (graphs[-1].set_arg("rotate", "fill_value", 99.0),)
    record = Record(graphs, ("start: basic", "first", "second"), 2)
    store = Autosave(path)
    store.keep_history(lambda: record)
    store.save(record.current)
    payload: dict[str, Any] = json.loads(path.read_text())
    assert len(payload["history"]["steps"]) == 3
    return payload


def mutated(change: Any) -> Any:
    def write(path: Path) -> None:
        payload = good_autosave(path)
        replaced = change(payload["history"])
        if replaced is not None:
            payload["history"] = replaced
        path.write_text(json.dumps(payload, indent=1))

    return write


def with_huge_integer(path: Path) -> None:
    good_autosave(path)
    text = path.read_text()
    head, history = text.split('"history"')
    path.write_text(head + '"history"' + history.replace('"seed":0', '"seed":' + "7" * 5000, 1))


def cut_in_its_history(path: Path) -> None:
    good_autosave(path)
    text = path.read_text()
    path.write_text(text[: text.index('"history"') + 300])


DAMAGED_HISTORY = {
    "not an object": mutated(lambda h: [1, 2, 3]),
    "without steps": mutated(lambda h: h.update(steps=5)),
    "of a newer format": mutated(lambda h: h.update(version=2)),
    "a step that cannot be read": mutated(lambda h: h["steps"][1]["graph"].update(nodes=5)),
    "a step without a label": mutated(lambda h: h["steps"][0].pop("label")),
    "a cursor past its steps": mutated(lambda h: h.update(cursor=7)),
    "a step on screen that is not the graph": mutated(lambda h: h.update(cursor=0)),
    "an integer of 5,000 digits": with_huge_integer,
    "cut short inside it": cut_in_its_history,
}


@pytest.mark.parametrize("damage", list(DAMAGED_HISTORY))
def test_a_damaged_history_restores_the_graph_alone_and_keeps_the_file(
    catalog: Any, tmp_path: Path, damage: str
) -> None:
    path = tmp_path / "autosave.json"
    DAMAGED_HISTORY[damage](path)
    written = path.read_bytes()
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    kept = list(tmp_path.glob("autosave.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == written, "kept byte for byte"
    said = banner_text(explorer)
    assert "could not be read" in said and str(kept[0]) in said
    assert "undo history" in said, "says it is the history that is left out"
    explorer.banner.restore.click()
    assert explorer.spec.node("rotate").args["fill_value"] == 99.0, "the graph is back"
    assert labels(explorer) == ["start: basic", "restored the autosaved graph"]
    assert explorer.undo().spec.node("rotate").args["fill_value"] == 0.0
    # The panel goes on autosaving, history and all, into a fresh file.
    explorer.redo()
    assert read_history(json.loads(path.read_text())["history"], explorer.spec) is not None


def test_a_damaged_history_of_the_graph_on_screen_says_so(catalog: Any, tmp_path: Path) -> None:
    """The graph read is the one the panel starts with: nothing to offer, only the damage."""
    path = tmp_path / "autosave.json"
    Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    payload = json.loads(path.read_text())
    payload["history"]["version"] = 2
    path.write_text(json.dumps(payload))
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    said = banner_text(explorer)
    assert "newer format" in said and "the graph shown here" in said
    assert "No graph could be read" not in said


# ---- what is kept, and how compactly --------------------------------------------------------


def many_steps(count: int) -> Record:
    graphs = [preset("basic")]
    for value in range(1, count):
        graphs.append(graphs[-1].set_arg("rotate", "fill_value", float(value)))
    return Record(tuple(graphs), tuple(f"step {n}" for n in range(count)), count - 1)


def test_only_the_last_steps_are_kept() -> None:
    record = many_steps(STEPS_KEPT + 10)
    read = read_history(json.loads(HistoryWriter().encode(record)), record.current)
    assert read is not None and len(read.graphs) == STEPS_KEPT
    assert read.graphs == record.graphs[10:] and read.labels == record.labels[10:]
    assert read.cursor == STEPS_KEPT - 1

    back = Record(record.graphs, record.labels, 5)  # undone far back: redo steps fill the rest
    read = read_history(json.loads(HistoryWriter().encode(back)), back.current)
    assert read is not None and read.graphs == record.graphs[:STEPS_KEPT] and read.cursor == 5


def test_a_long_history_drops_its_oldest_steps_to_stay_small() -> None:
    record = many_steps(20)
    one_step = len(HistoryWriter().encode(Record(record.graphs[:1], record.labels[:1], 0)))
    text = HistoryWriter(max_chars=one_step * 5).encode(record)
    read = read_history(json.loads(text), record.current)
    assert read is not None and 2 <= len(read.graphs) < 6
    assert read.current == record.current and read.graphs == record.graphs[-len(read.graphs) :]


def test_each_graph_is_encoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The autosave is rewritten after every edit: only the new step's graph is encoded."""
    from augexplorer_widgets import history_file

    encoded: list[GraphSpec] = []
    real = history_file.to_json

    def counting(graph: GraphSpec) -> dict[str, Any]:
        encoded.append(graph)
        return real(graph)

    monkeypatch.setattr(history_file, "to_json", counting)
    writer = HistoryWriter()
    record = many_steps(10)
    writer.encode(Record(record.graphs[:9], record.labels[:9], 8))
    assert len(encoded) == 9
    writer.encode(record)
    assert encoded[9:] == [record.graphs[9]]


def test_a_history_taken_up_keeps_to_its_limit() -> None:
    record = many_steps(30)
    history = History(preset("basic"), limit=10)
    assert history.take_up(record) == record.current
    assert len(history) == 10 and history.current == record.current
    assert [step.label for step in history.steps()] == list(record.labels[-10:])
