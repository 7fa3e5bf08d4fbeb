"""The defaults of a file's command-line options, read without running it: what
``Resize(args.size)`` takes when the script runs with no options, as ``python train.py`` runs it
(and as Compare runs the file: its own ``sys.argv``).

``parser.add_argument("--img-size", type=int, default=224)`` gives ``args.img_size`` the value
224 where ``args`` holds what ``parse_args()`` returned: assigned from it, from a function of the
file returning it (``args = get_args()``), or a parameter of that name (``def build(args)``);
``parser.set_defaults(img_size=160)`` counts as argparse counts it (the later of it and an
option's own default holds).
An option with no default, a positional one and a destination two options give differently are
left unknown: the port refuses them with the fix ``--param args.size=VALUE``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# argparse's actions whose default is not None when the file gives none
_FLAG_DEFAULTS = {"store_true": False, "store_false": True}
_PARSE = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
_CONVERTERS = {"int": int, "float": float}


@dataclass(frozen=True)
class OptionDefault:
    """One option's default: the expression the file gives (or argparse's own), where."""

    option: str  # as the file names it: "--img-size"
    value: ast.expr
    line: int

    def note(self, written: str, found: object) -> str:
        return (
            f"{written}={found!r}, the default of {self.option} (line {self.line}), as the "
            f"script runs with no options; --param {written}=VALUE to use another"
        )


class ArgparseDefaults:
    """The options a file's parsers declare, by destination, and the names holding the
    parsed options."""

    def __init__(self, tree: ast.Module) -> None:
        self.options: dict[str, OptionDefault | None] = {}  # None: not known from the file
        self.namespaces: set[str] = set()
        # set_defaults' values: an option added after them without a default takes theirs
        self.parser_defaults: dict[str, OptionDefault] = {}
        returning: set[str] = set()  # functions returning parse_args()'s namespace
        calls = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _method(node) in ("add_argument", "set_defaults"):
                calls.append(node)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _returns_parsed(node):
                returning.add(node.name)
        # in the file's order: of an option's default and set_defaults', the later one holds
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            if _method(call) == "add_argument":
                self._add(call)
            else:
                self._set_defaults(call)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                name = _namespace_target(node.targets[0])
                if name is not None and _is_parsed(node.value, returning):
                    self.namespaces.add(name)

    def default(self, node: ast.Attribute) -> OptionDefault | None:
        """The default an attribute of the parsed options reads (``args.size``), else None."""
        if not (isinstance(node.value, ast.Name) and node.value.id in self.namespaces):
            return None
        return self.options.get(node.attr)

    def _add(self, call: ast.Call) -> None:
        names = [
            a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        if not names:
            return
        dest = _literal(keywords.get("dest"))
        if not isinstance(dest, str):
            long = [n for n in names if n.startswith("--")]
            dest = (long or names)[0].lstrip("-").replace("-", "_")
        found = self._default(call, names, keywords, dest)
        earlier = self.options.get(dest)
        from_set_defaults = earlier is not None and earlier is self.parser_defaults.get(dest)
        if dest in self.options and earlier != found and not from_set_defaults:
            found = None  # two options, two defaults: which one the attribute reads is not known
        self.options[dest] = found

    def _set_defaults(self, call: ast.Call) -> None:
        """``parser.set_defaults(size=160)``: the value the options read, over a default the
        file gave its option before."""
        for keyword in call.keywords:
            if keyword.arg is None:  # set_defaults(**table): which names it sets is not known
                continue
            before = self.options.get(keyword.arg)
            option = before.option if before is not None else keyword.arg
            given = OptionDefault(f"{option}, set by set_defaults", keyword.value, call.lineno)
            self.options[keyword.arg] = self.parser_defaults[keyword.arg] = given

    def _default(
        self, call: ast.Call, names: list[str], keywords: dict[str, ast.expr], dest: str
    ) -> OptionDefault | None:
        option = next((n for n in names if n.startswith("--")), names[0])
        positional = not option.startswith("-")
        if positional and _literal(keywords.get("nargs")) != "?":
            return None  # required on the command line: no default runs
        if _literal(keywords.get("required")) is True:
            return None
        if "default" in keywords:
            value = keywords["default"]
            given = _literal(value)
            kind = keywords.get("type")
            convert = _CONVERTERS.get(kind.id) if isinstance(kind, ast.Name) else None
            if isinstance(given, str) and convert is not None:  # argparse converts a text
                try:
                    value = ast.Constant(convert(given))
                except ValueError:
                    return None
            return OptionDefault(option, value, call.lineno)
        if dest in self.parser_defaults:  # argparse gives a later option set_defaults' value
            return self.parser_defaults[dest]
        action = _literal(keywords.get("action"))
        if isinstance(action, str) and action in _FLAG_DEFAULTS:
            return OptionDefault(option, ast.Constant(_FLAG_DEFAULTS[action]), call.lineno)
        return None  # argparse's None, which no transform takes as a size or a probability


def _method(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def _literal(node: ast.expr | None) -> object:
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _namespace_target(target: ast.expr) -> str | None:
    """``args`` of ``args = ...`` or ``args, unknown = ...`` (parse_known_args' pair)."""
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return None


def _is_parsed(value: ast.expr, returning: set[str]) -> bool:
    """``parser.parse_args()`` (``parse_known_args()``), or a call of a function of the file
    that returns it (``get_args()``)."""
    if not isinstance(value, ast.Call):
        return False
    if _method(value) in _PARSE:
        return True
    return isinstance(value.func, ast.Name) and value.func.id in returning


def _returns_parsed(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    parsed = {
        name
        for node in ast.walk(function)
        if isinstance(node, ast.Assign) and len(node.targets) == 1
        for name in [_namespace_target(node.targets[0])]
        if name is not None and _is_parsed(node.value, set())
    }
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            returned = node.value
            if _is_parsed(returned, set()):
                return True
            if isinstance(returned, ast.Name) and returned.id in parsed:
                return True
    return False


__all__ = ["ArgparseDefaults", "OptionDefault"]
