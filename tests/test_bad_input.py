"""Bad input everywhere: every case of the corpus (tests/bad_inputs.py) gives the error the user
should see, naming the file, node or argument and saying what to do; the session stays usable and
keeps its last good result. Cases that DALI handles fine run and render."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bad_inputs import BATCH, CASES, Case, image_folder, jpeg_bytes, running_as_root

from augexplorer import Session
from augexplorer import data as data_module
from augexplorer.builder import build_pipeline
from augexplorer.catalog import Catalog
from augexplorer.data import check_image, open_source
from augexplorer.errors import DataError, GraphInvalid, RunError
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


def test_without_skip_bad_clean_folders_keep_file_root(tmp_path: Path) -> None:
    root = image_folder(tmp_path, *ODD_BUT_FINE)
    data = open_source(Source("source", "folder", str(root)))
    assert data.file_root == str(root) and data.skipped == ()


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
