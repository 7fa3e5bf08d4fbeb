"""An auto_aug policy call whose arguments cannot be read back is refused in the user's terms:
which policy, which line, why, and what to do."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from pipeline_files import load_module

from augexplorer.data import samples_dir
from augexplorer.export.importer import import_pipeline
from augexplorer.export.serialized import ImportRefused

PIPELINE = """
from nvidia.dali import fn, pipeline_def
from nvidia.dali.auto_aug import trivial_augment

@pipeline_def(batch_size=2, num_threads=1, device_id=None, enable_conditionals=True)
def {name}():
    jpegs, labels = fn.readers.file(file_root={root!r})
    images = fn.resize(fn.decoders.image(jpegs), resize_x=32, resize_y=32)
    images = trivial_augment.trivial_augment_wide(images, num_magnitude_bins=9, seed=5)
    return images, labels
"""


def test_a_policy_whose_source_is_gone_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "gone_pipeline.py"
    path.write_text(textwrap.dedent(PIPELINE.format(root=str(samples_dir()), name="gone")))
    pipe = load_module(path).gone()
    path.unlink()  # only the serialized pipeline is left: it holds no call arguments
    with pytest.raises(ImportRefused) as refused:
        import_pipeline(pipe, name="augment")
    message = str(refused.value)
    assert "DALI's auto_aug policy `trivial_augment_wide`" in message, message
    assert f"line 9 of {path}" in message
    assert "its source is not readable here" in message
    assert "import the .py file that calls it" in message
    assert "auto_aug.trivial_augment_wide node" in message
    assert "__" not in message  # no DALI instance names


def test_a_policy_line_that_changed_since_it_ran_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "changed_pipeline.py"
    # (another function name: DALI's autograph would reuse the first test's conversion, and
    # the origin it records, for a function of the same name and text)
    path.write_text(textwrap.dedent(PIPELINE.format(root=str(samples_dir()), name="changed")))
    pipe = load_module(path).changed()
    # the file now says another number of bins than the one the pipeline was built with
    path.write_text(path.read_text().replace("num_magnitude_bins=9", "num_magnitude_bins=7"))
    with pytest.raises(ImportRefused) as refused:
        import_pipeline(pipe, name="augment")
    message = str(refused.value)
    assert "`trivial_augment_wide`" in message and "line 9" in message, message
    assert "the operators it made differ from those the call at that line makes" in message
