"""Command-line options shared by the commands that run a graph: data, bad files, trust."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from augexplorer import Node, PythonCode, preset
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.spec import save
from augexplorer.trust import forget_all


@pytest.fixture
def folder_with_a_bad_file(tmp_path: Path) -> Path:
    root = tmp_path / "images" / "cats"
    root.mkdir(parents=True)
    for index, path in enumerate(sorted(samples_dir().glob("animal/*.jpg"))[:3]):
        Image.open(path).save(root / f"good_{index}.jpg")
    (root / "broken.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    return root.parent


def test_data_and_skip_bad(
    folder_with_a_bad_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "grid.png"
    args = ["render", "imagenet_val", "--data", str(folder_with_a_bad_file), "--batch-size", "3"]
    assert main([*args, "-o", str(out)]) == 2
    assert "broken.jpg" in capsys.readouterr().err
    assert main([*args, "--skip-bad", "-o", str(out)]) == 0
    assert Image.open(out).format == "PNG"


def test_render_says_what_the_folder_left_out(
    folder_with_a_bad_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = folder_with_a_bad_file
    (root / "cats" / "broken.jpg").unlink()
    Image.open(next(root.glob("cats/*.jpg"))).save(root / "stray.jpg")
    (root / ".ipynb_checkpoints").mkdir()
    Image.open(next(root.glob("cats/*.jpg"))).save(root / ".ipynb_checkpoints" / "old.jpg")
    out = tmp_path / "grid.png"
    args = ["render", "imagenet_val", "--data", str(root), "--batch-size", "3", "-o", str(out)]
    assert main(args) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]
    assert any("stray.jpg" in line for line in notes), notes
    assert any(".ipynb_checkpoints" in line for line in notes), notes


def test_python_code_runs_only_with_trust(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forget_all()
    code = PythonCode("def invert(image):\n    return 255 - image\n", "invert")
    spec = preset("basic").insert_after(
        "flip", Node("invert", "python_function", args={"function": code})
    )
    path = save(spec, tmp_path / "graph.json")
    out = tmp_path / "grid.jpg"
    assert main(["render", str(path), "--batch-size", "2", "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert "'invert'" in error and "--trust" in error and not out.exists()
    assert main(["render", str(path), "--batch-size", "2", "--trust", "-o", str(out)]) == 0


def test_export_skip_bad_writes_a_loader_that_leaves_bad_files_out(
    folder_with_a_bad_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    out = tmp_path / "aug_skip.py"
    args = ["export", "basic", "--data", str(folder_with_a_bad_file), "-o", str(out)]
    assert main([*args, "--skip-bad"]) == 0
    assert "\nSKIP_BAD = True\n" in out.read_text()
    spec = importlib.util.spec_from_file_location("aug_skip", out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loader = module.make_loader(batch_size=3, device="cpu", num_threads=1)
    images = sum(len(batch[0][module.OUTPUTS[0]]) for batch in loader)  # one epoch
    assert images == 3  # the three good files; broken.jpg left out, and said
    assert "broken.jpg" in capsys.readouterr().out
    plain = tmp_path / "aug_plain.py"
    assert main(["export", "basic", "-o", str(plain)]) == 0
    assert "\nSKIP_BAD = False\n" in plain.read_text()
