"""The throughput suite: every loader runs on a few images and reports images/s (no thresholds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from augexplorer import Session, preset
from augexplorer.bench import recipe_for, run_bench
from augexplorer.cli import main
from augexplorer.devices import has_gpu
from augexplorer.spec import Probability

LOADERS = {
    "DALI fused (build_pipeline)",
    "DALI exported module",
    "DALI hand-written",
    "torchvision-style (Pillow) DataLoader",
    "albumentations (OpenCV) DataLoader",
}


def test_recipes_are_recognised_from_the_graph_shape() -> None:
    train = recipe_for(Session("imagenet_train").plan)
    val = recipe_for(Session("imagenet_val").plan)
    assert train is not None and train.kind == "train" and train.size == 224
    assert train.flip_probability == 0.5 and train.scale == (0.08, 1.0)
    assert val is not None and val.kind == "val" and val.resize_shorter == 256
    assert recipe_for(Session("basic").plan) is None
    assert recipe_for(Session("randaugment").plan) is None


@pytest.mark.parametrize("name", ["imagenet_train", "imagenet_val"])
def test_tiny_bench_measures_every_cpu_loader(name: str) -> None:
    spec = preset(name)
    result = run_bench(spec, images=12, batch_size=4, workers=1, threads=1)
    assert {row.name for row in result.rows} == LOADERS
    cpu_rows = [row for row in result.rows if row.device == "cpu"]
    assert {row.name for row in cpu_rows} == LOADERS
    for row in cpu_rows:
        assert row.images_per_s is not None and row.images_per_s > 0, row
        assert row.images == 8  # 3 batches of 4, the first one not timed
    best = result.best_cpu
    assert best is not None and result.ratio(best) == pytest.approx(1.0)
    assert "224x224" in result.equivalence and "normalized" in result.equivalence
    if name == "imagenet_train":
        assert "flip with p=0.5" in result.equivalence
    gpu_rows = [row for row in result.rows if row.device == "gpu"]
    assert {row.name for row in gpu_rows} == {
        "DALI fused (build_pipeline)",
        "DALI exported module",
        "DALI hand-written",
    }
    if not has_gpu():
        assert all(row.images_per_s is None and "no GPU" in row.note for row in gpu_rows)
    table = result.table()
    assert "vs best CPU" in table and "equivalent augmentation" in table


def test_graph_without_equivalent_still_times_dali_and_says_why() -> None:
    result = run_bench(preset("basic"), images=8, batch_size=4, workers=1, threads=1)
    rows = {(row.name, row.device): row for row in result.rows}
    assert rows[("DALI fused (build_pipeline)", "cpu")].images_per_s
    for name in ("torchvision-style (Pillow) DataLoader", "DALI hand-written"):
        row = rows[(name, "cpu")]
        assert row.images_per_s is None and "no equivalent" in row.note
    assert result.equivalence.startswith("none")


def test_cli_bench_writes_json_and_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json, out_png = tmp_path / "b.json", tmp_path / "b.png"
    code = main(
        [
            *("bench", "imagenet_val", "--images", "8", "--batch-size", "4", "--workers", "1"),
            *("--threads", "1", "--json", str(out_json), "--chart", str(out_png)),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    assert "albumentations" in captured.out and "[round 1/1" in captured.err
    data = json.loads(out_json.read_text())
    assert {row["name"] for row in data["rows"]} == LOADERS
    assert data["equivalence"] and data["method"]
    assert out_png.read_bytes()[:4] == b"\x89PNG"


def test_every_rounds_rate_is_kept_beside_the_median() -> None:
    result = run_bench(
        preset("imagenet_val"), images=8, batch_size=4, workers=1, threads=1, rounds=3
    )
    measured = [row for row in result.rows if row.images_per_s is not None]
    assert measured
    for row in measured:
        assert len(row.round_rates) == 3 and all(rate > 0 for rate in row.round_rates), row
        assert row.images_per_s == pytest.approx(sorted(row.round_rates)[1])
    assert all(not row.round_rates for row in result.rows if row.images_per_s is None)
    assert result.to_json()["rows"][0]["round_rates"] == list(result.rows[0].round_rates)


def test_a_graph_with_a_conditional_node_times_its_exported_module() -> None:
    """A node applied with a probability is a DALI conditional, which DALI converts by reading
    the pipeline's source: the module run from a string had none ("Unable to locate the source
    code"), and `augexplorer bench` failed on every port with a p below 1."""
    spec = preset("basic").set_probability("rotate", Probability(0.5))
    result = run_bench(spec, images=8, batch_size=4, workers=1, threads=1)
    rows = {(row.name, row.device): row for row in result.rows}
    assert rows[("DALI exported module", "cpu")].images_per_s


def test_a_run_of_too_few_batches_says_its_rates_are_rough() -> None:
    """16 images at batch 8 timed one batch, which a DataLoader's workers had ready before the
    clock started: 93,000 images/s, reported as a rate."""
    from augexplorer.bench.suite import BenchResult, BenchRow, too_few_batches

    said = too_few_batches(2, 8, 2)
    assert said is not None
    assert said.startswith("1 batch(es) timed, and up to 4 can be ready before the clock starts")
    assert said.endswith(
        "(fix: 136 images or more: --images on the command line, images= from Python)"
    )
    assert too_few_batches(17, 8, 2) is None  # 16 timed, four times the 4 ready
    result = BenchResult("g", 8, 16, 2, 2, 1, "none", [BenchRow("a", "cpu", 1.0)], too_few=said)
    assert result.table().endswith(f"ROUGH: {said}")
    assert result.to_json()["too_few_batches"] == said
