"""msgspec's validation errors, reworded for people: the field's path, what it takes, what it got.

``Expected `float`, got `str` - at `$.args.angle.low``` becomes
``nodes[3] (node 'rotate').args.angle.low: expected a number, got "abc"``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from msgspec import inspect

_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_STEP = re.compile(r"\.(?P<field>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>\d+)\]|\[\.\.\.\]")
_NOUNS = {
    "int": "an integer",
    "float": "a number",
    "str": "text",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
# What a field's fixed set of values is called, for "unknown source kind 'ftp'".
_CHOICE_NAMES = {"source": "source kind", "random": "distribution", "device": "device"}


def explain(error: msgspec.ValidationError, data: Any, kind: Any, where: str = "") -> str:
    """One line: where the problem is (`where` plus msgspec's path), what was wrong, the fix."""
    found = _AT.match(str(error))
    message = found["message"] if found else str(error)
    path = (found["path"] if found else None) or ""
    steps: list[str | int] = [
        step["field"] if step["field"] else int(step["index"]) if step["index"] else "..."
        for step in _STEP.finditer(path)
    ]
    place = (where + path).lstrip(".") or "spec"
    value = _lookup(data, steps)
    info = _type_at(inspect.type_info(kind), steps) if kind is not None else None
    return f"{_clip(place, 120)}: {_reword(message, value, info, steps)}"


def _reword(message: str, value: Any, info: inspect.Type | None, steps: list[str | int]) -> str:
    got = f", got {_show(value)}" if value is not _MISSING else ""
    if found := re.match(r"Expected `([\w |]+)`, got `(\w+)`", message):
        # "null" is how an optional field is left out: not worth saying
        names = [name for name in found[1].split(" | ") if name != "null"] or ["null"]
        return f"expected {' or '.join(_noun(name, info) for name in names)}{got}"
    if found := re.match(r"Expected `(\w+)` ([<>]=?) (\S+)", message):
        return f"expected {_noun(found[1], info)} {found[2]} {found[3]}{got}"
    if found := re.match(r"Expected `(\w+)` of length ([<>]=?) (\d+)", message):
        unit = "characters" if found[1] == "str" else "items"
        bound = "at most" if "<" in found[2] else "at least"
        return f"expected {_noun(found[1], info)} of {bound} {found[3]} {unit}{got}"
    if message.startswith("Expected `str` matching regex"):
        return f"expected a node output such as 'decode' or 'reader:1'{got}"
    if found := re.match(r"Object contains unknown field `(.*)`", message):
        allowed = _fields(info)
        listed = f"; allowed: {', '.join(allowed)}" if allowed else ""
        return f"unknown field {_clip(found[1], 40)!r}{listed}"
    if found := re.match(r"Object missing required field `(.*)`", message):
        return f"missing the required field {found[1]!r}"
    if found := re.match(r"Invalid (?:enum )?value (.*)", message):
        field = str(steps[-1]) if steps else ""
        what = _CHOICE_NAMES.get(field, f"value for {field!r}" if field else "value")
        choices = _choices(info)
        listed = f"; use one of {', '.join(choices)}" if choices else ""
        return f"unknown {what} {_clip(found[1], 60)}{listed}"
    if "out of range" in message:
        return "number out of range; DALI holds 64-bit integers and finite float64 numbers"
    return message[:1].lower() + message[1:]


def _clip(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters, saying how long it was (a field name of
    5,000 characters is named, not written out)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}...({len(text):,} characters)"


def _noun(name: str, info: inspect.Type | None) -> str:
    if name == "str" and isinstance(info, inspect.StrType) and info.pattern:
        return "a node output such as 'decode' or 'reader:1'"
    return _NOUNS.get(name, f"`{name}`")


class _Missing:
    pass


_MISSING: Any = _Missing()


def _lookup(data: Any, steps: list[str | int]) -> Any:
    for step in steps:
        if isinstance(data, list) and isinstance(step, int) and step < len(data):
            data = data[step]
            continue
        if isinstance(data, dict) and isinstance(step, str) and step in data:
            data = data[step]
            continue
        return _MISSING
    return data


def _show(value: Any) -> str:
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return '"' + text.replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _type_at(info: inspect.Type, steps: list[str | int]) -> inspect.Type | None:
    """The schema type at `steps` (the innermost struct, list or dict msgspec walked into)."""
    current: inspect.Type | None = info
    for step in steps:
        current = _step_into(current, step)
        if current is None:
            return None
    return current


def _step_into(info: inspect.Type | None, step: str | int) -> inspect.Type | None:
    for member in _members(info):
        if isinstance(member, inspect.StructType) and isinstance(step, str):
            for field in member.fields:
                if field.encode_name == step:
                    return field.type
            if member.tag_field == step:
                return info  # the tag: its choices are the union's tags
        elif isinstance(member, inspect.ListType) and isinstance(step, int):
            return member.item_type
        elif isinstance(member, inspect.DictType) and isinstance(step, str):
            return member.value_type
    return None


def _members(info: inspect.Type | None) -> list[inspect.Type]:
    if isinstance(info, inspect.UnionType):
        return list(info.types)
    return [info] if info is not None else []


def _fields(info: inspect.Type | None) -> list[str]:
    for member in _members(info):
        if isinstance(member, inspect.StructType):
            tag = [member.tag_field] if member.tag_field else []
            return tag + [field.encode_name for field in member.fields]
    return []


def _choices(info: inspect.Type | None) -> list[str]:
    choices: list[str] = []
    for member in _members(info):
        if isinstance(member, inspect.LiteralType):
            choices += [str(value) for value in member.values]
        elif isinstance(member, inspect.StructType) and member.tag is not None:
            choices.append(str(member.tag))
    return choices


def nesting_depth(data: Any, limit: int) -> int:
    """How deeply lists and objects nest in `data`, counted without recursion; stops past
    `limit` (so a hostile file costs no more than a legitimate one)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if not isinstance(value, (dict, list)):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = value.values() if isinstance(value, dict) else value
        stack.extend((child, depth + 1) for child in children)
    return deepest
