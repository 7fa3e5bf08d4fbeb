"""The old names DALI still accepts, read from its schemas: operators it marks deprecated in
favour of another with the same arguments and inputs (``ImageDecoderRandomCrop`` ->
``decoders__ImageRandomCrop``, ``CoinFlip`` -> ``random__CoinFlip``), and arguments it renames
(``output_dtype`` -> ``dtype``) or no longer uses (``image_type``).

Code written for older DALI releases (the ``ops`` API, ``fn.image_decoder_random_crop``) runs on
the installed DALI through these names; an import turns them into the current operators so the
graph holds only what the catalog offers. Nothing here is written by hand: a deprecated
operator whose replacement takes other inputs or arguments (``SSDRandomCrop``) is no alias, and
is listed with the operator to use instead.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any

# DALI's deprecation message of `Shapes` points at `DataNode.shape()`, which makes `_Shape`.
_SHAPE_METHOD = "DataNode.shape"
SHAPE_SCHEMA = "_Shape"


@dataclass(frozen=True)
class OperatorAlias:
    """A deprecated operator schema and the one DALI names in its place."""

    old: str  # schema name, e.g. "ImageDecoderRandomCrop"
    new: str  # schema name, e.g. "decoders__ImageRandomCrop"
    same_interface: bool  # the new one takes the old one's inputs and arguments

    @property
    def old_names(self) -> str:
        """How code calls the old operator: ``fn.coin_flip`` / ``ops.CoinFlip``."""
        return f"fn.{_fn_or_ops_name(self.old)} / ops.{_ops_name(self.old)}"

    @property
    def new_name(self) -> str:
        return "x.shape()" if self.new == SHAPE_SCHEMA else f"fn.{_fn_or_ops_name(self.new)}"


@dataclass(frozen=True)
class ArgumentAlias:
    """A deprecated argument: renamed to `new`, or no longer used (`new` is None)."""

    schema: str
    old: str
    new: str | None


def _backend() -> Any:
    return importlib.import_module("nvidia.dali.backend")


def _registered() -> list[str]:
    backend = _backend()
    return sorted(
        set(backend.RegisteredCPUOps())
        | set(backend.RegisteredGPUOps())
        | set(backend.RegisteredMixedOps())
    )


def _fn_or_ops_name(schema_name: str) -> str:
    from .schema import fn_name

    return fn_name(schema_name)


def _ops_name(schema_name: str) -> str:
    schema = _backend().GetSchema(schema_name)
    return ".".join([*schema.ModulePath(), str(schema.OperatorName())])


@functools.cache
def operator_aliases() -> dict[str, OperatorAlias]:
    """Every deprecated operator schema of the installed DALI with a named replacement, by its
    old schema name (chains followed to the operator DALI recommends now)."""
    backend = _backend()
    found: dict[str, OperatorAlias] = {}
    for name in _registered():
        schema = backend.GetSchema(name)
        if not schema.IsDeprecated():
            continue
        target = str(schema.DeprecatedInFavorOf() or "")
        if not target and _SHAPE_METHOD in str(schema.DeprecationMessage()):
            target = SHAPE_SCHEMA
        if not target:
            continue
        seen = {name}
        while backend.GetSchema(target).IsDeprecated() and target not in seen:
            seen.add(target)
            following = str(backend.GetSchema(target).DeprecatedInFavorOf() or "")
            if not following:
                break
            target = following
        found[name] = OperatorAlias(name, target, _same_interface(name, target))
    return found


@functools.cache
def old_fn_names() -> frozenset[str]:
    """The ``fn`` names of the aliases (``file_reader``, ``image_decoder_random_crop``)."""
    return frozenset(
        _fn_or_ops_name(alias.old) for alias in operator_aliases().values() if alias.same_interface
    )


def _same_interface(old: str, new: str) -> bool:
    """Whether `new` accepts every argument and input count of `old` (an alias, not a change)."""
    backend = _backend()
    before, after = backend.GetSchema(old), backend.GetSchema(new)
    if str(before.AliasFor() or "") == new:
        return True
    current = set(after.GetArgumentNames())
    renamed = {a.new for a in argument_aliases(old).values() if a.new}
    arguments = {a for a in before.GetArgumentNames() if a not in argument_aliases(old)}
    return (
        arguments | renamed <= current
        and int(before.MinNumInput()) == int(after.MinNumInput())
        and int(before.MaxNumInput()) == int(after.MaxNumInput())
    )


@functools.cache
def argument_aliases(schema_name: str) -> dict[str, ArgumentAlias]:
    """The deprecated arguments of one operator schema, by their old name."""
    backend = _backend()
    try:
        schema = backend.GetSchema(schema_name)
    except (KeyError, RuntimeError):  # a schema DALI registers only on its Python side
        return {}
    found: dict[str, ArgumentAlias] = {}
    for argument in schema.GetArgumentNames():
        if not schema.IsDeprecatedArg(argument):
            continue
        info = schema.DeprecatedArgInfo(argument)
        renamed = str(info.get("renamed_to") or "")
        if renamed:
            found[argument] = ArgumentAlias(schema_name, argument, renamed)
        elif info.get("removed"):
            found[argument] = ArgumentAlias(schema_name, argument, None)
    return found


def alias_table() -> list[tuple[str, str]]:
    """(old name, what it maps to) for every alias the importer follows, for the docs: operator
    aliases by their ``fn`` name, then argument renames as ``op(old=)``."""
    rows: list[tuple[str, str]] = []
    for alias in operator_aliases().values():
        if alias.same_interface:
            rows.append((alias.old_names, alias.new_name))
    seen: set[tuple[str, str]] = set()
    for name in _registered():
        for arg in argument_aliases(name).values():
            current = _current(name)
            op = _fn_or_ops_name(name if current.startswith("_") else current)
            key = (op, arg.old)
            if key in seen or name.startswith("_"):
                continue
            seen.add(key)
            target = f"{arg.new}=" if arg.new else "(dropped: no longer used)"
            rows.append((f"fn.{op}({arg.old}=)", target))
    return rows


def _current(schema_name: str) -> str:
    alias = operator_aliases().get(schema_name)
    return alias.new if alias is not None and alias.same_interface else schema_name


def alias_markdown() -> str:
    """The alias table as docs/importing.md shows it (regenerate with
    ``python -m augexplorer.catalog.aliases``)."""
    import textwrap

    import nvidia.dali

    operators = [row for row in alias_table() if "(" not in row[0]]
    arguments = [row for row in alias_table() if "(" in row[0]]
    text = (
        f"Old names DALI {nvidia.dali.__version__} still accepts, as the import maps them (read "
        "from its schemas). Operators: "
        + "; ".join(f"`{old.replace(' / ', '`/`')}` -> `{new}`" for old, new in operators)
        + ". Arguments: "
        + "; ".join(f"`{old}` -> {_target(new)}" for old, new in arguments)
        + "."
    )
    return textwrap.fill(text, width=100, break_on_hyphens=False, break_long_words=False)


def _target(new: str) -> str:
    return new if new.startswith("(") else f"`{new}`"


if __name__ == "__main__":
    print(alias_markdown())
