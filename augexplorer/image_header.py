"""What an image file's header says, read without decoding a pixel.

One look per file gives both what a data source needs before DALI sees the file: whether DALI
could read it at all (an image format, and for JPEG and PNG an end marker that a truncated file
lacks) and its size, from which the memory of a decoded batch is estimated. The look itself is
:func:`augexplorer.image_check.image_header`, which an exported module carries too, so that
``skip_bad`` leaves out the same files in the explorer and in training.
"""

from __future__ import annotations

from dataclasses import dataclass

from .image_check import image_header


@dataclass(frozen=True)
class ImageHeader:
    """The format and size a header declares."""

    format: str
    width: int
    height: int

    @property
    def pixels(self) -> int:
        return self.width * self.height


def read_header(path: str) -> ImageHeader | str:
    """The header of the image at `path`, or why DALI could not read it (see
    :mod:`augexplorer.image_check`). Damage inside the compressed data can pass; the live engine
    names such a file when its decoder fails."""
    found = image_header(path)
    if isinstance(found, str):
        return found
    return ImageHeader(*found)
