"""`augexplorer bench --against FILE`: a user's own pipeline file in a PyTorch DataLoader against
its port's exported DALI loader. Real runs on a few images; what is checked is that the table
holds measurements (every image counted, rates positive, ratios from those rates), never how
fast anything is."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from augexplorer.bench.against import (
    ORIGINAL,
    PORTED,
    AgainstResult,
    OriginalFailed,
    OriginalWouldRun,
    bench_against,
)
from augexplorer.cli import main
from augexplorer.devices import gpu_loader_missing

TORCHVISION_TRAIN = """\
import torchvision.transforms as T

train_transform = T.Compose([
    T.RandomResizedCrop(224),
    T.RandomHorizontalFlip(),
    T.ToTensor(),
    T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
"""

ALBUMENTATIONS_TRAIN = """\
import albumentations as A
from albumentations.pytorch import ToTensorV2

train_transform = A.Compose([
    A.RandomResizedCrop(size=(160, 160)),
    A.HorizontalFlip(p=0.5),
    A.RandomBrightnessContrast(p=0.5),
    A.Normalize(),
    ToTensorV2(),
])
val_transform = A.Compose([A.Resize(160, 160), A.Normalize(), ToTensorV2()])
"""

# 12 images in batches of 4: three batches, the first not timed
SMALL = {"images": 12, "batch_size": 4, "workers": 1, "threads": 1}


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _check_measured(result: AgainstResult, images: int, timed: int) -> None:
    """Every row measured here counts every image given, and its ratio is its rate over the
    original's."""
    original = result.original
    assert original.images == images and original.timed_images == timed
    assert original.images_per_s is not None and original.images_per_s > 0
    assert original.images_per_s == pytest.approx(original.timed_images / original.seconds)
    cpu = next(row for row in result.rows if row.name == PORTED and row.device == "cpu")
    assert cpu.images == images and cpu.timed_images == timed
    assert cpu.images_per_s is not None and cpu.images_per_s > 0
    assert result.ratio(cpu) == pytest.approx(cpu.images_per_s / original.images_per_s)
    assert result.ratio(original) == pytest.approx(1.0)
    gpu = next(row for row in result.rows if row.name == PORTED and row.device == "gpu")
    if gpu_loader_missing() is None:  # DALI sees a GPU and PyTorch takes CUDA batches
        assert gpu.images == images and gpu.images_per_s and gpu.images_per_s > 0
    else:
        assert gpu.images_per_s is None and str(gpu_loader_missing()) in gpu.note
    table = result.table()
    assert f"{cpu.images_per_s:8.1f}" in table and f"{result.ratio(cpu):10.2f}x" in table
    assert "vs original" in table and result.port_summary in table


@pytest.mark.slow
def test_torchvision_file_timed_in_the_reference_python(
    tmp_path: Path, reference_python: str
) -> None:
    path = _write(tmp_path, "train.py", TORCHVISION_TRAIN)
    result = bench_against(path, python=reference_python, run_file=True, **SMALL)
    _check_measured(result, images=12, timed=8)
    assert result.library == "torchvision" and result.pipeline == "train_transform"
    assert result.versions["torchvision"]  # the original really ran torchvision
    assert result.python == reference_python
    assert result.port_summary.startswith("4 transforms ported")


@pytest.mark.slow
def test_albumentations_notebook_timed_in_this_python(tmp_path: Path) -> None:
    # a notebook, with a magic line that is not Python, holding two pipelines: one picked
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": "# Training"},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": "%matplotlib inline\n" + ALBUMENTATIONS_TRAIN,
        },
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = _write(tmp_path, "train.ipynb", json.dumps(notebook))
    result = bench_against(path, pipeline="train_transform", run_file=True, **SMALL)
    _check_measured(result, images=12, timed=8)
    assert result.versions["albumentations"] and result.python == sys.executable
    # three batches of 4, two timed: the DataLoader's prefetched batches count in its rate
    assert result.too_few is not None and "images= from Python" in result.too_few
    assert f"ROUGH: {result.too_few}" in result.table()
    assert result.to_json()["too_few_batches"] == result.too_few


@pytest.mark.slow
def test_cli_against_writes_the_table_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_TRAIN)
    out = tmp_path / "against.json"
    code = main(
        [
            *("bench", "--against", str(path), "--pipeline", "val_transform", "--run-file"),
            *("--images", "8", "--batch-size", "4", "--workers", "1", "--threads", "1"),
            *("--rounds", "2", "--json", str(out)),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "val_transform (albumentations" in captured.out and "vs original" in captured.out
    data = json.loads(out.read_text())
    rows = {(row["name"], row["device"]): row for row in data["rows"]}
    original, ported = rows[(ORIGINAL, "cpu")], rows[(PORTED, "cpu")]
    for row in (original, ported):
        assert row["images"] == 8 and row["timed_images"] == 4 and row["images_per_s"] > 0
        assert len(row["round_rates"]) == 2 and row["images_per_s"] in row["round_rates"]
    assert data["rounds"] == 2 and "slowest - fastest" in captured.out
    assert ported["ratio_to_original"] == pytest.approx(
        ported["images_per_s"] / original["images_per_s"]
    )
    assert data["method"] and data["port"].startswith("3 transforms ported")


@pytest.mark.slow
def test_a_transform_left_out_of_the_port_is_named_under_the_table(tmp_path: Path) -> None:
    # the original still runs it: the DALI loader does less work, and the table says so
    text = (
        "import albumentations as A\n\n\ndef invert(image, **kwargs):\n    return 255 - image\n\n\n"
        "train_transform = A.Compose([A.Resize(96, 96), A.Lambda(image=invert)])\n"
    )
    path = _write(tmp_path, "train.py", text)
    result = bench_against(path, run_file=True, **SMALL)
    _check_measured(result, images=12, timed=8)
    assert "1 not ported; the DALI loader does not do Lambda" in result.table()


@pytest.mark.slow
def test_rounds_take_turns_and_keep_every_rate(tmp_path: Path) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_TRAIN)
    said: list[str] = []
    result = bench_against(
        path, pipeline="val_transform", run_file=True, rounds=3, progress=said.append, **SMALL
    )
    # the original's pass of each round, then the port's: a slow spell falls on both alike
    turns = [line for line in said if line.startswith("[round")]
    cpu = [line for line in turns if "(gpu)" not in line]
    assert [line.split("]")[0] for line in cpu] == [f"[round {n}/3" for n in (1, 1, 2, 2, 3, 3)]
    assert [ORIGINAL in line for line in cpu] == [True, False] * 3
    measured = [row for row in result.rows if row.images_per_s is not None]
    assert len(measured) == (3 if gpu_loader_missing() is None else 2)
    for row in measured:
        assert len(row.round_rates) == 3 and all(rate > 0 for rate in row.round_rates)
        assert row.images_per_s == sorted(row.round_rates)[1]  # the median round
        assert row.images_per_s == pytest.approx(row.timed_images / row.seconds)
        low, high = result.spread(row) or (0.0, 0.0)
        assert f"{low:7.1f} - {high:7.1f}" in result.table()
    assert result.rounds == 3 and "median of 3 rounds" in result.table()
    assert result.to_json()["rows"][0]["round_rates"] == list(result.original.round_rates)


@pytest.mark.slow
@pytest.mark.timeout(180)  # a missed turn would leave both sides waiting: fail, do not hang
def test_a_print_without_newline_to_the_runners_stdout_does_not_stall_the_turns(
    tmp_path: Path,
) -> None:
    text = 'import os\n\nos.write(1, b"no newline")\n' + ALBUMENTATIONS_TRAIN
    path = _write(tmp_path, "train.py", text)
    result = bench_against(path, pipeline="val_transform", run_file=True, rounds=2, **SMALL)
    assert len(result.original.round_rates) == 2


@pytest.mark.parametrize("rounds", [0, -1, 1.5, True])
def test_rounds_must_be_a_whole_number_of_at_least_one(tmp_path: Path, rounds: object) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_TRAIN)
    with pytest.raises(ValueError, match=r"rounds=\.\.\. must be a whole number"):
        bench_against(path, pipeline="val_transform", run_file=True, rounds=rounds)  # type: ignore[arg-type]


def test_nothing_runs_without_run_file(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"open({str(marker)!r}, 'w').close()\n" + ALBUMENTATIONS_TRAIN
    path = _write(tmp_path, "train.py", text)
    with pytest.raises(OriginalWouldRun, match="--run-file") as refused:
        bench_against(path, pipeline="train_transform", images=8)
    assert "nothing ran" in str(refused.value) and "importing albumentations" in str(refused.value)
    assert not marker.exists()


@pytest.mark.skipif(
    importlib.util.find_spec("torchvision") is not None, reason="torchvision imports here"
)
def test_a_python_without_the_library_is_named_with_the_fix(tmp_path: Path) -> None:
    path = _write(tmp_path, "train.py", TORCHVISION_TRAIN)
    with pytest.raises(OriginalFailed, match=r"torchvision does not import in .*--python PATH"):
        bench_against(path, run_file=True, **SMALL)


def test_a_file_that_fails_names_its_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_TRAIN + "size = int('unknown')\n")
    with pytest.raises(OriginalFailed, match=r"line 12\): ValueError"):
        bench_against(path, pipeline="train_transform", run_file=True, **SMALL)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["imagenet_train"], "not both"),
        (["--chart", "c.png"], "--chart do not apply"),
    ],
)
def test_cli_against_refuses_options_that_do_not_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    path = _write(tmp_path, "train.py", ALBUMENTATIONS_TRAIN)
    assert main(["bench", "--against", str(path), "--run-file", *extra]) == 2
    assert message in capsys.readouterr().err


def test_cli_needs_a_spec_or_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench"]) == 2
    assert "--against FILE" in capsys.readouterr().err
    assert main(["bench", "imagenet_val", "--python", sys.executable]) == 2
    assert "goes with --against" in capsys.readouterr().err


def test_runner_imports_no_augexplorer() -> None:
    # it runs in another Python, where augexplorer may not be installed
    import ast

    from augexplorer.bench.against import RUNNER

    tree = ast.parse(RUNNER.read_text(encoding="utf-8"))
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    imported += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert "torch.utils.data" in imported and "PIL" in imported
    assert not [name for name in imported if name.startswith(("augexplorer", "."))]
