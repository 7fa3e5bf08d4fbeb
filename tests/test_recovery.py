"""Nothing lost: a DALI error never ends the session, writes never clobber a file, an
out-of-memory error says which batch size fits, and loading a spec never runs code."""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from augexplorer import Session
from augexplorer.catalog import Catalog, load_catalog
from augexplorer.engine import runners
from augexplorer.engine.runners import (
    StepRunner,
    clean_dali_message,
    is_out_of_memory,
    suggest_fix,
)
from augexplorer.errors import (
    FileExistsRefused,
    GraphInvalid,
    RunError,
    SpecFormatError,
    UntrustedCode,
)
from augexplorer.files import atomic_write_bytes, atomic_write_text
from augexplorer.plan import Step
from augexplorer.presets import preset
from augexplorer.spec import Random, Ref
from augexplorer.spec import io as spec_io
from augexplorer.validate import validate

BATCH = 4


def on_this_thread() -> Callable[[], bool]:
    """Whether code runs on the thread that asked: a patched StepRunner must only touch the
    test's own runs, not those of the background warm-up (augexplorer.engine.warm_up), which an
    earlier test in the same process may have started and whose tiny graph has a "crop" too."""
    here = threading.get_ident()
    return lambda: threading.get_ident() == here


@pytest.fixture
def session(catalog: Catalog) -> Session:
    live = Session("basic", batch_size=BATCH, catalog=catalog)
    live.run()
    return live


# ---- a DALI error that invalidates a pipeline is recovered by rebuilding ------------------------


def test_wrong_dtype_fed_at_run_time_is_recovered(session: Session) -> None:
    """Labels (int32) fed to `angle` (float) is a critical DALI error: the pipeline is dead. The
    session drops it, and both a fix and a repeat of the mistake behave as if it were fresh."""
    good = session.result
    for _ in range(2):  # the same mistake twice: the same clear error, not "no longer valid"
        with pytest.raises(RunError) as raised:
            session.set_arg("rotate", "angle", Ref("source", 1))
        assert raised.value.node == "rotate"
        assert "int32" in raised.value.dali_message and "float" in raised.value.dali_message
        assert "no longer valid" not in str(raised.value)
        assert session.result is good
    fixed = session.set_arg("rotate", "angle", 30.0)
    assert fixed is session.result and "rotate" in fixed.ran()
    again = session.set_arg("rotate", "angle", Random.uniform(-20, 20))
    assert "rotate" in again.ran()
    assert not {"source", "decode", "resize"} & set(again.ran()), "upstream stays cached"


def test_a_cached_runner_that_dies_is_rebuilt(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runner that raised is never used again: the next run builds a new one."""
    built: list[StepRunner] = []  # crop runners built after the patch
    ran: list[StepRunner] = []  # the runner of each crop run
    real_init = StepRunner.__init__
    real_run = StepRunner.run
    failures = {"left": 1}
    ours = on_this_thread()

    def counting_init(self: StepRunner, step: Step, *args: Any, **kwargs: Any) -> None:
        real_init(self, step, *args, **kwargs)
        if step.id == "crop" and ours():
            built.append(self)

    def failing_run(self: StepRunner, step: Step, *args: Any, **kwargs: Any) -> Any:
        if step.id == "crop" and ours():
            ran.append(self)
        if step.id == "crop" and ours() and failures["left"]:
            failures["left"] -= 1
            raise RuntimeError(
                "Critical error in pipeline:\nError in CPU operator `nvidia.dali.fn.crop`,\n"
                "encountered:\n\nsimulated failure\nCurrent pipeline object is no longer valid."
            )
        return real_run(self, step, *args, **kwargs)

    monkeypatch.setattr(StepRunner, "__init__", counting_init)
    monkeypatch.setattr(StepRunner, "run", failing_run)
    good = session.result
    with pytest.raises(RunError, match="simulated failure") as raised:
        session.set_arg("crop", "crop", [200.0, 200.0])
    assert "no longer valid" not in str(raised.value)
    assert session.result is good
    result = session.set_arg("crop", "crop", [200.0, 200.0])  # the same edit, retried
    # (the crop window is fed per sample, so the first edit may re-use the runner built before)
    dead, retried = ran[0], ran[-1]
    assert retried is not dead and retried in built, "the dead runner must be replaced"
    assert all(image.shape[:2] == (200, 200) for image in result.arrays("crop"))


def test_an_invalid_edit_keeps_the_typed_spec_and_the_last_result(session: Session) -> None:
    good = session.result
    with pytest.raises(GraphInvalid):
        session.set_arg("rotate", "angle", float("nan"))
    assert session.result is good
    assert session.spec.node("rotate").args["angle"] != session.spec.node("rotate").args["angle"]
    fixed = session.set_arg("rotate", "angle", 12.0)
    assert fixed is session.result and fixed.plan.spec.node("rotate").args["angle"] == 12.0


def test_a_failed_source_keeps_the_session_reading(session: Session, tmp_path: Path) -> None:
    from augexplorer.errors import DataError
    from augexplorer.spec import Source

    good = session.result
    with pytest.raises(DataError):
        session.set_source(Source("source", "folder", str(tmp_path / "absent")))
    assert session.result is good
    back = session.set_source(Source("source"))
    assert back is session.result and len(back.files()) == BATCH
    assert session.next_batch() is session.result


# ---- out of memory ------------------------------------------------------------------------------

# What DALI says when a device allocation fails (from DALI's issue tracker, 0.x to 1.x releases).
OOM_TEXTS = [
    "Critical error in pipeline:\nError when executing Mixed operator ImageDecoder encountered:\n"
    "CUDA allocation failed\nCurrent pipeline object is no longer valid.",
    "Critical error in pipeline:\nError when executing Mixed operator ImageDecoder encountered:\n"
    "Can't allocate 129499136 bytes on device 0.\nCurrent pipeline object is no longer valid.",
    "Critical error in pipeline: std::bad_alloc\nCurrent pipeline object is no longer valid.",
    "Error in GPU operator `nvidia.dali.fn.resize`,\nencountered:\n\nCUDA error "
    '"2" ("cudaErrorMemoryAllocation"): out of memory',
    "encountered:\n\nnvImageCodec failure: '#5'\nCurrent pipeline object is no longer valid.",
]


@pytest.mark.parametrize("text", OOM_TEXTS)
def test_out_of_memory_is_recognised_and_says_which_batch_fits(text: str) -> None:
    message = clean_dali_message(text)
    assert is_out_of_memory(text) and is_out_of_memory(message)
    assert "no longer valid" not in message
    fix = suggest_fix(message, batch_size=16)
    assert fix is not None and "batch size to 8" in fix and "set_batch_size(8)" in fix


def test_out_of_memory_at_batch_one_suggests_smaller_images() -> None:
    fix = suggest_fix("CUDA allocation failed", batch_size=1)
    assert fix is not None and "resize" in fix


@pytest.mark.parametrize(
    "text",
    [
        "Failed to decode sample #0 : cls/a.jpg",
        "nvImageCodec failure: '#3'",
        'Assert on "crop.size() >= 2" failed: `crop` argument should have 2 or 3 elements',
    ],
)
def test_other_errors_are_not_taken_for_out_of_memory(text: str) -> None:
    assert not is_out_of_memory(text)
    fix = suggest_fix(clean_dali_message(text), batch_size=16)
    assert fix is None or "batch size" not in fix


def _raise_once_in(step_id: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real_run = StepRunner.run
    left = {"count": 1}
    ours = on_this_thread()

    def run(self: StepRunner, step: Step, *args: Any, **kwargs: Any) -> Any:
        if step.id == step_id and ours() and left["count"]:
            left["count"] -= 1
            raise RuntimeError(text)
        return real_run(self, step, *args, **kwargs)

    monkeypatch.setattr(StepRunner, "run", run)


def test_the_session_goes_on_after_out_of_memory(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    _raise_once_in("resize", OOM_TEXTS[1], monkeypatch)
    good = session.result
    with pytest.raises(RunError) as raised:
        session.set_arg("resize", "resize_shorter", 240.0)
    assert raised.value.node == "resize" and "allocate" in raised.value.dali_message
    assert session.result is good
    smaller = session.set_batch_size(BATCH // 2)
    assert len(smaller.arrays("flip")) == BATCH // 2


def test_out_of_memory_error_names_the_batch_size_that_fits(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    _raise_once_in("resize", OOM_TEXTS[0], monkeypatch)
    with pytest.raises(RunError) as raised:
        session.set_arg("resize", "resize_shorter", 240.0)
    assert raised.value.fix is not None and f"batch size to {BATCH // 2}" in raised.value.fix


# ---- DALI messages, cleaned ---------------------------------------------------------------------


def test_a_dali_message_starting_with_file_is_kept() -> None:
    text = (
        "Critical error in pipeline:\nError in CPU operator `nvidia.dali.fn.readers.file`,\n"
        "which was used in the pipeline definition with the following traceback:\n\n"
        '  File "/home/user/explore.py", line 5, in p\n\nencountered:\n\n'
        "File mapping failed: /data/cls/empty.jpg\nC++ context: [/opt/dali/mmaped_file.cc:105] \n"
        "Current pipeline object is no longer valid."
    )
    assert clean_dali_message(text) == "File mapping failed: /data/cls/empty.jpg"


def test_traceback_lines_are_dropped_and_codec_codes_explained() -> None:
    text = (
        "Error in CPU operator `nvidia.dali.fn.decoders.image`,\n"
        "which was used in the pipeline definition with the following traceback:\n\n"
        '  File "/x.py", line 9, in p\n    return fn.decoders.image(e)\n    ^^^^^^\n'
        "encountered:\n\nnvImageCodec failure: '#4'\nCurrent pipeline object is no longer valid."
    )
    assert clean_dali_message(text) == "the data is not an image format DALI can decode"


def test_dtype_mismatch_is_said_in_words() -> None:
    text = (
        'Assert on "type_.id() == TypeTable::GetTypeId<T>()" failed: Calling type does not match '
        "buffer data type, requested type: float current buffer type: int32. To set type for the "
        "Buffer use 'set_type<T>()' or Resize(shape, type) first."
    )
    assert clean_dali_message(text) == "got int32 data where float is expected"
    assert suggest_fix(clean_dali_message(text), batch_size=4) is not None


def test_runner_module_keeps_its_public_names() -> None:
    assert {"clean_dali_message", "is_out_of_memory", "suggest_fix"} <= set(dir(runners))


# ---- atomic writes ------------------------------------------------------------------------------


def test_write_refuses_to_replace_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    atomic_write_text(path, "old")
    with pytest.raises(FileExistsRefused) as raised:
        atomic_write_text(path, "new")
    assert isinstance(raised.value, FileExistsError)
    assert "overwrite=True" in str(raised.value) and str(path) in str(raised.value)
    assert path.read_text() == "old"
    atomic_write_text(path, "new", overwrite=True)
    assert path.read_text() == "new"


def test_write_creates_folders_and_writes_utf8(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "note.txt"
    atomic_write_text(path, "größe ✓")
    assert path.read_bytes() == "größe ✓".encode()


@pytest.mark.parametrize("failing", ["os.replace", "os.fsync", "write"])
def test_a_failed_write_leaves_the_old_file_and_no_litter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "figure.png"
    atomic_write_bytes(path, b"old picture")

    def boom(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    if failing == "os.replace":
        monkeypatch.setattr(os, "replace", boom)
        data: Any = b"new picture"
    elif failing == "os.fsync":
        monkeypatch.setattr(os, "fsync", boom)
        data = b"new picture"
    else:
        data = "text, not bytes: the write itself fails"
    with pytest.raises((OSError, TypeError)):
        atomic_write_bytes(path, data, overwrite=True)
    assert path.read_bytes() == b"old picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.png"], "no temporary files"


def test_an_interrupted_write_leaves_no_litter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "spec.json"

    def interrupt(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_text(path, "{}")
    assert list(tmp_path.iterdir()) == []


def test_saving_a_spec_never_overwrites_unless_asked(tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    spec = preset("basic")
    spec_io.save(spec, path)
    first = path.read_text()
    with pytest.raises(FileExistsRefused):
        spec_io.save(spec.set_arg("rotate", "angle", 5.0), path)
    assert path.read_text() == first
    spec_io.save(spec.set_arg("rotate", "angle", 5.0), path, overwrite=True)
    assert spec_io.load(path).node("rotate").args["angle"] == 5.0


# ---- trust: loading a spec never runs code ------------------------------------------------------


def _code_everywhere(marker: Path) -> str:
    code = f"__import__('os').system('touch {marker}')"
    data = spec_io.to_json(preset("basic"))
    data["name"] = code
    for node in data["nodes"]:
        if node["id"] == "rotate":
            node["args"]["interp_type"] = code
            node["args"]["angle"] = code
        if node["id"] == "flip":
            node["op"] = code
    data["nodes"].append(
        {"id": "evil", "op": "python_function", "inputs": ["flip"], "args": {"function": code}}
    )
    return json.dumps(data)


def test_loading_a_spec_never_runs_code(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    called: list[str] = []

    def forbidden(name: str) -> Any:
        def trap(*args: Any, **kwargs: Any) -> None:
            called.append(name)
            raise AssertionError(f"{name} was called while loading a spec")

        return trap

    path = tmp_path / "evil.json"
    path.write_text(_code_everywhere(marker))
    with monkeypatch.context() as patched:
        for name in ("eval", "exec"):
            patched.setattr(builtins, name, forbidden(name))
        patched.setattr(os, "system", forbidden("os.system"))
        patched.setattr(subprocess, "Popen", forbidden("subprocess.Popen"))
        spec = spec_io.load(path)
        with pytest.raises(GraphInvalid) as raised:
            validate(spec, catalog)
    assert called == [] and not marker.exists()
    problems = {(p.node, p.argument) for p in raised.value.problems}
    assert ("rotate", "angle") in problems and ("rotate", "interp_type") in problems
    assert any(node == "flip" for node, _ in problems), "an operator name is never executed"
    assert any(node == "evil" for node, _ in problems), "python_function is not offered"


def test_python_code_in_a_spec_is_text_until_trusted(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A valid python_function node: loading, validating and opening a session compile and run
    nothing; running refuses until the code is trusted."""
    marker = tmp_path / "ran"
    data = spec_io.to_json(preset("basic"))
    source = f"__import__('os').system('touch {marker}')\n\ndef f(image):\n    return image\n"
    data["nodes"].append(
        {
            "id": "evil",
            "op": "python_function",
            "inputs": ["flip"],
            "args": {"function": {"python": source, "name": "f"}},
        }
    )
    path = tmp_path / "code.json"
    path.write_text(json.dumps(data))
    called: list[str] = []
    # the CPU catalog a Session loads, made before the trap: building it imports DALI's
    # auto_aug modules (Python's own exec), which is not the spec's code running
    load_catalog(gpu=False)

    def forbidden(name: str) -> Any:
        def trap(*args: Any, **kwargs: Any) -> None:
            called.append(name)
            raise AssertionError(f"{name} was called before the code was trusted")

        return trap

    with monkeypatch.context() as patched:
        for name in ("eval", "exec", "compile"):
            patched.setattr(builtins, name, forbidden(name))
        patched.setattr(os, "system", forbidden("os.system"))
        spec = spec_io.load(path)
        validate(spec, catalog)
        live = Session(spec, batch_size=BATCH, device_id=None)
        with pytest.raises(UntrustedCode, match="'evil'"):
            live.run()
    assert called == [] and not marker.exists() and live.result is None
    assert live.untrusted() == ["evil"]


def test_a_spec_with_code_in_a_session_leaves_it_running(session: Session, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    good = session.result
    with pytest.raises(GraphInvalid):
        session.update(spec_io.loads(_code_everywhere(marker)))
    assert not marker.exists() and session.result is good


def test_spec_objects_are_data_not_code() -> None:
    with pytest.raises(SpecFormatError):
        spec_io.loads(
            json.dumps(
                {
                    "format": "augexplorer.graph",
                    "version": 1,
                    "nodes": [
                        {"id": "x", "op": "rotate", "args": {"angle": {"__class__": "os.system"}}}
                    ],
                }
            )
        )
