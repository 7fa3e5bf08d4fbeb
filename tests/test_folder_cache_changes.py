"""A big folder opened again after a file was added, removed or changed: only the files added
or changed since are read again (their header), by each file's stamp; what the last survey
found about the others is carried onto the new listing (:mod:`augexplorer.header_carry`). The
listing made anew reads only the class folders whose modification time moved.

"Big" is :data:`augexplorer.data.CHECK_ALL_BELOW` files or more; these tests set it to 0 so
that a folder of 30 files opens as a million-file one does (on its listing, the files looked
at in the background).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from bad_inputs import IMAGE_MAKERS, jpeg_bytes

from augexplorer import Session, folder_cache, folder_listing
from augexplorer import data as data_module
from augexplorer.catalog import Catalog
from augexplorer.data import SourceData, open_source
from augexplorer.errors import DataError
from augexplorer.file_survey import UNKNOWN
from augexplorer.folder_listing import HIDDEN_IMAGE, NESTED_FOLDER, list_folder
from augexplorer.presets import preset
from augexplorer.spec import Source

CLASSES = ("a", "b", "c")
PER_CLASS = 10  # 30 files in all


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A folder of 30 good JPEGs in 3 classes, opened once (its listing and every file's
    header result kept in the cache)."""
    monkeypatch.setattr(data_module, "CHECK_ALL_BELOW", 0)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "tree"
    for name in CLASSES:
        (folder / name).mkdir(parents=True)
        for index in range(PER_CLASS):
            (folder / name / f"{name}_{index:02d}.jpg").write_bytes(jpeg_bytes(32, 40))
    opened = open_big(folder)
    assert len(opened.files) == 30
    yield folder


def open_big(root: Path, *, skip_bad: bool = False) -> SourceData:
    """`root` opened as the session opens it, once its background look is over."""
    source = Source("source", "folder", str(root), skip_bad=skip_bad)
    data = open_source(source, skip_bad=skip_bad, check_all=False)
    assert data.survey is not None and data.survey.start().wait(60)
    return data


@pytest.fixture
def header_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose header is read from now on, in order."""
    read: list[str] = []
    inspect = data_module.inspect_image

    def counted(path: str) -> object:
        read.append(path)
        return inspect(path)

    monkeypatch.setattr(data_module, "inspect_image", counted)
    return read


def kept_results(root: Path) -> folder_cache.Known:
    """What the cache holds for `root` now: its listing is the folder's, and every file has a
    header result with its stamp."""
    known = folder_cache.load(str(root))
    assert known is not None, "the listing kept is not the folder's"
    assert known.listing.files == list_folder(str(root)).files
    assert known.sizes is not None and known.file_stamps is not None
    assert len(known.sizes) == len(known.listing.files)
    assert UNKNOWN not in known.file_stamps
    return known


def test_a_file_added_is_the_only_header_read(root: Path, header_reads: list[str]) -> None:
    added = root / "b" / "b_new.jpg"
    added.write_bytes(jpeg_bytes(64, 80))
    assert folder_cache.load(str(root)) is None  # the folder changed: listed anew
    opened = open_big(root)
    assert header_reads == [str(added)]
    assert len(opened.files) == 31 and str(added) in opened.files
    assert opened.survey is not None and opened.survey.bad() == []
    known = kept_results(root)
    sizes = dict(zip(known.listing.files, known.sizes.tolist(), strict=True))
    assert sizes[str(added)] == 64 * 80 * 3  # its own size, the others' carried
    assert {size for path, size in sizes.items() if path != str(added)} == {32 * 40 * 3}
    header_reads.clear()
    open_big(root)  # nothing changed since: no header read at all
    assert header_reads == []


def test_a_file_removed_reads_no_header_and_is_gone(root: Path, header_reads: list[str]) -> None:
    removed = root / "a" / "a_03.jpg"
    removed.unlink()
    opened = open_big(root)
    assert header_reads == []
    assert len(opened.files) == 29 and str(removed) not in opened.files
    known = kept_results(root)  # kept though no header was read
    assert str(removed) not in known.listing.files
    header_reads.clear()
    open_big(root)
    assert header_reads == []


def test_a_file_touched_in_place_is_read_again(root: Path, header_reads: list[str]) -> None:
    touched = root / "c" / "c_07.jpg"
    before = touched.stat()
    os.utime(touched, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert folder_cache.load(str(root)) is not None  # no folder's time moved
    open_big(root)
    assert header_reads == [str(touched)]


def test_a_file_renamed_and_a_class_added_read_only_their_files(
    root: Path, header_reads: list[str]
) -> None:
    renamed = root / "a" / "a_99.jpg"
    (root / "a" / "a_00.jpg").rename(renamed)
    (root / "d").mkdir()
    new_class = [root / "d" / f"d_{index}.jpg" for index in range(2)]
    for path in new_class:
        path.write_bytes(jpeg_bytes(32, 40))
    opened = open_big(root)
    assert sorted(header_reads) == sorted(map(str, [renamed, *new_class]))
    assert len(opened.files) == 32
    kept_results(root)


def test_the_files_read_again_are_read_whatever_the_class_order(
    root: Path, header_reads: list[str]
) -> None:
    # a class folder before the others moves every later class's files: matched by path,
    # not by place
    (root / "0").mkdir()
    first = root / "0" / "first.jpg"
    first.write_bytes(jpeg_bytes(32, 40))
    opened = open_big(root)
    assert header_reads == [str(first)]
    assert opened.classes == ("0", *CLASSES)
    known = kept_results(root)
    assert np.all(known.sizes == 32 * 40 * 3)


def test_a_bad_file_added_is_reported_as_a_bad_file_is(
    root: Path, header_reads: list[str], catalog: Catalog
) -> None:
    bad = root / "c" / "c_notes.jpg"
    bad.write_bytes(IMAGE_MAKERS["notes.jpg"]())
    source = Source("source", "folder", str(root), shuffle=False)
    session = Session(
        preset("basic").with_source(source), batch_size=2, catalog=catalog, device_id=None
    )
    result = session.run()  # the first batch (class a) holds good files only
    survey = result.sources["source"].survey
    assert survey is not None and survey.wait(60)
    assert header_reads.count(str(bad)) == 1
    assert set(header_reads) == {str(bad), *result.files()}  # the batch's, looked at on demand
    reason = "not an image (unknown format)"
    assert survey.bad() == [(str(bad), reason)]
    notes = result.data_notes()
    assert any("1 image(s) found bad in the background" in note for note in notes), notes
    assert any(str(bad) in note and "cannot be read" in note for note in notes), notes
    with pytest.raises(DataError) as raised:  # as a folder looked at whole names it
        open_source(source)
    assert f"{bad}: {reason}" in str(raised.value)
    known = folder_cache.load(str(root))
    assert known is not None and known.bad == {str(bad): reason}  # and at the next open
    again = open_big(root, skip_bad=True)
    assert str(bad) not in again.files and again.skipped == ((str(bad), reason),)


# ---- the listing made anew reads only the class folders that changed ---------------------------


@pytest.fixture
def class_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The class folders read (listed) from now on."""
    read: list[str] = []
    list_class = folder_listing._list_class

    def counted(folder: str, ignored: list[tuple[str, str]], bad: list[tuple[str, str]]) -> object:
        read.append(os.path.basename(folder))
        return list_class(folder, ignored, bad)

    monkeypatch.setattr(folder_listing, "_list_class", counted)
    return read


def same_listing(root: Path) -> None:
    """The listing kept for `root` is, in every part, the listing made from scratch."""
    known = folder_cache.load(str(root))
    assert known is not None
    fresh = list_folder(str(root))
    assert (known.listing.classes, known.listing.files) == (fresh.classes, fresh.files)
    assert (known.listing.labels, known.listing.ignored) == (fresh.labels, fresh.ignored)
    assert known.listing.bad == fresh.bad


def test_a_file_added_lists_only_its_class_folder_again(
    root: Path, class_reads: list[str], header_reads: list[str]
) -> None:
    (root / "b" / "b_new.jpg").write_bytes(jpeg_bytes(32, 40))
    opened = open_big(root)
    assert class_reads == ["b"]
    assert opened.files == list_folder(str(root)).files
    same_listing(root)


def test_what_the_rule_left_out_of_an_unchanged_class_is_kept_with_it(
    root: Path, class_reads: list[str]
) -> None:
    (root / "a" / ".hidden.jpg").write_bytes(jpeg_bytes(32, 40))  # a hidden image: ignored
    (root / "a" / "nested").mkdir()  # a folder inside a class: ignored
    (root / "a" / "nowhere.jpg").symlink_to(root / "missing.jpg")  # a broken link: bad
    (root / ".git").mkdir()  # a hidden folder: no class
    (root / "beside.jpg").write_bytes(jpeg_bytes(32, 40))  # an image beside the classes
    first = open_big(root, skip_bad=True)
    assert {reason for _, reason in first.ignored} >= {NESTED_FOLDER, HIDDEN_IMAGE}
    class_reads.clear()
    (root / "c" / "c_new.jpg").write_bytes(jpeg_bytes(32, 40))
    again = open_big(root, skip_bad=True)
    assert class_reads == ["c"]
    assert (again.ignored, again.skipped) == (first.ignored, first.skipped)
    same_listing(root)


def test_a_class_folder_added_or_removed_is_read_by_the_rule(
    root: Path, class_reads: list[str]
) -> None:
    (root / "d").mkdir()
    (root / "d" / "d_0.jpg").write_bytes(jpeg_bytes(32, 40))
    for path in (root / "a").iterdir():
        path.unlink()
    (root / "a").rmdir()
    opened = open_big(root)
    assert class_reads == ["d"]
    assert opened.classes == ("b", "c", "d")
    assert opened.labels == list_folder(str(root)).labels  # labels follow the new classes
    same_listing(root)
