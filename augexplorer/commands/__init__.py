"""One module per `augexplorer` subcommand; each defines ``register(subparsers)``."""

from __future__ import annotations

import argparse
from typing import Any

from ..spec import GraphSpec


def add_spec_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "spec", help="a graph spec (.json) or a preset name (see `augexplorer catalog --presets`)"
    )
    parser.add_argument(
        "--data", help="a folder of class sub-folders, or a file list, to run on instead"
    )
    parser.add_argument("--batch-size", type=int, help="images per batch (default: the spec's)")


def load_spec(args: Any) -> GraphSpec:
    """The spec named on the command line: a JSON file, or a preset name. Never runs code."""
    import dataclasses
    import os

    from ..presets import PRESETS, preset
    from ..spec import load

    spec = (
        preset(args.spec)
        if args.spec in PRESETS and not os.path.exists(args.spec)
        else load(args.spec)
    )
    if getattr(args, "batch_size", None):
        spec = dataclasses.replace(spec, batch_size=args.batch_size)
    return spec


def open_session(args: Any) -> Any:
    from ..engine import Session

    return Session(load_spec(args), data=getattr(args, "data", None))
