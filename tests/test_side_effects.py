"""Operators that act on the machine (dump_image writes files into the current folder) are
treated like Python code from a graph: nothing runs and nothing is written until trusted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from augexplorer_widgets.state import Controller

from augexplorer import GraphSpec, Node, PythonCode, Session, preset
from augexplorer import trust as trust_store
from augexplorer.bench import run_bench
from augexplorer.catalog import load_catalog
from augexplorer.cli import main
from augexplorer.errors import UntrustedCode
from augexplorer.profiling import profile
from augexplorer.spec import save
from augexplorer.trust import SIDE_EFFECT_OPS, UntrustedEffects, side_effect


@pytest.fixture(autouse=True)
def in_an_empty_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Each test runs where dump_image would write, and starts and ends trusting nothing."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    trust_store.forget_all()
    yield folder
    trust_store.forget_all()


def dumping(suffix: str = "seen") -> GraphSpec:
    return preset("basic").insert_after("flip", Node("dump", "dump_image", args={"suffix": suffix}))


def written(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_every_operator_with_side_effects_is_in_the_catalog() -> None:
    catalog = load_catalog()
    assert all(catalog.get(op) is not None for op in SIDE_EFFECT_OPS)
    assert side_effect(Node("d", "dump_image")) is not None
    assert side_effect(Node("c", "readers.coco", args={"file_root": "x"})) is None
    saving = Node("c", "readers.coco", args={"save_preprocessed_annotations": True})
    assert "writes" in (side_effect(saving) or "")


def test_dump_image_runs_only_once_trusted(in_an_empty_folder: Path) -> None:
    session = Session(dumping(), batch_size=2, device_id=None)
    with pytest.raises(UntrustedEffects) as raised:
        session.run()
    message = str(raised.value)
    assert raised.value.nodes == ["dump"] and "writes image files" in message
    assert "nothing ran" in message and "session.trust()" in message and "--trust" in message
    assert written(in_an_empty_folder) == [] and session.result is None
    assert session.untrusted() == ["dump"]

    assert session.trust("dump") == ["dump"] and session.untrusted() == []
    session.run()
    assert written(in_an_empty_folder) == ["0-seen-0.ppm", "1-seen-0.ppm"]


def test_a_changed_argument_needs_trusting_again(in_an_empty_folder: Path) -> None:
    session = Session(dumping(), batch_size=2, device_id=None)
    session.trust()
    session.run()
    before = written(in_an_empty_folder)
    with pytest.raises(UntrustedCode, match="'dump'"):
        session.set_arg("dump", "suffix", "elsewhere")
    assert written(in_an_empty_folder) == before
    session.trust()
    session.run()
    assert "0-elsewhere-0.ppm" in written(in_an_empty_folder)


def test_a_reroll_does_not_ask_again(in_an_empty_folder: Path) -> None:
    session = Session(dumping(), batch_size=2, device_id=None)
    session.trust()
    session.run()
    session.reroll()  # new seeds everywhere; the node itself is unchanged
    assert session.untrusted() == []


def test_code_and_side_effects_are_named_together(in_an_empty_folder: Path) -> None:
    code = PythonCode("def same(image):\n    return image\n", "same")
    spec = dumping().insert_after("dump", Node("py", "python_function", args={"function": code}))
    with pytest.raises(UntrustedEffects) as raised:
        Session(spec, batch_size=2, device_id=None).run()
    assert raised.value.reasons == {
        "dump": "writes image files into the current folder (dump_image)",
        "py": "runs Python code from the graph",
    }
    assert raised.value.nodes == ["dump", "py"]  # in graph order
    assert "'dump' writes image files" in str(raised.value)
    assert "'py' runs Python code" in str(raised.value)
    assert written(in_an_empty_folder) == []


def test_profile_and_bench_refuse_before_running(in_an_empty_folder: Path) -> None:
    with pytest.raises(UntrustedCode, match="'dump'"):
        profile(dumping(), repeats=1, warmup=0, batch_size=2)
    with pytest.raises(UntrustedCode, match="'dump'"):
        run_bench(dumping(), images=4, batch_size=2)
    assert written(in_an_empty_folder) == []


def test_cli_writes_nothing_without_trust(
    in_an_empty_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = save(dumping(), tmp_path / "shared.json")
    grid = tmp_path / "grid.png"
    argv = ["render", str(spec), "--batch-size", "2", "-o", str(grid)]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "'dump'" in error and "--trust" in error
    assert written(in_an_empty_folder) == [] and not grid.exists()
    assert main([*argv, "--trust"]) == 0
    assert grid.exists() and len(written(in_an_empty_folder)) == 2


def test_the_panel_trusts_side_effects(in_an_empty_folder: Path) -> None:
    controller = Controller(Session("basic", batch_size=2, device_id=None), rng_seed=1)
    good = controller.run().result
    state = controller.edit(
        controller.state.spec.insert_after("flip", Node("dump", "dump_image", args={"suffix": "p"}))
    )
    assert state.failure is not None and state.failure.kind == "untrusted"
    assert "writes image files" in state.failure.node_messages()["dump"]
    assert state.result is good and controller.untrusted() == ["dump"]
    assert written(in_an_empty_folder) == []
    state = controller.trust("dump")
    assert state.ok and state.result is not None and "dump" in state.result.ran()
    assert len(written(in_an_empty_folder)) == 2


def test_an_exported_module_says_in_its_header_that_it_writes_files() -> None:
    from augexplorer.export import generate

    header = generate(dumping()).split('"""', 2)[1]
    assert "THIS MODULE WRITES FILES WHEN IT RUNS" in " ".join(header.split())
    assert "'dump' writes image files" in " ".join(header.split())
    assert "WRITES FILES" not in generate(preset("basic"))
