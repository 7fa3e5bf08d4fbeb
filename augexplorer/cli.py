"""The `augexplorer` command line. Each subcommand lives in its own module under
:mod:`augexplorer.commands` and registers itself with :func:`register`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from . import commands
from .errors import AugExplorerError


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="augexplorer",
        description="Explore, tune, time and export NVIDIA DALI augmentation pipelines.",
    )
    subparsers = root.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{module_info.name}")
        module.register(subparsers)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except AugExplorerError as error:
        print(f"augexplorer {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyError as error:  # unknown preset, node or output
        print(f"augexplorer {args.command}: {error.args[0]}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
