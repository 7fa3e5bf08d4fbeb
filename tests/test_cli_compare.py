"""`augexplorer compare FILE`: a torchvision or albumentations pipeline file against its port
from the shell, transform by transform, as the panel's Compare tab computes it; every refusal
one line naming the fix, never a traceback. And `augexplorer port`, which people type,
answered with the commands that do it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from augexplorer.cli import main

TORCHVISION_TRAIN = """\
import torchvision.transforms as T

train_transform = T.Compose([
    T.RandomHorizontalFlip(),
    T.RandomRotation(10),
    T.ToTensor(),
])
"""

ALBUMENTATIONS_BUILT = """\
import albumentations as A


def build(size):
    return A.Compose([A.Resize(size, size), A.HorizontalFlip(p=0.5)])
"""

# few images and draws: the figures are checked for being there and sound, not for precision
QUICK = ["--images", "2", "--draws", "20"]


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command line; check it ends with status 2 and one line on stderr, nothing on
    stdout, and return the line."""
    try:
        status = main(argv)
    except SystemExit as exited:  # argparse refuses through SystemExit
        status = int(exited.code or 0)
    captured = capsys.readouterr()
    assert status == 2, captured
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert captured.out == ""
    return captured.err


def test_port_is_answered_with_the_commands_that_port_and_prove(
    capsys: pytest.CaptureFixture[str],
) -> None:
    error = _one_line(["port", "train.py"], capsys)
    assert "there is no command 'port'" in error
    assert "augexplorer import FILE -o graph.json" in error
    assert "augexplorer compare FILE --run-file" in error
    assert "see augexplorer --help" not in error  # the fix is the one given, not a pointer


def test_another_unknown_command_keeps_the_general_fix(capsys: pytest.CaptureFixture[str]) -> None:
    error = _one_line(["portt", "train.py"], capsys)
    assert "invalid choice: 'portt'" in error and "(fix: see augexplorer --help)" in error


def test_nothing_runs_without_run_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    marker = tmp_path / "ran"
    text = f"open({str(marker)!r}, 'w').close()\n" + TORCHVISION_TRAIN
    path = _write(tmp_path, "train.py", text)
    error = _one_line(["compare", str(path)], capsys)
    assert not marker.exists()
    assert "means running" in error and "with your permissions; nothing ran" in error
    assert "(fix: read the file, and if you trust it, compare it with --run-file)" in error


def test_nothing_to_compare_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = _write(tmp_path, "empty.py", "import torchvision.transforms as T\nt = T.Compose([])\n")
    error = _one_line(["compare", str(empty), "--run-file"], capsys)
    assert "nothing to compare in t: it holds none" in error
    assert f"augexplorer import {empty} -o graph.json" in error
    plain = _write(tmp_path, "plain.py", "x = 1\n")
    error = _one_line(["compare", str(plain), "--run-file"], capsys)
    assert "no torchvision or albumentations Compose found (fix: " in error
    error = _one_line(["compare", str(tmp_path / "gone.py"), "--run-file"], capsys)
    assert "gone.py: no such file (fix: " in error


def test_a_param_given_twice_is_refused_as_import_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_BUILT)
    argv = ["compare", str(path), "--run-file", "--param", "size=1", "--param", "size=2"]
    assert "--param size is given twice (fix: give each parameter once)" in _one_line(argv, capsys)


def test_a_python_that_does_not_exist_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", TORCHVISION_TRAIN)
    python = str(tmp_path / "bin" / "python")
    error = _one_line(["compare", str(path), "--run-file", "--python", python], capsys)
    assert f"--python {python}: no such program (fix: " in error


@pytest.mark.skipif(
    importlib.util.find_spec("torchvision") is not None, reason="torchvision imports here"
)
def test_a_python_without_the_library_names_python_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", TORCHVISION_TRAIN)
    argv = ["compare", str(path), "--run-file", "--python", sys.executable, *QUICK]
    error = _one_line(argv, capsys)
    assert f"torchvision does not import in {sys.executable}" in error
    assert "(fix: give --python PATH, the python of an environment where torchvision" in error


def test_a_torchvision_file_against_real_torchvision(
    reference_python: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", TORCHVISION_TRAIN)
    out = tmp_path / "compare.json"
    argv = ["compare", str(path), "--run-file", "--python", reference_python, *QUICK]
    assert main([*argv, "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    table = captured.out
    assert "train_transform (torchvision, " in table and "on 2 images of the bundled" in table
    assert "RandomHorizontalFlip() (line 4) [exact] -> horizontal_flip" in table
    assert "identical over 2 images" in table  # a flip's pixels, pinned to always flip
    assert "RandomRotation(10) (line 5) [approximate] -> rotate" in table
    assert "drawn angle: DALI" in table and "pixels with angle 10 on both sides" in table
    assert f"wrote {out}" in table
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert figures["format"] == "augexplorer.compare" and figures["library"] == "torchvision"
    assert figures["original_python"] == reference_python and figures["original_error"] is None
    assert len(figures["images"]) == 2 and all(Path(f).is_file() for f in figures["images"])
    steps = {step["transform"]: step for step in figures["steps"]}
    flip = steps["RandomHorizontalFlip()"]
    assert flip["grade"] == "exact" and flip["pixels"]["max_abs"] == 0
    assert flip["pixels"]["images"] == 2
    angle = next(d for d in steps["RandomRotation(10)"]["draws"] if d["quantity"] == "angle")
    assert angle["ours_n"] == angle["theirs_n"] == 20
    assert -10 <= angle["theirs_mean"] <= 10 and -10 <= angle["ours_mean"] <= 10
    # written once: a second run refuses to replace it, unless told to
    error = _one_line([*argv, "--json", str(out)], capsys)
    assert str(out) in error
    assert main([*argv, "--json", str(out), "--overwrite"]) == 0


def test_an_albumentations_file_with_params_and_data_in_this_python(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """albumentations imports here: the file runs in this Python, on the images of --data, with
    the value --param gives the function's parameter (on both sides)."""
    pytest.importorskip("albumentations")
    data = tmp_path / "images" / "only"
    data.mkdir(parents=True)
    for index in range(3):
        Image.new("RGB", (40 + 8 * index, 30), (30 * index, 100, 200)).save(data / f"{index}.png")
    path = _write(tmp_path, "aug.py", ALBUMENTATIONS_BUILT)
    out = tmp_path / "figures.json"
    argv = ["compare", str(path), "--run-file", "--data", str(data.parent), "--param", "size=24"]
    assert main([*argv, "--images", "2", "--draws", "20", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # the file ran as a whole: build(24) made the pipeline
    assert "Resize(24, 24) (line 5) [exact] -> resize" in captured.out
    assert "HorizontalFlip(p=0.5) (line 5) [exact] -> flip" in captured.out
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert [Path(f).name for f in figures["images"]] == ["0.png", "1.png"]
    assert figures["original_python"] == sys.executable
    resize = next(s for s in figures["steps"] if s["transform"] == "Resize(24, 24)")
    assert resize["pixels"] is not None and resize["pixels"]["images"] == 2


def test_a_file_that_fails_when_run_keeps_its_transforms_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each transform is rebuilt alone from its call, so its figures stand; the file as a
    whole did not run, which is one warning line with the file's own fix."""
    pytest.importorskip("albumentations")
    text = "import albumentations as A\n\nraise SystemExit('needs --root')\n"
    text += "train_transform = A.Compose([A.HorizontalFlip(p=0.5)])\n"
    path = _write(tmp_path, "train.py", text)
    assert main(["compare", str(path), "--run-file", *QUICK]) == 0
    captured = capsys.readouterr()
    assert "HorizontalFlip(p=0.5) (line 4) [exact] -> flip" in captured.out
    assert "identical over 2 images" in captured.out
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith("warning: the original pipeline did not run: ")
    assert "SystemExit: needs --root (fix: " in captured.err
