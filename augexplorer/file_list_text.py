"""The text of a file list: its encoding, and how one line splits into a file name and labels.

DALI's ``readers.file`` reads a ``file_list`` line as a file name, whitespace, then the label:
the label is the last field and the name is everything before it, spaces included ("my
photo.jpg 3" names ``my photo.jpg``; measured on DALI 2.4). The explorer reads lists itself (it
passes ``files=``/``labels=`` to DALI, and allows several labels per line), with the same rule:
the labels are the integers that end the line (as many as line 1 has) and the name is what comes
before them. A byte-order mark, which some editors write first, is not part of the first name
(DALI would look for a file whose name starts with it). The exported module carries a copy of
these rules (``read_file_list`` in :mod:`augexplorer.export.template`).
"""

from __future__ import annotations

from dataclasses import dataclass

UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


class ListTextError(ValueError):
    """A file list whose bytes are not UTF-8 text; `line` is where (from 1)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def list_text(data: bytes) -> str:
    """The text of a file list's bytes: UTF-8, a leading byte-order mark left out."""
    if data.startswith(UTF16_MARKS):
        raise ListTextError("is UTF-16 text (it starts with a UTF-16 byte-order mark)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ListTextError(
            f"line {line} is not UTF-8 text (byte 0x{data[error.start]:02x})", line
        ) from None


@dataclass(frozen=True)
class Entry:
    """One line of a list: the image's name (spaces kept) and its labels as written."""

    name: str
    labels: tuple[str, ...]


def split_entry(line: str, label_count: int | None = None) -> Entry:
    """`line` (stripped, not blank, not a comment) as a name and its labels: the integer fields
    that end it, `label_count` of them when given (those before belong to the name). Where no
    integer ends a line of several fields, its last field is returned as the label (not an
    integer: the caller says so); a line of one field has no labels.

    The exported module's ``split_entry`` is this function, written the same way."""
    name = line
    labels: list[str] = []
    while label_count is None or len(labels) < label_count:
        cut = _last_space(name)
        field = name[cut + 1 :]
        digits = field[1:] if field[:1] in ("+", "-") else field
        if cut < 0 or not (digits.isascii() and digits.isdigit()):
            break
        labels.insert(0, field)
        name = name[:cut].rstrip()
    cut = _last_space(name)
    if not labels and cut >= 0:
        return Entry(name[:cut].rstrip(), (name[cut + 1 :],))
    return Entry(name, tuple(labels))


def _last_space(text: str) -> int:
    """Where the last space or tab of `text` is (-1: none), as DALI splits a list's line."""
    return max(text.rfind(" "), text.rfind("\t"))
