"""The image file formats a grid can be written as, chosen by the file name's suffix."""

from __future__ import annotations

import functools
import io
from pathlib import Path

from PIL import Image

from ..errors import AugExplorerError

# suffix -> Pillow format; offered only where this Pillow can write it
_BY_SUFFIX = {
    ".jpg": "JPEG",
    ".jpeg": "JPEG",
    ".png": "PNG",
    ".webp": "WEBP",
    ".gif": "GIF",
    ".bmp": "BMP",
    ".tif": "TIFF",
    ".tiff": "TIFF",
}


class UnsupportedImageFormat(AugExplorerError, ValueError):
    """An output name whose suffix names no image format we can write."""


@functools.cache
def supported_suffixes() -> tuple[str, ...]:
    """The suffixes :func:`encode_for` writes, in order of preference."""
    Image.init()  # registers every plugin's writer
    return tuple(suffix for suffix, fmt in _BY_SUFFIX.items() if fmt in Image.SAVE)


def image_format(path: str | Path) -> str:
    """The Pillow format named by `path`'s suffix, or :class:`UnsupportedImageFormat` listing
    the suffixes that are supported."""
    suffix = Path(path).suffix.lower()
    if suffix not in supported_suffixes():
        named = f"a {suffix} file" if suffix else "a file without a suffix"
        raise UnsupportedImageFormat(
            f"{path}: cannot write a grid as {named} (fix: end the name with one of "
            f"{', '.join(supported_suffixes())})"
        )
    return _BY_SUFFIX[suffix]


def encode_for(picture: Image.Image, path: str | Path, *, quality: int = 88) -> bytes:
    """`picture` encoded in the format `path`'s suffix names."""
    fmt = image_format(path)
    buffer = io.BytesIO()
    if fmt in ("JPEG", "WEBP"):
        picture.save(buffer, format=fmt, quality=quality)
    else:
        picture.save(buffer, format=fmt)
    return buffer.getvalue()
