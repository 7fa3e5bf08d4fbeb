"""A preset placed on data (or a session's graph given data, `Session.set_source`) its reader reads otherwise (a classification preset on a COCO file of
the user's own) gives its outputs what the new reader holds under their names: its ``labels``
are the COCO reader's labels, not the boxes at the index a folder's labels had."""

from __future__ import annotations

import numpy as np

from augexplorer import Session
from augexplorer.data import sample_annotations, samples_dir
from augexplorer.presets import preset, preset_on
from augexplorer.spec import Source

COCO_ARGS = {"ltrb": True, "ratio": True, "skip_empty": True}


def test_a_classification_preset_on_a_coco_file_reads_its_labels_as_labels() -> None:
    own = Source(
        "data",
        "coco",
        str(sample_annotations()),
        file_root=str(samples_dir()),
        reader_args=COCO_ARGS,
    )
    spec = preset_on("basic", own)
    source = spec.sources()[0]
    assert "labels" in preset("basic").outputs
    labels = spec.outputs["labels"]
    assert labels.node == source.id
    assert source.output_name(labels.output) == "labels"
    result = Session(spec, batch_size=4, device_id=None).run()
    # a COCO reader's labels: one integer class per object, not boxes of four numbers
    for sample in result.arrays(labels):
        held = np.asarray(sample)
        assert np.issubdtype(held.dtype, np.integer) and held.ndim <= 2
        assert held.shape[-1] != 4 or held.ndim == 1


def test_a_preset_on_a_source_read_alike_keeps_its_outputs() -> None:
    folder = Source("data", "folder", str(samples_dir()))
    assert preset_on("basic", folder).outputs == preset("basic").outputs


def test_a_session_given_a_coco_file_reads_its_labels_as_labels() -> None:
    session = Session(preset("basic"), batch_size=4, device_id=None)
    own = Source(
        "data", "coco", str(sample_annotations()), file_root=str(samples_dir()),
        reader_args=COCO_ARGS,
    )  # fmt: skip
    session.set_source(own)
    source = session.spec.sources()[0]
    assert source.output_name(session.spec.outputs["labels"].output) == "labels"
