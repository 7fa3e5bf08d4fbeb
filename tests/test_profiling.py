"""Per-operator profiles: honest sums, node pipelines that match the engine, report contents, CLI,
chart, and the errors of a run."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from augexplorer import GraphInvalid, Session, preset
from augexplorer.cli import main
from augexplorer.data import open_source
from augexplorer.engine.runners import StepRunner
from augexplorer.errors import DataError
from augexplorer.profiling import OVERLAP_NOTE, profile
from augexplorer.profiling.contention import CoreWaits, HostSteal
from augexplorer.profiling.staged import StagedGraph, node_groups
from augexplorer.spec import Ref

PRESETS = ["basic", "imagenet_train", "imagenet_val", "randaugment", "random_affine"]


# On a 2-core machine our own pipeline threads wait for a core 4-28% of the time with nothing
# else running (wall-clock ratios then 0.93-1.07); beyond half the time, other programs
# own the cores and wall time measures them more than the operators.
OTHER_PROGRAMS_HOG_THE_CORES = 0.5
# Time the hypervisor gives to other virtual machines looks, from inside, like slower
# operators: a profile whose cores were a fifth stolen says more about the neighbours.
HOST_TOOK_THE_CORES = 0.2
# The nodes summed must account for the fused pipeline: nothing missed, nothing counted twice.
# On a quiet 2-core machine the presets land within 15% (BENCHMARKS.md), but on another 2-core
# host imagenet_train's sums came out 1.17-1.28 on both clocks, its isolated normalize taking
# 3.5 ms where it takes 1.4 on the quiet machine. That is about what faulting in its 9.6 MB float output costs
# (2,355 page faults, 1-4 us each on the quiet machine; half the runs of either side fault): a cost
# that depends on the host, not on our sums. The 15% figure is a benchmark; this test holds the
# bound that a missed node of a quarter or more, or a doubled resize, breaks (imagenet_train:
# resize 55% of the work, decode 27%).
NODES_ACCOUNT_FOR_THE_FUSED = (0.7, 1.4)
# Profiles in separate processes, a few seconds apart: the checked figure is their median, so
# one run caught in a burst of other work cannot decide the outcome.
PROFILE_RUNS = 3


@pytest.fixture(scope="module", params=PRESETS)
def preset_profiles(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> list[dict[str, Any]]:
    # Profiled the way a user does, `augexplorer profile` in a fresh process: a long test
    # process carries other tests' pipelines, threads and heap, which skewed the wall clock.
    # Same threads, batch and synchronous execution on both sides, on the same batches,
    # interleaved; each batch run 3 times per side keeping the fastest whole run; each run's
    # figure is the median over batches of (nodes summed / fused). Batch 16, the benchmarks'
    # size: at 8 each per-node pipeline's fixed cost is a large share of a cheap node
    # (randaugment's wall ratio wandered 1.03-1.17 at 8, 1.00-1.05 at 16).
    folder = tmp_path_factory.mktemp("profile")
    reports = []
    for run in range(PROFILE_RUNS):
        out = folder / f"{request.param}-{run}.json"
        command = [sys.executable, "-m", "augexplorer", "profile", request.param]
        command += ["--device", "cpu", "--batch-size", "16", "--repeats", "7", "--attempts", "3"]
        command += ["--json", str(out)]
        finished = subprocess.run(command, capture_output=True, text=True)
        assert finished.returncode == 0, finished.stderr
        reports.append(json.loads(out.read_text()))
    return reports


def _median(reports: list[dict[str, Any]], key: str) -> float | None:
    values = [report[key] for report in reports if report[key] is not None]
    return statistics.median(values) if values else None


def _summary(reports: list[dict[str, Any]], key: str) -> str:
    def one(report: dict[str, Any]) -> str:
        rows = ", ".join(f"{row['node']} {row['median_ms']:.1f}" for row in report["nodes"])
        waited, stolen = report["waited_for_cpu"], report["stolen_by_host"]
        return (
            f"{key} {report[key]:.3f} (nodes ms: {rows}; fused {report['fused']['median_ms']:.1f};"
            f" waited {waited if waited is None else round(waited, 2)},"
            f" stolen {stolen if stolen is None else round(stolen, 2)})"
        )

    machine = reports[0]["machine"]
    return f"{reports[0]['graph']} on {machine['cpu_count']} cores: " + "; ".join(map(one, reports))


@pytest.mark.slow
@pytest.mark.solo  # its ratio of times holds only without other tests beside it
def test_operator_cpu_times_account_for_the_fused_pipeline(
    preset_profiles: list[dict[str, Any]],
) -> None:
    # CPU time counts the work done, whatever else runs on the machine: the nodes timed one by
    # one must account for the fused pipeline's work, nothing missed and nothing counted twice
    ratio = _median(preset_profiles, "cpu_sum_to_fused")
    summary = _summary(preset_profiles, "cpu_sum_to_fused")
    low, high = NODES_ACCOUNT_FOR_THE_FUSED
    assert ratio is not None and low <= ratio <= high, summary


@pytest.mark.slow
@pytest.mark.solo  # its ratio of times holds only without other tests beside it
def test_operator_times_account_for_the_fused_pipeline(
    preset_profiles: list[dict[str, Any]],
) -> None:
    waited = _median(preset_profiles, "waited_for_cpu")
    stolen = _median(preset_profiles, "stolen_by_host") or 0.0
    if waited is None or waited >= OTHER_PROGRAMS_HOG_THE_CORES or stolen >= HOST_TOOK_THE_CORES:
        # Wall time then measures the other programs more than the operators (on a 2-core
        # machine at load 8, single batches took 0.2x to 7x their usual time); the CPU-time
        # test above still ran on these very profiles.
        pytest.skip(f"cores shared: {_summary(preset_profiles, 'sum_to_fused')}")
    ratio = _median(preset_profiles, "sum_to_fused")
    low, high = NODES_ACCOUNT_FOR_THE_FUSED
    assert ratio is not None and low <= ratio <= high, _summary(preset_profiles, "sum_to_fused")


@pytest.fixture(scope="module")
def val_profile():  # type: ignore[no-untyped-def]
    return profile("imagenet_val", repeats=3, warmup=1, batch_size=4, device="cpu")


def test_rows_cover_every_node_with_all_samples(val_profile) -> None:  # type: ignore[no-untyped-def]
    assert val_profile.nodes == ["source", "decode", "resize", "normalize"]
    assert [row.op for row in val_profile.rows][1:] == [
        "decoders.image",
        "resize",
        "crop_mirror_normalize",
    ]
    for row in val_profile.rows:
        assert row.device == "cpu"
        assert len(row.samples_ms) == 3
        assert len(row.harness_ms) == 3
        assert len(row.cpu_samples_ms) == 3
    assert val_profile.row("resize").median_ms > 0
    assert val_profile.row("resize").cpu_median_ms > 0
    assert len(val_profile.fused_cpu_samples_ms) == 3
    assert val_profile.waited_for_cpu is None or 0.0 <= val_profile.waited_for_cpu <= 1.0
    assert sum(val_profile.share(row) for row in val_profile.rows) == pytest.approx(1.0)
    assert len(val_profile.fused_samples_ms) == 3
    assert val_profile.images_per_s == pytest.approx(4000.0 / val_profile.fused_ms)


def test_json_holds_rows_fused_time_and_note(val_profile) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(val_profile.to_json()))
    assert data["format"] == "augexplorer.profile"
    assert data["batch_size"] == 4 and data["repeats"] == 3 and data["warmup"] == 1
    assert [n["node"] for n in data["nodes"]] == val_profile.nodes
    decode = data["nodes"][1]
    assert decode["op"] == "decoders.image" and len(decode["samples_ms"]) == 3
    assert decode["median_ms"] == pytest.approx(val_profile.row("decode").median_ms)
    assert data["fused"]["median_ms"] == pytest.approx(val_profile.fused_ms)
    assert data["fused"]["images_per_s"] > 0
    assert data["fused"]["cpu_median_ms"] == pytest.approx(val_profile.fused_cpu_ms)
    assert data["cpu_sum_to_fused"] == pytest.approx(val_profile.cpu_sum_to_fused)
    assert data["stolen_by_host"] == val_profile.stolen_by_host
    assert len(data["nodes"][2]["cpu_samples_ms"]) == 3
    assert data["machine"]["cpu_count"] >= 1
    assert data["note"] == OVERLAP_NOTE


def test_table_names_operators_devices_and_the_upper_bound(val_profile) -> None:  # type: ignore[no-untyped-def]
    table = val_profile.table()
    for row in val_profile.rows:
        assert row.node in table and row.op in table
    assert "ms/batch" in table and "share" in table
    assert "fused pipeline" in table and "upper bound" in table and "cpu ms" in table
    assert f"{val_profile.row('resize').median_ms:.2f}" in table


def test_random_draws_count_towards_their_node() -> None:
    result = profile("basic", repeats=2, warmup=1, batch_size=4)
    assert result.row("rotate").steps == ("rotate_angle", "rotate")
    assert result.row("flip").steps == ("flip_horizontal", "flip")
    assert result.nodes == ["source", "decode", "resize", "rotate", "crop", "flip"]


@pytest.mark.parametrize("name", ["randaugment", "random_affine"])
def test_node_pipelines_reproduce_the_engine_outputs(name: str) -> None:
    # one pipeline per node, draws and coin flip inside, constants baked in: the same images
    # and draws as the engine's step-by-step run of the same batch
    session = Session(name, batch_size=4, device_id=None)
    expected = session.run()
    plan = session.plan
    data = {s.id: open_source(s.source, None) for s in plan.steps if s.source is not None}
    staged = StagedGraph(plan, data, device_id=None, num_threads=2)
    assert all(not fed for runner in staged.nodes.values() for fed in runner.fed)
    outputs: dict[str, list[Any]] = {}
    for origin, steps in node_groups(plan).items():
        if origin in staged.sources:
            outputs[origin] = staged.sources[origin].run()[0]
            continue
        runner = staged.nodes[origin]
        feeds = {ref: outputs[ref.node][ref.output] for ref, _device in runner.external}
        made, _ms = runner.run(feeds)
        assert set(made) == {step.id for step in steps}
        outputs.update(made)
    for step in plan.steps:
        for index in range(step.output_count):
            got = [np.array(sample) for sample in outputs[step.id][index]]
            want = expected.arrays(Ref(step.id, index))
            assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True)), step.id


def test_the_step_runner_bakes_constants_when_asked() -> None:
    plan = Session("imagenet_val", batch_size=4, device_id=None).plan
    step = plan.step("resize")
    options: dict[str, Any] = {"batch_size": 4, "device_id": None, "num_threads": 1}
    fed = StepRunner(step, input_devices=["cpu"], **options)
    baked = StepRunner(step, input_devices=["cpu"], feed_scalars=False, **options)
    assert fed.group.fed == [("resize_shorter",)] and baked.group.fed == [()]
    encoded = Session("imagenet_val", batch_size=4, device_id=None).run().steps["decode"].outputs
    from_fed = [np.array(sample) for sample in fed.run(step, encoded, {})[0][0]]
    from_baked = [np.array(sample) for sample in baked.run(step, encoded, {})[0][0]]
    assert len(from_fed) == 4
    assert all(np.array_equal(a, b) for a, b in zip(from_fed, from_baked, strict=True))


def test_core_waits_measure_a_share_of_runnable_time() -> None:
    waits = CoreWaits()
    waits.start()
    deadline = time.perf_counter() + 0.05
    while time.perf_counter() < deadline:  # a thread that is always ready to run
        pass
    share = waits.stop()
    if not Path("/proc/self/task").is_dir():
        assert share is None
    else:
        assert share is not None and 0.0 <= share < 1.0
        assert waits.share == share


def test_host_steal_is_a_share_of_the_cores_time() -> None:
    steal = HostSteal()
    steal.start()
    time.sleep(0.05)
    share = steal.stop()
    if not Path("/proc/stat").is_file():
        assert share is None
    else:
        assert share is not None and 0.0 <= share < 1.0
        assert steal.share == share


def test_profile_of_a_session_uses_its_graph() -> None:
    session = Session("imagenet_train", batch_size=4)
    session.set_arg("resize", "resize_x", 240.0)
    result = profile(session, repeats=2, warmup=1)
    assert result.batch_size == 4
    assert result.nodes == ["source", "decode", "resize", "normalize"]


def _count_sessions_built(monkeypatch: pytest.MonkeyPatch) -> list[Session]:
    built: list[Session] = []
    build = Session.__init__

    def counted(self: Session, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        build(self, *args, **kwargs)

    monkeypatch.setattr(Session, "__init__", counted)
    return built


def test_profile_of_a_session_times_that_session_without_building_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = Session("imagenet_val", batch_size=4, device_id=None)
    session.set_arg("resize", "resize_shorter", 240.0)
    built = _count_sessions_built(monkeypatch)
    # asking for what the session already has (its batch size, its threads) is no change
    same = profile(session, repeats=1, warmup=0, batch_size=4, num_threads=session.num_threads)
    assert built == []
    # a change builds its own session, timing the same plan; the given one keeps its batch
    changed = profile(session, repeats=1, warmup=0, num_threads=session.num_threads + 1)
    assert len(built) == 1 and built[0] is not session
    assert session.plan.spec.batch_size == 4
    assert [(r.node, r.op, r.device, r.steps) for r in same.rows] == [
        (r.node, r.op, r.device, r.steps) for r in changed.rows
    ]
    assert (same.name, same.batch_size, same.device) == (changed.name, 4, "cpu")
    assert changed.num_threads == same.num_threads + 1


def test_chart_is_written_as_png(val_profile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = val_profile.save_chart(tmp_path / "profile.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figure = val_profile.chart()
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert "resize (resize)" in labels


def test_cli_prints_the_table_and_writes_json_and_chart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_json, out_png = tmp_path / "p.json", tmp_path / "p.png"
    code = main(
        [
            *("profile", "imagenet_val", "--repeats", "2", "--warmup", "1", "--batch-size", "4"),
            *("--device", "cpu", "--json", str(out_json), "--chart", str(out_png)),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "crop_mirror_normalize" in printed and "fused pipeline" in printed
    assert json.loads(out_json.read_text())["nodes"][0]["node"] == "source"
    assert out_png.read_bytes()[:4] == b"\x89PNG"


def test_invalid_graph_raises_graph_invalid_and_the_cli_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from augexplorer.spec import save

    bad = preset("imagenet_val").set_arg("resize", "no_such_argument", 1.0)
    with pytest.raises(GraphInvalid) as raised:
        profile(bad, repeats=1, warmup=0)
    assert any(p.node == "resize" for p in raised.value.problems)
    path = tmp_path / "bad.json"
    save(bad, path)
    assert main(["profile", str(path), "--repeats", "1"]) == 2
    err = capsys.readouterr().err
    assert "augexplorer profile:" in err and "resize" in err and "no_such_argument" in err


def test_empty_folder_raises_data_error_and_the_cli_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(DataError, match="no images found"):
        profile("basic", data=tmp_path, repeats=1, warmup=0)
    assert main(["profile", "basic", "--data", str(tmp_path), "--repeats", "1"]) == 2
    assert "no images found" in capsys.readouterr().err


def test_gpu_placement_on_a_cpu_only_machine_is_refused_by_validation() -> None:
    from augexplorer.devices import has_gpu

    if has_gpu():
        pytest.skip("this machine has a GPU")
    with pytest.raises(GraphInvalid, match="needs a GPU"):
        profile("imagenet_val", repeats=1, warmup=0, device="gpu")


@pytest.mark.gpu
def test_gpu_profile_times_gpu_operators() -> None:
    result = profile("imagenet_train", repeats=3, warmup=2, device="gpu")
    assert result.row("decode").device == "mixed"
    assert result.row("resize").device == "gpu"
    assert all(row.median_ms >= 0 for row in result.rows)
    assert result.fused_ms > 0
