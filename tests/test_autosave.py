"""Autosave never destroys work, and belongs to its notebook.

A damaged autosave is kept aside byte for byte (renamed with a timestamp, never over another
file), the panel says what was wrong and where the file is, and offers what could be read.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.autosave import Autosave
from augexplorer_widgets.autosave_key import SHARED, autosave_path
from augexplorer_widgets.autosave_recovery import keep_aside
from test_widgets import in_own_thread

from augexplorer.presets import preset
from augexplorer.spec import from_json, to_json


def autosave_bytes(graph: Any) -> bytes:
    return json.dumps({"saved_at": "2026-01-02T03:04:05", "graph": graph}, indent=1).encode()


def edited_graph() -> dict[str, Any]:
    return to_json(preset("basic").set_arg("rotate", "fill_value", 99.0))


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def with_bad_node() -> dict[str, Any]:
    graph = edited_graph()
    graph["nodes"][-1]["inputs"] = 5  # 'flip': not a list
    return graph


def with_unknown_op() -> dict[str, Any]:
    graph = edited_graph()
    graph["nodes"][-1]["op"] = "no_such_operator"
    return graph


# What a crash, a full disk, a bad copy or a hand edit leaves behind.
DAMAGE: dict[str, bytes] = {
    "missing its last byte": autosave_bytes(edited_graph())[:-1],
    "cut in half": autosave_bytes(edited_graph())[:400],
    "empty": b"",
    "only whitespace": b" \n\n ",
    "binary garbage": bytes(range(256)) * 8,
    "not UTF-8": autosave_bytes(edited_graph()).replace(b'"basic"', b'"b\xe4sic"'),
    "a JSON list": b"[1, 2, 3]",
    "a JSON object of the wrong shape": b'{"saved_at": "today", "graph": 5}',
    "a graph of the wrong shape": autosave_bytes({"nodes": "none"}),
    "nested 1,000 levels deep": b'{"saved_at": "x", "graph": ' + nested(1000).encode() + b"}",
    "nested 1,000 levels deep inside a node": autosave_bytes(edited_graph()).replace(
        b'"fill_value": 99.0', b'"fill_value": ' + nested(1000).encode()
    ),
    "nested 100,000 levels deep": b'{"graph": ' + nested(100_000).encode() + b"}",
    "one node that cannot be read": autosave_bytes(with_bad_node()),
}


def banner_text(explorer: Explorer) -> str:
    return html.unescape(explorer.banner.text.value)


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_autosave_is_kept_and_explained(catalog, tmp_path: Path, damage: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "autosave.json"
    path.write_bytes(DAMAGE[damage])
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("autosave.damaged-")]
    assert len(kept) == 1 and kept[0].suffix == ".json"
    assert kept[0].read_bytes() == DAMAGE[damage], "the damaged file is kept byte for byte"
    said = banner_text(explorer)
    assert explorer.banner.shown and "could not be read" in said
    assert str(path) in said and str(kept[0]) in said, "says which file, and where it is now"
    assert explorer.state.ok and explorer.result is not None, "the panel works as usual"
    # The panel autosaves again, into a fresh file; the next start finds nothing damaged.
    explorer.set_arg("rotate", "fill_value", 5.0)
    assert from_json(json.loads(path.read_text())["graph"]) == explorer.spec
    again = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    assert "could not be read" not in banner_text(again)
    assert kept[0].read_bytes() == DAMAGE[damage]


def test_what_can_be_read_of_a_damaged_graph_is_offered(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "autosave.json"
    path.write_bytes(DAMAGE["one node that cannot be read"])
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    said = banner_text(explorer)
    assert "node 'flip'" in said and "left out" in said
    restore = explorer.banner.restore
    assert restore.layout.display != "none" and restore.description.startswith("Restore")
    restore.click()
    assert "flip" not in explorer.spec
    assert explorer.spec.node("rotate").args["fill_value"] == 99.0, "the edits are back"
    assert not explorer.banner.shown
    # What pointed at the node left out says so, on the graph, while the last good grid stays.
    assert explorer.state.failure is not None and "flip" in explorer.errors.value
    assert explorer.result is not None


def test_an_autosave_cut_short_is_read_to_its_end(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "autosave.json"
    for cut in (1, 2, 40):
        path.write_bytes(autosave_bytes(edited_graph())[:-cut])
        explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
        assert "ends too early" in banner_text(explorer)
        assert "the end of the file was missing" in banner_text(explorer)
        explorer.banner.restore.click()
        assert explorer.spec.node("rotate").args["fill_value"] == 99.0 and explorer.state.ok
    assert len(list(tmp_path.glob("autosave.damaged-*"))) == 3


def test_a_graph_with_an_unknown_operator_is_offered_and_shows_its_error(
    catalog, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    """It reads as a graph: offered as it is, and once restored the node says what is wrong."""
    path = tmp_path / "autosave.json"
    path.write_bytes(autosave_bytes(with_unknown_op()))
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    assert explorer.banner.shown and "could not be read" not in banner_text(explorer)
    explorer.banner.restore.click()
    assert explorer.spec.node("flip").op == "no_such_operator"
    assert not explorer.state.ok and explorer.state.failure is not None
    assert "flip" in explorer.errors.value and "no_such_operator" in html.unescape(
        explorer.errors.value
    )
    assert explorer.result is not None, "the last good grid stays"


def test_an_offered_graph_that_is_not_taken_is_kept(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Editing without answering the offer, or choosing "Keep this one", keeps the offered file."""
    path = tmp_path / "autosave.json"
    path.write_bytes(autosave_bytes(edited_graph()))
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    assert explorer.banner.shown
    explorer.set_arg("rotate", "fill_value", 7.0)  # the user edits first
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("autosave.offered-")]
    assert len(kept) == 1 and kept[0].read_bytes() == autosave_bytes(edited_graph())
    explorer.banner.restore.click()  # the offer still stands, from memory
    assert explorer.spec.node("rotate").args["fill_value"] == 99.0

    path.write_bytes(autosave_bytes(edited_graph()))
    second = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    second.banner.discard.click()  # "Keep this one"
    assert not second.banner.shown
    assert len(list(tmp_path.glob("autosave.offered-*"))) == 2
    assert "kept as" in second.toolbar.file_message.value


def test_restoring_the_offer_leaves_no_copies(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "autosave.json"
    path.write_bytes(autosave_bytes(edited_graph()))
    explorer = Explorer("basic", batch_size=4, autosave=path, catalog=catalog)
    explorer.banner.restore.click()
    explorer.set_arg("rotate", "fill_value", 3.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["autosave.json"]


def test_kept_files_never_replace_one_another(tmp_path: Path) -> None:
    path = tmp_path / "autosave.json"
    kept = []
    for round_ in range(3):  # within one second: the same timestamp each time
        path.write_text(f"damage {round_}")
        kept.append(keep_aside(path, "damaged"))
    assert len(set(kept)) == 3 and not path.exists()
    assert sorted(p.read_text() for p in kept) == ["damage 0", "damage 1", "damage 2"]


def test_an_autosave_that_cannot_be_moved_aside_turns_autosave_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from augexplorer_widgets import autosave as autosave_module

    path = tmp_path / "autosave.json"
    path.write_bytes(b"{broken")

    def refuse(path: Path, why: str) -> Path:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(autosave_module, "keep_aside", refuse)
    store = Autosave(path)
    assert store.load() is None
    assert store.damage is not None and store.damage.kept_at is None
    assert not store.enabled and "autosave is off" in str(store.last_error)
    store.save(preset("basic"))
    assert path.read_bytes() == b"{broken", "the only copy is never overwritten"


def test_an_autosave_path_that_is_a_folder_is_left_alone(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "runs"
    (folder / "keep").mkdir(parents=True)
    explorer = Explorer("basic", batch_size=4, autosave=folder, catalog=catalog)
    assert (folder / "keep").is_dir() and sorted(p.name for p in tmp_path.iterdir()) == ["runs"]
    said = banner_text(explorer)
    assert "it is a folder, not a file" in said and "Autosave is off" in said
    explorer.set_arg("rotate", "fill_value", 5.0)
    assert sorted(p.name for p in folder.iterdir()) == ["keep"]


# ---- one autosave per notebook ------------------------------------------------------------------


def test_each_notebook_has_its_own_autosave() -> None:
    lab_a = autosave_path(True, {"JPY_SESSION_NAME": "/home/me/work/a.ipynb"}, {})
    lab_b = autosave_path(True, {"JPY_SESSION_NAME": "/home/me/work/b.ipynb"}, {})
    elsewhere = autosave_path(True, {"JPY_SESSION_NAME": "/home/me/old/a.ipynb"}, {})
    assert lab_a is not None and lab_a.name.startswith("autosave-a-")
    assert len({lab_a, lab_b, elsewhere}) == 3
    assert autosave_path(True, {"JPY_SESSION_NAME": "/home/me/work/a.ipynb"}, {}) == lab_a
    # ipykernel's __session__ and VS Code's __vsc_ipynb_file__ name the notebook too.
    assert autosave_path(True, {}, {"__session__": "/home/me/work/a.ipynb"}) == lab_a
    assert autosave_path(True, {}, {"__vsc_ipynb_file__": "/home/me/work/a.ipynb"}) == lab_a
    voila = autosave_path(True, {"VOILA_REQUEST_URL": "http://127.0.0.1:8866/"}, {})
    assert voila is not None and voila.name.startswith("autosave-voila-app-")
    assert voila not in {lab_a, lab_b}
    assert autosave_path(True, {"VOILA_REQUEST_URL": "http://127.0.0.1:8871/"}, {}) == voila
    served = autosave_path(True, {"VOILA_REQUEST_URL": "http://h:8866/voila/render/a.ipynb"}, {})
    assert served is not None and served.name.startswith("autosave-voila-a-")
    # Nothing known (a script, nbclient): the folder's shared file.
    assert autosave_path(True, {}, {}) == SHARED
    assert autosave_path("tuning", {}, {}) == Path(".augexplorer/autosave-tuning.json")
    assert autosave_path("runs/graph.json", {}, {}) == Path("runs/graph.json")
    assert autosave_path(None, {}, {}) is None and autosave_path(False, {}, {}) is None


def test_another_notebook_or_voila_is_not_offered_the_graph(
    catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    for name in ("JPY_SESSION_NAME", "VOILA_REQUEST_URL", "VOILA_BASE_URL", "VOILA_KERNEL_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "tuning.ipynb"))
    first = Explorer("basic", batch_size=4, catalog=catalog)
    first.set_arg("rotate", "fill_value", 99.0)

    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "other.ipynb"))
    assert not Explorer("basic", batch_size=4, catalog=catalog).banner.shown
    monkeypatch.delenv("JPY_SESSION_NAME")
    monkeypatch.setenv("VOILA_REQUEST_URL", "http://127.0.0.1:8866/")
    assert not Explorer("basic", batch_size=4, catalog=catalog).banner.shown
    monkeypatch.delenv("VOILA_REQUEST_URL")

    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "tuning.ipynb"))
    again = Explorer("basic", batch_size=4, catalog=catalog)  # the same notebook, restarted
    assert again.banner.shown
    again.banner.restore.click()
    assert again.spec.node("rotate").args["fill_value"] == 99.0


def test_edits_save_a_moment_later_and_only_the_latest() -> None:
    """Inside the kernel's loop a slider's edits are saved once they pause (no fsync between a
    step and its pictures); the last one always reaches the file."""
    import asyncio

    spec = preset("basic")
    steps = [spec.set_arg("rotate", "fill_value", float(v)) for v in range(5)]
    seen: dict[str, Any] = {}

    def saved(path: Path) -> float:
        return float(
            from_json(json.loads(path.read_text())["graph"]).node("rotate").args["fill_value"]
        )

    async def drag(path: Path) -> None:
        store = Autosave(path)
        for step in steps:
            store.save_soon(step)
        seen["at_once"] = path.exists()
        await asyncio.sleep(0.3)
        seen["after"] = saved(path)
        store.save_soon(spec.set_arg("rotate", "fill_value", 42.0))
        store.flush()  # the panel's flush writes what is waiting at once
        seen["flushed"] = saved(path)
        store.save_soon(spec.set_arg("rotate", "fill_value", 7.0))
        store.discard()  # a discarded autosave is not written back by a late save
        await asyncio.sleep(0.3)
        seen["discarded"] = path.exists()

    with TemporaryDirectory() as folder:
        in_own_thread(lambda: asyncio.run(drag(Path(folder) / "graph.json")))
    assert seen == {"at_once": False, "after": 4.0, "flushed": 42.0, "discarded": False}


def test_without_an_event_loop_edits_save_at_once(tmp_path: Path) -> None:
    store = Autosave(tmp_path / "graph.json")
    in_own_thread(lambda: store.save_soon(preset("basic").set_arg("rotate", "fill_value", 3.0)))
    graph = from_json(json.loads((tmp_path / "graph.json").read_text())["graph"])
    assert graph.node("rotate").args["fill_value"] == 3.0


def test_a_panel_reading_the_file_gets_the_step_another_panel_has_waiting() -> None:
    """Re-running the panel's cell right after a drag: the new panel reads the old panel's last
    step, not the one before it."""
    import asyncio

    seen: dict[str, Any] = {}

    async def rerun(path: Path) -> None:
        old = Autosave(path)
        old.save(preset("basic"))
        old.save_soon(preset("basic").set_arg("rotate", "fill_value", 9.0))
        saved = Autosave(path).load()  # no turn of the loop in between
        seen["offered"] = saved.spec.node("rotate").args["fill_value"] if saved else None

    with TemporaryDirectory() as folder:
        in_own_thread(lambda: asyncio.run(rerun(Path(folder) / "graph.json")))
    assert seen == {"offered": 9.0}
