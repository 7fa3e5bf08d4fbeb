"""Which codec the grid's tiles travel in: time to encode a batch of tiles and their bytes.

The bundled photos, fitted into a display size (240 px: the panel's default tile; 480: a wide
one), are encoded as a batch of 16 or 32 with every codec this environment has: JPEG through
Pillow, simplejpeg, OpenCV, imagecodecs and PyTurboJPEG (the last three only where installed),
WebP through Pillow, PNG, and raw RGB bytes. Each is timed on one thread and on a small pool
(the encoders that release the GIL run in parallel there). The page's side (decode and draw) is
measured by ``bench_browser.py``; this is the kernel's side.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))

from _common import summary, write_results

from augexplorer.data import samples_dir

Encoder = Callable[[np.ndarray], bytes]
QUALITY = 80


def _pillow(fmt: str, **options: object) -> Encoder:
    def encode(rgb: np.ndarray) -> bytes:
        buffer = io.BytesIO()
        Image.fromarray(rgb).save(buffer, format=fmt, **options)
        return buffer.getvalue()

    return encode


def encoders() -> dict[str, Encoder]:
    """Every codec importable here, by name."""
    found: dict[str, Encoder] = {
        "pillow-jpeg": _pillow("JPEG", quality=QUALITY),
        "pillow-webp-m0": _pillow("WEBP", quality=QUALITY, method=0),
        "pillow-webp-m4": _pillow("WEBP", quality=QUALITY),
        "pillow-png-1": _pillow("PNG", compress_level=1),
        "raw-rgb": lambda rgb: np.ascontiguousarray(rgb).tobytes(),
    }
    try:
        import simplejpeg

        found["simplejpeg"] = lambda rgb: simplejpeg.encode_jpeg(
            rgb, quality=QUALITY, colorspace="RGB", colorsubsampling="420"
        )
    except ImportError:
        pass
    try:
        import cv2

        def opencv(rgb: np.ndarray) -> bytes:
            _ok, data = cv2.imencode(".jpg", rgb[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
            return bytes(data)

        found["opencv-jpeg"] = opencv
    except ImportError:
        pass
    try:
        import imagecodecs

        found["imagecodecs-jpeg8"] = lambda rgb: bytes(imagecodecs.jpeg8_encode(rgb, level=QUALITY))
        found["imagecodecs-webp"] = lambda rgb: bytes(imagecodecs.webp_encode(rgb, level=QUALITY))
    except ImportError:
        pass
    try:
        from turbojpeg import TJPF_RGB, TurboJPEG

        turbo = TurboJPEG()
        found["pyturbojpeg"] = lambda rgb: turbo.encode(rgb, quality=QUALITY, pixel_format=TJPF_RGB)
    except (ImportError, RuntimeError, OSError):
        pass
    return found


def tiles(display: int, count: int) -> list[np.ndarray]:
    photos = sorted(samples_dir().rglob("*.jpg"))
    out = []
    for index in range(count):
        with Image.open(photos[index % len(photos)]) as photo:
            picture = photo.convert("RGB")
        picture.thumbnail((display, display), Image.Resampling.BOX)
        out.append(np.asarray(picture))
    return out


def time_batch(encode: Encoder, batch: list[np.ndarray], pool: ThreadPoolExecutor | None) -> float:
    start = time.perf_counter()
    if pool is None:
        for rgb in batch:
            encode(rgb)
    else:
        list(pool.map(encode, batch))
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    pool = ThreadPoolExecutor(max_workers=args.threads)
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for display, count in ((240, 16), (240, 32), (480, 16)):
        batch = tiles(display, count)
        case = f"{count} tiles at {display} px"
        figures[case] = {}
        print(case)
        for name, encode in encoders().items():
            size = sum(len(encode(rgb)) for rgb in batch)
            one = summary([time_batch(encode, batch, None) for _ in range(args.repeats)])
            many = summary([time_batch(encode, batch, pool) for _ in range(args.repeats)])
            figures[case][name] = {
                "kb": size / 1024,
                "one_thread_p50_ms": one["p50"],
                f"{args.threads}_threads_p50_ms": many["p50"],
            }
            print(
                f"  {name:18s} {size / 1024:7.1f} KB  1 thread {one['p50']:6.2f} ms  "
                f"{args.threads} threads {many['p50']:6.2f} ms"
            )
    print(f"wrote {write_results('tile_codecs', {'quality': QUALITY, 'cases': figures})}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
