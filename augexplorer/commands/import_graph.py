"""`augexplorer import my_aug.py -o spec.json`: a Python pipeline back to an editable graph.

A module exported by augexplorer is read without running it (its GRAPH literal), and a spec
(.json) is read as a spec. Any other Python file can only be imported by running it, which
happens only with --run-file. A pipeline the file builds from its own @pipeline_def is
imported without --pipeline; a file with only the @pipeline_def function has it built, its
parameters given with --param NAME=VALUE.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

from . import check_outputs
from ._arguments import param, params_of


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "import",
        help="turn a pipeline file (torchvision, albumentations, DALI code, an exported "
        "module) into a graph spec",
        description="Turn a file into a graph spec (JSON). A torchvision or albumentations "
        "pipeline (a .py file or notebook with a Compose, or albumentations' saved form) is "
        "ported without running it, each transform graded, what cannot be ported listed; a "
        "module exported by augexplorer is read without running it, and a spec (.json) is read "
        "as a spec. DALI code (a @pipeline_def function or Pipeline) can only be imported by "
        "RUNNING it (with your permissions) and reading it through Pipeline.serialize(): that "
        "happens only with --run-file, so read the file first.",
    )
    parser.add_argument(
        "module",
        help="the file to import: a torchvision or albumentations pipeline, DALI code, an "
        "exported module, or a spec",
    )
    parser.add_argument("-o", "--output", required=True, help="the spec to write (.json)")
    parser.add_argument(
        "--pipeline",
        help="which pipeline, by its name in the file, when it has several (by default the "
        "pipeline it builds from its own @pipeline_def function, else its one @pipeline_def)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        type=param,
        metavar="NAME=VALUE",
        help="a value for a parameter of the @pipeline_def function to build (repeat it: "
        "--param root=/data --param device=cpu); VALUE is read as JSON when it parses "
        "(8, true, [224, 224]), as Python's literal when it is one (None, False, (224, 224)), "
        "as DALI's value when it names one (types.INTERP_TRIANGULAR, types.FLOAT, types.NCHW), "
        "else as text",
    )
    parser.add_argument(
        "--run-file",
        action="store_true",
        help="allow running a file that is not an exported module (it runs as Python, with "
        "your permissions: import only files you have read and trust)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the output file if it exists"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..export.codegen import sources_problem
    from ..export.derived_seeds import DrawsDiffer
    from ..export.edited_code import CodeEdited
    from ..export.importer import import_graph
    from ..export.inline_lists import beside
    from ..export.missing_data import DataMissing
    from ..export.script_run import StoppedForGpu
    from ..spec import save

    check_outputs(args, "output")
    params = params_of(args.param)
    output = Path(args.output)
    lists: list[tuple[str, str]] = []
    write_beside = beside(output, overwrite=args.overwrite)

    def written_lists(file_name: str, text: str) -> str:
        lists.append((file_name.rpartition(".")[0], write_beside(file_name, text)))
        return lists[-1][1]

    if _ported(args, params, Path(args.output)):
        return 0
    with warnings.catch_warnings(record=True) as noted:
        warnings.simplefilter("always", DrawsDiffer)
        warnings.simplefilter("always", CodeEdited)
        warnings.simplefilter("always", StoppedForGpu)
        warnings.simplefilter("always", DataMissing)
        spec = import_graph(
            Path(args.module),
            pipeline=args.pipeline,
            run_file=args.run_file,
            params=params,
            write_list=written_lists,
        )
    said: set[str] = set()
    for note in noted:
        # DALI's deprecation warnings of the old names a file uses: the alias table handles them
        if issubclass(note.category, DeprecationWarning) or str(note.message) in said:
            continue
        said.add(str(note.message))
        # a file that stopped part-way: the graph may not be the pipeline the rest would make;
        # data not on this machine: the graph does not run here as it is
        warned = issubclass(note.category, (StoppedForGpu, DataMissing))
        kind = "warning" if warned else "note"
        print(f"{kind}: {note.message}", file=sys.stderr)
    for source_id, list_path in lists:
        print(f"wrote {list_path} (what the code lists for source {source_id!r})")
    path = save(spec, output, overwrite=args.overwrite)
    print(f"wrote {path} ({len(spec.nodes)} nodes)")
    for line in _folder_notes(spec):
        print(f"note: {line}", file=sys.stderr)
    unexported, problems = sources_problem(spec), _problems(spec)
    warnings_said = [
        f"runs in the explorer, but `augexplorer export` refuses it: {unexported}"
        if unexported
        else None,
        f"holds the pipeline as written, but does not run here yet: {problems} (open it in the "
        "panel to fix it there, or edit the file)"
        if problems
        else None,
    ]
    for warning in filter(None, warnings_said):
        print(f"warning: {path} {warning}", file=sys.stderr)
    return 0


def _folder_notes(spec: Any) -> list[str]:
    """What the folder rule leaves out of the folders the code reads with readers.file, where
    DALI's own reader would read it (a hidden folder is a class there: the labels after it
    differ from the original pipeline's)."""
    from ..data import open_source
    from ..errors import AugExplorerError

    lines = []
    for source in spec.sources():
        if source.kind != "folder":
            continue
        try:
            data = open_source(source, check_all=False)
        except AugExplorerError:
            continue  # a folder that cannot be read: a run, render or the panel says why
        lines += [f"{source.path}: {note}" for note in data.notes()]
    return lines


def _problems(spec: Any) -> str | None:
    """Why the imported graph does not validate (what a run, an export or the panel would say
    first), or None."""
    from ..catalog import load_catalog
    from ..errors import GraphInvalid
    from ..validate import validate

    try:
        validate(spec, load_catalog())
    except GraphInvalid as invalid:
        return str(invalid)
    return None


def _ported(args: argparse.Namespace, params: dict[str, Any], output: Path) -> bool:
    """A torchvision or albumentations pipeline file, or albumentations' saved form: ported
    (read, never run), its summary printed, one line per transform with its grade. False for
    any other file."""
    from ..port.door import is_port_file, port_file
    from ..port.model import transforms
    from ..port.uneven_sizes import uneven_sizes
    from ..spec import save

    module = Path(args.module)
    try:
        text = module.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # import_graph names the problem
    from ..port.albumentations.saved import is_saved_file

    if is_saved_file(module, text):  # albumentations' saved form (A.save), read as it is
        from ..errors import SpecFormatError
        from ..port.albumentations import port_saved_file

        if params:
            raise SpecFormatError(
                f"{module} is albumentations' saved form, read as it is without running "
                f"anything, so parameters ({', '.join(params)}) have nothing to go to "
                "(fix: leave out --param)"
            )
        result = port_saved_file(module)
    elif is_port_file(module, text):
        result = port_file(module, pipeline=args.pipeline, params=params)
    else:
        return False
    print(result.summary())
    path = save(result.spec, output, overwrite=args.overwrite)
    ported = len(result.steps)
    print(
        f"wrote {path} ({len(result.spec.nodes)} nodes; {transforms(ported)} ported, "
        f"{result.transforms_not_ported} not)"
    )
    uneven = uneven_sizes(result)
    if uneven is not None:
        print(f"warning: {uneven}", file=sys.stderr)
    return True
