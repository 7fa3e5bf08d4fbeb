"""Settings held by a configuration object, read without running the file: ``cfg.img_size``
where ``cfg = SimpleNamespace(img_size=320)`` (or an ``EasyDict``, an ``argparse.Namespace``), an
instance of a class the file defines (``config = Config()``, a dataclass with defaults, or
``Config(img_size=512)``), or a function's parameter whose default is such an object or class
(``def get_train_transforms(cfg=CFG)``). Anything else stays unknown, as before: a class whose
``__init__`` sets its attributes, positional arguments, an object built by a call the file does
not show.
"""

from __future__ import annotations

import ast
import copy
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .call_sites import given_by_calls

if TYPE_CHECKING:
    from .reading import _Reader

# Calls whose keywords (or one dict given to them) become the object's attributes
NAMESPACES = frozenset(
    {
        "types.SimpleNamespace",
        "argparse.Namespace",
        "easydict.EasyDict",
        "addict.Dict",
        "munch.Munch",
        "ml_collections.ConfigDict",
    }
)
_MOST_DEPTH = 20


@dataclass(frozen=True)
class _Object:
    """What an expression holds: a namespace's attributes (`given`), or an instance of (or the
    class itself) `class_name` with the keywords its call gave."""

    given: dict[str, ast.expr] = field(default_factory=dict)
    class_name: str = ""


def object_attribute(reader: _Reader, node: ast.Attribute, depth: int) -> Any | None:
    """The value of ``holder.attr`` where the holder is a configuration object the file
    builds; None where it is not one (the caller says the value is unknown)."""
    if ast.unparse(node) in set_attributes(reader):  # `cfg.img_size = 512` somewhere
        return None
    held = _object_of(reader, node.value, depth + 1)
    if held is None:
        return None
    value = _attribute_node(reader, held, node.attr)
    return None if value is None else reader.value(value, depth + 1)


def _given_by_call(
    reader: _Reader, node: ast.Name, function: ast.AST, depth: int
) -> _Object | None:
    """The settings object the file's one call of `function` gives the parameter `node` names
    (``build_transforms(CFG)`` for ``def build_transforms(cfg)``), said in the port's notes."""
    given = given_by_calls(reader.tree, reader.parents, function, node.id)
    held = None if given is None else _object_of(reader, given.value, depth + 1)
    if given is None or held is None:
        return None
    if any(_object_of(reader, other, depth + 1) != held for other in given.others):
        return None  # the same name, another object at another call
    reader.defaults_used.setdefault(
        (function, node.id),
        f"{node.id}={ast.unparse(given.value)}, {given.said()}; --param {node.id}.NAME=VALUE "
        "to give a setting another value",
    )
    return held


def _attribute_node(reader: _Reader, held: _Object, attr: str) -> ast.expr | None:
    if attr in held.given:
        return held.given[attr]
    if held.class_name:
        bound = reader.constants.get(f"{held.class_name}.{attr}", [])
        return in_class_scope(reader, held.class_name, bound[-1]) if bound else None
    return None


def in_class_scope(reader: _Reader, class_name: str, bound: tuple[int, ast.expr]) -> ast.expr:
    """A value bound in the body of class `class_name` as the class body reads it: ``crop =
    size - 32`` under ``size = 256`` in the class means its own `size` (written
    ``Config.size`` here), not a module constant of that name. A value bound elsewhere
    (``Config.crop = size - 32`` at module level) is returned as it is."""
    line, value = bound
    if not any(
        isinstance(node, ast.ClassDef)
        and node.name == class_name
        and node.lineno <= line <= (node.end_lineno or node.lineno)
        for node in reader.tree.body
    ):
        return value

    class _ClassNames(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            earlier = reader.constants.get(f"{class_name}.{node.id}", [])
            if not any(at < line for at, _ in earlier):
                return node
            attribute = ast.Attribute(ast.Name(class_name, ast.Load()), node.id, ast.Load())
            return ast.copy_location(attribute, node)

    # a copy keeps the value's lines, by which the names around it are read
    rewritten: ast.expr = _ClassNames().visit(copy.deepcopy(value))
    return rewritten


def _object_of(reader: _Reader, node: ast.expr, depth: int) -> _Object | None:
    if depth > _MOST_DEPTH:
        return None
    if isinstance(node, ast.Name):
        parameter = reader._parameter_default(node)
        if parameter is not None:
            function, default = parameter
            if default is None:
                return _given_by_call(reader, node, function, depth)
            held = _object_of(reader, default, depth + 1)
            if held is not None:
                reader.note_default(
                    function,
                    node.id,
                    ast.unparse(default),
                    f"--param {node.id}.NAME=VALUE to give a setting another value",
                )
            return held
        if node.id in _plain_classes(reader):
            return _Object(class_name=node.id)
        bound = reader._bound_value(node.id, node.lineno)
        return None if bound is None else _object_of(reader, bound, depth + 1)
    if isinstance(node, ast.Attribute):
        outer = _object_of(reader, node.value, depth + 1)
        inner = None if outer is None else _attribute_node(reader, outer, node.attr)
        return None if inner is None else _object_of(reader, inner, depth + 1)
    if isinstance(node, ast.Call):
        return _built(reader, node, depth)
    return None


def _built(reader: _Reader, call: ast.Call, depth: int) -> _Object | None:
    """The object a call builds: a namespace from its keywords (or one dict literal), or an
    instance of a class of the file from its keywords."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if any(k.arg is None for k in call.keywords):
        return None
    dotted = reader.dotted(call.func)
    if dotted in NAMESPACES:
        if not call.args:
            return _Object(given=keywords)
        if len(call.args) == 1 and isinstance(call.args[0], ast.Dict) and not keywords:
            held = call.args[0]
            names = [
                k.value
                for k in held.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            ]
            if len(names) == len(held.keys):  # every key a string: EasyDict({"size": 224})
                return _Object(given=dict(zip(names, held.values, strict=True)))
        return None
    if isinstance(call.func, ast.Name) and call.func.id in _plain_classes(reader):
        if call.args:  # by position: which field each fills is not read
            return None
        return _Object(given=keywords, class_name=call.func.id)
    return None


def _plain_classes(reader: _Reader) -> frozenset[str]:
    """The classes the file defines that set their attributes in the class body, with no
    ``__init__`` of their own (a dataclass, a settings class): an instance's attributes are
    the body's, or the keywords its call gives."""
    found = _CLASSES.get(reader)
    if found is None:
        found = frozenset(
            node.name
            for node in ast.walk(reader.tree)
            if isinstance(node, ast.ClassDef)
            and not any(
                isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                and item.name in ("__init__", "__new__", "__post_init__")
                for item in node.body
            )
        )
        _CLASSES[reader] = found
    return found


def set_attributes(reader: _Reader) -> frozenset[str]:
    """The attributes the file sets anywhere (``cfg.img_size = 512``, ``cfg.size += 32``), as
    written: their values are not the ones the object was built with."""
    found = _SET.get(reader)
    if found is None:
        targets: list[ast.expr] = []
        for node in ast.walk(reader.tree):
            if isinstance(node, ast.Assign):
                targets += node.targets
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets.append(node.target)
        found = frozenset(
            ast.unparse(target) for target in targets if isinstance(target, ast.Attribute)
        )
        _SET[reader] = found
    return found


_SET: weakref.WeakKeyDictionary[_Reader, frozenset[str]] = weakref.WeakKeyDictionary()
_CLASSES: weakref.WeakKeyDictionary[_Reader, frozenset[str]] = weakref.WeakKeyDictionary()
