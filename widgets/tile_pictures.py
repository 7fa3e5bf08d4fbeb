"""The tiles' pictures on their way to the page: each picture named by a hash of its bytes, the
tiles' state carrying only those names, the bytes sent apart and only when the page lacks them.

A redraw where some samples did not change (an edit inside a conditional block, a caption that
alone changed, a preview replaced by the same full picture) sends no byte of their pictures: the
page keeps what it holds under the same name. A view that opens later (a reload, a second view
of the same panel) asks for the pictures it lacks by name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any


def picture_key(picture: bytes) -> str:
    """The name of `picture` on the page: equal bytes, equal names (so an unchanged picture is
    never sent twice); 64 bits of BLAKE2b, far from any collision among a panel's pictures."""
    return hashlib.blake2b(picture, digest_size=8).hexdigest()


# What the page decodes each picture as, read from its first bytes: the grid's encoder may pick
# another codec by measurement, and the page follows.
SIGNATURES = (
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"GIF8", "image/gif"),
)


def picture_type(picture: bytes) -> str:
    """The MIME type of an encoded picture (JPEG where its bytes say nothing known)."""
    if picture[:4] == b"RIFF" and picture[8:12] == b"WEBP":
        return "image/webp"
    for signature, mime in SIGNATURES:
        if picture.startswith(signature):
            return mime
    return "image/jpeg"


def tile_keys(tiles: Iterable[dict[str, Any]]) -> dict[str, bytes]:
    """Every picture of `tiles` by its name (None pictures, values that are not images, have
    none)."""
    return {
        picture_key(picture): picture
        for tile in tiles
        for picture in tile.get("pictures", ())
        if picture is not None
    }


def wire_tiles(tiles: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """`tiles` as the page's state holds them: each picture replaced by its name."""
    return [
        {
            **tile,
            "pictures": [
                picture_key(p) if p is not None else None for p in tile.get("pictures", ())
            ],
        }
        for tile in tiles
    ]
