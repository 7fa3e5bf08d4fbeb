"""Per-operator profiles: honest sums, report contents, CLI, chart, and the errors of a run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from augexplorer import GraphInvalid, Session, preset
from augexplorer.cli import main
from augexplorer.errors import DataError
from augexplorer.profiling import OVERLAP_NOTE, profile

PRESETS = ["basic", "imagenet_train", "imagenet_val", "randaugment", "random_affine"]


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESETS)
def test_operator_times_sum_to_the_fused_pipeline_within_15_percent(name: str) -> None:
    # same threads, batch and synchronous execution on both sides, on the same batches;
    # the median over repeats of (operators summed / fused) for the same batch
    result = profile(name, repeats=9, warmup=2, device="cpu")
    assert 0.85 <= result.sum_to_fused <= 1.15, result.table()


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
    assert val_profile.row("resize").median_ms > 0
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
    assert data["note"] == OVERLAP_NOTE


def test_table_names_operators_devices_and_the_upper_bound(val_profile) -> None:  # type: ignore[no-untyped-def]
    table = val_profile.table()
    for row in val_profile.rows:
        assert row.node in table and row.op in table
    assert "ms/batch" in table and "share" in table
    assert "fused pipeline" in table and "upper bound" in table
    assert f"{val_profile.row('resize').median_ms:.2f}" in table


def test_random_draws_count_towards_their_node() -> None:
    result = profile("basic", repeats=2, warmup=1, batch_size=4)
    assert result.row("rotate").steps == ("rotate_angle", "rotate")
    assert result.row("flip").steps == ("flip_horizontal", "flip")


def test_profile_of_a_session_uses_its_graph() -> None:
    session = Session("imagenet_train", batch_size=4)
    session.set_arg("resize", "resize_x", 240.0)
    result = profile(session, repeats=2, warmup=1)
    assert result.batch_size == 4
    assert result.nodes == ["source", "decode", "resize", "normalize"]


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
