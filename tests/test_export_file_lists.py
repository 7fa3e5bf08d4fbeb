"""File lists with byte-order marks, spaces in names and odd encodings: the explorer and the
exported module read them the same way (the same files and labels, or a clear error naming the
line and the fix), never a raw error; a fuzzer writes random lists and compares the two readers.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from augexplorer import GraphSpec, Node, Ref, Source
from augexplorer.data import open_source, samples_dir
from augexplorer.errors import DataError
from augexplorer.export import generate

PHOTO = sorted(samples_dir().rglob("*.jpg"))[0]
NAMES = ("plain.jpg", "my photo.jpg", "my  photo.jpg", "café 2.jpg", "3 4.jpg", "tab\tname.jpg")


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("photos")
    for name in NAMES:
        shutil.copyfile(PHOTO, folder / name)
    return folder


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, photos: Path) -> ModuleType:
    """The exported module of a file-list graph, loaded without augexplorer's help."""
    listing = photos / "list.txt"
    listing.write_text("plain.jpg 0\n")
    nodes = (
        Source("source", "file_list", str(listing), shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
    )
    path = tmp_path_factory.mktemp("module") / "list_aug.py"
    path.write_text(generate(GraphSpec(nodes), formatted=False))
    spec = importlib.util.spec_from_file_location("list_aug", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_both(listing: Path, module: ModuleType) -> tuple[object, object]:
    """What each reader makes of `listing`: (files' names, label rows), or the error's text."""
    try:
        data = open_source(Source("source", "file_list", str(listing)))
        rows = data.label_table.tolist() if data.label_table is not None else data.labels
        ours: object = (
            [Path(f).name for f in data.files],
            [list(r) if isinstance(r, list) else [r] for r in rows],
        )
    except DataError as error:
        ours = ("error", str(error))
    try:
        files, label_rows = module.read_file_list(str(listing))
        theirs: object = ([Path(f).name for f in files], label_rows)
    except ValueError as error:
        theirs = ("error", str(error))
    return ours, theirs


CASES = {
    "a byte-order mark": (b"\xef\xbb\xbfplain.jpg 1\nmy photo.jpg 2\n", ["plain.jpg", "my photo.jpg"]),
    "spaces and tabs": (b"my photo.jpg 1\nmy  photo.jpg\t2\ntab\tname.jpg 3\n", ["my photo.jpg", "my  photo.jpg", "tab\tname.jpg"]),
    "digits in a name": (b"3 4.jpg 5\n", ["3 4.jpg"]),
    "a UTF-8 name": ("café 2.jpg 7\n".encode(), ["café 2.jpg"]),
    "Windows line ends": (b"plain.jpg 1\r\nmy photo.jpg 2\r\n", ["plain.jpg", "my photo.jpg"]),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_odd_lists_read_the_same_in_the_explorer_and_the_exported_module(
    case: str, photos: Path, exported: ModuleType
) -> None:
    text, names = CASES[case]
    listing = photos / "odd.txt"
    listing.write_bytes(text)
    ours, theirs = read_both(listing, exported)
    assert ours == theirs
    assert isinstance(ours, tuple) and ours[0] == names


@pytest.mark.parametrize(
    ("text", "ours_say", "exported_says"),
    [
        ("café.jpg 1\n".encode("latin-1"), "line 1 is not UTF-8", "line 1: not UTF-8"),
        ("plain.jpg 1\n".encode("utf-16"), "is UTF-16 text", "is UTF-16 text"),
        (b"plain.jpg cat\n", "labels must be integers, got 'cat'", "got 'cat'"),
    ],
)
def test_unreadable_lists_say_which_line_and_how_to_fix_it(
    text: bytes, ours_say: str, exported_says: str, photos: Path, exported: ModuleType
) -> None:
    listing = photos / "bad.txt"
    listing.write_bytes(text)
    ours, theirs = read_both(listing, exported)
    assert ours[0] == theirs[0] == "error", (ours, theirs)  # type: ignore[index]
    assert "bad.txt" in str(ours[1]) and ours_say in str(ours[1])  # type: ignore[index]
    assert "fix:" in str(ours[1])  # type: ignore[index]
    assert "bad.txt" in str(theirs[1]) and exported_says in str(theirs[1])  # type: ignore[index]


# ---- the fuzzer: random lists, both readers ------------------------------------------------------

names = st.sampled_from((*NAMES, "missing one.jpg"))
labels = st.lists(st.integers(0, 20), min_size=1, max_size=3)
spaces = st.sampled_from([" ", "  ", "\t", " \t "])
lines = st.one_of(
    st.builds(lambda n, ls, s: n + s + s.join(map(str, ls)), names, labels, spaces),
    st.sampled_from(["", "# a comment", "   ", "plain.jpg", "plain.jpg x", "plain.jpg 1.5"]),
)
encodings = st.sampled_from(["utf-8", "utf-8-sig", "latin-1"])


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    body=st.lists(lines, min_size=1, max_size=5),
    encoding=encodings,
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_random_lists_read_the_same_in_the_explorer_and_the_exported_module(
    body: list[str], encoding: str, newline: str, photos: Path, exported: ModuleType
) -> None:
    listing = photos / "fuzzed.txt"
    try:
        listing.write_bytes(newline.join(body).encode(encoding) + newline.encode())
    except UnicodeEncodeError:
        return
    ours, theirs = read_both(listing, exported)
    if ours[0] == "error" or theirs[0] == "error":  # type: ignore[index]
        # both refuse, each naming the list (the wording differs: augexplorer's adds a fix)
        assert ours[0] == theirs[0] == "error", (ours, theirs)  # type: ignore[index]
        assert "fuzzed.txt" in str(ours[1]) and "fuzzed.txt" in str(theirs[1])  # type: ignore[index]
        return
    assert ours == theirs
