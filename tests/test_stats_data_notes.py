"""A report says what its data left out: "every image once" over a folder read with skip_bad is
every image but the bad ones, and the report names them (the summary the command line and the
Statistics tab print, and the JSON)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.presets import preset
from augexplorer.spec import Source
from augexplorer.stats import collect_stats_all


def folder_with_a_bad_file(root: Path) -> Path:
    folder = root / "images"
    for photo in sorted(samples_dir().rglob("*.jpg"))[:5]:
        (folder / photo.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(photo, folder / photo.parent.name / photo.name)
    (folder / "food" / "broken.jpg").parent.mkdir(exist_ok=True)
    (folder / "food" / "broken.jpg").write_bytes(b"not a jpeg")
    return folder


def test_files_skipped_as_bad_are_named_in_the_report(tmp_path: Path) -> None:
    folder = folder_with_a_bad_file(tmp_path)
    source = Source("source", "folder", str(folder), skip_bad=True)
    stats = collect_stats_all(preset("basic").with_source(source), batch_size=2, device_id=None)
    assert stats.samples == 5
    assert stats.data_notes[0] == "1 of 6 images skipped as bad (skip_bad)"
    assert any("broken.jpg" in note for note in stats.data_notes)
    assert "data: 1 of 6 images skipped as bad" in stats.summary()
    assert stats.to_json()["data_notes"] == stats.data_notes


def test_a_folder_read_whole_has_no_notes(tmp_path: Path) -> None:
    stats = collect_stats_all(preset("basic"), batch_size=8, device_id=None)
    assert stats.data_notes == [] and "data:" not in stats.summary()


def test_the_command_line_report_says_so(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = folder_with_a_bad_file(tmp_path)
    written = tmp_path / "stats.json"
    code = main(
        ["stats", "basic", "--data", str(folder), "--skip-bad", "--all", "--json", str(written)]
    )
    assert code == 0
    assert "images skipped as bad" in capsys.readouterr().out
    assert any("broken.jpg" in note for note in json.loads(written.read_text())["data_notes"])
