"""A big folder opens on its listing: the batch's own files are looked at before decoding, the
rest in the background; what was learnt is cached and made anew when a folder changes.

"Big" is :data:`augexplorer.data.CHECK_ALL_BELOW` files or more; these tests set it to 0 so that
small folders take the same path."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from bad_inputs import IMAGE_MAKERS, jpeg_bytes

from augexplorer import Session, folder_cache
from augexplorer import data as data_module
from augexplorer.catalog import Catalog
from augexplorer.data import SourceData, open_source
from augexplorer.errors import DataError
from augexplorer.file_survey import FileSurvey
from augexplorer.folder_listing import (
    BESIDE_CLASSES,
    BROKEN,
    HIDDEN_FOLDER,
    HIDDEN_IMAGE,
    LOOP,
    NESTED_FOLDER,
    is_hidden,
    is_image_name,
    list_folder,
)
from augexplorer.path_table import RunLabels
from augexplorer.presets import preset
from augexplorer.spec import Source


@pytest.fixture
def big(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(data_module, "CHECK_ALL_BELOW", 0)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    yield


def folder(root: Path, classes: dict[str, list[str]]) -> Path:
    """Class folders of good JPEGs, and the named corpus images where a name is in IMAGE_MAKERS."""
    for name, files in classes.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        for file in files:
            maker = IMAGE_MAKERS.get(file)
            (root / name / file).write_bytes(maker() if maker else jpeg_bytes(32, 40))
    return root


def session(root: Path, catalog: Catalog, *, skip_bad: bool = False) -> Session:
    source = Source("source", "folder", str(root), shuffle=False, skip_bad=skip_bad)
    return Session(
        preset("basic").with_source(source), batch_size=2, catalog=catalog, device_id=None
    )


GOOD = [f"good_{index}.jpg" for index in range(4)]


def open_big(root: Path, *, skip_bad: bool = False) -> SourceData:
    """`root` opened as the session opens it, once its background look (and the keeping of
    its listing in the cache, done in the same thread) is over."""
    source = Source("source", "folder", str(root), skip_bad=skip_bad)
    data = open_source(source, skip_bad=skip_bad, check_all=False)
    assert data.survey is not None and data.survey.start().wait(60)
    return data


# ---- the listing -------------------------------------------------------------------------------


def old_listing(
    root: str,
) -> tuple[list[str], list[str], list[int], list[tuple[str, str]], list[tuple[str, str]]]:
    """The listing as it was made before entries' kinds came from the directory: a ``stat`` of
    every entry (the rule itself unchanged): classes, files, labels, ignored, bad."""

    def kind(path: str, is_link: bool) -> str:
        try:
            info = os.stat(path)
        except OSError as error:
            return "loop" if error.errno == errno.ELOOP else ("broken" if is_link else "other")
        if stat.S_ISDIR(info.st_mode):
            return "folder"
        return "file" if stat.S_ISREG(info.st_mode) else "other"

    def entries(path: str) -> list[os.DirEntry[str]]:
        with os.scandir(path) as found:
            return sorted(found, key=lambda entry: entry.name)

    classes, files, labels, ignored, bad, top = [], [], [], [], [], []
    for entry in entries(root):
        found = kind(entry.path, entry.is_symlink())
        if found in ("loop", "broken"):
            bad.append((entry.path, LOOP if found == "loop" else BROKEN))
        elif found == "folder":
            if is_hidden(entry.name):
                ignored.append((entry.path, HIDDEN_FOLDER))
            else:
                classes.append(entry.name)
        elif found == "file" and is_image_name(entry.name):
            if is_hidden(entry.name):
                ignored.append((entry.path, HIDDEN_IMAGE))
            else:
                top.append(entry.path)
    if not classes:
        return classes, top, [0] * len(top), ignored, bad
    ignored += [(path, BESIDE_CLASSES) for path in top]
    for label, name in enumerate(classes):
        for entry in entries(os.path.join(root, name)):
            found = kind(entry.path, entry.is_symlink())
            if found == "folder":
                if not is_hidden(entry.name):
                    ignored.append((entry.path, NESTED_FOLDER))
            elif not is_image_name(entry.name):
                continue
            elif is_hidden(entry.name):
                ignored.append((entry.path, HIDDEN_IMAGE))
            elif found in ("loop", "broken"):
                bad.append((entry.path, LOOP if found == "loop" else BROKEN))
            elif found == "file":
                files.append(entry.path)
                labels.append(label)
    return classes, files, labels, ignored, bad


def cluttered(root: Path) -> Path:
    """Every kind of entry the rule has a word for."""
    folder(root, {"cats": ["a.jpg", "b.JPEG", ".hidden.jpg"], "dogs": ["c.png"], ".git": ["x.jpg"]})
    folder(root, {"__MACOSX": ["y.jpg"], "cats/nested": ["z.jpg"], "cats/.nested": ["w.jpg"]})
    (root / "beside.jpg").write_bytes(jpeg_bytes())
    (root / "cats" / "notes.txt").write_text("not an image")
    (root / "cats" / "loop.jpg").symlink_to("loop.jpg")
    (root / "cats" / "nowhere.jpg").symlink_to("gone.jpg")
    (root / "cats" / "linked.jpg").symlink_to(root / "dogs" / "c.png")
    (root / "cats" / "folder.jpg").mkdir()
    os.mkfifo(root / "cats" / "pipe.jpg")
    (root / "birds").symlink_to(root / "dogs", target_is_directory=True)
    (root / "dangling").symlink_to(root / "no_such_folder")
    return root


@pytest.mark.parametrize("tree", ["cluttered", "flat", "clean"])
def test_the_listing_is_the_old_listing(tmp_path: Path, tree: str) -> None:
    root = tmp_path / tree
    if tree == "cluttered":
        cluttered(root)
    elif tree == "flat":
        folder(tmp_path, {tree: ["p.jpg", "q.png", ".r.jpg", "s.txt"]})
    else:
        folder(root, {"a": GOOD, "b": GOOD[:2]})
    listing = list_folder(str(root))
    made = (listing.classes, listing.files, listing.labels, listing.ignored, listing.bad)
    assert made == old_listing(str(root))
    assert listing.files  # each tree holds images: the comparison is not of two empty lists


def test_a_cached_listing_is_the_listing_and_is_used(
    big: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = cluttered(tmp_path / "tree")
    (root / "cats" / "loop.jpg").unlink()
    (root / "cats" / "nowhere.jpg").unlink()
    (root / "dangling").unlink()
    first = open_big(root)
    known = folder_cache.load(str(root))
    assert known is not None
    fresh = list_folder(str(root))
    assert (known.listing.files, known.listing.labels) == (fresh.files, fresh.labels)
    assert (known.listing.ignored, known.listing.classes) == (fresh.ignored, fresh.classes)

    def no_listing(root: str) -> None:
        raise AssertionError("listed anew though the cache is fresh")

    monkeypatch.setattr(data_module, "list_folder", no_listing)
    again = open_big(root)
    assert again.reader_list is not None  # what DALI's reader reads: the same files and labels
    lines = Path(again.reader_list).read_text().splitlines()
    assert lines == [f"{f} {label}" for f, label in zip(again.files, again.labels, strict=True)]
    assert (again.files, again.labels, again.ignored) == (first.files, first.labels, first.ignored)


@pytest.mark.parametrize("change", ["added", "removed", "renamed", "class added"])
def test_the_cache_is_made_anew_when_a_folder_changes(
    big: None, tmp_path: Path, change: str
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD, "b": GOOD})
    before = open_big(root)
    assert folder_cache.load(str(root)) is not None
    if change == "added":
        (root / "b" / "new.jpg").write_bytes(jpeg_bytes())
    elif change == "removed":
        (root / "a" / "good_0.jpg").unlink()
    elif change == "renamed":
        (root / "a" / "good_1.jpg").rename(root / "a" / "good_9.jpg")
    else:
        folder(root, {"c": GOOD[:1]})
    assert folder_cache.load(str(root)) is None
    after = open_big(root)
    assert after.files == tuple(list_folder(str(root)).files) != before.files
    assert folder_cache.load(str(root)) is not None  # the new listing is kept in turn


# ---- bad files ---------------------------------------------------------------------------------


def test_a_bad_file_in_the_first_batch_is_named_before_it_is_decoded(
    big: None, tmp_path: Path, catalog: Catalog
) -> None:
    root = folder(tmp_path / "tree", {"a": ["a_truncated.jpg", *GOOD]})
    (root / "a" / "a_truncated.jpg").write_bytes(IMAGE_MAKERS["truncated.jpg"]())
    opened = session(root, catalog)  # opening looks at no file
    with pytest.raises(DataError) as raised:
        opened.run()
    message = str(raised.value)
    assert "1 file cannot be read" in message and "a_truncated.jpg" in message
    assert "skip_bad=True" in message  # the same words as opening a small folder


def test_with_skip_bad_the_first_batch_is_read_again_without_its_bad_file(
    big: None, tmp_path: Path, catalog: Catalog
) -> None:
    root = folder(tmp_path / "tree", {"a": ["a_empty.jpg", *GOOD]})
    (root / "a" / "a_empty.jpg").write_bytes(b"")
    result = session(root, catalog, skip_bad=True).run()
    assert [Path(f).name for f in result.files()] == GOOD[:2]
    assert result.sources["source"].skipped == (
        (str(root / "a" / "a_empty.jpg"), "empty file (0 bytes)"),
    )
    everything = open_source(Source("source", "folder", str(root)), skip_bad=True)
    kept = result.sources["source"]
    assert kept.files == everything.files  # as a small folder opens
    assert kept.reader_list is not None  # the reader reads a list without the bad file
    lines = Path(kept.reader_list).read_text().splitlines()
    assert lines == [f"{f} {label}" for f, label in zip(kept.files, kept.labels, strict=True)]


def test_a_bad_file_elsewhere_is_found_in_the_background_and_reported(
    big: None, tmp_path: Path, catalog: Catalog
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD, "b": ["notes.jpg", *GOOD]})
    opened = session(root, catalog)
    result = opened.run()  # the first batch holds good files only
    survey = result.sources["source"].survey
    assert survey is not None and survey.wait(60)
    bad = str(root / "b" / "notes.jpg")
    assert survey.bad() == [(bad, "not an image (unknown format)")]
    notes = result.data_notes()
    assert any("1 image(s) found bad in the background" in note for note in notes), notes
    assert any(bad in note and "cannot be read" in note for note in notes), notes
    assert survey.progress().line() == "all 9 images checked, 1 bad"


def test_with_skip_bad_a_file_found_bad_in_the_background_is_left_out(
    big: None, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD, "b": ["notes.jpg", *GOOD]})
    start = FileSurvey.start
    monkeypatch.setattr(FileSurvey, "start", lambda survey: survey)  # held until the grid
    opened = session(root, catalog, skip_bad=True)
    first = opened.run()
    bad = str(root / "b" / "notes.jpg")
    assert bad in first.sources["source"].files  # not known yet when the first grid came
    survey = first.sources["source"].survey
    assert survey is not None and start(survey).wait(60)
    later = opened.next_batch()
    assert bad not in later.sources["source"].files
    assert later.sources["source"].skipped == ((bad, "not an image (unknown format)"),)
    everything = open_source(Source("source", "folder", str(root)), skip_bad=True)
    assert later.sources["source"].files == everything.files


def test_what_the_background_found_is_cached_and_known_at_the_next_open(
    big: None, tmp_path: Path
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD, "b": ["notes.jpg", *GOOD]})
    source = Source("source", "folder", str(root), skip_bad=True)
    first = open_source(source, skip_bad=True, check_all=False)
    assert first.survey is not None and first.survey.start().wait(60)
    known = folder_cache.load(str(root))
    assert known is not None and known.bad == {
        str(root / "b" / "notes.jpg"): "not an image (unknown format)"
    }
    again = open_source(source, skip_bad=True, check_all=False)
    assert again.survey is not None and again.survey.again  # known at once: left out now
    everything = open_source(source, skip_bad=True)
    assert (again.files, again.skipped) == (everything.files, everything.skipped)
    assert again.survey.start().wait(60)  # a stat of each file, none of them changed
    assert again.notes() == everything.notes()


# ---- a file changed in place -------------------------------------------------------------------


def counting_looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the survey looks at (reads the header of), in order."""
    looked: list[str] = []
    inspect = data_module.inspect_image

    def counted(path: str) -> object:
        looked.append(path)
        return inspect(path)

    monkeypatch.setattr(data_module, "inspect_image", counted)
    return looked


def rewrite(path: Path, content: bytes) -> None:
    """Write `content` over the file at `path` in place (the folder's time does not move), its
    modification time a second later, as an edit made later would leave it."""
    before = path.stat()
    path.write_bytes(content)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))


def test_a_file_spoilt_in_place_is_found_bad_at_the_next_open(
    big: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD, "b": GOOD})
    open_big(root)
    looked = counting_looks(monkeypatch)
    spoilt = root / "b" / "good_2.jpg"
    rewrite(spoilt, IMAGE_MAKERS["notes.jpg"]())
    known = folder_cache.load(str(root))
    assert known is not None and known.bad == {}  # the listing stands: no folder changed
    again = open_big(root)
    assert again.survey is not None
    assert looked == [str(spoilt)]  # the others' stamps are as they were: not read again
    assert again.survey.bad() == [(str(spoilt), "not an image (unknown format)")]
    known = folder_cache.load(str(root))
    assert known is not None and known.bad == {str(spoilt): "not an image (unknown format)"}
    assert known.sizes is not None and known.sizes[again.files.index(str(spoilt))] == -1


def test_a_file_resized_in_place_gets_its_new_decoded_size(
    big: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD})  # 40x32: 3,840 bytes decoded each
    open_big(root)
    rewrite(root / "a" / "good_3.jpg", jpeg_bytes(64, 80))
    again = open_big(root)
    assert again.survey is not None
    sizes = again.survey.decoded_sizes()
    assert sizes is not None and list(sizes) == [3840, 3840, 3840, 64 * 80 * 3]
    known = folder_cache.load(str(root))
    assert known is not None and known.sizes is not None
    assert list(known.sizes) == list(sizes)


def test_a_file_rewritten_with_the_same_size_and_time_is_looked_at_again(
    big: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD})
    open_big(root)
    target = root / "a" / "good_1.jpg"
    before = target.stat()
    content = target.read_bytes()
    target.write_bytes(bytes(len(content)))  # zeros: as long, and not an image
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))  # its old time put back
    looked = counting_looks(monkeypatch)
    again = open_big(root)  # the change time moved all the same
    assert again.survey is not None and looked == [str(target)]
    assert [path for path, _ in again.survey.bad()] == [str(target)]


def test_a_bad_file_mended_in_place_is_no_longer_left_out(
    big: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD, "b": ["notes.jpg", *GOOD]})
    mended = root / "b" / "notes.jpg"
    first = open_big(root, skip_bad=True)
    assert first.survey is not None and first.survey.bad() != []
    rewrite(mended, jpeg_bytes(32, 40))
    source = Source("source", "folder", str(root), skip_bad=True)
    again = open_source(source, skip_bad=True, check_all=False)
    assert str(mended) in again.files and again.skipped == ()  # known changed: not left out
    assert again.survey is not None and again.survey.start().wait(60)
    assert again.survey.bad() == []
    known = folder_cache.load(str(root))
    assert known is not None and known.bad == {}


# ---- file lists --------------------------------------------------------------------------------


def file_list(tmp_path: Path, names: list[str]) -> Path:
    folder(tmp_path / "images", {"a": [name for name in names if name != "missing.jpg"]})
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"images/a/{name} {index}\n" for index, name in enumerate(names)))
    return listing


def list_session(listing: Path, catalog: Catalog, *, skip_bad: bool = False) -> Session:
    source = Source("source", "file_list", str(listing), shuffle=False, skip_bad=skip_bad)
    return Session(
        preset("basic").with_source(source), batch_size=2, catalog=catalog, device_id=None
    )


def test_a_missing_file_of_a_big_list_is_named_by_its_line(
    big: None, tmp_path: Path, catalog: Catalog
) -> None:
    listing = file_list(tmp_path, ["missing.jpg", *GOOD])
    with pytest.raises(DataError) as raised:
        list_session(listing, catalog).run()
    assert "line 1: file not found" in str(raised.value) and "missing.jpg" in str(raised.value)
    result = list_session(listing, catalog, skip_bad=True).run()
    assert [Path(f).name for f in result.files()] == GOOD[:2]
    assert [reason for _, reason in result.sources["source"].skipped] == ["line 1: file not found"]


def test_a_bad_file_of_a_big_list_is_found_in_the_background_by_its_line(
    big: None, tmp_path: Path, catalog: Catalog
) -> None:
    listing = file_list(tmp_path, [*GOOD, "notes.jpg"])
    result = list_session(listing, catalog).run()
    survey = result.sources["source"].survey
    assert survey is not None and survey.wait(60)
    assert survey.bad() == [
        (str(tmp_path / "images" / "a" / "notes.jpg"), "line 5: not an image (unknown format)")
    ]
    everything = open_source(Source("source", "file_list", str(listing)), skip_bad=True)
    assert everything.skipped == tuple(survey.bad())  # as a small list names it


def test_a_batch_too_big_to_decode_is_refused_before_decoding(
    big: None, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = folder(tmp_path / "tree", {"a": GOOD})  # 40x32 RGB: 3,840 bytes decoded each
    monkeypatch.setenv("AUGEXPLORER_MEMORY_BUDGET", "5000")
    with pytest.raises(DataError) as raised:
        session(root, catalog).run()  # a batch of 2: 7,680 bytes
    assert "decoding a batch of 2" in str(raised.value) and "good_0.jpg" in str(raised.value)
    monkeypatch.setenv("AUGEXPLORER_MEMORY_BUDGET", "8000")
    assert len(session(root, catalog).run().files()) == 2


def test_the_panel_notes_show_the_background_look_and_redraw_until_it_ends(
    big: None, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from augexplorer_widgets.data_notes import DataNotes

    root = folder(tmp_path / "tree", {"a": GOOD, "b": ["notes.jpg", *GOOD]})
    start = FileSurvey.start
    monkeypatch.setattr(FileSurvey, "start", lambda survey: survey)  # held until asked
    result = session(root, catalog).run()
    notes = DataNotes()

    async def shown_on_a_loop() -> bool:
        notes.show(result)
        return notes._timer is not None  # a redraw is due while the look goes on

    assert asyncio.run(shown_on_a_loop())
    assert "checking images in the background: 0 of 9" in notes.value
    survey = result.sources["source"].survey
    assert survey is not None and start(survey).wait(60)
    notes.refresh()  # what the timer does
    assert "1 image(s) found bad in the background" in notes.value
    assert "notes.jpg" in notes.value and "checking images" not in notes.value
    assert notes._timer is None  # the look is over: no more redraws


def test_with_skip_bad_the_batch_shown_is_read_again_once_the_look_finds_a_bad_file(
    big: None, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Training's loader looks at every file first and reads without the bad ones: the batch
    shown before the look found them is read again at the next run, whatever runs it (an edit,
    Run), not only at the next batch (it stayed as it was through edits and rerolls)."""
    root = folder(tmp_path / "tree", {"a": ["notes.jpg", *GOOD], "b": GOOD})
    start = FileSurvey.start
    monkeypatch.setattr(FileSurvey, "start", lambda survey: survey)  # held until the grid
    opened = session(root, catalog, skip_bad=True)
    first = opened.run()
    bad = str(root / "a" / "notes.jpg")
    assert bad not in first.files()  # the batch's own files were looked at before decoding
    assert not first.bad_files_found_since()
    survey = first.sources["source"].survey
    assert survey is not None and start(survey).wait(60)
    assert first.bad_files_found_since()
    again = opened.set_arg("flip", "horizontal", 1)  # an edit, the batch index unchanged
    assert again.batch_index == 0 and not again.bad_files_found_since()
    assert bad not in again.sources["source"].files
    everything = open_source(Source("source", "folder", str(root)), skip_bad=True)
    fresh = Session(
        preset("basic").with_source(
            Source("source", "folder", str(root), shuffle=False, skip_bad=True)
        ),
        batch_size=2,
        catalog=catalog,
        device_id=None,
    ).set_arg("flip", "horizontal", 1)
    assert again.sources["source"].files == everything.files
    assert again.files() == fresh.files()  # what a session opened after the look reads


def test_the_panel_runs_again_when_the_look_finds_a_bad_file(
    big: None, tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    from augexplorer_widgets.data_notes import DataNotes

    root = folder(tmp_path / "tree", {"a": ["notes.jpg", *GOOD], "b": GOOD})
    start = FileSurvey.start
    monkeypatch.setattr(FileSurvey, "start", lambda survey: survey)
    opened = session(root, catalog, skip_bad=True)
    runs: list[object] = []
    notes = DataNotes(on_bad_found=lambda: runs.append(notes.show(opened.run())))
    first_result = opened.run()
    notes.show(first_result)
    notes.refresh()
    assert runs == []  # nothing found yet
    survey = opened.result.sources["source"].survey if opened.result else None
    assert survey is not None and start(survey).wait(60)
    notes.refresh()
    assert len(runs) == 1 and "notes.jpg" in notes.value
    notes.refresh()
    assert len(runs) == 1  # left out now: no run again
    # a run again that fails leaves the old result shown: asked once, not on every tick
    failing = DataNotes(on_bad_found=lambda: runs.append(None))
    failing.show(first_result)
    failing.refresh()
    failing.refresh()
    assert len(runs) == 2


@pytest.mark.parametrize("size", ["small", "big"])
def test_an_empty_class_folder_is_said_with_the_label_it_still_takes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str
) -> None:
    """An empty class folder takes a label (DALI's reader numbers every class folder): the
    classes after it are numbered one higher than the folders with images would give, and
    nothing said so (torchvision's ImageFolder refuses an empty class)."""
    if size == "big":
        monkeypatch.setattr(data_module, "CHECK_ALL_BELOW", 0)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = folder(tmp_path / "photos", {"cats": GOOD, "dogs": GOOD})
    (root / "birds").mkdir()
    data = open_source(Source("source", "folder", str(root)), check_all=size == "small")
    assert data.classes == ("birds", "cats", "dogs")
    assert set(data.labels) == {1, 2}
    assert isinstance(data.labels, RunLabels) == (size == "big")  # a big folder's runs
    (note,) = [line for line in data.notes() if "no image" in line]
    assert note.startswith("1 class folder holds no image read, and still takes a label: ")
    assert "'birds' (label 0)" in note
    full = open_source(Source("source", "folder", str(folder(tmp_path / "full", {"a": GOOD}))))
    assert not [line for line in full.notes() if "no image" in line]


@pytest.mark.parametrize("command", ["stats", "render"])
def test_a_command_says_the_bad_files_fix_as_its_own_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """`augexplorer stats` said "open the source with skip_bad=True", Python's words, where the
    command takes --skip-bad."""
    from augexplorer.cli import main

    root = folder(tmp_path / "photos", {"cats": [*GOOD, "truncated.jpg"], "dogs": GOOD})
    written = (
        ["--json", str(tmp_path / "s.json")]
        if command == "stats"
        else ["-o", str(tmp_path / "g.png")]
    )
    code = main([command, "basic", "--data", str(root), *written])
    said = capsys.readouterr().err
    assert code == 2
    assert "truncated.jpg" in said and "pass --skip-bad to leave them out" in said
    assert "skip_bad=True" not in said
