"""The `augexplorer` command line. Each subcommand lives in its own module under
:mod:`augexplorer.commands` and registers itself with :func:`register`.

Every failure a user can cause ends in one line on stderr naming the file, node or option and
the fix, and exit status 2; Ctrl-C ends in one line and exit status 130. Never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from . import commands
from .errors import AugExplorerError

INTERRUPTED = 130  # what a shell reports for a program ended by Ctrl-C (128 + SIGINT)


# commands people type that are not ours, and what does what they meant
MEANT = {
    "port": "`augexplorer import FILE -o graph.json` ports a torchvision or albumentations "
    "pipeline file; `augexplorer compare FILE --run-file` proves the port against the library",
}


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line (the option, what is wrong, the fix) rather
    than the whole usage text first."""

    def error(self, message: str) -> NoReturn:
        unknown = re.search(r"invalid choice: '([^']*)'", message)
        if unknown is not None and unknown.group(1) in MEANT:
            command = unknown.group(1)
            message = f"there is no command {command!r} (fix: {MEANT[command]})"
        fix = "" if "(fix: " in message else f" (fix: see {self.prog} --help)"
        self.exit(2, f"{self.prog}: {message}{fix}\n")


def parser() -> argparse.ArgumentParser:
    root = Parser(
        prog="augexplorer",
        description="Explore, tune, time and export NVIDIA DALI augmentation pipelines.",
    )
    subparsers = root.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):  # shared helpers, not commands
            continue
        module = importlib.import_module(f"{commands.__name__}.{module_info.name}")
        module.register(subparsers)
    return root


@contextlib.contextmanager
def _notes_on_stderr() -> Iterator[None]:
    """What the engine says once about a run (a GPU graph running on the CPU here) as a
    ``note:`` line, rather than a Python warning with its file and line."""
    from .devices import GpuNodesOnCpu
    from .export.annotations_note import AnnotationsLeftBehind

    def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, GpuNodesOnCpu):
            print(f"note: {message}", file=sys.stderr)
        elif issubclass(category, AnnotationsLeftBehind):  # what training would get wrong
            print(f"warning: {message}", file=sys.stderr)
        else:
            shown(message, category, *args, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("always", GpuNodesOnCpu)
        warnings.simplefilter("always", AnnotationsLeftBehind)
        shown = warnings.showwarning
        warnings.showwarning = show
        yield


def main(argv: Sequence[str] | None = None) -> int:
    command = "augexplorer"
    takes_skip_bad = False
    try:
        args = parser().parse_args(argv)
        takes_skip_bad = hasattr(args, "skip_bad")
        # the command line as given, for a command that starts itself again (stats --world-size)
        args.argv = list(sys.argv[1:] if argv is None else argv)
        command = f"augexplorer {args.command}"
        with _notes_on_stderr():
            return int(args.run(args) or 0)
    except AugExplorerError as error:
        said = str(error)
        if takes_skip_bad:  # the fix as this command line gives it
            from .data import fix_on_the_command_line

            said = fix_on_the_command_line(said)
        print(f"{command}: {said}", file=sys.stderr)
        return 2
    except KeyError as error:  # unknown preset, node or output
        print(f"{command}: {error.args[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{command}: interrupted (Ctrl-C); no file was left half-written", file=sys.stderr)
        return INTERRUPTED
    except OSError as error:  # a file we were given that cannot be read or written
        where = f"{error.filename}: " if error.filename else ""
        print(
            f"{command}: {where}{error.strerror or error} (fix: check the path and its permissions)",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    sys.exit(main())
