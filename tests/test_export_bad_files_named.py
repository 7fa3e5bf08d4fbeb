"""A file DALI cannot read, in data the exported loader trains on (explored on a clean subset,
trained on the whole): DALI's decoder error named no file ("nvImageCodec failure"), so a run
that fails hours in said nothing of which. The module's error names the files and the fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from exported_runner import exported_module

from augexplorer import preset
from augexplorer.data import samples_dir
from augexplorer.spec import Schedule


@pytest.fixture
def with_bad_files(tmp_path: Path) -> Path:
    root = tmp_path / "photos"
    shutil.copytree(samples_dir(), root)
    first = sorted((root / "food").glob("*.jpg"))[0]
    (root / "food" / "truncated.jpg").write_bytes(first.read_bytes()[:3000])
    (root / "space" / "fake.jpg").write_text("not an image")
    return root


@pytest.mark.parametrize("graph", ["plain", "scheduled"])
def test_the_loader_names_the_files_its_decoder_cannot_read(
    graph: str, with_bad_files: Path, tmp_path: Path
) -> None:
    spec = preset("basic")
    if graph == "scheduled":
        spec = spec.with_epochs(3).with_schedule("rotate.angle.high", Schedule.linear(5, 30))
    module = exported_module(spec, tmp_path, f"aug_{graph}")
    with pytest.raises(RuntimeError) as failed:  # the first batch is read as the loader is made
        loader = module.make_loader(str(with_bad_files), batch_size=4, device="cpu", num_threads=1)
        for _ in loader:
            pass
    said = str(failed.value)
    assert said.startswith("the decoder could not read an image, and these files cannot be read")
    assert f"{with_bad_files / 'food' / 'truncated.jpg'}: truncated JPEG" in said
    assert f"{with_bad_files / 'space' / 'fake.jpg'}: not an image" in said
    assert "SKIP_BAD = True" in said
    assert "decoders.image" in str(failed.value.__cause__)  # DALI's own words beneath
