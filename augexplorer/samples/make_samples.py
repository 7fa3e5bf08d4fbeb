"""Regenerate the bundled sample photos from scikit-image's bundled data.

Maintainer tool only: it is not needed at run time (the JPEG files under
``images/`` and ``LICENSES.md`` are what ships). It crops and resizes a few
license-clean photographs that ship inside the scikit-image wheel into a
class-folder tree (``images/<class>/<name>.jpg``, as DALI's
``fn.readers.file(file_root=...)`` expects), rewrites ``LICENSES.md`` and
rewrites ``annotations.json`` from ``annotations_source.py`` (the outlines
follow the crops).
Run it in a throwaway environment, e.g.::

    python3 -m venv /tmp/skv && /tmp/skv/bin/pip install scikit-image pillow
    /tmp/skv/bin/python augexplorer/samples/make_samples.py
"""

from __future__ import annotations

import io
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

from PIL import Image, ImageCms

HERE = Path(__file__).resolve().parent
IMAGES = HERE / "images"
LICENSES = HERE / "LICENSES.md"
JPEG_QUALITY = 85


@dataclass(frozen=True)
class Source:
    """One photograph from ``skimage/data`` with its provenance."""

    filename: str
    title: str
    author: str
    license: str
    origin: str


@dataclass(frozen=True)
class Tile:
    """One shipped JPEG: a crop of a source, optionally resized."""

    label: str
    name: str
    source: Source
    box: tuple[int, int, int, int]  # left, top, right, bottom in source pixels
    long_side: int | None = None  # resize so the longer side is this; None keeps size


CHELSEA = Source(
    "chelsea.png",
    "Chelsea the cat",
    "Stefan van der Walt",
    "CC0 1.0 (public domain dedication by the photographer)",
    "scikit-image `skimage.data.chelsea()`",
)
COFFEE = Source(
    "coffee.png",
    "Coffee cup (courtesy of Pikolo Espresso Bar)",
    "Rachel Michetti",
    "CC0 1.0 (public domain dedication by the photographer)",
    "scikit-image `skimage.data.coffee()`",
)
ASTRONAUT = Source(
    "astronaut.png",
    "Astronaut Eileen Collins",
    "NASA",
    "Public domain (NASA; no known copyright restrictions)",
    "scikit-image `skimage.data.astronaut()`, from NASA Great Images <https://flic.kr/p/r9qvLn>",
)
CAMERA = Source(
    "camera.png",
    'Gray-level "camera" image (cameraman on a field)',
    "Lav Varshney",
    "CC0 1.0 (public domain dedication by the photographer)",
    "scikit-image `skimage.data.camera()`",
)
ROCKET = Source(
    "rocket.jpg",
    "Launch of DSCOVR on Falcon 9, Cape Canaveral SLC-40",
    "SpaceX",
    "Public domain (released into the public domain by SpaceX)",
    "scikit-image `skimage.data.rocket()`, from SpaceX Photos "
    "<https://www.flickr.com/photos/spacexphotos/16511594820/>",
)
HUBBLE = Source(
    "hubble_deep_field.jpg",
    "Hubble eXtreme Deep Field",
    "NASA (Hubble Space Telescope)",
    "Public domain (NASA imagery, may be freely used)",
    "scikit-image `skimage.data.hubble_deep_field()`, from HubbleSite "
    "<http://hubblesite.org/newscenter/archive/releases/2012/37/image/a/>",
)
BRICK = Source(
    "brick.png",
    "Brick wall (Bricks25, grayscale)",
    "CC0Textures (now ambientCG)",
    "CC0 1.0",
    "scikit-image `skimage.data.brick()`, from CC0Textures "
    "<https://cc0textures.com/view.php?tex=Bricks25>",
)
GRASS = Source(
    "grass.png",
    "Grass (Grass 01, grayscale)",
    "linolafett (DeviantArt)",
    "CC0 1.0",
    "scikit-image `skimage.data.grass()`, from DeviantArt "
    "<https://www.deviantart.com/linolafett/art/Grass-01-434853879>",
)
GRAVEL = Source(
    "gravel.png",
    "Gravel (Gravel04, grayscale)",
    "CC0Textures (now ambientCG)",
    "CC0 1.0",
    "scikit-image `skimage.data.gravel()`, from CC0Textures "
    "<https://cc0textures.com/view.php?tex=Gravel04>",
)

TILES: tuple[Tile, ...] = (
    Tile("animal", "cat", CHELSEA, (0, 0, 451, 300)),
    Tile("animal", "cat_face", CHELSEA, (90, 0, 390, 300), 224),
    Tile("animal", "cat_eye", CHELSEA, (100, 40, 240, 250)),
    Tile("animal", "cat_whiskers", CHELSEA, (150, 150, 450, 300)),
    Tile("food", "espresso", COFFEE, (0, 0, 600, 400)),
    Tile("food", "espresso_cup", COFFEE, (170, 10, 430, 270)),
    Tile("food", "espresso_spoon", COFFEE, (290, 150, 470, 390)),
    Tile("people", "astronaut", ASTRONAUT, (0, 0, 512, 512)),
    Tile("people", "cameraman", CAMERA, (0, 40, 512, 400), 448),
    Tile("people", "cameraman_closeup", CAMERA, (140, 50, 360, 250)),
    Tile("space", "rocket_launch", ROCKET, (0, 0, 640, 427)),
    Tile("space", "rocket_pad", ROCKET, (230, 100, 420, 427)),
    Tile("space", "deep_field", HUBBLE, (0, 0, 1000, 872), 560),
    Tile("space", "deep_field_spiral", HUBBLE, (40, 250, 360, 490)),
    Tile("space", "deep_field_elliptical", HUBBLE, (660, 400, 1000, 740), 256),
    Tile("texture", "brick", BRICK, (0, 0, 512, 320), 448),
    Tile("texture", "grass", GRASS, (100, 0, 340, 512)),
    Tile("texture", "gravel", GRAVEL, (0, 0, 512, 512), 160),
    Tile("texture", "wood", COFFEE, (480, 0, 600, 240)),
)


def load_srgb(source: Source) -> Image.Image:
    """Open a source file as 8-bit sRGB, converting from its ICC profile if needed."""
    ref = resources.files("skimage") / "data" / source.filename
    with ref.open("rb") as fh, Image.open(fh) as opened:
        rgb = opened.convert("RGB")
        icc = opened.info.get("icc_profile")
    if icc:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if not ImageCms.getProfileDescription(profile).startswith("sRGB"):
            srgb = ImageCms.createProfile("sRGB")
            converted = ImageCms.profileToProfile(rgb, profile, srgb)
            if converted is None:  # pragma: no cover - only with inPlace=True
                msg = f"colour conversion failed for {source.filename}"
                raise RuntimeError(msg)
            rgb = converted
    return rgb


def render(tile: Tile, img: Image.Image) -> Image.Image:
    """Crop (and resize) one tile from an sRGB source image."""
    left, top, right, bottom = tile.box
    width, height = right - left, bottom - top
    if tile.long_side is None:
        return img.crop(tile.box)
    scale = tile.long_side / max(width, height)
    size = (round(width * scale), round(height * scale))
    return img.resize(size, Image.Resampling.LANCZOS, box=tile.box)


def write_licenses(rows: list[tuple[Tile, Image.Image]]) -> None:
    """Rewrite LICENSES.md with one row per shipped file and the source notes."""
    version = metadata.version("scikit-image")
    lines = [
        "# Sample images: sources and licenses",
        "",
        "The JPEG files under `images/` are crops/resizes of photographs that ship",
        f"inside the scikit-image {version} wheel (`skimage/data/`). They were made",
        "by `make_samples.py` (Pillow, JPEG quality 85, baseline, RGB, sRGB, no",
        "EXIF/ICC). Licenses and authors are as stated in scikit-image's",
        "`skimage.data` documentation for each image. Grayscale sources were",
        "converted to 3-channel RGB. scikit-image's own code is BSD-3-Clause;",
        "no code from it is included here.",
        "",
        "`annotations.json` (COCO instances: boxes, polygon masks, keypoints) was",
        "made by the augexplorer project (outlined by hand in",
        "`annotations_source.py`) and is under the project's own license",
        "(Apache-2.0).",
        "",
        "## Files",
        "",
        "| File | Size (WxH) | Source file | Author | License |",
        "| --- | --- | --- | --- | --- |",
    ]
    for tile, img in rows:
        lines.append(
            f"| `images/{tile.label}/{tile.name}.jpg` | {img.width}x{img.height} "
            f"| `{tile.source.filename}` | {tile.source.author} "
            f"| {tile.source.license} |"
        )
    lines += ["", "## Sources", ""]
    seen: list[Source] = []
    for tile, _ in rows:
        if tile.source not in seen:
            seen.append(tile.source)
    for src in seen:
        lines += [
            f"### `{src.filename}`: {src.title}",
            "",
            f"- Author: {src.author}",
            f"- License: {src.license}",
            f"- Origin: {src.origin}",
            "",
        ]
    LICENSES.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")


def main() -> None:
    """Rebuild ``images/`` and ``LICENSES.md`` from scratch."""
    if IMAGES.exists():
        shutil.rmtree(IMAGES)
    cache: dict[str, Image.Image] = {}
    rows: list[tuple[Tile, Image.Image]] = []
    for tile in TILES:
        if tile.source.filename not in cache:
            cache[tile.source.filename] = load_srgb(tile.source)
        out = render(tile, cache[tile.source.filename])
        path = IMAGES / tile.label / f"{tile.name}.jpg"
        path.parent.mkdir(parents=True, exist_ok=True)
        out.save(
            path,
            "JPEG",
            quality=JPEG_QUALITY,
            optimize=True,
            progressive=False,
            subsampling="4:2:0",
        )
        rows.append((tile, out))
        sys.stdout.write(f"{path.relative_to(HERE)}  {out.width}x{out.height}\n")
    write_licenses(rows)
    sys.stdout.write(f"wrote {len(rows)} images and {LICENSES.name}\n")
    # Imported here: it sits next to this script, which is run as a file, not a package.
    from annotations_source import ANNOTATIONS, write_annotations

    doc = write_annotations(TILES)
    sys.stdout.write(f"wrote {ANNOTATIONS.name}: {len(doc['annotations'])} annotations\n")


if __name__ == "__main__":
    main()
