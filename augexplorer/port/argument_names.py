"""An argument known only when the file runs, said by the transform's own parameter name: a
call's positional arguments are ``#0``, ``#1`` in :meth:`TransformCall.unknowns`, and a person
reads ``size=crop_size (its first argument)`` where the library's signature tables know the
name (torchvision's :mod:`.torchvision.signatures`, albumentations' mappings' ``positional``)."""

from __future__ import annotations

from .model import TransformCall


def positional_names(call: TransformCall) -> tuple[str, ...]:
    """The names `call`'s class gives its parameters by position, in order; () where unknown."""
    if call.library == "torchvision":
        from .torchvision.signatures import signature

        found = signature(call)
        return tuple(name for name, _required in found) if found else ()
    if call.library == "albumentations":
        from .albumentations.registry import MAPPINGS

        entry = MAPPINGS.get(call.name)
        return tuple(entry.positional) if entry is not None else ()
    return ()


def explain_unknown(call: TransformCall, *, with_line: bool = False) -> str:
    """Why `call`'s first argument known only at run time stops it, the argument named."""
    key, value = next(iter(call.unknowns().items()))
    if key.startswith("#") and key[1:].isdigit():
        index = int(key[1:])
        names = positional_names(call)
        if index < len(names):
            return value.explain(names[index], with_line=with_line, position=index)
    return value.explain(key, with_line=with_line)


__all__ = ["explain_unknown", "positional_names"]
