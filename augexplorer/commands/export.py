"""`augexplorer export SPEC -o my_aug.py`: write a graph as a plain DALI + PyTorch module."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from ..export.fusion import FUSE_MODES
from . import check_outputs, load_spec
from ._arguments import positive, spec_reference


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "export",
        help="write a graph as a Python training module (DALI pipeline + PyTorch loader)",
        description="Write a graph as a Python module that needs only DALI and PyTorch: a "
        "@pipeline_def function, make_loader() for training (sharded under torchrun) and a "
        "throughput run. Reading the spec never runs code.",
    )
    parser.add_argument(
        "spec",
        type=spec_reference,
        help="a graph spec (.json) or a preset name (see `augexplorer catalog --presets`)",
    )
    parser.add_argument("-o", "--output", required=True, help="the module to write (.py)")
    parser.add_argument("--data", help="the module's default data: a folder or a file list")
    parser.add_argument("--batch-size", type=positive, help="the module's default batch size")
    parser.add_argument(
        "--skip-bad",
        action="store_true",
        help="the module leaves out image files DALI cannot read, and lists them as it starts "
        "(its SKIP_BAD = True); without it, such a file stops training with its name",
    )
    parser.add_argument(
        "--fuse-decoders",
        choices=FUSE_MODES,
        default="exact",
        help="fuse the image decoder with the crop after it: 'exact' (default) only where the "
        "outputs stay identical to the explorer's, 'all' also where they differ (the module's "
        "header says how), 'none' never",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..export import export

    check_outputs(args, "output")
    spec = load_spec(args)
    path = export(
        spec,
        Path(args.output),
        overwrite=args.overwrite,
        data_path=args.data,
        fuse_decoders=args.fuse_decoders,
    )
    quoted = shlex.quote(str(path))
    print(
        f"wrote {path} (run it: python {quoted} --help; "
        f"import it back: augexplorer import {quoted})"
    )
    return 0
