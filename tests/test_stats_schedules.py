"""Statistics of a graph with schedules: at one epoch, and across the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from augexplorer.cli import main
from augexplorer.errors import EpochError
from augexplorer.presets import preset
from augexplorer.spec import GraphSpec, Node, Ref, Schedule, save
from augexplorer.stats import collect_stats, stats_over_run

EPOCHS = 10


def ramped() -> GraphSpec:
    return (
        preset("basic")
        .with_epochs(EPOCHS)
        .with_schedule("rotate.angle.high", Schedule.linear(5, 40))
        .with_schedule("rotate.angle.low", Schedule.linear(-5, -40))
        .with_schedule("flip.apply", Schedule.linear(0.1, 0.9))
    )


def test_stats_at_an_epoch_count_that_epochs_values() -> None:
    late = collect_stats(ramped(), batches=2, device_id=None, epoch=EPOCHS - 1)
    drawn = late.draw("rotate", "angle")
    assert (drawn.declared.low, drawn.declared.high) == (-40.0, 40.0)
    assert drawn.below == drawn.above == 0 and drawn.total == 2 * 8
    assert late.rate("flip").expected == pytest.approx(0.9)


def test_stats_over_the_run_follow_the_schedules() -> None:
    over = stats_over_run(ramped(), epochs=[0, EPOCHS - 1], batches=4, device_id=None)
    first, last = over.at(0), over.at(EPOCHS - 1)
    assert first.draw("rotate", "angle").low >= -5 and first.draw("rotate", "angle").high <= 5
    assert last.draw("rotate", "angle").high - last.draw("rotate", "angle").low > 10
    assert first.scheduled["flip.apply"] == pytest.approx(0.1)
    assert last.scheduled["flip.apply"] == pytest.approx(0.9)
    # each epoch's rate agrees with its scheduled probability (a binomial interval)
    for figures in (first, last):
        assert figures.stats.rate("flip").agrees(), figures.stats.rate("flip")
    assert "epoch 9" in over.summary()
    assert json.loads(json.dumps(over.to_json()))["figures"][1]["epoch"] == EPOCHS - 1


def test_an_epoch_the_run_lacks_is_refused_before_anything_runs() -> None:
    with pytest.raises(EpochError, match=r"epochs 0\.\.9"):
        collect_stats(ramped(), batches=1, device_id=None, epoch=EPOCHS)
    with pytest.raises(EpochError):
        stats_over_run(ramped(), epochs=[0, -1], device_id=None)


def test_the_command_line_counts_an_epoch(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = save(ramped(), tmp_path / "ramped.json")
    assert main(["stats", str(path), "--batches", "1", "--epoch", "9"]) == 0
    out = capsys.readouterr().out
    assert "uniform(low=-40.0, high=40.0)" in out and "declared 0.9" in out
    assert main(["stats", str(path), "--batches", "1", "--epoch", "10"]) == 2
    assert "not in this run" in capsys.readouterr().err


def test_the_values_scheduled_for_an_integer_argument_are_those_it_ran_with() -> None:
    spec = preset("basic").insert_after(
        "rotate", Node("jpeg", "jpeg_compression_distortion", inputs=(Ref("rotate"),)), rewire=True
    )
    spec = spec.with_epochs(5).with_schedule("jpeg.quality", Schedule.linear(30, 90.5))
    over = stats_over_run(spec, epochs=[1], batches=1, device_id=None)
    assert over.at(1).scheduled["jpeg.quality"] == 45  # 45.125 was said, 45 ran
