"""Bad paths and options on the command line: one line naming the path or option and the fix,
exit status 2, nothing run and nothing written. Grids in the format their name asks for."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from PIL import Image

from augexplorer.cli import main
from augexplorer.render.formats import supported_suffixes

RUNS_A_GRAPH = ["render", "export", "profile", "bench"]


def outputs_for(command: str, tmp_path: Path) -> list[str]:
    """The options a command needs besides the spec, writing under `tmp_path`."""
    if command == "render":
        return ["-o", str(tmp_path / "grid.png")]
    if command == "export":
        return ["-o", str(tmp_path / "aug.py")]
    return []


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command line, check it ends with status 2 and one line on stderr (no
    traceback), and return that line."""
    try:
        status = main(argv)
    except SystemExit as exit_:  # argparse refuses options through SystemExit
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    assert status == 2, captured
    error = captured.err
    assert error.endswith("\n") and error.count("\n") == 1, error
    assert "Traceback" not in error and "fix:" in error, error
    return error


@pytest.mark.parametrize("command", RUNS_A_GRAPH)
def test_a_spec_that_is_a_folder(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    error = refused([command, str(folder), *outputs_for(command, tmp_path)], capsys)
    assert f"{folder} is a folder" in error and "preset" in error
    assert list(tmp_path.iterdir()) == [folder]


def test_a_spec_that_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing.json"
    error = refused(["render", str(missing), "-o", str(tmp_path / "g.png")], capsys)
    assert str(missing) in error and "basic" in error  # names the presets that do exist


@pytest.mark.parametrize("command", RUNS_A_GRAPH)
@pytest.mark.parametrize("value", ["0", "-3", "eight"])
def test_batch_size_must_be_positive(
    command: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, "basic", "--batch-size", value, *outputs_for(command, tmp_path)]
    error = refused(argv, capsys)
    assert "--batch-size" in error and repr(value) in error and "1 or more" in error
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("value", ["0", "-1", "100000"])
def test_render_cell_in_range(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = refused(["render", "basic", "--cell", value, "-o", str(tmp_path / "g.png")], capsys)
    assert "--cell" in error and "from 1 to 4096" in error
    assert not (tmp_path / "g.png").exists()


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["profile", "basic", "--repeats", "0"], "--repeats"),
        (["profile", "basic", "--warmup", "-1"], "--warmup"),
        (["profile", "basic", "--attempts", "0"], "--attempts"),
        (["profile", "basic", "--threads", "0"], "--threads"),
        (["bench", "basic", "--images", "0"], "--images"),
        (["bench", "basic", "--rounds", "-2"], "--rounds"),
        (["bench", "basic", "--workers", "0"], "--workers"),
    ],
)
def test_counts_are_checked_the_same_way_everywhere(
    argv: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert option in refused(argv, capsys)


def test_export_to_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    error = refused(["export", "basic", "-o", str(tmp_path)], capsys)
    assert f"cannot write {tmp_path}: it is a folder" in error
    assert list(tmp_path.iterdir()) == []


def test_export_to_a_name_python_cannot_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = refused(["export", "basic", "-o", str(tmp_path / "my aug.py")], capsys)
    assert "my aug.py cannot be imported" in error and "(fix: name it my_aug.py)" in error
    assert list(tmp_path.iterdir()) == []


def test_export_under_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder")
    target = blocker / "out.py"
    error = refused(["export", "basic", "-o", str(target)], capsys)
    assert f"cannot write {target}: {blocker} is a file, not a folder" in error
    assert blocker.read_text() == "a file, not a folder"


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in. Permissions do not stop root, so root
    gets /sys, where the kernel refuses new files to everyone."""
    if os.geteuid() != 0:
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o500)
        return folder
    folder = Path("/sys")
    try:
        handle, name = tempfile.mkstemp(dir=folder)
    except OSError:
        return folder
    os.close(handle)
    os.unlink(name)
    pytest.skip("running as root with a writable /sys: no folder here refuses root's writes")


@pytest.mark.parametrize("command", ["export", "render", "import"])
def test_output_where_nothing_can_be_written(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from augexplorer import preset
    from augexplorer.export import export

    folder = unwritable_folder(tmp_path)
    target = folder / ("grid.png" if command == "render" else "out.py")
    source = "basic" if command != "import" else str(export(preset("basic"), tmp_path / "m.py"))
    error = refused([command, source, "-o", str(target)], capsys)
    assert f"cannot write {target}" in error and "choose a folder you can write to" in error
    assert not target.exists()


def test_no_traceback_in_a_real_process(tmp_path: Path) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    for argv in (
        ["render", str(folder), "-o", str(tmp_path / "g.png")],
        ["render", "basic", "--cell", "0", "-o", str(tmp_path / "g.png")],
        ["export", "basic", "-o", str(folder)],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "augexplorer", *argv], capture_output=True, text=True
        )
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert "fix:" in done.stderr


# ---- grid formats ------------------------------------------------------------------------------
FORMAT_OF = {".jpg": "JPEG", ".png": "PNG", ".gif": "GIF", ".webp": "WEBP", ".tiff": "TIFF"}


@pytest.mark.parametrize("suffix", sorted(set(FORMAT_OF) & set(supported_suffixes())))
def test_render_writes_the_format_its_name_asks_for(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"grid{suffix.upper()}"  # the suffix is matched case-blind
    assert main(["render", "basic", "--batch-size", "2", "--cell", "64", "-o", str(out)]) == 0
    with Image.open(out) as picture:
        assert picture.format == FORMAT_OF[suffix]
        assert picture.size[0] > 64


@pytest.mark.parametrize("name", ["grid.xyz", "grid", "grid.svg"])
def test_render_refuses_a_format_it_cannot_write(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    error = refused(["render", "basic", "-o", str(tmp_path / name)], capsys)
    assert "-o/--output" in error and ".jpg, .jpeg, .png" in error
    assert list(tmp_path.iterdir()) == []
