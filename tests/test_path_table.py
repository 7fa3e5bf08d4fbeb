"""A big folder's files as one block of bytes (augexplorer.path_table): a sequence equal to the
tuple of the same paths in every way a source's files are read, and the listing's fast path
for a class folder of image names equal to the rule's own branches."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from augexplorer import folder_cache
from augexplorer.folder_listing import (
    HIDDEN_IMAGE,
    _plain_images,
    is_hidden,
    is_image_name,
    list_folder,
)
from augexplorer.path_table import PathTable, RunLabels

RUNS = [
    ("/data/cat/", ["a.jpg", "aa.jpg", "b a.jpg", "é.png"]),
    ("/data/dog/", ["a.jpg"]),
    ("/data/émeu/", ["x\udcff.jpg", "y.jpg", "a.jpg.jpg"]),
]
PATHS = tuple(folder + name for folder, names in RUNS for name in names)
LABELS = (0, 0, 0, 0, 1, 3, 3, 3)


def table() -> PathTable:
    return PathTable.from_runs(RUNS)


def labels() -> RunLabels:
    return RunLabels([0, 1, 3], [0, 4, 5, 8])


def test_a_table_reads_as_the_tuple_of_its_paths() -> None:
    paths = table()
    assert len(paths) == len(PATHS) and tuple(paths) == PATHS and list(paths) == list(PATHS)
    assert paths == PATHS and PATHS.__eq__(paths) is NotImplemented and paths == list(PATHS)
    assert paths != PATHS[:-1] and paths != (*PATHS[:-1], "/data/émeu/z.jpg")
    assert [paths[i] for i in range(-len(PATHS), len(PATHS))] == [*PATHS, *PATHS]
    assert paths[2:6] == PATHS[2:6] and paths[::-3] == PATHS[::-3]
    with pytest.raises(IndexError):
        paths[len(PATHS)]
    assert hash(paths) == hash(PATHS)
    assert labels() == LABELS and tuple(labels()) == LABELS and labels()[-3] == 3


def test_a_path_is_found_by_its_whole_name_only() -> None:
    paths = table()
    for index, path in enumerate(PATHS):
        assert path in paths and paths.index(path) == PATHS.index(path) == index
    for absent in [
        "/data/cat/a",
        "/data/cat/.jpg",
        "/data/cat/ a.jpg",
        "/data/dog/aa.jpg",
        "/data/cat/",
        "/data/emeu/y.jpg",
        "/data/émeu/a.jpg",
        "a.jpg",
        "/data/cat/a.jpg\0",
    ]:
        assert absent not in paths
        with pytest.raises(ValueError):
            paths.index(absent)


@pytest.mark.parametrize(
    "gone", [(), (0,), (3,), (4,), (7,), (4, 7), (0, 1, 2, 3), tuple(range(8))]
)
def test_a_table_without_some_paths_is_the_tuple_without_them(gone: tuple[int, ...]) -> None:
    paths = table().without(gone)
    kept = tuple(path for index, path in enumerate(PATHS) if index not in gone)
    assert paths == kept and len(paths) == len(kept)
    assert all(paths.index(path) == index for index, path in enumerate(kept))
    left = table().labels_without(labels(), gone)
    assert left == tuple(label for index, label in enumerate(LABELS) if index not in gone)


def test_the_file_list_of_a_table_is_its_lines(tmp_path: Path) -> None:
    made = tmp_path / "made.txt"
    assert folder_cache._write_file_list(made, table(), labels())
    expected = "".join(f"{path} {label}\n" for path, label in zip(PATHS, LABELS, strict=True))
    assert made.read_bytes() == expected.encode("utf-8", "surrogateescape")
    line_break = PathTable.from_runs([("/data/cat/", ["a\nb.jpg"])])
    assert not folder_cache._write_file_list(
        tmp_path / "no.txt", line_break, RunLabels([0], [0, 1])
    )


NAMES = [
    "a.jpg",
    "B.JPEG",
    "c.Png",
    "d.tİf",
    "e.jpg.txt",
    "f",
    ".g.jpg",
    "h.",
    ".jpg",
    "i.TIFF",
    "j.jp2",
    "k.webp ",
    "l.pgm",
    "m.jpeg\nn.png",
    "o.bmp",
    "__MACOSX",
    "p.t\u0131f",  # a dotless i, which str.lower leaves as it is
    "q.Jpg",
]


@pytest.mark.parametrize(
    "names",
    [["a.jpg\nb.jpg", "c.txt"], ["a.jpg", "b.jpg", ".c.jpg"], ["a.png", "b.png", "c.pngx"]],
)
def test_names_that_all_but_match_the_first_one_s_suffix_are_each_looked_at(
    names: list[str],
) -> None:
    ignored: list[tuple[str, str]] = []
    images = _plain_images("/c/", names, ignored)
    assert images == [n for n in names if is_image_name(n) and not is_hidden(n)] != names


@pytest.mark.parametrize("count", range(1, len(NAMES) + 1))
def test_the_fast_look_at_a_class_of_names_is_the_rule(count: int) -> None:
    for names in itertools.islice(itertools.combinations(sorted(NAMES), count), 200):
        ignored: list[tuple[str, str]] = []
        images = _plain_images("/c/", list(names), ignored)
        expected = [n for n in names if is_image_name(n) and not is_hidden(n)]
        assert images == expected, names
        assert [path for path, _ in ignored] == [
            "/c/" + n for n in names if is_image_name(n) and is_hidden(n)
        ]


def test_a_listing_of_odd_names_is_cached_and_read_back_equal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "tree"
    for folder, names in [
        ("cat", ["a.jpg", "é b.png", ".h.jpg", "x.txt"]),
        ("dog", ["Z.JPG"]),
        ("empty", []),
        ("other", ["notes.txt"]),
    ]:
        (root / folder).mkdir(parents=True)
        for name in names:
            (root / folder / name).write_bytes(b"")
    listing = list_folder(str(root))
    assert listing.files == (f"{root}/cat/a.jpg", f"{root}/cat/é b.png", f"{root}/dog/Z.JPG")
    assert listing.labels == (0, 0, 1) and listing.classes == ["cat", "dog", "empty", "other"]
    stamps = folder_cache.stamps_before_listing(str(root))
    assert stamps is not None
    folder_cache.save_listing(str(root), stamps, listing)
    known = folder_cache.load(str(root))
    assert known is not None
    assert (known.listing.files, known.listing.labels) == (listing.files, listing.labels)
    assert known.listing.ignored == listing.ignored == [(f"{root}/cat/.h.jpg", HIDDEN_IMAGE)]
