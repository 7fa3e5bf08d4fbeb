"""One module per `augexplorer` subcommand; each defines ``register(subparsers)``."""

from __future__ import annotations

import argparse
from typing import Any

from ..spec import GraphSpec
from ._arguments import positive, spec_reference


def add_spec_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "spec",
        type=spec_reference,
        help="a graph spec (.json) or a preset name (see `augexplorer catalog --presets`)",
    )
    parser.add_argument(
        "--data", help="a folder of class sub-folders, or a file list, to run on instead"
    )
    parser.add_argument(
        "--batch-size", type=positive, help="images per batch (default: the spec's)"
    )
    parser.add_argument(
        "--skip-bad",
        action="store_true",
        help="leave out image files that fail a quick header check, and list them",
    )
    parser.add_argument(
        "--trust",
        action="store_true",
        help="run the Python code of the graph's python_function nodes, and the nodes that "
        "write files (dump_image): read the graph first, it runs with your permissions",
    )


def check_outputs(args: Any, *names: str) -> None:
    """Refuse unwritable output paths among the options `names` before any work starts."""
    from ..files import check_writable

    for name in names:
        value = getattr(args, name, None)
        if value:
            check_writable(value, overwrite=getattr(args, "overwrite", False))


def load_spec(args: Any) -> GraphSpec:
    """The spec named on the command line (a JSON file, or a preset name) with the options of
    :func:`add_spec_argument` applied. Loading never runs code; ``--trust`` lets it run later."""
    import dataclasses

    from ..data import source_for_path
    from ..presets import PRESETS, graph_named
    from ..spec import load
    from ..trust import trust_graph

    # a name that is neither a preset nor a file is read as a file, which says it is missing
    spec = graph_named(args.spec) if args.spec in PRESETS else load(args.spec)
    if getattr(args, "batch_size", None):
        spec = dataclasses.replace(spec, batch_size=args.batch_size)
    if getattr(args, "data", None):
        spec = spec.with_data(source_for_path(args.data))
    if getattr(args, "skip_bad", False):
        for source in spec.sources():
            spec = spec.replace_node(dataclasses.replace(source, skip_bad=True))
    if getattr(args, "trust", False):
        trust_graph(spec)
    return spec


def open_session(args: Any, device: str | None = None) -> Any:
    """A session of the spec named on the command line; `device` ("cpu" or "gpu") puts every
    operator there, None keeps the graph's own placement."""
    from ..catalog import load_catalog
    from ..engine import Session
    from ..profiling.placement import place_on

    catalog = load_catalog()
    return Session(place_on(load_spec(args), device, catalog), catalog=catalog)
