"""Whether DALI can read an image file, and its size, from its first bytes and its end.

This is the one check that decides which files ``skip_bad`` leaves out. The explorer runs it
(:mod:`augexplorer.image_header`) and an exported module carries the source of :data:`CARRIED`
(which use nothing but ``os`` and ``zlib``) and runs the same code on its data, so both leave
out exactly the same files, for the same reasons.

What it looks at, without decoding a pixel: the format's signature; the header up to the size
(for JPEG, every segment up to the start of the scan, as a decoder walks them; for PNG, the
IHDR chunk and its checksum); and for JPEG and PNG the end of the file, which a truncated file
lacks. Damage inside the compressed data passes; DALI's decoder fails on it and the explorer
names the file then.
"""

from __future__ import annotations

import os
import zlib

IMAGE_TAIL_BYTES = 4096  # where a JPEG's end marker must be (some writers pad after it)


def image_header(path: str) -> tuple[str, int, int] | str:
    """(format, width, height) of the image file at `path`, or why DALI could not read it."""
    try:
        size = os.stat(path).st_size
        if size == 0:
            return "empty file (0 bytes)"
        if not os.access(path, os.R_OK):
            return "cannot be read (permission denied)"
        with open(path, "rb") as stream:
            start = stream.read(64)
            stream.seek(max(0, size - IMAGE_TAIL_BYTES))
            tail = stream.read()
        found = image_size(path, start)
        if isinstance(found, str):
            return found
    except FileNotFoundError:
        return "file not found"
    except PermissionError:
        return "cannot be read (permission denied)"
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    name = found[0]
    if name == "JPEG" and b"\xff\xd9" not in tail:
        return "truncated JPEG (no end-of-image marker)"
    if name == "PNG" and not tail.endswith(b"IEND\xaeB`\x82"):
        return "truncated PNG (no IEND chunk at the end)"
    return found


def image_size(path: str, start: bytes) -> tuple[str, int, int] | str:
    """(format, width, height) from the header of the image file at `path`, whose first bytes
    are `start`, or why it cannot be read."""
    size: tuple[int, int] | None
    if start[:3] == b"\xff\xd8\xff":
        name, size = "JPEG", jpeg_size(path)
    elif start[:8] == b"\x89PNG\r\n\x1a\n":
        name, size = "PNG", None
        ihdr = start[12:29]  # the chunk's type and its 13 bytes of data, then their checksum
        if ihdr[:4] == b"IHDR" and zlib.crc32(ihdr) == int.from_bytes(start[29:33], "big"):
            size = int.from_bytes(ihdr[4:8], "big"), int.from_bytes(ihdr[8:12], "big")
    elif start[:2] == b"BM" and len(start) >= 26:
        name = "BMP"
        if int.from_bytes(start[14:18], "little") == 12:  # the old OS/2 header: 16-bit sizes
            size = (int.from_bytes(start[18:20], "little"), int.from_bytes(start[20:22], "little"))
        else:  # a negative height means rows stored top-down
            width = int.from_bytes(start[18:22], "little", signed=True)
            size = (width, abs(int.from_bytes(start[22:26], "little", signed=True)))
    elif start[:4] in (b"II*\x00", b"MM\x00*"):
        name, size = "TIFF", tiff_size(path, start[:2] == b"MM")
    elif start[:4] == b"RIFF" and start[8:12] == b"WEBP":
        name, size = "WEBP", webp_size(start)
    elif start[:12] == b"\x00\x00\x00\x0cjP  \r\n\x87\n" or start[:4] == b"\xff\x4f\xff\x51":
        name, size = "JPEG2000", jpeg2000_size(path)
    elif start[:1] == b"P" and start[1:2] in (b"1", b"2", b"3", b"4", b"5", b"6"):
        name, size = "PNM", pnm_size(path)
    else:
        return "not an image (unknown format)"
    if size is None or size[0] <= 0 or size[1] <= 0:
        return f"corrupt {name} (its header cannot be read)"
    return name, size[0], size[1]


def jpeg_size(path: str) -> tuple[int, int] | None:
    """(width, height) of a JPEG from its frame header, walking every segment from the start of
    the file to the start of the scan as a decoder does; None where the walk breaks."""
    size = None
    with open(path, "rb") as stream:
        stream.seek(2)
        while True:
            byte = stream.read(1)
            if not byte:
                return None  # the file ends before its scan
            if byte != b"\xff":
                continue  # stray bytes between segments: decoders skip them
            marker = stream.read(1)
            while marker == b"\xff":  # fill bytes before a marker
                marker = stream.read(1)
            code = marker[0] if marker else 0
            if 0x01 < code < 0xC0 or code in (0xD8, 0xD9):
                return None  # not a marker, or the image ends before any scan
            if code == 0x01 or 0xD0 <= code <= 0xD7 or code == 0:  # no length follows
                continue
            length = int.from_bytes(stream.read(2), "big")
            segment = stream.read(length - 2) if length >= 2 else b""
            if length < 2 or len(segment) < length - 2:
                return None  # a segment longer than the file
            if code == 0xDA:  # start of scan: the header is complete
                return size
            if 0xC0 <= code <= 0xCF and code not in (0xC4, 0xC8, 0xCC):  # start of frame
                if len(segment) < 5:
                    return None
                size = int.from_bytes(segment[3:5], "big"), int.from_bytes(segment[1:3], "big")


def tiff_size(path: str, big: bool) -> tuple[int, int] | None:
    """(width, height) from a TIFF's first directory (tags 256 and 257), or None; `big`: the
    file's numbers are big-endian."""
    with open(path, "rb") as stream:
        head = stream.read(8)
        stream.seek(int.from_bytes(head[4:8], "big" if big else "little"))
        count = int.from_bytes(stream.read(2), "big" if big else "little")
        entries = stream.read(12 * count)
    found = {}
    for at in range(0, len(entries) - 11, 12):
        entry = entries[at : at + 12]
        tag = int.from_bytes(entry[0:2], "big" if big else "little")
        kind = int.from_bytes(entry[2:4], "big" if big else "little")
        if tag in (256, 257):  # a SHORT fills the value's first two bytes, a LONG all four
            value = entry[8:10] if kind == 3 else entry[8:12]
            found[tag] = int.from_bytes(value, "big" if big else "little")
    if 256 not in found or 257 not in found:
        return None
    return found[256], found[257]


def webp_size(start: bytes) -> tuple[int, int] | None:
    """(width, height) from a WebP's first chunk (lossy, lossless or extended), or None."""
    chunk = start[12:16]
    if chunk == b"VP8 " and len(start) >= 30:
        width = int.from_bytes(start[26:28], "little") & 0x3FFF
        return width, int.from_bytes(start[28:30], "little") & 0x3FFF
    if chunk == b"VP8L" and len(start) >= 25:
        bits = int.from_bytes(start[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8X" and len(start) >= 30:
        width = 1 + int.from_bytes(start[24:27], "little")
        return width, 1 + int.from_bytes(start[27:30], "little")
    return None


def jpeg2000_size(path: str) -> tuple[int, int] | None:
    """(width, height) of a JPEG 2000 file (a JP2 file's ihdr box, or a bare codestream's SIZ
    segment), or None."""
    with open(path, "rb") as stream:
        head = stream.read(4096)
    if head[:4] == b"\xff\x4f\xff\x51" and len(head) >= 24:
        grid = [int.from_bytes(head[at : at + 4], "big") for at in (8, 12, 16, 20)]
        return grid[0] - grid[2], grid[1] - grid[3]  # the image area less its offset
    at = head.find(b"ihdr")
    if at < 0 or len(head) < at + 12:
        return None
    width = int.from_bytes(head[at + 8 : at + 12], "big")
    return width, int.from_bytes(head[at + 4 : at + 8], "big")


def pnm_size(path: str) -> tuple[int, int] | None:
    """(width, height) from a PNM header (``P6 640 480 255``, comments after #), or None."""
    with open(path, "rb") as stream:
        head = stream.read(1024)
    words: list[bytes] = []
    for line in head[2:].split(b"\n"):
        words += line.split(b"#")[0].split()
        if len(words) >= 2:
            break
    if len(words) < 2 or not words[0].isdigit() or not words[1].isdigit():
        return None
    return int(words[0]), int(words[1])


# What an exported module carries, in this order (its text is these functions' source).
CARRIED_CONSTANTS = ("IMAGE_TAIL_BYTES",)
CARRIED = (image_header, image_size, jpeg_size, tiff_size, webp_size, jpeg2000_size, pnm_size)
