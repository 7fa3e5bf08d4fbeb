"""The folder rule reads the image files DALI's own ``readers.file(file_root=...)`` reads: a
suffix DALI reads and the rule left out (``.pbm`` did) drops those images silently and shifts
nothing else, so the explorer and its export would train on fewer images than the DALI script
they came from."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from augexplorer.folder_listing import IMAGE_SUFFIXES, list_folder

# Suffixes DALI's reader also lists that hold sound, not pictures
AUDIO = (".flac", ".ogg", ".wav")
OTHERS = (".gif", ".jfif", ".jpe", ".j2k", ".heic", ".avif", ".jxl", ".svg", ".npy", ".txt")


def dali_lists(root: Path) -> set[str]:
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def names():  # type: ignore[no-untyped-def]
        files, _ = fn.readers.file(file_root=str(root), name="reader")
        return fn.get_property(files, key="source_info")

    pipe = names()
    pipe.build()
    count = pipe.epoch_size("reader")
    return {bytes(np.array(pipe.run()[0].at(0))).decode() for _ in range(count)}


def test_the_rule_reads_every_image_suffix_dali_reads(tmp_path: Path) -> None:
    folder = tmp_path / "class"
    folder.mkdir()
    suffixes = {*IMAGE_SUFFIXES, *AUDIO, *OTHERS}
    for suffix in suffixes | {s.upper() for s in suffixes}:
        (folder / f"f{suffix}").write_bytes(b"x")  # the readers list names; nothing is decoded
    read = {name for name in dali_lists(tmp_path) if not name.lower().endswith(AUDIO)}
    listed = {str(Path(path).relative_to(tmp_path)) for path in list_folder(str(tmp_path)).files}
    assert listed == read
    assert "class/f.pbm" in listed and "class/f.PBM" in listed
