"""What an image file's header says, read without decoding a pixel.

One look per file gives both what a data source needs before DALI sees the file: whether DALI
could read it at all (an image format, and for JPEG and PNG an end marker that a truncated file
lacks) and its size, from which the memory of a decoded batch is estimated.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import BinaryIO

_JPEG_END = b"\xff\xd9"
_PNG_END = b"IEND\xaeB`\x82"  # the IEND chunk's type and CRC: the last 8 bytes of every PNG
_TAIL_BYTES = 4096  # where a JPEG's end marker must be (some writers pad after it)


@dataclass(frozen=True)
class ImageHeader:
    """The format and size a header declares."""

    format: str
    width: int
    height: int

    @property
    def pixels(self) -> int:
        return self.width * self.height


def read_header(path: str, size: int) -> ImageHeader | str:
    """The header of the image at `path` (`size` bytes long), or why DALI could not read it.

    Pillow reads the header only (``Image.open`` decodes nothing); for JPEG and PNG the end of
    the file is checked too, which a truncated file lacks. Damage inside the compressed data can
    pass; the live engine names such a file when its decoder fails.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with open(path, "rb") as stream:  # opened once: the header, then the end
            try:
                with warnings.catch_warnings():
                    # Huge images are for the memory budget to judge, not Pillow's bomb guard.
                    warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                    with Image.open(stream) as image:
                        header = ImageHeader(str(image.format), *image.size)
            except Image.DecompressionBombError:
                return _bomb_header(path)
            except UnidentifiedImageError:
                return _unidentified(stream)
            if header.format == "JPEG" and _JPEG_END not in _tail(stream, size, _TAIL_BYTES):
                return "truncated JPEG (no end-of-image marker)"
            if header.format == "PNG" and not _tail(stream, size, len(_PNG_END)).endswith(_PNG_END):
                return "truncated PNG (no IEND chunk at the end)"
            return header
    except PermissionError:
        return "cannot be read (permission denied)"
    except (OSError, SyntaxError, ValueError) as error:  # Pillow's ways of saying "corrupt"
        return f"corrupt image ({error})"


def _bomb_header(path: str) -> ImageHeader | str:
    """The header of an image over Pillow's refusal limit (twice its bomb warning), read with
    the limit lifted for this one look."""
    from PIL import Image

    limit = Image.MAX_IMAGE_PIXELS
    try:
        Image.MAX_IMAGE_PIXELS = None
        with Image.open(path) as image:
            return ImageHeader(str(image.format), *image.size)
    except Exception as error:  # any failure here is a file DALI cannot read either
        return f"corrupt image ({error})"
    finally:
        Image.MAX_IMAGE_PIXELS = limit


_MAGIC = {b"\xff\xd8\xff": "JPEG", b"\x89PNG\r\n\x1a\n": "PNG"}


def _unidentified(stream: BinaryIO) -> str:
    """Why Pillow could not tell what a file is: a damaged JPEG or PNG, or not an image."""
    stream.seek(0)
    start = stream.read(8)
    for magic, name in _MAGIC.items():
        if start.startswith(magic):
            return f"corrupt {name} (its header cannot be read)"
    return "not an image (unknown format)"


def _tail(stream: BinaryIO, size: int, count: int) -> bytes:
    stream.seek(max(0, size - count))
    return stream.read()
