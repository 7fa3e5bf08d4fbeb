"""Data sources: what each kind of source needs (a path, a file root where it applies) and the
reader arguments it passes on to its DALI reader."""

from __future__ import annotations

from ..catalog.readers import owned_by_source, reader_of
from ..node_calls import source_call
from ..spec import PythonCode, Random, Ref, Source
from .context import CheckContext
from .naming import closest
from .values import check_value, value_fix


def check_source(ctx: CheckContext, source: Source) -> None:
    """Problems of `source`; records its call for the nodes that read it."""
    ctx.check_seed(source.seed, source.id, "seed")
    if source.kind in ("folder", "file_list", "yolo") and not source.path:
        ctx.problem(
            f"a {source.kind} source needs a path",
            source.id,
            "path",
            fix="set path to the folder or list file"
            if source.kind != "yolo"
            else "set path to the folder of images and their YOLO .txt label files",
        )
    if source.file_root is not None and source.kind not in ("file_list", "coco"):
        ctx.problem(
            "file_root is where a file list's entries (or a COCO file's images) are read "
            f"from; this source reads {'a folder' if source.kind != 'arrays' else 'in-memory arrays'}",
            source.id,
            "file_root",
            fix="remove file_root (a folder source reads its path)",
        )
    elif source.file_root is not None and (
        not isinstance(source.file_root, str) or not source.file_root
    ):
        ctx.problem(
            f"file_root {source.file_root!r:.60} is not a folder path",
            source.id,
            "file_root",
            fix="give the folder the list's entries are relative to, or remove it",
        )
    _check_reader_args(ctx, source)
    ctx.calls[source.id] = source_call(source)


# readers.file arguments that choose the files of a folder, which the explorer lists itself
# (augexplorer.folder_listing) and hands the reader as files=, where DALI does not apply them:
# what would be read instead.
FOLDER_LISTS_ITSELF: dict[str, str] = {
    "file_filters": "every image of the folder",
    "case_sensitive_filter": "every image of the folder",
    "dir_filters": "every class folder (labels counted over all of them)",
}


def _check_reader_args(ctx: CheckContext, source: Source) -> None:
    """The reader's other arguments: constants of the reader's schema, none of them one the
    source holds itself."""
    if not source.reader_args:
        return
    if source.kind == "arrays":
        ctx.problem(
            "in-memory arrays are fed to the pipeline, not read by a DALI reader: reader "
            f"arguments ({', '.join(source.reader_args)}) do not apply",
            source.id,
            "reader_args",
            fix="remove reader_args, or read the images from a folder or a file list",
        )
        return
    reader = reader_of(source.kind)
    owned = owned_by_source(source.kind)
    if source.kind == "folder":
        for name in FOLDER_LISTS_ITSELF.keys() & source.reader_args.keys():
            ctx.problem(
                f"{reader}'s {name!r} is not applied to a folder here: the explorer and the "
                "exported module list the class folders themselves and give DALI the files, and "
                f"DALI ignores the filters then, so {FOLDER_LISTS_ITSELF[name]} would be read",
                source.id,
                f"reader_args.{name}",
                fix="read the files you want from a file list (one 'path label' a line), or "
                "move them into a folder of their own; then remove the filter",
            )
    info = ctx.catalog.get(reader)
    assert info is not None, f"{reader} is not in the catalog"
    for name, value in source.reader_args.items():
        where = f"reader_args.{name}"
        arg = info.arg(name)
        if name in owned:
            ctx.problem(
                f"{reader}'s {name!r} is {owned[name]}, not a reader argument",
                source.id,
                where,
                fix=f"remove {name!r} from reader_args and set {owned[name]}",
            )
        elif arg is None:
            near = closest(name, [a.name for a in info.args if a.name not in owned])
            ctx.problem(
                f"{reader} has no argument {name!r}",
                source.id,
                where,
                fix=f"did you mean {near!r}?" if near else f"see `augexplorer catalog {reader}`",
            )
        elif isinstance(value, (Ref, Random, PythonCode)):
            ctx.problem(
                "a reader argument is a constant; it cannot be fed from a node or drawn",
                source.id,
                where,
                fix=f"give it a constant ({arg.describe_type()})",
            )
        else:
            message = check_value(info, arg, value)
            if message:
                ctx.problem(message, source.id, where, fix=value_fix(info, arg))
