"""Whole-dataset statistics (`augexplorer stats --all`): every image once, and the same report
from two torchrun processes (gloo, on the CPU) as from one; the reduction on fake state."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.spec import GraphSpec, Random, Source, chain, load, save
from augexplorer.stats import LabelCounts, OutputStats, Rate, RunningMoments
from augexplorer.stats.reduce import reduce_tallies
from augexplorer.stats.report import Stats
from augexplorer.stats.runner import StatsRun
from augexplorer.stats.state import Op
from augexplorer.stats.together import RankFailed
from augexplorer.stats.whole import collect_stats_all

FILES = 12
# Float sums (moments of float values, fill shares) are added in another order when each process
# sums its shard first: they may differ from one running sum by rounding, nothing more.
FLOAT_SUMS = 1e-9


def twelve_files(folder: Path) -> Path:
    """A file list of 12 bundled photos, labelled 0..11: each label names one file, so the label
    counts show which files were read and how often."""
    photos = sorted(samples_dir().rglob("*.jpg"))[:FILES]
    assert len(photos) == FILES
    listing = folder / "twelve.txt"
    listing.write_text("".join(f"{photo} {index}\n" for index, photo in enumerate(photos)))
    return listing


def small_graph(folder: Path) -> Path:
    """Decode, a small resize, and a random mirror into normalised floats: pixels, shapes and
    float moments, a coin flip's draws and a uint8 and a float output."""
    spec: GraphSpec = chain(
        Source("source", shuffle=True, seed=5),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_shorter": 48.0}),
        (
            "normalize",
            "crop_mirror_normalize",
            {
                "crop": [40.0, 40.0],
                "mean": [120.0, 110.0, 100.0],
                "std": [60.0, 60.0, 60.0],
                "dtype": "FLOAT",
                "mirror": Random.coin_flip(0.5),
            },
        ),
        name="small",
        batch_size=4,
    )
    path = folder / "small.json"
    save(spec, path)
    return path


def test_all_counts_every_file_once_with_a_partial_last_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listing, graph = twelve_files(tmp_path), small_graph(tmp_path)
    out = tmp_path / "all.json"
    argv = ["stats", str(graph), "--data", str(listing), "--batch-size", "5", "--all"]
    assert main([*argv, "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    # 5 + 5 + 2: the last batch's three padding samples (the next epoch's) are not counted
    assert figures["samples"] == FILES and figures["batches"] == 3
    assert figures["whole_dataset"] is True and figures["processes"] == 1
    assert figures["labels"][0]["columns"] == [{str(i): 1 for i in range(FILES)}]
    for output in figures["outputs"]:
        assert output["samples"] == FILES, output["ref"]
    assert figures["rates"][0]["trials"] == FILES
    captured = capsys.readouterr()
    assert "every image once" in captured.out
    progress = captured.err.splitlines()
    assert progress[-1].startswith("stats --all: 3/3 batches (100%)"), progress
    assert "images/s" in progress[-1] and "ETA" in captured.err


def test_all_and_batches_are_exclusive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["stats", "basic", "--all", "--batches", "3"])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert "argument --batches: not allowed with argument --all" in said, said
    assert main(["stats", "basic", "--world-size", "2"]) == 2  # spreads only an --all run
    assert "(fix: add --all)" in capsys.readouterr().err


def test_two_gloo_ranks_give_the_single_process_report(tmp_path: Path) -> None:
    listing, graph = twelve_files(tmp_path), small_graph(tmp_path)
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    common = ["stats", str(graph), "--data", str(listing), "--batch-size", "4", "--all"]
    assert main([*common, "--json", str(one)]) == 0
    # two processes through torchrun, 6 files each: a full batch and a partial one on each
    started = subprocess.run(
        [sys.executable, "-m", "augexplorer", *common, "--world-size", "2", "--json", str(two)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert started.returncode == 0, started.stderr[-3000:]
    single, pair = json.loads(one.read_text()), json.loads(two.read_text())
    assert pair["processes"] == 2 and pair["samples"] == single["samples"] == FILES
    assert pair["batches"] == 4 and single["batches"] == 3  # 2 + 2 against 3
    # Each rank draws its own values (the seeds of its rank, as the exported loader): the draws
    # differ, and how many there were does not.
    assert [d["draws"] for d in pair["draws"]] == [d["draws"] for d in single["draws"]]
    assert [r["trials"] for r in pair["rates"]] == [r["trials"] for r in single["rates"]]
    # Every other figure is the same: a mirror moves no value of a centred crop.
    for figures in (single, pair):
        for key in ("seconds", "processes", "batches", "batches_requested", "draws", "rates"):
            figures.pop(key)
    assert_same_figures(single, pair)
    decoded = {o["ref"]: o for o in single["outputs"]}["decode"]
    assert decoded["channels"] == {o["ref"]: o for o in pair["outputs"]}["decode"]["channels"]


def assert_same_figures(expected: Any, got: Any, where: str = "") -> None:
    """Equal JSON figures: integers, text and structure exactly, floats to FLOAT_SUMS."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and sorted(expected) == sorted(got), where
        for key in expected:
            assert_same_figures(expected[key], got[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(expected) == len(got), where
        for index, (a, b) in enumerate(zip(expected, got, strict=True)):
            assert_same_figures(a, b, f"{where}[{index}]")
    elif isinstance(expected, float) and not isinstance(got, bool):
        assert isinstance(got, (int, float)), where
        assert math.isclose(expected, got, rel_tol=FLOAT_SUMS, abs_tol=1e-12), (
            where,
            expected,
            got,
        )
    else:
        assert expected == got, (where, expected, got)


# ---- the reduction on fake state, over processes simulated by threads -------------------------
class ThreadWorld:
    """`size` processes simulated by threads: each collective call waits for all of them."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.barrier = threading.Barrier(size, timeout=30)
        self.slots: list[Any] = [None] * size

    def comm(self, rank: int) -> ThreadComm:
        return ThreadComm(self, rank)


class ThreadComm:
    def __init__(self, world: ThreadWorld, rank: int) -> None:
        self.world, self.rank = world, rank

    def _exchange(self, value: Any) -> list[Any]:
        self.world.slots[self.rank] = value
        self.world.barrier.wait()
        every = list(self.world.slots)
        self.world.barrier.wait()  # nobody writes the next call's value before all have read
        return every

    def all_reduce(self, values: np.ndarray, op: Op) -> np.ndarray:
        every = self._exchange(np.array(values))
        assert len({a.shape for a in every}) == 1 and len({a.dtype for a in every}) == 1
        combiners: dict[str, Callable[..., Any]] = {"sum": np.sum, "min": np.min, "max": np.max}
        combine = combiners[op]
        return np.asarray(combine(np.stack(every), axis=0))

    def all_gather(self, value: Any) -> list[Any]:
        return self._exchange(value)


def in_rank_threads(size: int, work: Callable[[int, ThreadComm], Any]) -> dict[int, Any]:
    """`work(rank, comm)` as each of `size` ranks, threads named "rank N": what each returned
    or raised. A rank left waiting for another breaks the barrier after its timeout."""
    world = ThreadWorld(size)
    outcomes: dict[int, Any] = {}

    def rank(index: int) -> None:
        try:
            outcomes[index] = work(index, world.comm(index))
        except Exception as error:  # each rank's outcome is for the caller to check
            outcomes[index] = error

    threads = [threading.Thread(target=rank, args=(i,), name=f"rank {i}") for i in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def run_ranks(tallies: list[list[Any]]) -> None:
    outcomes = in_rank_threads(len(tallies), lambda i, comm: reduce_tallies(tallies[i], comm))
    errors = [outcome for outcome in outcomes.values() if isinstance(outcome, Exception)]
    assert not errors, errors


def fake_tallies(
    blocks: list[np.ndarray], images: list[np.ndarray], labels: list[int]
) -> list[Any]:
    moments, output = RunningMoments(), OutputStats("decode", "decode", "decoders.image")
    rate, counts = Rate("flip", "flip", "probability", 0.5), LabelCounts("source", None)
    for block in blocks:
        moments.add(block)
    if images:
        output.add_batch(images, "HWC")
    rate.add(sum(labels), len(labels))
    counts.add([np.array([label]) for label in labels])
    return [moments, output, rate, counts]


def test_reduction_of_fake_state_equals_one_process_counting_everything() -> None:
    rng = np.random.default_rng(3)
    # rank 0 sees 3 channels, rank 1 a 4th as well, rank 2 nothing: widths are padded
    blocks = [
        [rng.normal(50, 9, (3, 40))],
        [rng.normal(60, 2, (4, 25)), rng.normal(1, 1, (4, 5))],
        [],
    ]
    images = [
        [rng.integers(0, 256, (6, 8, 3), dtype=np.uint8) for _ in range(3)],
        [rng.integers(0, 256, (5, 5, 3), dtype=np.uint8), rng.integers(9, 99, (6, 8, 3), np.uint8)],
        [],
    ]
    labels = [[0, 1, 1], [1, 1, 0, 1, 1], []]
    ranks = [fake_tallies(*part) for part in zip(blocks, images, labels, strict=True)]
    alone = fake_tallies(
        [block for part in blocks for block in part],
        [image for part in images for image in part],
        [label for part in labels for label in part],
    )
    run_ranks(ranks)
    for combined in ranks:  # every process holds the combined figures
        moments, output, rate, counts = combined
        expected_moments = alone[0]
        np.testing.assert_array_equal(moments.count, expected_moments.count)
        np.testing.assert_allclose(moments.mean, expected_moments.mean, rtol=1e-12)
        np.testing.assert_allclose(moments.std, expected_moments.std, rtol=1e-10)
        np.testing.assert_array_equal(moments.min, expected_moments.min)
        np.testing.assert_array_equal(moments.max, expected_moments.max)
        assert output.histograms is not None and alone[1].histograms is not None
        np.testing.assert_array_equal(output.histograms, alone[1].histograms)
        assert_same_figures(alone[1].to_json(), output.to_json())  # sizes: float sums
        assert (rate.successes, rate.trials) == (6, 8)
        assert counts.columns == [Counter({1: 6, 0: 2})] and counts.samples == 8


# ---- a rank that fails stops the others, real pipelines over processes simulated by threads ----
def run_whole_ranks(graph: Path, data: Path, size: int) -> dict[int, Any]:
    """`collect_stats_all` as each of `size` ranks: what each returned or raised."""
    return in_rank_threads(
        size,
        lambda rank, comm: collect_stats_all(
            load(graph),
            data,
            batch_size=4,
            device_id=None,
            rank=rank,
            world_size=size,
            comm=comm,
        ),
    )


def fail_on_rank_1(original: Callable[..., Any], error: Exception) -> Callable[..., Any]:
    def on_rank_1(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "rank 1":
            raise error
        return original(*args, **kwargs)

    return on_rank_1


def test_ranks_given_a_path_count_its_files_once(tmp_path: Path) -> None:
    # a Path is the file list, as a Session takes it (once it was read as arrays and ignored)
    outcomes = run_whole_ranks(small_graph(tmp_path), twelve_files(tmp_path), 2)
    for stats in outcomes.values():
        assert isinstance(stats, Stats), stats
        assert stats.samples == FILES and stats.processes == 2


def test_a_rank_failing_while_counting_stops_every_rank(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = OSError("the disk holding shard 1 went away")
    monkeypatch.setattr(StatsRun, "count", fail_on_rank_1(StatsRun.count, gone))
    outcomes = run_whole_ranks(small_graph(tmp_path), twelve_files(tmp_path), 2)
    assert outcomes[1] is gone  # the failing rank raises its own error
    stopped = outcomes[0]  # the other one neither waits for it nor writes a report
    assert isinstance(stopped, RankFailed), stopped
    assert stopped.failures == [(1, "OSError: the disk holding shard 1 went away")]
    assert str(stopped).startswith(
        "rank 1 failed while counting its shard: OSError: the disk holding shard 1 went away; "
        "rank 0 stops too and no report is written (fix: "
    ), str(stopped)


def test_a_rank_failing_while_building_stops_the_others_before_they_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import augexplorer.stats.whole as whole

    counted: list[str] = []
    count = StatsRun.count

    def count_and_note(*args: Any, **kwargs: Any) -> Any:
        counted.append(threading.current_thread().name)
        return count(*args, **kwargs)

    monkeypatch.setattr(StatsRun, "count", count_and_note)
    broken = RuntimeError("no space left for the pipeline")
    monkeypatch.setattr(whole, "shard_size", fail_on_rank_1(whole.shard_size, broken))
    outcomes = run_whole_ranks(small_graph(tmp_path), twelve_files(tmp_path), 3)
    assert outcomes[1] is broken
    for rank in (0, 2):
        assert isinstance(outcomes[rank], RankFailed), outcomes[rank]
        assert "rank 1 failed while building its pipeline: RuntimeError: " in str(outcomes[rank])
    assert counted == []  # nobody counted a shard whose sums could never be combined
