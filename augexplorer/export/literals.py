"""The only ways a value from a spec becomes source text: a checked identifier or a typed literal.

Everything here refuses what it does not know, so a hostile spec (odd names, strings holding
quotes, newlines or code) can only ever produce a name or a plain Python literal.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
from typing import Any

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


class UnsafeValue(ValueError):
    """A value that cannot be written into generated source as a name or a literal."""


def identifier(name: str) -> str:
    """`name` itself, if it is a plain ASCII Python identifier that is not a keyword."""
    if (
        not isinstance(name, str)
        or not _IDENTIFIER.fullmatch(name)
        or keyword.iskeyword(name)
        or keyword.issoftkeyword(name)
    ):
        raise UnsafeValue(f"{name!r} is not a plain Python identifier")
    return name


def dotted(path: str) -> str:
    """A dotted name such as ``decoders.image``, every part checked."""
    if not isinstance(path, str):
        raise UnsafeValue(f"{path!r} is not a dotted name")
    return ".".join(identifier(part) for part in path.split("."))


def is_plain(name: str) -> bool:
    """Whether `name` can be a variable of generated code: an identifier that shadows nothing
    built in."""
    try:
        identifier(name)
    except UnsafeValue:
        return False
    return not hasattr(builtins, name)


def literal(value: Any) -> str:
    """A Python literal for a JSON-typed value (None, bool, int, finite float, str, list, dict
    with str keys)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UnsafeValue(f"{value!r} is not a finite number")
        return repr(float(value))
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise UnsafeValue(f"dictionary key {key!r} is not a string")
            items.append(f"{literal(key)}: {literal(item)}")
        return "{" + ", ".join(items) + "}"
    raise UnsafeValue(f"cannot write a {type(value).__name__} as a literal")


# Schema argument kinds whose values are DALI enums, and the enum each maps to.
ENUM_TYPES = {
    "DATA_TYPE": "DALIDataType",
    "IMAGE_TYPE": "DALIImageType",
    "INTERP_TYPE": "DALIInterpType",
}


def enum_member(kind: str, member: str) -> str:
    """``types.DALIImageType.RGB`` for member ``"RGB"`` of the enum of argument kind `kind`."""
    from nvidia.dali import types

    enum_name = ENUM_TYPES.get(kind)
    if enum_name is None:
        raise UnsafeValue(f"{kind!r} is not an enum argument kind")
    members = getattr(types, enum_name).__members__
    if not isinstance(member, str) or member not in members:
        raise UnsafeValue(f"{member!r} is not a member of {enum_name}")
    return f"types.{enum_name}.{identifier(member)}"
