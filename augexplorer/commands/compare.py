"""`augexplorer compare train.py --run-file`: a torchvision or albumentations pipeline file
against its port, transform by transform, as the panel's Compare tab shows it
(:mod:`augexplorer.port.compare`): each transform's grade, the pixel difference where its
parameters are fixed, and what each side draws for random ones.

The port is read as `augexplorer import` reads it (the same --pipeline and --param); the
original runs the user's file, so only with --run-file, in the Python --python names.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import AugExplorerError
from . import check_outputs
from ._arguments import at_least_zero, param, params_of, whole_number

if TYPE_CHECKING:
    import numpy as np

    from ..port.compare import Comparison
    from ..port.reading import FoundPipeline

DEFAULT_IMAGES = 4  # as the panel's Compare tab: enough for figures, quick to run both sides
MAX_IMAGES = 64
JSON_FORMAT = "augexplorer.compare"
KEY = (
    "pixels: the transform alone on both sides, its parameters fixed; drawn: DALI's draws "
    "against the original's, where a small p says they differ by more than chance"
)


class NothingToCompare(AugExplorerError):
    """The file holds no pipeline whose port has a transform to compare."""


class CompareFailed(AugExplorerError):
    """The comparison could not be made (an argument the original side cannot take, the port
    failing on the images)."""


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "compare",
        help="prove a torchvision or albumentations pipeline file's port against the library "
        "itself, transform by transform",
        description="Port a torchvision or albumentations pipeline file (a .py file or notebook "
        "with a Compose) as `augexplorer import` does, then put the same images through your "
        "original and through the port, each transform alone: its grade, the pixel difference "
        "where its parameters can be fixed, and what each side draws for random transforms. "
        "Running the original RUNS the file (with your permissions): that happens only with "
        "--run-file, so read the file first.",
    )
    parser.add_argument("file", metavar="FILE", help="the pipeline file (.py or .ipynb)")
    parser.add_argument(
        "--pipeline", help="which pipeline, by its name in the file, when it has several"
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        type=param,
        metavar="NAME=VALUE",
        help="a value the file leaves to run time (repeat it: --param crop_size=480 "
        "--param args.size=224); VALUE is read as for `augexplorer import`",
    )
    parser.add_argument(
        "--run-file",
        action="store_true",
        help="allow running the file to compare with the original (it runs as Python, with "
        "your permissions: compare only files you have read and trust)",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the Python that runs the original, where its library imports (default: this "
        "one); it needs Pillow, numpy and torchvision or albumentations",
    )
    parser.add_argument(
        "--data",
        metavar="FOLDER",
        help="a folder of class sub-folders, or a file list, whose first images are compared "
        "(default: the bundled sample photos)",
    )
    parser.add_argument(
        "--images",
        type=whole_number(1, MAX_IMAGES),
        metavar="N",
        default=DEFAULT_IMAGES,
        help=f"images to compare on (default {DEFAULT_IMAGES})",
    )
    parser.add_argument(
        "--draws",
        type=at_least_zero,
        metavar="N",
        default=None,
        help="draws a side for each random transform's comparison (default 240; 0: none)",
    )
    parser.add_argument(
        "--json", dest="json_path", metavar="PATH", help="write the figures as JSON here"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the JSON file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..bench.against import OriginalFailed, OriginalWouldRun, image_files
    from ..export.importer import what_would_run
    from ..port.compare import DRAWS, compare_file

    check_outputs(args, "json_path")
    params = params_of(args.param)
    path = Path(args.file)
    source, found = _pipeline(path, args.pipeline, params)
    if not args.run_file:
        raise OriginalWouldRun(
            f"comparing with the original pipeline means running {path}: "
            f"{what_would_run(source)}, with your permissions; nothing ran (fix: read the file, "
            "and if you trust it, compare it with --run-file)"
        )
    python = _python(args.python)
    files = image_files(args.data, args.images, repeat=False, check_all=False)
    images = [_rgb(file) for file in files]
    try:
        comparison = compare_file(
            path,
            images,
            run_file=True,
            python=python,
            pipeline=args.pipeline,
            params=params,
            draws=DRAWS if args.draws is None else args.draws,
        )
    except OriginalFailed as failed:  # the library does not import there, the runner failed
        raise OriginalFailed(
            str(failed).replace(
                "(fix: give the python of", "(fix: give --python PATH, the python of"
            )
        ) from None
    except (ValueError, RuntimeError) as error:  # DALI's own errors are RuntimeErrors
        said = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise CompareFailed(f"{path}: {found.name} could not be compared: {said}") from None
    where = args.data or "the bundled sample photos"
    print(
        f"{found.name} ({found.library}, {path}) against its port, on {len(files)} images of {where}"
    )
    print(comparison.table())
    print(f"key: {KEY}")
    if comparison.original_error:
        # each transform was still compared alone; the file as a whole did not run
        print(
            f"warning: the original pipeline did not run: {comparison.original_error}",
            file=sys.stderr,
        )
    if args.json_path:
        written = _save(Path(args.json_path), comparison, found, path, files, args.overwrite)
        print(f"wrote {written}")
    return 0


def _pipeline(
    path: Path, pipeline: str | None, params: dict[str, Any]
) -> tuple[str, FoundPipeline]:
    """The file's Python text and the pipeline compared, read without running anything; a
    pipeline whose port has nothing to compare is refused here."""
    from ..port.albumentations.saved import is_saved_file
    from ..port.door import port_found
    from ..port.reading import choose, file_source, read_source

    if not path.is_file():
        what = "a folder" if path.is_dir() else "no such file"
        raise NothingToCompare(f"{path}: {what} (fix: give the pipeline file, .py or .ipynb)")
    source = file_source(path)  # refuses a file that is no text, naming it
    if is_saved_file(path, source):
        raise NothingToCompare(
            f"{path} is albumentations' saved form, which compare cannot run as a file (fix: "
            "compare the Python file that builds the pipeline, or in Python: "
            "compare_object(A.load(path), images) from augexplorer.port.compare)"
        )
    found = choose(
        read_source(source, where=str(path), params=params, origin=path), pipeline, where=str(path)
    )
    ported = port_found(found)
    if not any(step.nodes or step.folded_into for step in ported.steps):
        left_out = ", ".join(refusal.what for refusal in ported.refusals)
        why = f"none of its transforms is ported ({left_out})" if left_out else "it holds none"
        raise NothingToCompare(
            f"{path}: nothing to compare in {found.name}: {why} (fix: give a pipeline with "
            f"transforms the port runs; `augexplorer import {path} -o graph.json` lists what "
            "is ported and why the rest is not)"
        )
    return source, found


def _python(given: str | None) -> str:
    """The Python to run the original in, checked before anything runs."""
    if given is None:
        return sys.executable
    found = shutil.which(given) if os.sep not in given else given
    if found is None or not os.access(found, os.X_OK) or os.path.isdir(found):
        raise CompareFailed(
            f"--python {given}: no such program (fix: give the path of a python executable "
            "where the pipeline's library imports)"
        )
    return found


def _rgb(file: str) -> np.ndarray:
    import numpy as np
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(file) as opened:
            return np.asarray(opened.convert("RGB"))
    except (UnidentifiedImageError, OSError) as error:
        raise CompareFailed(
            f"{file}: cannot be read as an image ({error}) (fix: remove or replace it, or give "
            "other images with --data)"
        ) from None


def _save(
    json_path: Path,
    comparison: Comparison,
    found: FoundPipeline,
    path: Path,
    files: list[str],
    overwrite: bool,
) -> Path:
    from ..files import atomic_write_text

    data = {
        "format": JSON_FORMAT,
        "version": 1,
        "file": str(path),
        "pipeline": found.name,
        "library": comparison.library,
        "original_python": comparison.python,
        "original_versions": comparison.versions,
        "original_error": comparison.original_error or None,
        "images": files,
        # each draw's figures: "ours" the DALI port's, "theirs" the original's
        "key": KEY + "; in draws, ours is the port (DALI), theirs the original",
        "steps": [dataclasses.asdict(step) for step in comparison.steps],
    }
    text = json.dumps(_finite(data), indent=2) + "\n"
    return atomic_write_text(json_path, text, overwrite=overwrite)


def _finite(value: Any) -> Any:
    """`value` with NaN and infinite floats as null: JSON has no NaN (a side with no draws)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
