"""Bad input everywhere: every case of the corpus (tests/bad_inputs.py) gives the error the user
should see, naming the file, node or argument and saying what to do; the session stays usable and
keeps its last good result. Cases that DALI handles fine run and render."""

from __future__ import annotations

import dataclasses
import importlib.util
import struct
import zlib
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from bad_inputs import BATCH, CASES, Case, image_folder, jpeg_bytes, running_as_root

from augexplorer import Session
from augexplorer import data as data_module
from augexplorer.batch_memory import DEFAULT_MEMORY_BUDGET, largest_batch
from augexplorer.builder import build_pipeline
from augexplorer.catalog import Catalog
from augexplorer.data import check_image, open_source
from augexplorer.errors import DataError, GraphInvalid, RunError
from augexplorer.export import export, generate
from augexplorer.presets import preset
from augexplorer.render import encode, render_node
from augexplorer.spec import GraphSpec, Ref, Source
from augexplorer.validate import validate


def _param(case: Case) -> object:
    marks = [pytest.mark.slow] if case.slow else []
    if case.needs_non_root and running_as_root():
        marks.append(pytest.mark.skip(reason="root reads any file; see the simulated test"))
    return pytest.param(case, id=case.name, marks=marks)


def _recovery_spec() -> GraphSpec:
    """A valid graph that differs from the session's first one, so running it must re-run."""
    return preset("basic").set_arg("rotate", "angle", 7.0)


@pytest.fixture
def session(catalog: Catalog) -> Session:
    live = Session("basic", batch_size=BATCH, catalog=catalog)
    live.run()
    return live


def test_corpus_is_big_and_covers_every_kind() -> None:
    assert len(CASES) >= 40
    assert {case.kind for case in CASES} == {"image", "source", "argument", "graph", "spec"}
    assert len({case.name for case in CASES}) == len(CASES), "case names must be unique"
    assert any(case.expect.outcome == "runs" for case in CASES)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_bad_input(case: Case, session: Session, tmp_path: Path) -> None:
    edit = case.make(tmp_path)
    before = session.result
    assert before is not None
    expect = case.expect

    if expect.outcome == "runs":
        result = edit(session)
        assert session.result is result and result is not before
        picture = render_node(result)
        assert encode(picture, "jpeg")[:2] == b"\xff\xd8"
        if case.kind == "image":
            assert any(Path(name).name == case.name.split(":", 1)[1] for name in result.files())
            for decoded in result.arrays("decode"):
                assert decoded.ndim == 3 and decoded.shape[2] == 3 and decoded.dtype == np.uint8
        return

    assert expect.error is not None
    with pytest.raises(expect.error) as raised:
        edit(session)
    message = str(raised.value)
    for name in expect.names:
        assert name in message, f"the error should name {name!r}: {message}"
    assert expect.remedy in message, f"the error should say what to do: {message}"
    assert "Traceback" not in message and "C++ context" not in message
    if isinstance(raised.value, GraphInvalid):
        assert all(problem.fix for problem in raised.value.problems), message

    # Nothing lost: the last good result stays, and a valid edit runs.
    assert session.result is before
    recovered = session.update(_recovery_spec())
    assert recovered is session.result and recovered is not before
    assert recovered.ran(), "the recovery edit must re-run something"


# ---- unreadable files: simulated, since tests run as root and root reads anything ---------------


def test_unreadable_file_is_named_when_access_is_denied(
    session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = image_folder(tmp_path)
    locked = root / "cls" / "locked.jpg"
    locked.write_bytes(jpeg_bytes())
    monkeypatch.setattr(data_module, "_can_read", lambda path: Path(path) != locked)
    before = session.result
    with pytest.raises(DataError) as raised:
        session.set_source(Source("source", "folder", str(root)))
    assert "locked.jpg" in str(raised.value) and "permission denied" in str(raised.value)
    assert "skip_bad=True" in str(raised.value)
    assert session.result is before
    skipping = open_source(Source("source", "folder", str(root)), skip_bad=True)
    assert skipping.skipped == ((str(locked), "cannot be read (permission denied)"),)
    assert [Path(f).name for f in skipping.files] == ["good_0.jpg"]


@pytest.mark.skipif(running_as_root(), reason="root reads any file; the simulated test covers it")
def test_unreadable_file_for_real(tmp_path: Path) -> None:
    root = image_folder(tmp_path)
    locked = root / "cls" / "locked.jpg"
    locked.write_bytes(jpeg_bytes())
    locked.chmod(0)
    with pytest.raises(DataError, match=r"locked\.jpg"):
        open_source(Source("source", "folder", str(root)))
    assert check_image(str(locked)) == "cannot be read (permission denied)"


# ---- skipping bad files -----------------------------------------------------------------------

BAD = ["truncated.jpg", "corrupt_tail.jpg", "empty.jpg", "notes.jpg", "page.png", "noise.png"]
ODD_BUT_FINE = ["cmyk.jpg", "gray.png", "deep16.png", "alpha.png", "tiny.png", "png_named.jpg"]


def test_skip_bad_leaves_out_and_reports_bad_files(tmp_path: Path) -> None:
    root = image_folder(tmp_path, *BAD, *ODD_BUT_FINE, good=2)
    data = open_source(Source("source", "folder", str(root)), skip_bad=True)
    assert sorted(Path(path).name for path, _ in data.skipped) == sorted(BAD)
    assert all(reason for _, reason in data.skipped)
    kept = sorted(Path(f).name for f in data.files)
    assert kept == sorted(["good_0.jpg", "good_1.jpg", *ODD_BUT_FINE])
    assert data.file_root is None, "with files left out the reader must get the list"
    assert data.classes == ("cls",) and set(data.labels) == {0}


def test_skipped_files_never_reach_dali(tmp_path: Path, catalog: Catalog) -> None:
    """The reader gets the kept files only: a whole pass over them decodes without an error."""
    root = image_folder(tmp_path, *BAD, *ODD_BUT_FINE, good=2)
    source = Source("source", "folder", str(root), shuffle=False)
    data = open_source(source, skip_bad=True)
    plan = validate(preset("basic").with_source(source), catalog)
    wanted = [Ref("source"), Ref("decode")]
    pipe = build_pipeline(plan, {"source": data}, outputs=wanted, batch_size=len(data.files))
    pipe.build()
    encoded, decoded = pipe.run()
    assert all(np.array(decoded[i]).shape[2] == 3 for i in range(len(decoded)))
    names = sorted(Path(str(encoded[i].source_info())).name for i in range(len(encoded)))
    assert names == sorted(Path(f).name for f in data.files)


def test_clean_folders_give_the_reader_their_files_too(tmp_path: Path) -> None:
    # DALI's own folder listing (file_root=) would count hidden folders as classes.
    root = image_folder(tmp_path, *ODD_BUT_FINE)
    data = open_source(Source("source", "folder", str(root)))
    assert data.file_root is None and data.skipped == ()
    assert sorted(Path(f).name for f in data.files) == sorted([*ODD_BUT_FINE, "good_0.jpg"])


def test_skip_bad_on_a_file_list_skips_missing_and_bad_files(tmp_path: Path) -> None:
    root = image_folder(tmp_path, "truncated.jpg", good=2)
    listing = tmp_path / "list.txt"
    listing.write_text(
        "images/cls/good_0.jpg 3\nimages/cls/gone.jpg 4\n"
        "images/cls/truncated.jpg 5\nimages/cls/good_1.jpg 6\n"
    )
    data = open_source(Source("source", "file_list", str(listing)), skip_bad=True)
    assert [Path(f).name for f in data.files] == ["good_0.jpg", "good_1.jpg"]
    assert data.labels == (3, 6), "labels must stay with their files"
    reasons = dict(data.skipped)
    assert reasons[str(root / "cls" / "gone.jpg")] == "line 2: file not found"
    assert "truncated" in reasons[str(root / "cls" / "truncated.jpg")]


def test_skip_bad_keeps_multi_label_rows_with_their_files(tmp_path: Path) -> None:
    image_folder(tmp_path, "empty.jpg", good=2)
    listing = tmp_path / "list.txt"
    listing.write_text(
        "images/cls/good_0.jpg 1 2\nimages/cls/empty.jpg 3 4\nimages/cls/good_1.jpg 5 6\n"
    )
    data = open_source(Source("source", "file_list", str(listing)), skip_bad=True)
    assert data.label_table is not None
    assert data.label_table.tolist() == [[1, 2], [5, 6]]


def test_a_folder_of_only_bad_files_is_an_error_even_when_skipping(tmp_path: Path) -> None:
    root = image_folder(tmp_path, "empty.jpg", "notes.jpg", good=0)
    with pytest.raises(DataError) as raised:
        open_source(Source("source", "folder", str(root)), skip_bad=True)
    assert "2 files cannot be read" in str(raised.value)
    assert "empty.jpg" in str(raised.value) and "notes.jpg" in str(raised.value)


def test_error_lists_a_few_bad_files_and_counts_the_rest(tmp_path: Path) -> None:
    folder = image_folder(tmp_path) / "cls"
    for index in range(8):
        (folder / f"empty_{index}.jpg").write_bytes(b"")
    with pytest.raises(DataError) as raised:
        open_source(Source("source", "folder", str(folder.parent)))
    assert "8 files cannot be read" in str(raised.value) and "and 3 more" in str(raised.value)


def test_check_image_passes_odd_images_and_a_huge_header(tmp_path: Path) -> None:
    folder = image_folder(tmp_path, *ODD_BUT_FINE) / "cls"
    for name in ODD_BUT_FINE:
        assert check_image(str(folder / name)) is None, name
    # Pillow's decompression-bomb guard fires at this size; DALI decodes it, so it is no reason.
    from PIL import Image

    big = folder / "wide.png"
    Image.new("1", (20000, 5000)).save(big)
    assert check_image(str(big)) is None
    assert check_image(str(folder / "absent.jpg")) == "file not found"


def test_bad_huffman_table_passes_the_cheap_check_and_the_engine_names_it(
    tmp_path: Path, catalog: Catalog
) -> None:
    """The pre-scan reads headers only; a decoder failure still names the file."""
    root = image_folder(tmp_path, "bad_table.jpg")
    assert check_image(str(root / "cls" / "bad_table.jpg")) is None
    session = Session(
        preset("basic").with_source(Source("source", "folder", str(root), shuffle=False)),
        batch_size=2,
        catalog=catalog,
    )
    with pytest.raises(RunError) as raised:
        session.run()
    assert raised.value.node == "decode"
    assert [Path(f).name for f in raised.value.files] == ["bad_table.jpg"]


def test_session_skips_bad_files_when_the_source_asks(tmp_path: Path, catalog: Catalog) -> None:
    root = image_folder(tmp_path, "truncated.jpg", "empty.jpg", good=2)
    source = Source("source", "folder", str(root), shuffle=False, skip_bad=True)
    session = Session(preset("basic").with_source(source), batch_size=2, catalog=catalog)
    result = session.run()
    assert sorted(Path(f).name for f in result.files()) == ["good_0.jpg", "good_1.jpg"]
    skipped = result.sources["source"].skipped
    assert sorted(Path(path).name for path, _ in skipped) == ["empty.jpg", "truncated.jpg"]


# ---- several bad files, link loops, label range, memory budget ----------------------------------


def test_several_bad_files_are_named_in_one_error_each_once(tmp_path: Path) -> None:
    bad = ["empty.jpg", "truncated.jpg", "notes.jpg"]
    root = image_folder(tmp_path, *bad)
    with pytest.raises(DataError) as raised:
        open_source(Source("source", "folder", str(root)))
    message = str(raised.value)
    assert "3 files cannot be read" in message and "\n" not in message
    for name in bad:
        assert message.count(name) == 1, (name, message)
    listing = tmp_path / "list.txt"
    listing.write_text("images/cls/good_0.jpg 0\nimages/cls/notes.jpg 1\nimages/cls/notes.jpg 2\n")
    with pytest.raises(DataError) as raised:
        open_source(Source("source", "file_list", str(listing)))
    assert str(raised.value).count("notes.jpg") == 1 and "line 2" in str(raised.value)


@pytest.mark.timeout(60)
def test_symbolic_link_loops_are_named_and_never_followed(tmp_path: Path) -> None:
    root = image_folder(tmp_path, good=2)
    (root / "cls" / "up").symlink_to("..")  # a folder inside a class: listed, not searched
    data = open_source(Source("source", "folder", str(root)))
    assert [Path(f).name for f in data.files] == ["good_0.jpg", "good_1.jpg"]
    assert [Path(path).name for path, _ in data.ignored] == ["up"]
    (root / "cls" / "self.jpg").symlink_to("self.jpg")
    with pytest.raises(DataError) as raised:
        open_source(Source("source", "folder", str(root)))
    message = str(raised.value)
    assert str(root / "cls" / "self.jpg") in message and "symbolic link loop" in message
    assert "\n" not in message and "fix:" in message
    skipping = open_source(Source("source", "folder", str(root)), skip_bad=True)
    assert [Path(path).name for path, _ in skipping.skipped] == ["self.jpg"]
    listing = tmp_path / "list.txt"
    listing.write_text(f"{root / 'cls' / 'self.jpg'} 0\n")
    with pytest.raises(DataError, match=r"line 1: symbolic link loop"):
        open_source(Source("source", "file_list", str(listing)))


def test_labels_up_to_int32_reach_dali_and_larger_ones_are_refused(
    tmp_path: Path, catalog: Catalog
) -> None:
    good = image_folder(tmp_path) / "cls" / "good_0.jpg"
    listing = tmp_path / "list.txt"
    listing.write_text(f"{good} 2147483647\n")
    source = Source("source", "file_list", str(listing), shuffle=False)
    result = Session(preset("basic").with_source(source), batch_size=1, catalog=catalog).run()
    assert result.labels("source") == [[2147483647]]
    for text, line in (("2147483648", 1), ("4294967296", 2)):
        listing.write_text(f"{good} 0\n" * (line - 1) + f"{good} {text}\n")
        with pytest.raises(DataError) as raised:
            open_source(source)
        message = str(raised.value)
        assert str(listing) in message and f"line {line}" in message and text in message
        assert "fix:" in message
    exported = export(preset("basic").with_source(source), tmp_path / "aug.py")
    loaded = importlib.util.spec_from_file_location("exported_labels", exported)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    with pytest.raises(ValueError, match="line 2: labels must be from 0 to 2147483647"):
        module.read_file_list(str(listing))


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header declares `width` x `height` (its pixels are never read)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body)
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )


def test_batches_over_the_memory_budget_are_refused_from_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = image_folder(tmp_path, good=3)
    (root / "cls" / "vast.png").write_bytes(_png_header(30000, 30000))  # past Pillow's bomb limit
    source = Source("source", "folder", str(root))
    data = open_source(source)  # no batch size: nothing to judge
    assert max(data.decoded_sizes) == 30000 * 30000 * 3
    with pytest.raises(DataError) as raised:
        data.check_memory(1)
    message = str(raised.value)
    assert "2.51 GB" in message and "vast.png" in message and "memory budget of 2 GB" in message
    assert "even one is over the budget" in message and "AUGEXPLORER_MEMORY_BUDGET" in message
    data.check_memory(4, budget=3 * 1024**3)  # a parameter raises the budget
    monkeypatch.setenv("AUGEXPLORER_MEMORY_BUDGET", "2600M")
    open_source(source, batch_size=4)  # so does the setting
    with pytest.raises(DataError, match="batch size of at most 4"):
        open_source(source, batch_size=5)  # the reader wraps around: the vast image twice
    monkeypatch.setenv("AUGEXPLORER_MEMORY_BUDGET", "lots")
    with pytest.raises(DataError, match="AUGEXPLORER_MEMORY_BUDGET='lots'"):
        open_source(source, batch_size=1)


def test_bundled_samples_are_far_under_the_memory_budget() -> None:
    data = open_source(Source("source"), batch_size=64)
    assert data.decoded_sizes is not None
    assert largest_batch(data.decoded_sizes, 64) < DEFAULT_MEMORY_BUDGET / 20


def test_a_larger_batch_is_checked_again_and_the_last_result_stays(
    tmp_path: Path, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = image_folder(tmp_path, good=4)
    monkeypatch.setenv("AUGEXPLORER_MEMORY_BUDGET", str(3 * 96 * 128 * 3))  # three of them
    spec = preset("basic").with_source(Source("source", "folder", str(root)))
    session = Session(spec, batch_size=2, catalog=catalog)
    before = session.run()
    with pytest.raises(DataError, match="batch size of at most 3"):
        session.update(dataclasses.replace(session.spec, batch_size=4))
    assert session.result is before


# ---- the exported module reads the same sources ------------------------------------------------

READ_CASES = [case for case in CASES if case.kind in ("image", "source") and not case.slow]


@pytest.fixture(scope="module")
def exported_reader(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """An exported module (of a folder graph), loaded as a training script would load it."""
    folder = image_folder(tmp_path_factory.mktemp("exported_data"))
    path = tmp_path_factory.mktemp("exported") / "reader_aug.py"
    spec = preset("basic").with_source(Source("source", "folder", str(folder), shuffle=False))
    path.write_text(generate(spec, formatted=False))
    loaded = importlib.util.spec_from_file_location("reader_aug", path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", [_param(case) for case in READ_CASES])
def test_the_exported_module_reads_the_corpus_sources_as_the_explorer_does(
    case: Case, session: Session, tmp_path: Path, exported_reader: ModuleType
) -> None:
    """Where the explorer reads a folder or a file list, the exported module reads the same
    files and labels; where the explorer refuses it for its text (encoding, labels, missing
    entries), the module refuses it too, naming it; never another error."""
    edit = case.make(tmp_path)
    try:
        edit(session)
        refused: str | None = None
    except (DataError, GraphInvalid, RunError) as error:
        refused = str(error)
    source = session.spec.sources()[0]  # the edit's source, kept even where it failed
    if source.kind not in ("folder", "file_list") or source.path is None:
        return  # arrays and annotated sources: read by other code (tests/test_export*.py)
    try:
        files, labels, _ = exported_reader.read_data(source.path)
    except ValueError as error:
        assert refused is not None, f"the module refused what the explorer read: {error}"
        assert Path(source.path).name in str(error) or "line" in str(error), str(error)
        return
    if refused is None:
        data = open_source(source)
        assert [str(Path(f)) for f in files] == [str(Path(f)) for f in data.files]
        assert len(labels) == len(data.labels)
