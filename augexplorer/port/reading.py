"""Read the augmentation pipelines of a Python file or a notebook without running any of it.

The file is parsed (:mod:`ast`), never executed: import aliases are followed
(``import torchvision.transforms as T``, ``from torchvision.transforms import v2``,
``import albumentations as A``, ``from albumentations import HorizontalFlip``), and every
``Compose`` of a known library (torchvision's ``Compose``, albumentations' ``Compose`` and
``ReplayCompose``) becomes a :class:`~.model.TransformCall` tree; nested composes
(``RandomApply``, ``RandomChoice``, ``RandomOrder``, ``OneOf``, ``SomeOf``, ``Sequential``) hold
their transforms as children. Argument values are literals (:func:`ast.literal_eval`), names
assigned a literal anywhere in the file, library constants (:class:`~.model.Symbol`), or, for
anything else, :class:`~.model.Unknown` with its text and line.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SpecFormatError
from .argparse_defaults import ArgparseDefaults
from .batch_mixes import batch_mixes
from .branches import branch_arguments, call_arguments, call_name, reaches
from .call_sites import given_by_calls
from .comprehensions import SEQUENCE_CALLS, comprehension_items
from .config_objects import in_class_scope, object_attribute, set_attributes
from .known_constants import known_constant
from .list_changes import (
    Change,
    Unfollowable,
    apply,
    attribute_changes,
    find_changes,
    runs,
    scope_of,
)
from .local_modules import Definition, LocalModules
from .mask_calls import mask_calls
from .model import SPREAD, FactoryDict, Symbol, TransformCall, Unknown
from .other_files import built_elsewhere, defined_elsewhere
from .own_blurs import own_pil_class
from .run_time_builders import WEIGHTS_PRESET, builder_of, is_weights, refusal

# The module each library's transforms are imported from, by the library's name.
LIBRARY_MODULES: dict[str, tuple[str, ...]] = {
    "torchvision": ("torchvision.transforms",),
    "albumentations": ("albumentations",),
}
# The top-level pipeline classes of each library.
COMPOSES: dict[str, frozenset[str]] = {
    "torchvision": frozenset({"Compose"}),
    "albumentations": frozenset({"Compose", "ReplayCompose"}),
}
# Classes that hold other transforms (their first argument, or ``transforms=``).
NESTED: dict[str, frozenset[str]] = {
    "torchvision": frozenset({"Compose", "RandomApply", "RandomChoice", "RandomOrder"}),
    "albumentations": frozenset(
        {"Compose", "ReplayCompose", "OneOf", "SomeOf", "Sequential", "OneOrOther"}
    ),
}


class ReadRefused(SpecFormatError):
    """A file whose pipeline cannot be read (none, several and none chosen, not Python)."""


class SeveralPipelines(ReadRefused):
    """A file holding several pipelines, none named: `names` are those a caller may name."""

    def __init__(self, message: str, names: list[str]) -> None:
        super().__init__(message)
        self.names = names


@dataclass(frozen=True)
class FoundPipeline:
    """One pipeline in a file: the name it is known by (the name it is assigned to, the
    function returning it, or ``line N``) and its compose as a call tree."""

    name: str
    compose: TransformCall
    # why the file's changes to its transforms cannot be followed (the compose read is then
    # not what runs): the pipeline is refused with it when chosen
    unreadable: str = ""
    # the function whose pipeline this name is assigned (``train_transform = get()``): the
    # same pipeline, known by two names
    alias_of: str = ""
    # assigned to a name the file assigns again later: not what the name holds once it has run
    replaced: bool = False
    # the function parameters read at their defaults, one sentence each ("size=32, the
    # default of get_transforms' parameter size; ..."): a caller may pass others
    defaults: tuple[str, ...] = ()
    # the file's calls that give a mask beside the image (``line 12: t(image=img,
    # mask=mask)``): albumentations then moves masks the pipeline's arguments may not show
    mask_calls: tuple[str, ...] = ()
    # the file's batch mixing outside its pipelines (v2.CutMix, timm's Mixup), said
    batch_mixes: tuple[str, ...] = ()
    # the name by line (``get_transforms (line 10)``) of a pipeline named by the call that
    # returns it (``get_transforms(train=True)``): picking either picks it
    line_name: str = ""

    @property
    def base_name(self) -> str:
        """The name without the ``(line N, ...)`` that tells apart pipelines of one name."""
        return self.name.split(" (line ", 1)[0]

    @property
    def library(self) -> str:
        return self.compose.library


def library_of(dotted: str) -> str | None:
    """The library a resolved dotted name belongs to (``torchvision.transforms.v2.Resize``:
    torchvision), or None."""
    for library, modules in LIBRARY_MODULES.items():
        if any(dotted == m or dotted.startswith(m + ".") for m in modules):
            return library
    return None


def notebook_source(text: str, where: str = "notebook") -> str:
    """The code cells of a notebook (.ipynb JSON) as one Python text, cells one after another.
    IPython lines (``%magic``, ``!shell``) become comments so the lines keep their numbers."""
    try:
        notebook = json.loads(text)
        cells = notebook["cells"]
    except (ValueError, KeyError, TypeError):
        raise ReadRefused(f"{where}: not a notebook (.ipynb JSON with cells)") from None
    lines: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        text_lines = ("".join(source) if isinstance(source, list) else str(source)).splitlines()
        lines += ["# " + x if x.lstrip().startswith(("%", "!")) else x for x in text_lines]
        lines.append("")
    return "\n".join(lines)


def file_source(path: Path) -> str:
    """A file's Python text: a notebook's code cells, or the file itself."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReadRefused(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ReadRefused(f"{path}: not a text file") from None
    return notebook_source(text, str(path)) if path.suffix.lower() == ".ipynb" else text


def read_file(
    path: str | Path, *, pipeline: str | None = None, params: Mapping[str, Any] | None = None
) -> FoundPipeline:
    """The pipeline of a Python file or notebook, read without running it; `pipeline` names
    one where the file has several, `params` gives values for names the file leaves unknown."""
    path = Path(path)
    found = read_source(file_source(path), where=str(path), params=params, origin=path)
    return choose(found, pipeline, where=str(path))


def choose(found: list[FoundPipeline], pipeline: str | None, *, where: str) -> FoundPipeline:
    """The pipeline named `pipeline` (its name, or its name without the ``(line N ...)`` where
    one pipeline has it), or the only one (a name for another's pipeline is not another; one
    replaced later in the file is not what the file runs, so it is left out where another is
    there)."""
    names = ", ".join(p.name for p in found)
    if not found:
        raise ReadRefused(
            f"{where}: no torchvision or albumentations Compose found (fix: give a file that "
            "builds one, such as T.Compose([...]) or A.Compose([...]))"
        )
    if pipeline is None:
        distinct = [p for p in found if not p.alias_of]
        # a pipeline whose name the file gives another one later (`t = get()`) is not what
        # runs; one wrapped (`t = TwoCrops(t)`) still runs, and still counts
        named = {p.name for p in found}
        running = [p for p in distinct if not (p.replaced and p.base_name in named)] or distinct
        if len(running) == 1:
            return readable(running[0], where)
        raise SeveralPipelines(
            f"{where} holds {len(running)} pipelines ({', '.join(p.name for p in running)}) "
            "(fix: pick one with --pipeline NAME, or pipeline='NAME')",
            [p.name for p in running],
        )
    asked = _quoted_alike(_call_spelled(pipeline))
    exact = [p for p in found if asked in (_quoted_alike(p.name), _quoted_alike(p.line_name))]
    by_base = [
        p
        for p in found
        if asked in (_quoted_alike(p.base_name), _quoted_alike(p.line_name.split(" (line ")[0]))
    ]
    if not exact and not by_base:  # a dict's key alone: `train` for data_transforms['train']
        by_base = [p for p in found if p.base_name.endswith(f"[{pipeline!r}]")]
    if exact or len(by_base) == 1:
        return readable((exact or by_base)[0], where)
    if by_base:
        several = ", ".join(repr(p.name) for p in by_base)
        raise ReadRefused(
            f"{where}: {pipeline!r} names {len(by_base)} pipelines, {several} (fix: give one "
            "by its full name, e.g. --pipeline " + repr(by_base[0].name) + ")"
        )
    raise ReadRefused(f"{where} has no pipeline {pipeline!r} (fix: one of {names})")


def _call_spelled(name: str) -> str:
    """``get_transforms(mode = "val")`` spelled as the reader names it: ``get_transforms(mode=
    'val')``; any other name as given."""
    try:
        node = ast.parse(name.strip(), mode="eval").body
    except SyntaxError:
        return name
    return ast.unparse(node) if isinstance(node, ast.Call) else name


def _quoted_alike(name: str) -> str:
    """`name` with its quotes made one kind: ``d["train"]`` names ``d['train']``."""
    return name.replace('"', "'")


def readable(found: FoundPipeline, where: str) -> FoundPipeline:
    """`found`, or ReadRefused where the file changes its transforms in a way not followed."""
    if found.unreadable:
        raise ReadRefused(f"{where}: {found.unreadable}")
    return found


def holds_pipeline(text: str) -> bool:
    """Whether a Python text builds a torchvision or albumentations Compose (read, not run)."""
    try:
        return bool(read_source(text))
    except ReadRefused:
        return False


def read_source(
    text: str,
    *,
    where: str = "file",
    params: Mapping[str, Any] | None = None,
    origin: Path | None = None,
) -> list[FoundPipeline]:
    """Every pipeline a Python text builds, in the order they appear; `origin`, the file's
    path, lets the reading follow the project's own modules it imports (:mod:`.local_modules`)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        raise ReadRefused(f"{where}: not valid Python (line {error.lineno})") from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise ReadRefused(f"{where}: not valid Python ({type(error).__name__})") from None
    modules = LocalModules(origin, tree) if origin is not None else None
    return read_tree(tree, params=params, modules=modules)


def read_tree(
    tree: ast.Module,
    *,
    params: Mapping[str, Any] | None = None,
    modules: LocalModules | None = None,
) -> list[FoundPipeline]:
    """Every pipeline a parsed file builds (:func:`read_source`), its project's modules
    followed through `modules` where given."""
    reader = _Reader(tree, params or {}, modules)
    found = reader.pipelines()
    calls = mask_calls(tree)
    found = [dataclasses.replace(f, mask_calls=calls) for f in found] if calls else found
    mixes = batch_mixes(tree, reader.dotted, reader.inside_pipeline)
    return [dataclasses.replace(f, batch_mixes=mixes) for f in found] if mixes else found


class _Reader:
    def __init__(
        self, tree: ast.Module, params: Mapping[str, Any], modules: LocalModules | None = None
    ) -> None:
        self.tree = tree
        self.params = params
        self.modules = modules  # the project's own modules the file imports, where known
        self.aliases: dict[str, str] = {}
        self.star_modules: list[str] = []
        # every simple assignment `name = value` in the file, any scope, in line order
        self.assigned: dict[str, list[ast.Assign]] = {}
        # values bound otherwise, read only as constants (never as pipelines): `SIZE: int = 288`,
        # `H, W = 256, 256`, and a class's attributes (`class CFG: size = 320` as "CFG.size")
        self.constants: dict[str, list[tuple[int, ast.expr]]] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.aliases[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.aliases[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name == "*":
                        self.star_modules.append(node.module)
                    else:
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                in_class = isinstance(self.parents.get(node), ast.ClassDef)
                if isinstance(target, ast.Name) and not in_class:  # a class's: "CFG.size"
                    self.assigned.setdefault(target.id, []).append(node)
                elif (
                    isinstance(target, ast.Tuple | ast.List)
                    and isinstance(node.value, ast.Tuple | ast.List)
                    and len(target.elts) == len(node.value.elts)
                ):
                    for name, value in zip(target.elts, node.value.elts, strict=True):
                        if isinstance(name, ast.Name):
                            self._constant(name.id, node.lineno, value)
                elif isinstance(target, ast.Tuple | ast.List) and _plain_names(target):
                    # `H, W = IMG_SIZE`: each name is the value's item at its place
                    for index, name in enumerate(target.elts):
                        assert isinstance(name, ast.Name)
                        self._constant(name.id, node.lineno, _item_of(node.value, index))
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                in_class = isinstance(self.parents.get(node), ast.ClassDef)
                if isinstance(node.target, ast.Name) and not in_class:
                    self._constant(node.target.id, node.lineno, node.value)
            elif isinstance(node, ast.ClassDef):
                for statement in node.body:
                    targets: list[ast.expr] = []
                    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                        targets, value = [statement.targets[0]], statement.value
                    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                        targets, value = [statement.target], statement.value
                    for target in targets:
                        if isinstance(target, ast.Name):
                            self._constant(f"{node.name}.{target.id}", statement.lineno, value)
        for assignments in self.assigned.values():
            assignments.sort(key=lambda assignment: assignment.lineno)
        for bound in self.constants.values():
            bound.sort(key=_line)
        self.changes = find_changes(tree)
        self.options = ArgparseDefaults(tree)  # what args.size is, the script run bare
        self.attribute_changes = attribute_changes(tree)
        self.functions = {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        # the parameter defaults the pipeline being read took, by (function, parameter)
        self.defaults_used: dict[tuple[ast.AST, str], str] = {}
        # a pipeline named by the call returning it: (its function, its return statement)
        self.branches: dict[str, tuple[_Defined, ast.Return]] = {}

    def _constant(self, name: str, line: int, value: ast.expr) -> None:
        self.constants.setdefault(name, []).append((line, value))

    def _bound_value(self, name: str, line: int) -> ast.expr | None:
        """The value last bound to plain `name` before `line`, by an assignment or a form only
        constants take, else the first one; None where there is none."""
        bound = [(a.lineno, a.value) for a in self.assigned.get(name, [])]
        return _last_before(sorted(bound + self.constants.get(name, []), key=_line), line)

    # ---- names ---------------------------------------------------------------------------------
    def dotted(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for, aliases followed: ``T.Resize`` ->
        ``torchvision.transforms.Resize``; None for anything but names and attributes."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            for module in self.star_modules:
                if library_of(f"{module}.{node.id}") or builder_of(f"{module}.{node.id}"):
                    return f"{module}.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def transform_class(self, call: ast.Call) -> tuple[str, str] | None:
        """(library, class name) of a call to a library's transform class, else None."""
        dotted = self.dotted(call.func)
        if dotted is None:
            return None
        library = library_of(dotted)
        name = dotted.rsplit(".", 1)[-1]
        if library is None or not name[:1].isupper():
            return None
        return library, name

    def is_compose(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        found = self.transform_class(node)
        return (found is not None and found[1] in COMPOSES[found[0]]) or self.is_sequential(node)

    def is_sequential(self, node: ast.Call) -> bool:
        """Whether `node` is ``torch.nn.Sequential(T.RandomCrop(...), ...)`` holding
        torchvision's transforms: torchvision's documented scriptable pipeline, run as its
        Compose runs (a Sequential of anything else, a model's layers, is no pipeline)."""
        if self.dotted(node.func) != "torch.nn.Sequential":
            return False
        held = self._held_modules(node)
        items = held.elts if isinstance(held, ast.List | ast.Tuple) else []
        for item in items:
            if isinstance(item, ast.Name):
                assigned = self._assignment(item.id, item.lineno)
                item = assigned if assigned is not None else item
            found = self.transform_class(item) if isinstance(item, ast.Call) else None
            if found is not None and found[0] == "torchvision":
                return True
        return False

    # ---- pipelines -----------------------------------------------------------------------------
    def pipelines(self) -> list[FoundPipeline]:
        found: list[FoundPipeline] = []
        nodes: list[ast.Call] = []  # the compose each of `found` is read from
        taken: set[str] = set()
        composes = [
            node
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Call)
            and self.is_compose(node)
            and not self._inside_compose(node)
        ]
        # a name several pipelines that run have (a function's two returns) names none of
        # them: each is named with its line, rather than the first one met taking it
        replacing = {node: self._replaced_at(node) for node in composes}
        shared = Counter(self._name_of(node) for node, later in replacing.items() if later is None)
        for node, replaced in replacing.items():
            name = self._name_of(node)
            line_name = ""
            if name in taken or shared[name] > 1:
                name = f"{name} (line {node.lineno})"
                by_call = self._branch_name(node)
                if by_call is not None and by_call[0] not in taken:
                    line_name, name = name, by_call[0]
                    self.branches[name] = by_call[1]
            if replaced is not None:  # not what the name holds when the file has run
                name = f"{name} (line {node.lineno}, replaced at line {replaced.lineno})"
            taken.add(name)
            self.defaults_used = {}
            try:
                call = self._changed_pipeline(node, self.call(node))
            except Unfollowable as error:
                by_calls = self._read_by_calls(node, taken)
                if by_calls:  # the file's own calls settle what its tests read
                    found.extend(by_calls)
                    nodes.extend(node for _ in by_calls)
                    taken.update(p.name for p in by_calls)
                    continue
                library, compose = self.transform_class(node) or ("custom", "Compose")
                unread = TransformCall(library, compose, line=node.lineno)
                function = name in self.functions
                refused = _unfollowable(error, name, function)
                found.append(FoundPipeline(name, unread, refused, replaced=bool(replaced)))
                nodes.append(node)
                continue
            defaults = (*self.defaults_used.values(), *self._wrapper_note(node, name))
            found.append(
                FoundPipeline(
                    name,
                    call,
                    replaced=replaced is not None,
                    defaults=defaults,
                    line_name=line_name,
                )
            )
            nodes.append(node)
        found = self._views_noted(found, nodes)
        found.extend(self._returned_pipelines(found, taken))
        found.extend(self._built_at_run_time(taken))
        if self.modules is not None:  # builders the file imports from its project's modules
            found.extend(built_elsewhere(self, self.modules, taken))
        found.sort(key=lambda p: p.compose.line or 0)
        return found

    def _read_by_calls(self, node: ast.Call, taken: set[str]) -> list[FoundPipeline]:
        """The pipelines a module-level function returning `node` builds for each of the
        file's calls of it with literal arguments (``get_transform(train=True)`` and
        ``get_transform(train=False)``, as PyTorch's detection tutorial calls it), each read
        with those values, where its list changes under a test of them (``if train:
        transforms.append(...)``); none where a call's reading still cannot be followed, or
        the file makes no such call."""
        place = self._returned_from(node)
        if place is None:
            return []
        function = place[0]
        arguments_by_name: dict[str, dict[str, Any]] = {}
        for other in ast.walk(self.tree):
            if not (
                isinstance(other, ast.Call)
                and isinstance(other.func, ast.Name)
                and other.func.id == function.name
            ):
                continue
            arguments = call_arguments(function, other)
            if not arguments:
                continue
            arguments_by_name.setdefault(call_name(function.name, arguments), arguments)
        found: list[FoundPipeline] = []
        for name, arguments in arguments_by_name.items():
            if name in taken:
                continue
            reader = _Reader(self.tree, {**self.params, **arguments}, self.modules)
            try:
                call = reader._changed_pipeline(node, reader.call(node))
            except Unfollowable:
                return []  # not settled by the calls' values: refused as before
            defaults = tuple(reader.defaults_used.values())
            found.append(FoundPipeline(name, call, defaults=defaults))
        return found

    def _built_at_run_time(self, taken: set[str]) -> list[FoundPipeline]:
        """Pipelines another library's function builds when the code runs (timm's
        create_transform), by the names they are assigned to: listed, refused when chosen
        (:mod:`.run_time_builders`)."""
        found = []
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.Call):
                continue
            made_by = builder_of(self.dotted(node.func)) or self._weights_preset(node)
            if made_by is None:
                continue
            # named as a Compose is: assigned, returned, passed as a keyword, a dict's value
            name = self.unique_name(node, taken)
            placeholder = TransformCall("torchvision", "Compose", line=node.lineno)
            found.append(FoundPipeline(name, placeholder, refusal(name, node, *made_by)))
        return found

    def _weights_preset(self, call: ast.Call) -> tuple[str, str] | None:
        """torchvision's ``weights.transforms()`` (``ResNet50_Weights.DEFAULT.transforms()``,
        or of a name assigned the weights), else None."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "transforms"):
            return None
        weights = func.value
        if isinstance(weights, ast.Name):
            assigned = self._assignment(weights.id, call.lineno)
            weights = assigned if assigned is not None else weights
        if isinstance(weights, ast.Call):  # torchvision.models.get_weight("ResNet50_Weights...")
            named = self.dotted(weights.func) == "torchvision.models.get_weight"
            return WEIGHTS_PRESET if named else None
        return WEIGHTS_PRESET if is_weights(self.dotted(weights)) else None

    def _replaced_at(self, node: ast.Call) -> ast.Assign | None:
        """The later assignment, in the same scope, of the name a compose is assigned to."""
        assignment = self._name_assignment(node)
        if assignment is None:
            return None
        scope = scope_of(assignment, self.parents)
        later = [
            other
            for other in self.assigned.get(_target(assignment), [])
            if other.lineno > assignment.lineno and scope_of(other, self.parents) is scope
        ]
        return later[0] if later else None

    def _returned_pipelines(
        self, found: list[FoundPipeline], taken: set[str]
    ) -> list[FoundPipeline]:
        """A name last assigned the call of a function returning a pipeline (``train_transform
        = get()``), known by that name too: the pipeline it holds when the file has run."""
        returned: dict[str, list[FoundPipeline]] = {}
        for pipeline in found:
            returned.setdefault(pipeline.base_name, []).append(pipeline)
        named: list[FoundPipeline] = []
        for name, assignments in self.assigned.items():
            last = assignments[-1]
            call = last.value
            if name in taken or not isinstance(call, ast.Call):
                continue
            # a function with one Compose per branch: the call's arguments pick the branch
            branch = self._branch_taken(call, found) or self._read_by_call(call, found)
            function = [branch] if branch else returned.get(ast.unparse(call.func), [])
            if len(function) != 1 or (branch is None and (call.args or call.keywords)):
                continue  # none, or several returns (which runs?), or arguments not read
            (pipeline,) = function
            try:
                edited = self._changed(
                    f"{name}.transforms", list(pipeline.compose.children), last, _END_OF_FILE
                )
            except Unfollowable as error:
                refused = _unfollowable(error, name)
                named.append(
                    dataclasses.replace(pipeline, name=name, unreadable=refused, line_name="")
                )
                continue
            compose = dataclasses.replace(pipeline.compose, children=tuple(edited))
            # edited after the call, it is a pipeline of its own; else the function's, renamed
            alias_of = pipeline.name if compose == pipeline.compose else ""
            named.append(
                dataclasses.replace(
                    pipeline, name=name, compose=compose, alias_of=alias_of, line_name=""
                )
            )
        return named

    def _branch_name(self, node: ast.Call) -> tuple[str, tuple[_Defined, ast.Return]] | None:
        """``get_transforms(train=True)`` for a Compose a function returns in a branch its
        parameters' tests settle (:mod:`.branches`); None otherwise."""
        place = self._returned_from(node)
        if place is None:
            return None
        function, returned = place
        arguments = branch_arguments(function, returned, self.parents)
        if arguments is None:
            return None
        return call_name(function.name, arguments), place

    def _returned_from(self, node: ast.Call) -> tuple[_Defined, ast.Return] | None:
        """(module-level function, its return statement) where `node` is returned as it is."""
        returned = self.parents.get(node)
        function = self.parents.get(returned) if isinstance(returned, ast.Return) else None
        while function is not None and not isinstance(function, _FUNCTION_TYPES):
            function = self.parents.get(function)
        if not isinstance(returned, ast.Return) or not isinstance(
            function, ast.FunctionDef | ast.AsyncFunctionDef
        ):
            return None
        if self.parents.get(function) is not self.tree:
            return None
        return function, returned

    def _branch_taken(self, call: ast.Call, found: list[FoundPipeline]) -> FoundPipeline | None:
        """The pipeline of the branch a call of a function with one Compose per branch takes
        (``get_transforms(mode="val")``); None where the call is of no such function or which
        branch it takes is not known."""
        called = ast.unparse(call.func)
        taken: list[FoundPipeline] = []
        for pipeline in found:
            place = self.branches.get(pipeline.name)
            if place is None or place[0].name != called:
                continue
            arguments = call_arguments(place[0], call)
            if arguments is None or reaches(place[0], place[1], self.parents, arguments) is None:
                return None
            if reaches(place[0], place[1], self.parents, arguments):
                taken.append(pipeline)
        return taken[0] if len(taken) == 1 else None

    def _read_by_call(self, call: ast.Call, found: list[FoundPipeline]) -> FoundPipeline | None:
        """The pipeline read for the call `call` writes (:meth:`_read_by_calls`), else None."""
        if not isinstance(call.func, ast.Name) or call.func.id not in self.functions:
            return None
        function = next(
            (
                node
                for node in self.tree.body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                and node.name == call.func.id
            ),
            None,
        )
        arguments = None if function is None else call_arguments(function, call)
        if not arguments:
            return None
        name = call_name(call.func.id, arguments)
        return next((p for p in found if p.name == name), None)

    def _wrapper_note(self, node: ast.Call, name: str) -> tuple[str, ...]:
        """What a pipeline given to the file's own class or function is not
        (``train_transform = TwoCropsTransform(T.Compose([...]))``): the port is the Compose,
        one image's transforms; what the wrapper makes of it (two views) is said, not ported."""
        compose = (self.transform_class(node) or ("", "Compose"))[1]
        parent = self.parents.get(node)
        while isinstance(parent, ast.Call | ast.keyword | ast.List | ast.Tuple):
            if isinstance(parent, ast.Call) and self._wraps_views(parent):
                wrapper = ast.unparse(parent.func)
                held = name.split(" (line ", 1)[0]
                found = self.modules.definition(parent.func) if self.modules else None
                # the wrapper class of another file (MoCo's moco.loader.TwoCropsTransform)
                defined = f", defined in {found.where}" if isinstance(found, Definition) else ""
                return (
                    f"{held} is {wrapper}({compose}(...)) (line {parent.lineno}{defined}): the "
                    "port is "
                    f"the {compose}, the transforms of one image; what {wrapper} makes of it "
                    "(two views of each image, a pair with its target) is the file's own code, "
                    "not ported",
                )
            parent = self.parents.get(parent)
        return ()

    def _views_noted(
        self, found: list[FoundPipeline], composes: list[ast.Call]
    ) -> list[FoundPipeline]:
        """Pipelines a class keeps side by side (``self.global_transfo1``, ``self.local_transfo``:
        DINO's crops, BYOL's two views), each noted as one of them: its port is that one
        alone, what the class's call makes of them is not ported."""
        owners = {id(c): self._owner_class(c) for c in composes}
        kept: dict[str, list[str]] = {}
        for pipeline, node in zip(found, composes, strict=True):
            owner = owners[id(node)]
            if owner and pipeline.base_name.startswith("self."):
                kept.setdefault(owner, []).append(pipeline.base_name)
        noted = []
        for pipeline, node in zip(found, composes, strict=True):
            owner = owners[id(node)]
            others = kept.get(owner or "", [])
            if pipeline.base_name in others and len(set(others)) > 1:
                note = (
                    f"{pipeline.base_name} is one of the {len(set(others))} pipelines {owner} "
                    f"keeps ({', '.join(dict.fromkeys(others))}): the port is it alone; how "
                    f"{owner} uses them (views of one image, or training and validation) is "
                    "the file's own code, not ported"
                )
                pipeline = dataclasses.replace(pipeline, defaults=(*pipeline.defaults, note))
            noted.append(pipeline)
        return noted

    def _owner_class(self, node: ast.AST) -> str | None:
        parent = self.parents.get(node)
        while parent is not None and not isinstance(parent, ast.ClassDef):
            parent = self.parents.get(parent)
        return parent.name if isinstance(parent, ast.ClassDef) else None

    def _wraps_views(self, call: ast.Call) -> bool:
        """Whether `call` is code of the file's own (or its project's) taking a pipeline, not a
        library's transform or a dataset given it as its ``transform=``."""
        if self.transform_class(call) is not None:
            return False
        head = (self.dotted(call.func) or "").split(".")[0]
        if head in {"torch", "torchvision", "timm", "albumentations", "PIL", "datasets"}:
            return False
        return not any(k.arg in {"transform", "transforms"} for k in call.keywords)

    def inside_pipeline(self, node: ast.AST) -> bool:
        """Whether `node` is part of a pipeline (a Compose, or a Sequential of transforms)."""
        parent = self.parents.get(node)
        while parent is not None:
            if self.is_compose(parent):
                return True
            parent = self.parents.get(parent)
        return False

    def _inside_compose(self, node: ast.AST) -> bool:
        parent = self.parents.get(node)
        while parent is not None:
            if isinstance(parent, ast.Call) and self.transform_class(parent):
                found = self.transform_class(parent)
                if found and found[1] in NESTED[found[0]]:
                    return True
            if isinstance(parent, ast.Call) and self.is_sequential(parent):
                return True
            parent = self.parents.get(parent)
        return False

    def unique_name(self, node: ast.Call, taken: set[str]) -> str:
        """The name of the pipeline `node` makes (:meth:`_name_of`), with its line where another
        pipeline of the file has `taken` it; added to `taken`."""
        name = self._name_of(node)
        if name in taken:
            name = f"{name} (line {node.lineno})"
        taken.add(name)
        return name

    def _name_of(self, node: ast.Call) -> str:
        """The name a compose is known by: its assignment's target, the function returning it,
        the keyword it is passed as, else its line; a value of a dict written out is known by
        its key too (``data_transforms['train']``, as PyTorch's tutorials keep theirs)."""
        child: ast.AST = node
        keys = ""
        parent = self.parents.get(node)
        below: ast.AST = node
        while parent is not None:
            if isinstance(parent, ast.Assign | ast.AnnAssign):
                target = parent.targets[0] if isinstance(parent, ast.Assign) else parent.target
                text = ast.unparse(target)
                if isinstance(child, ast.keyword) and child.arg:
                    return f"{text}.{child.arg}" if child.value is not node else text + keys
                return text + keys
            if isinstance(parent, ast.Return):
                function = self._enclosing_function(parent)
                if function is not None:
                    return function + keys
            if isinstance(parent, ast.FunctionDef | ast.Module | ast.ClassDef):
                break
            if isinstance(parent, ast.keyword) and parent.arg and parent.value is node:
                child = parent
            if isinstance(parent, ast.Dict):
                keys = _key_of(parent, below) + keys
            below = parent
            parent = self.parents.get(parent)
        return f"line {node.lineno}"

    def _enclosing_function(self, node: ast.AST) -> str | None:
        parent = self.parents.get(node)
        while parent is not None:
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
                return parent.name
            parent = self.parents.get(parent)
        return None

    # ---- calls and values ----------------------------------------------------------------------
    def call(self, node: ast.Call) -> TransformCall:
        if self.is_sequential(node):  # the transforms it holds, in order, as a Compose's
            held = tuple(self.transforms(node))
            return TransformCall("torchvision", "Compose", line=node.lineno, children=held)
        found = self.transform_class(node)
        if found is None:  # not a library's class: a custom transform, kept by its name
            name = ast.unparse(node.func)
            # the module it is imported from (timm.data.transforms), said in its refusal
            module = (self.dotted(node.func) or "").rpartition(".")[0]
            given, named = self._values(node.args), self._keywords(node)
            # a class of the file's own that reads as a blur the port knows (MoCo's)
            own = own_pil_class(self.tree, name, given, named)
            defined_at = ""
            if own is None and self.modules is not None:  # one of its project's other files
                own, defined_at = defined_elsewhere(self.modules, node.func, name, given, named)
            return TransformCall(
                "custom",
                name,
                given,
                named,
                node.lineno,
                module=module,
                own=own,
                defined_at=defined_at,
            )
        library, name = found
        args = list(node.args)
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        children: tuple[TransformCall, ...] = ()
        if name == "OneOrOther" and "transforms" not in keywords:
            # albumentations' OneOrOther(first, second): the pair is its transforms
            pair = [
                keywords.pop(key, None) or (args.pop(0) if args else None)
                for key in ("first", "second")
            ]
            children = tuple(self.transforms(ast.List([i for i in pair if i is not None])))
        elif name in NESTED[library]:
            listed = keywords.pop("transforms", None) or (args.pop(0) if args else None)
            if listed is not None:
                children = tuple(self.transforms(listed))
        kwargs = {**self._spread(node), **{key: self.value(v) for key, v in keywords.items()}}
        module = (self.dotted(node.func) or "").rsplit(".", 1)[0]
        values = self._values(args)
        return TransformCall(library, name, values, kwargs, node.lineno, children, module)

    def _values(self, nodes: list[ast.expr]) -> tuple[Any, ...]:
        values: list[Any] = []
        for node in nodes:
            spread = self.value(node.value) if isinstance(node, ast.Starred) else None
            if isinstance(spread, list | tuple):  # Resize(*IMG_SIZE) of a known size
                values.extend(spread)
            else:
                values.append(self.value(node))
        return tuple(values)

    def _keywords(self, node: ast.Call) -> dict[str, Any]:
        return {
            **self._spread(node),
            **{k.arg: self.value(k.value) for k in node.keywords if k.arg},
        }

    def _spread(self, node: ast.Call) -> dict[str, Any]:
        """The arguments a call's ``**mapping`` gives (``Resize(**size)`` with ``size =
        dict(height=384, width=384)``), or, where the mapping is not known from the file,
        an Unknown under :data:`SPREAD` that refuses the call (it was dropped: a wrong
        refusal followed, ``height=None is not a number``)."""
        given: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is not None:
                continue
            mapping = self.value(keyword.value)
            if isinstance(mapping, dict) and all(isinstance(key, str) for key in mapping):
                given.update(mapping)
            else:
                text = ast.unparse(keyword.value)
                given[SPREAD] = Unknown(text, getattr(keyword.value, "lineno", None))
        return given

    def transforms(self, node: ast.expr) -> Iterator[TransformCall]:
        """The transforms a list holds: calls, names assigned a call, lists assigned to a
        name, and lists added together."""
        if isinstance(node, ast.Name):
            assignment = self._assignment_node(node.id, node.lineno)
            if assignment is not None:
                items = list(self.transforms(assignment.value))
                yield from self._changed(node.id, items, assignment, _at(node))
                return
        if isinstance(node, ast.List | ast.Tuple):
            for item in node.elts:
                if isinstance(item, ast.Starred):
                    yield from self.transforms(item.value)
                elif isinstance(item, ast.IfExp) and (side := self._settled(item.test)) is not None:
                    # `A.HorizontalFlip() if cfg.hflip else A.NoOp()`: the side the file takes
                    yield self._item(item.body if side else item.orelse)
                else:
                    yield self._item(item)
            return
        if isinstance(node, ast.IfExp) and (side := self._settled(node.test)) is not None:
            # `*([A.Blur()] if cfg.strong else [])`: the list the file takes
            yield from self.transforms(node.body if side else node.orelse)
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            yield from self.transforms(node.left)
            yield from self.transforms(node.right)
            return
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.List):
            part = self._part(node)
            if part is not None:  # augs[:2], augs[-1]: part of a list the file writes
                items = list(self.transforms(node.value))
                if isinstance(part, slice):
                    yield from items[part]
                    return
                if -len(items) <= part < len(items):
                    yield items[part]
                    return
        if isinstance(node, ast.Call):
            held = self._held_modules(node)
            if held is not None:  # torch's container of the transforms: what it holds
                yield from self.transforms(held)
                return
            yield self.call(node)  # a single transform where a list is expected
            return
        yield _unread(node)

    def _settled(self, test: ast.expr) -> bool | None:
        """An ``if`` expression's test as the file settles it (``cfg.hflip`` of a known
        config), else None: which side runs is known only when the file runs."""
        value = self.value(test)
        if isinstance(value, bool | int | float | str | list | tuple | dict) or value is None:
            return bool(value)
        return None

    def _part(self, node: ast.Subscript) -> slice | int | None:
        """The slice or index `node` takes of a list, where its bounds are whole numbers the
        file gives (None otherwise: the list's part is not known without running it)."""
        index = node.slice
        if isinstance(index, ast.Slice):
            bounds = [
                None if b is None else self.value(b) for b in (index.lower, index.upper, index.step)
            ]
            if all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in bounds):
                return slice(*bounds)
            return None
        value = self.value(index)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def _item(self, item: ast.expr) -> TransformCall:
        """One transform of a list: a call, or a name assigned a call (refused where the file
        sets its attributes after: :meth:`_attributes_kept`)."""
        if isinstance(item, ast.Call):
            return self.call(item)
        if isinstance(item, ast.Subscript):  # augs[0]: one transform of a list
            found = list(self.transforms(item))
            if len(found) == 1:
                return found[0]
        if isinstance(item, ast.Name):
            made = self._assignment_node(item.id, item.lineno)
            if made is not None and isinstance(made.value, ast.Call):
                call = self.call(made.value)
                self._attributes_kept(item.id, made, call)
                return call
        return _unread(item)

    def _attributes_kept(
        self, key: str, made: ast.Assign, call: TransformCall, items: Sequence[TransformCall] = ()
    ) -> None:
        """Raise Unfollowable where the file sets an attribute of the transform (or of an item
        of the list) `key` names after `made` builds it (``flip.p = 0.0``): the pipeline holds
        that object, so the value set is what runs, whatever the call read says. Set in
        another function (one not binding the name itself) it may run at any time."""
        name = key.split(".", 1)[0].removesuffix("[]")
        scope = scope_of(made, self.parents)
        end = self._bound_until(name, made, scope)
        ancestors = self._ancestors(made)
        for change in self.attribute_changes.get(key, []):
            where = scope_of(change, self.parents)
            if where is not scope and self._assigns_in(name, where):
                continue  # a transform of the same name of that function's own
            if where is scope and not (
                _at(made) < _at(change) and (end is None or _at(change) < end)
            ):
                continue
            text = ast.unparse(change)
            if where is scope and not runs(
                Change(change, "other"), self.parents, self._settled_value, stop=ancestors
            ):
                continue
            held = f"{call.name} (line {call.line})"
            if key.endswith("[]"):  # an item of a list: which one, where the place is known
                held = f"an item of {key.removesuffix('[]')}"
                item = self._item_changed(change, list(items))
                if item is not None:
                    call, held = item, f"{item.name}, {held}"
            what = f"sets an attribute of {held}, a transform the pipeline holds, after building it"
            if where is not scope:
                what += ", in another function"
            raise Unfollowable(change.lineno, text, what, _constructor_fix(change, call))

    def _item_changed(self, change: ast.stmt, items: list[TransformCall]) -> TransformCall | None:
        """The item of `items` whose attribute `change` sets (``augs[1].p = 0.0``), where its
        place is a number the file gives; else None."""
        target = change.targets[0] if isinstance(change, ast.Assign) else None
        held = target.value if isinstance(target, ast.Attribute) else None
        if not isinstance(held, ast.Subscript):
            return None
        index = self.value(held.slice)
        if isinstance(index, int) and not isinstance(index, bool) and -len(items) <= index:
            return items[index] if index < len(items) else None
        return None

    def _changed(
        self, key: str, items: list[TransformCall], made: ast.Assign, used: Position
    ) -> list[TransformCall]:
        """`items`, the list `key` was made with at `made`, as the file changes it before line
        `used` (where a pipeline takes it); a change after that changes the pipeline too, and
        is not followed, nor is one made in another function (which runs when it is called) or
        under another name for the list."""
        name = key.split(".", 1)[0]
        scope = scope_of(made, self.parents)
        end = self._bound_until(name, made, scope)
        mine: list[Change] = []
        for change in self.changes.get(key, []):
            where = scope_of(change.statement, self.parents)
            if where is not scope:
                if not self._assigns_in(name, where):  # the same list, from another function
                    raise Unfollowable(
                        change.line, change.text, "changes it in another function or class"
                    )
                continue  # a list of the same name of that function's own
            if _at(made) < _at(change.statement) and (end is None or _at(change.statement) < end):
                mine.append(change)
        for other, assignments in self.assigned.items():
            aliased = any(isinstance(a.value, ast.Name) and a.value.id == name for a in assignments)
            if other != name and aliased and self.changes.get(other):
                first = self.changes[other][0]
                raise Unfollowable(
                    first.line, first.text, f"changes it under another name, {other}"
                )
        ancestors = self._ancestors(made)

        def live(change: Change) -> bool:
            return runs(change, self.parents, self._settled_value, stop=ancestors)

        self._attributes_kept(f"{key}[]", made, TransformCall("custom", key), items)
        for change in mine:
            if _at(change.statement) > used and live(change):
                raise Unfollowable(
                    change.line,
                    change.text,
                    f"changes it after the pipeline takes it (line {used[0]})",
                )
        return apply(
            items,
            [c for c in mine if _at(c.statement) < used and live(c)],
            value=self.value,
            one=self._item,
            many=lambda node: list(self.transforms(node)),
        )

    def _assigns_in(self, name: str, scope: ast.AST | None) -> bool:
        """Whether `name` is assigned in `scope` itself (a local of that function)."""
        return any(scope_of(a, self.parents) is scope for a in self.assigned.get(name, []))

    def _bound_until(self, name: str, made: ast.AST, scope: object) -> Position | None:
        """Where `name` is next assigned in `made`'s scope after `made` (None: never): what the
        file does to the name from there on is done to another object."""
        later = [
            _at(a)
            for a in self.assigned.get(name, [])
            if _at(a) > _at(made) and scope_of(a, self.parents) is scope
        ]
        return min(later, default=None)

    def _ancestors(self, node: ast.AST) -> set[ast.AST]:
        found: set[ast.AST] = set()
        parent = self.parents.get(node)
        while parent is not None:
            found.add(parent)
            parent = self.parents.get(parent)
        return found

    def _settled_value(self, test: ast.expr) -> Any:
        """An ``if`` test's value where the file settles it: names assigned once, outside any
        function's parameters (``__name__`` is ``"__main__"``, a script run); else Unknown."""
        unknown = Unknown(ast.unparse(test), getattr(test, "lineno", None))
        for node in ast.walk(test):
            if not isinstance(node, ast.Name) or node.id in ("__name__", *self.params):
                continue
            if self._is_parameter(node):
                # `if hflip_prob > 0:` read at the parameter's default, as values are (said)
                parameter = self._parameter_default(node)
                if parameter is None:
                    return unknown
                function, default = parameter
                if default is None and not given_by_calls(
                    self.tree, self.parents, function, node.id
                ):
                    return unknown
            elif len(self.assigned.get(node.id, [])) != 1:
                return unknown
        return self.value(test)

    def _is_parameter(self, name: ast.Name) -> bool:
        parent = self.parents.get(name)
        while parent is not None:
            if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                arguments = parent.args
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                every += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
                if any(a.arg == name.id for a in every):
                    return True
            parent = self.parents.get(parent)
        return False

    def _parameter_default(self, name: ast.Name) -> tuple[_Function, ast.expr | None] | None:
        """(function, default) where `name` reads a parameter of a function around it, one
        the function does not bind again before `name`'s line (that binding is read as any
        assignment is), its default None where it has none; else None."""
        child: ast.AST = name
        parent = self.parents.get(name)
        while parent is not None:
            # a default is evaluated where the function is defined: not in its own scope
            if isinstance(parent, _FUNCTION_TYPES) and child is not parent.args:
                if _binds_before(parent, name):
                    return None
                defaults = _parameter_defaults(parent.args)
                if name.id in defaults:  # a default of None: the call gives the value
                    return parent, defaults[name.id]
            child, parent = parent, self.parents.get(parent)
        return None

    def _given_by_call(self, name: ast.Name, function: _Function, depth: int) -> Any:
        """A parameter without a default as the file's calls of its function give it (its one
        call, or the expression every call writes, of one value at each: :mod:`.call_sites`),
        said in the port's notes; Unknown where there is no such call."""
        unknown = Unknown(name.id, name.lineno)  # the name the fix gives with --param
        given = given_by_calls(self.tree, self.parents, function, name.id)
        if given is None:
            return unknown
        found = self.value(given.value, depth + 1)
        if isinstance(found, Unknown):
            return unknown
        # `IMG` assigned again between two calls: the same text, two values
        if any(self.value(other, depth + 1) != found for other in given.others):
            return unknown
        self.defaults_used.setdefault((function, name.id), given.note(name.id, found))
        return found

    def _default_value(
        self, name: ast.Name, function: _Function, default: ast.expr, depth: int
    ) -> Any:
        """A parameter's default as its value, recorded for the pipeline being read so that
        the port says which value it took; Unknown where the default is."""
        found = self.value(default, depth + 1)
        if isinstance(found, Unknown):
            return Unknown(name.id, name.lineno)  # the name the fix gives with --param
        self.note_default(function, name.id, repr(found), f"--param {name.id}=VALUE to use another")
        return found

    def note_default(self, function: ast.AST, name: str, value: str, fix: str) -> None:
        """Record, for the pipeline being read, that parameter `name` of `function` was taken
        at its default `value` (the port says so, with `fix`)."""
        where = getattr(function, "name", "a lambda")
        owner = f"{where}'" if where.endswith("s") else f"{where}'s"
        self.defaults_used.setdefault(
            (function, name), f"{name}={value}, the default of {owner} parameter {name}; {fix}"
        )

    def _name_assignment(self, node: ast.Call) -> ast.Assign | None:
        """``name = node``: the assignment of `node` to one plain name, else None."""
        assignment = self.parents.get(node)
        if (
            isinstance(assignment, ast.Assign)
            and len(assignment.targets) == 1
            and isinstance(assignment.targets[0], ast.Name)
        ):
            return assignment
        return None

    def _changed_pipeline(self, node: ast.Call, call: TransformCall) -> TransformCall:
        """A compose as the file changes its ``.transforms`` after building it."""
        assignment = self._name_assignment(node)
        if assignment is None:
            return call
        key = f"{_target(assignment)}.transforms"
        self._attributes_kept(f"{key}[]", assignment, call, list(call.children))
        if key not in self.changes:
            return call
        children = self._changed(key, list(call.children), assignment, _END_OF_FILE)
        return dataclasses.replace(call, children=tuple(children))

    def _held_modules(self, node: ast.Call) -> ast.expr | None:
        """The list a ``torch.nn.ModuleList([...])`` or ``nn.Sequential(a, b)`` call holds
        (torchvision's documented scriptable form of a group), else None."""
        dotted = self.dotted(node.func)
        if dotted == "torch.nn.ModuleList":
            given = [*node.args, *(k.value for k in node.keywords if k.arg == "modules")]
            return given[0] if given else ast.List([])
        if dotted == "torch.nn.Sequential" and not node.keywords:
            named = self._ordered_dict_values(node.args[0]) if len(node.args) == 1 else None
            return named if named is not None else ast.List(list(node.args))
        return None

    def _ordered_dict_values(self, node: ast.expr) -> ast.List | None:
        """The modules of ``OrderedDict([("name", module), ...])`` (``nn.Sequential``'s named
        form), in order; None for anything else."""
        if isinstance(node, ast.Name):
            assigned = self._assignment(node.id, node.lineno)
            node = assigned if assigned is not None else node
        if not (
            isinstance(node, ast.Call)
            and self.dotted(node.func) == "collections.OrderedDict"
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.List | ast.Tuple)
        ):
            return None
        pairs = node.args[0].elts
        if not all(isinstance(pair, ast.Tuple) and len(pair.elts) == 2 for pair in pairs):
            return None
        return ast.List([pair.elts[1] for pair in pairs if isinstance(pair, ast.Tuple)])

    def _assignment(self, name: str, line: int) -> ast.expr | None:
        """The value last assigned to `name` before `line` (any scope), else the first one."""
        chosen = self._assignment_node(name, line)
        return chosen.value if chosen is not None else None

    def _assignment_node(self, name: str, line: int) -> ast.Assign | None:
        candidates = self.assigned.get(name, [])
        before = [a for a in candidates if a.lineno < line]
        return before[-1] if before else (candidates[0] if candidates else None)

    def value(self, node: ast.expr, depth: int = 0) -> Any:
        """A literal, a constant named in the file, a library constant, else Unknown (with
        where its value comes from, where that is a checkpoint's settings)."""
        found = self._value(node, depth)
        if isinstance(found, Unknown) and not found.hint:
            hint = self._checkpoint_hint(node)
            return dataclasses.replace(found, hint=hint) if hint else found
        return found

    def _checkpoint_hint(self, node: ast.expr, depth: int = 0) -> str:
        """Where a value read from a model's saved settings comes from: Hugging Face's
        ``processor = AutoImageProcessor.from_pretrained(checkpoint)``, then
        ``processor.image_mean`` (or a name assigned from it, ``size = processor.size[...]``),
        known only once the checkpoint's settings are loaded; "" for any other value."""
        if depth > 5:
            return ""
        if isinstance(node, ast.Name):  # size = processor.size["shortest_edge"] if ... else ...
            assigned = self._assignment(node.id, node.lineno)
            if assigned is None or not _computable(assigned):
                return ""
            inner = self._checkpoint_hint(assigned, depth + 1)
            return f"{node.id} is {inner}" if inner else ""
        for part in ast.walk(node):
            root = part
            while isinstance(root, ast.Attribute | ast.Subscript):
                root = root.value
            if root is part or not isinstance(root, ast.Name):
                continue
            made = self._assignment(root.id, getattr(part, "lineno", 0))
            if isinstance(made, ast.Call) and ast.unparse(made.func).endswith(".from_pretrained"):
                return (
                    f"read from {root.id}, {ast.unparse(made.func)}(...) (line {made.lineno}), "
                    "whose values "
                    "are the checkpoint's saved settings, loaded when the file runs: "
                    f"print({ast.unparse(part)}) there to see the value"
                )
        return ""

    def _value(self, node: ast.expr, depth: int = 0) -> Any:
        """:meth:`value` itself."""
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            pass
        unknown = Unknown(ast.unparse(node), getattr(node, "lineno", None))
        if depth > 20:
            return unknown
        if isinstance(node, ast.Name):
            if node.id in self.params:
                return self.params[node.id]
            if node.id == "__name__" and node.id not in self.assigned:
                return "__main__"  # a script as it runs: `if __name__ == "__main__":`
            parameter = self._parameter_default(node)
            if parameter is not None:
                function, default = parameter
                if default is None:  # the call gives it (a global of that name is shadowed)
                    return self._given_by_call(node, function, depth)
                return self._default_value(node, function, default, depth)
            assigned = self._bound_value(node.id, node.lineno)
            imported = known_constant(self.aliases.get(node.id)) if assigned is None else None
            if imported is not None:  # from timm.data import IMAGENET_DEFAULT_MEAN
                return imported
            if assigned is not None and _computable(assigned):
                found = self.value(assigned, depth + 1)
                return unknown if isinstance(found, Unknown) else found
            return unknown
        if isinstance(node, ast.Subscript):  # cfg["crop"], sizes[0] of a constant
            held = self.value(node.value, depth + 1)
            key = self.value(node.slice, depth + 1)
            if isinstance(held, dict) and not isinstance(key, Unknown | list | dict):
                return held.get(key, unknown)
            if (
                isinstance(held, list | tuple)
                and isinstance(key, int)
                and -len(held) <= key < len(held)
            ):
                return held[key]
            return unknown
        if isinstance(node, ast.Attribute):
            dotted = self.dotted(node)
            if dotted and dotted in self.params:  # --param args.size=224, as the refusal says
                return self.params[dotted]
            written = ast.unparse(node)
            if written in self.params:
                return self.params[written]
            # Config.crop = ... outside the class: which value a line reads is not followed
            bound = [] if written in set_attributes(self) else self.constants.get(written, [])
            before = [b for b in bound if b[0] < node.lineno] or bound[:1]  # as _last_before
            attribute = None
            if before and isinstance(node.value, ast.Name):  # Config.crop: read in its class
                attribute = in_class_scope(self, node.value.id, before[-1])
            elif before:
                attribute = before[-1][1]
            if attribute is not None and _computable(attribute):
                found = self.value(attribute, depth + 1)
                return unknown if isinstance(found, Unknown) else found
            held = object_attribute(self, node, depth)  # cfg.img_size of a config object
            if held is not None:
                return unknown if isinstance(held, Unknown) else held
            option = self.options.default(node)
            if option is not None:  # args.size: --size's default, as the script runs bare
                found = self.value(option.value, depth + 1)
                if isinstance(found, Unknown):
                    return unknown
                self.defaults_used.setdefault((option.value, written), option.note(written, found))
                return found
            timm = known_constant(dotted)  # timm.data.IMAGENET_DEFAULT_MEAN
            if timm is not None:
                return timm
            head = dotted.split(".")[0] if dotted else ""
            if dotted and (library_of(dotted) or head in {"torch", "cv2", "PIL", "np", "numpy"}):
                return Symbol(dotted)
            return unknown
        if isinstance(node, ast.List | ast.Tuple):
            items = [self.value(item, depth + 1) for item in node.elts]
            if any(isinstance(item, Unknown) for item in items):
                return unknown
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = self.value(node.left, depth + 1)
            right = self.value(node.comparators[0], depth + 1)
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                return unknown
            compared = _COMPARISONS.get(type(node.ops[0]))
            try:
                return compared(left, right) if compared is not None else unknown
            except TypeError:  # `size > "a"`: Python fails on it where the file runs
                return unknown
        if isinstance(node, ast.BoolOp):
            values = [self.value(item, depth + 1) for item in node.values]
            if any(isinstance(v, Unknown) for v in values):
                return unknown
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.IfExp):  # `0.5 if args.flip else 0.0`, its test settled
            test = self.value(node.test, depth + 1)
            if isinstance(test, Unknown):
                return unknown
            found = self.value(node.body if test else node.orelse, depth + 1)
            return unknown if isinstance(found, Unknown) else found
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.value(node.operand, depth + 1)
            return unknown if isinstance(inner, Unknown) else not inner
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.value(node.operand, depth + 1)
            return -inner if isinstance(inner, int | float) else unknown
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _NUMBER_BUILTINS
            and node.func.id not in self.aliases
            and len(node.args) == 1
            and not node.keywords
        ):
            inner = self.value(node.args[0], depth + 1)
            if _is_number(inner):
                return _NUMBER_BUILTINS[node.func.id](inner)
            return unknown
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _EXTREMES
            and node.func.id not in self.aliases
            and not node.keywords
        ):  # max(IMG_SIZE), min(H, W)
            found = self._values(node.args)
            numbers = found[0] if len(found) == 1 and isinstance(found[0], list | tuple) else found
            if numbers and all(_is_number(n) for n in numbers):
                return _EXTREMES[node.func.id](numbers)
            return unknown
        if isinstance(node, ast.Dict) or _is_dict_call(node, self.aliases):
            return self._dict(node, unknown, depth)
        if (
            isinstance(node, ast.Call)
            and self.dotted(node.func) == "collections.defaultdict"
            and 1 <= len(node.args) <= 2
            and not node.keywords
        ):  # v2's fill per type as torchvision's references write it
            given = node.args[1] if len(node.args) == 2 else ast.Dict([], [])
            if not (isinstance(given, ast.Dict) or _is_dict_call(given, self.aliases)):
                return unknown
            entries = self._dict(given, unknown, depth)
            if not isinstance(entries, dict):
                return unknown
            return FactoryDict(entries, ast.unparse(node.args[0]))
        if (
            isinstance(node, ast.Call)
            and self.dotted(node.func) in _ARRAY_CALLS
            and len(node.args) == 1
            and not node.keywords
        ):  # Normalize(mean=torch.tensor(IMAGENET_DEFAULT_MEAN)), as timm writes it
            numbers = self.value(node.args[0], depth + 1)
            if isinstance(numbers, list | tuple) and numbers and all(map(_is_number, numbers)):
                return list(numbers)
            return unknown
        if isinstance(node, ast.ListComp):  # [int(s * 0.875) for s in SIZE]
            made = comprehension_items(node, lambda part: self.value(part, depth + 1))
            return unknown if made is None else made
        if _sequence_call(node, self.aliases):  # tuple(int(s * 0.875) for s in SIZE)
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            given = node.args[0]
            if isinstance(given, ast.GeneratorExp | ast.ListComp):
                made = comprehension_items(given, lambda part: self.value(part, depth + 1))
            else:
                found = self.value(given, depth + 1)
                made = list(found) if isinstance(found, list | tuple) else None
            return unknown if made is None else SEQUENCE_CALLS[node.func.id](made)
        if isinstance(node, ast.BinOp):
            left = self.value(node.left, depth + 1)
            right = self.value(node.right, depth + 1)
            if isinstance(left, int | float) and isinstance(right, int | float):
                return _arithmetic(node.op, left, right, unknown)
            if isinstance(node.op, ast.Mult) and isinstance(left, list | tuple):
                return left * right if isinstance(right, int) and 0 <= right <= 64 else unknown
            if isinstance(node.op, ast.Add) and type(left) is type(right):
                return left + right if isinstance(left, list | tuple) else unknown
        return unknown

    def _dict(self, node: ast.expr, unknown: Unknown, depth: int) -> Any:
        """A dict literal or ``dict(height=384, width=IMG)`` whose keys and values are known."""
        if isinstance(node, ast.Dict):
            if any(key is None for key in node.keys):  # {**other}
                return unknown
            pairs = [
                (self.value(key, depth + 1), self.value(value, depth + 1))  # type: ignore[arg-type]
                for key, value in zip(node.keys, node.values, strict=True)
            ]
        else:
            assert isinstance(node, ast.Call)
            pairs = [(k.arg, self.value(k.value, depth + 1)) for k in node.keywords]
        if any(isinstance(item, Unknown) or key is None for key, item in pairs):
            return unknown
        try:
            return dict(pairs)
        except TypeError:  # a key that cannot be one (a list)
            return unknown


# calls making an array of the numbers they are given: read as the numbers' list
_ARRAY_CALLS = frozenset(
    {"torch.tensor", "torch.as_tensor", "torch.Tensor", "numpy.array", "numpy.asarray"}
)

Position = tuple[int, int]  # (line, column): statements on one line (`a = [...]; a.append(b)`)
_END_OF_FILE: Position = (10**9, 0)  # past any file's end: a pipeline's own list changes until it


_Function = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
_Defined = ast.FunctionDef | ast.AsyncFunctionDef
_FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _parameter_defaults(arguments: ast.arguments) -> dict[str, ast.expr | None]:
    """A function's parameters by name, each with its default (None: it has none)."""
    positional = [*arguments.posonlyargs, *arguments.args]
    given: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    found = dict(zip((a.arg for a in positional), [*given, *arguments.defaults], strict=True))
    found.update(zip((a.arg for a in arguments.kwonlyargs), arguments.kw_defaults, strict=True))
    for extra in (arguments.vararg, arguments.kwarg):
        if extra is not None:
            found[extra.arg] = None
    return found


def _binds_before(function: _Function, name: ast.Name) -> bool:
    """Whether `function` binds `name` (an assignment, a loop, ``+=``) before `name`'s line."""
    return any(
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Store)
        and node.id == name.id
        and node.lineno < name.lineno
        for node in ast.walk(function)
    )


def _computable(value: ast.expr) -> bool:
    """Whether an assigned value is one :meth:`_Reader.value` may compute: anything but a
    call, save the number builtins' (``crop = int(size * 0.875)``) and ``dict(...)``."""
    if not isinstance(value, ast.Call):
        return True
    if isinstance(value.func, ast.Attribute) and value.func.attr == "defaultdict":
        return True  # collections.defaultdict(...): read only as that (_Reader.value)
    return isinstance(value.func, ast.Name) and value.func.id in {
        *_NUMBER_BUILTINS,
        *_EXTREMES,
        *SEQUENCE_CALLS,
        "dict",
        "defaultdict",
    }


def _sequence_call(node: ast.expr, aliases: Mapping[str, str]) -> bool:
    """``tuple(...)`` or ``list(...)`` of one argument, the builtin (not a name imported)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in SEQUENCE_CALLS
        and node.func.id not in aliases
        and len(node.args) == 1
        and not node.keywords
    )


def _plain_names(target: ast.Tuple | ast.List) -> bool:
    """Whether an unpacking target is names only (``H, W``), none starred."""
    return all(isinstance(name, ast.Name) for name in target.elts)


def _item_of(value: ast.expr, index: int) -> ast.expr:
    """``value[index]``, where the file wrote `value`: what unpacking gives a name."""
    item = ast.Subscript(value=value, slice=ast.Constant(index), ctx=ast.Load())
    return ast.copy_location(item, value)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# max and min of known numbers (``max(IMG_SIZE)``, ``min(H, W)``): nothing of the file runs
_EXTREMES: dict[str, Any] = {"max": max, "min": min}


def _is_dict_call(node: ast.expr, aliases: Any) -> bool:
    """``dict(height=384, width=384)``: keywords only, the builtin itself."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "dict"
        and node.func.id not in aliases
        and not node.args
        and all(k.arg is not None for k in node.keywords)
    )


def _line(binding: tuple[int, ast.expr]) -> int:
    return binding[0]


def _last_before(bound: list[tuple[int, ast.expr]], line: int) -> ast.expr | None:
    """Of (line, value) bindings in line order, the value last bound before `line`, else the
    first one; None where there is none."""
    before = [value for at, value in bound if at < line]
    return before[-1] if before else (bound[0][1] if bound else None)


def _key_of(mapping: ast.Dict, value: ast.AST) -> str:
    """``['train']`` where `value` is `mapping`'s value under a string key, else nothing."""
    for key, held in zip(mapping.keys, mapping.values, strict=True):
        if held is value and isinstance(key, ast.Constant) and isinstance(key.value, str):
            return f"[{key.value!r}]"
    return ""


def _target(assignment: ast.Assign) -> str:
    """The plain name `assignment` assigns (see ``_Reader._name_assignment``)."""
    target = assignment.targets[0]
    return target.id if isinstance(target, ast.Name) else ast.unparse(target)


def _at(node: ast.AST) -> Position:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _unfollowable(error: Unfollowable, name: str, function: bool = False) -> str:
    """The refusal of a pipeline whose list changes as `error` says; `function`: the pipeline
    is what function `name` returns (port what a call of it builds)."""
    base = name.split(" (line ", 1)[0]
    built = f"{base}(...)" if function else base
    read = _test_names(str(error))
    given = (
        f"; or give the value the test reads with --param {read}=VALUE (params={{...}})"
        if "known only when the file runs" in str(error)
        else ""
    )
    first = f"{error.fix}; or " if error.fix else ""
    return (
        f"{error}, which reading the file without running it cannot follow: the pipeline read "
        f"would not be the one that runs (fix: {first}port the object the file builds, "
        f"Explorer(port={built}) or augexplorer.port.port_object({built}) in the notebook "
        f"that builds it{given}; or give the whole list in one expression)"
    )


def _test_names(said: str) -> str:
    """The name an ``if`` test in a refusal reads (`if train:` -> ``train``), for its
    ``--param``; NAME where there is none to name."""
    test = re.search(r"`if (.+?):`", said)
    try:
        tree = ast.parse(test.group(1), mode="eval") if test else None
    except SyntaxError:
        tree = None
    names = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)] if tree else []
    return names[0] if names else "NAME"


def _constructor_fix(change: ast.stmt, call: TransformCall) -> str:
    """The fix for an attribute set after the transform is built: give the value to its
    constructor (``T.RandomHorizontalFlip(p=0.0)``)."""
    target: ast.expr | None = None
    value: ast.expr | None = None
    if isinstance(change, ast.Assign) and len(change.targets) == 1:
        target, value = change.targets[0], change.value
    if isinstance(target, ast.Attribute) and value is not None and call.library != "custom":
        return (
            f"pass the value to the constructor, {call.name}(..., "
            f"{target.attr}={ast.unparse(value)}), and leave out the line that sets it"
        )
    return "pass the value to the transform's constructor, and leave out the line that sets it"


# Comparisons of known values an ``if`` test makes (``MODE == "strong"``)
_COMPARISONS: dict[type, Any] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


# Pure builtins on one number, computed here (``int(256 / 224 * size)``): nothing of the
# file runs.
_NUMBER_BUILTINS: dict[str, Any] = {"int": int, "float": float, "round": round, "abs": abs}


def _arithmetic(op: ast.operator, left: float, right: float, unknown: Unknown) -> Any:
    """Simple arithmetic on known numbers (``int(0.875 * size)`` is not: it calls)."""
    try:
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.FloorDiv):
            return left // right
    except ZeroDivisionError:
        return unknown
    return unknown


COMPREHENSIONS = (ast.ListComp, ast.GeneratorExp, ast.SetComp)


def _unread(node: ast.expr) -> TransformCall:
    """An item of a transform list that is no call the reading can follow, as it is written:
    a comprehension (its loop would run only when the file runs) or another expression."""
    kind = "comprehension" if isinstance(node, COMPREHENSIONS) else "expression"
    if isinstance(node, ast.IfExp):  # a test the file does not settle (else it is read)
        kind = f"conditional on {ast.unparse(node.test)}"
    return TransformCall(
        "custom", ast.unparse(node), line=getattr(node, "lineno", None), expression=kind
    )
