"""What the reading takes from the project's other files (:mod:`.local_modules`): a class of
another file called in a pipeline (MoCo's ``moco.loader.GaussianBlur``, DINO's
``utils.Solarization``), read as the same file's would be, and a builder function of another
file (``from data.augment import get_train_transform``) whose returned Compose is the file's
pipeline, read in that file with the arguments the call gives."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .branches import call_arguments, call_name
from .local_modules import Definition, LocalModules, Missing
from .model import TransformCall
from .own_blurs import OwnClass, own_class

if TYPE_CHECKING:
    from .reading import FoundPipeline, _Reader


def defined_elsewhere(
    modules: LocalModules,
    func: ast.expr,
    name: str,
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
) -> tuple[OwnClass | None, str]:
    """(what the class does where the port knows it, where it is defined or was looked for)
    for a call `name` of a class or function of another file; (None, "") for anything else."""
    found = modules.definition(func)
    if found is None:
        return None, ""
    if isinstance(found, Missing):
        return None, f"{name}: {found.said}"
    said = f"{name} is defined in {found.where}"
    if not isinstance(found.node, ast.ClassDef):
        return None, said
    own = own_class(found.node, args, kwargs)
    return (dataclasses.replace(own, defined_at=found.where) if own else None), said


def built_elsewhere(reader: _Reader, modules: LocalModules, taken: set[str]) -> list[FoundPipeline]:
    """The pipelines the file gets from builder functions of its project's other files, by
    the names it keeps them under (``train_transform = get_train_transform(224)``)."""
    found: list[FoundPipeline] = []
    for node in ast.walk(reader.tree):
        if not isinstance(node, ast.Call) or reader.inside_pipeline(node):
            continue  # a call inside a Compose is a transform, read as one
        definition = modules.definition(node.func)
        if not isinstance(definition, Definition) or isinstance(definition.node, ast.ClassDef):
            continue
        if definition.path.resolve() in modules.budget.reading:
            continue  # a builder of a file being read: an import cycle, not read again
        pipeline = _built_by(reader, modules, definition, node)
        if pipeline is None:
            continue
        found.append(dataclasses.replace(pipeline, name=reader.unique_name(node, taken)))
    return found


def _built_by(
    reader: _Reader, modules: LocalModules, definition: Definition, call: ast.Call
) -> FoundPipeline | None:
    """The pipeline `call` gets from the builder `definition`, read in its file with the
    values the call gives; None where the builder returns none the reading finds."""
    from .reading import read_tree  # the reading reads the other file as it reads this one

    function = definition.node
    assert not isinstance(function, ast.ClassDef)
    given, notes = _given(reader, function, call)
    modules.budget.reading.append(definition.path.resolve())
    try:
        pipelines = read_tree(definition.tree, params=given, modules=definition.modules)
    finally:
        modules.budget.reading.pop()
    literals = call_arguments(function, call) or {}
    branch = call_name(function.name, literals)
    picked = [p for p in pipelines if p.name == branch] or [
        p for p in pipelines if p.base_name == function.name and not p.alias_of and not p.replaced
    ]
    if len(picked) != 1:
        return None  # none, or one per branch the call's values do not pick
    (pipeline,) = picked
    shown = definition.shown
    called = f"{shown} ({function.name}, called at line {call.lineno})"
    note = (
        f"the pipeline is what {function.name} (defined in {definition.where}) returns, "
        f"called at line {call.lineno}: read from that file"
    )
    unreadable = f"in {shown}: {pipeline.unreadable}" if pipeline.unreadable else ""
    return dataclasses.replace(
        pipeline,
        compose=_written_in(pipeline.compose, called),
        unreadable=unreadable,
        defaults=(note, *notes, *(f"in {shown}: {d}" for d in pipeline.defaults)),
        line_name="",
    )


def _given(
    reader: _Reader, function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The values `call` gives `function`'s parameters, as the file settles them (``224``,
    ``args.size`` at its option's default, or Unknown), with the reading's notes on those it
    took."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return {}, ()
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    written = [*zip(names, call.args, strict=False)]
    written += [(k.arg, k.value) for k in call.keywords if k.arg is not None]
    saved, reader.defaults_used = reader.defaults_used, {}
    try:
        given = {name: reader.value(value) for name, value in written}
        notes = tuple(reader.defaults_used.values())
    finally:
        reader.defaults_used = saved
    # one known only when the file runs stays unknown there (never the builder's default),
    # and a value the caller gives by --param is the builder's too
    return {**reader.params, **given}, notes


def _written_in(call: TransformCall, where: str) -> TransformCall:
    """`call` and every call it holds marked as written in another file, at `where`."""
    children = tuple(_written_in(child, where) for child in call.children)
    return dataclasses.replace(call, written_in=call.written_in or where, children=children)


__all__ = ["built_elsewhere", "defined_elsewhere"]
