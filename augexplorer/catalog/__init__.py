"""The operator catalog: every public DALI `fn` operator, generated from DALI's schemas."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Iterator

from ..devices import has_gpu
from .hints import HINTS
from .model import PYTHON_FUNCTION, ArgInfo, Backend, Hint, InputInfo, OpInfo

__all__ = [
    "PYTHON_FUNCTION",
    "ArgInfo",
    "Backend",
    "Catalog",
    "Hint",
    "InputInfo",
    "OpInfo",
    "load_catalog",
]

GPU_ONLY_REASON = "runs only on a GPU, and DALI sees no GPU on this machine"


class Catalog:
    """Operators by `fn` name, with UI hints applied and availability on this machine."""

    def __init__(self, ops: Iterable[OpInfo], gpu: bool, deprecated_hidden: int = 0) -> None:
        self.gpu = gpu
        self.deprecated_hidden = deprecated_hidden
        self._ops = {op.name: op for op in ops}

    def __contains__(self, name: object) -> bool:
        return name in self._ops

    def __iter__(self) -> Iterator[OpInfo]:
        return iter(self._ops.values())

    def __len__(self) -> int:
        return len(self._ops)

    def get(self, name: str) -> OpInfo | None:
        return self._ops.get(name)

    def __getitem__(self, name: str) -> OpInfo:
        return self._ops[name]

    def names(self) -> list[str]:
        return list(self._ops)

    def search(self, text: str = "", category: str | None = None) -> list[OpInfo]:
        """Operators whose name (or first doc line) contains `text`, or that a torchvision or
        albumentations transform of that name is ported to ("RandomResizedCrop" finds
        ``random_resized_crop``), optionally in one category."""
        needle = text.lower().strip()
        known, whole = _known_as(text)
        found = [
            op
            for op in self._ops.values()
            if (category is None or op.category == category)
            and (
                not needle
                or needle in op.name.lower()
                or needle in op.summary().lower()
                or op.name in known
            )
        ]

        # Name matches first: someone typing "rot" wants `rotate`, not every op mentioning it;
        # a transform's whole name ("HorizontalFlip") ranks its operator as high.
        def rank(op: OpInfo) -> tuple[int, str]:
            short = op.name.lower().rsplit(".", 1)[-1]
            if short.startswith(needle) or op.name in whole:
                return 0, op.name
            return (1 if needle in op.name.lower() or op.name in known else 2), op.name

        return sorted(found, key=rank)

    def categories(self) -> list[str]:
        return sorted({op.category for op in self._ops.values()})

    def similar(self, name: str, limit: int = 3) -> list[str]:
        import difflib

        return difflib.get_close_matches(name, self._ops, n=limit, cutoff=0.6)


def _known_as(text: str) -> tuple[set[str], set[str]]:
    """The operators transforms named `text` are ported to (any, and by the whole name)."""
    if len(text.strip()) < 3:
        return set(), set()
    from ..port.known_names import ops_known_as  # the ports load only when a search needs them

    return set(ops_known_as(text)), set(ops_known_as(text, whole=True))


def _with_hints(op: OpInfo, gpu: bool) -> OpInfo:
    hints = HINTS.get(op.name, {})
    args = tuple(
        dataclasses.replace(arg, hint=hints[arg.name]) if arg.name in hints else arg
        for arg in op.args
    )
    reason = None
    if not gpu and "cpu" not in op.backends:
        reason = GPU_ONLY_REASON
    return dataclasses.replace(op, args=args, unavailable_reason=reason, arg_index={})


@functools.cache
def load_catalog(gpu: bool | None = None) -> Catalog:
    """The catalog for the installed DALI; `gpu` defaults to whether DALI sees a GPU here.
    Made from DALI's schemas once, then loaded from the copy kept on disk (:mod:`.kept`)."""
    from . import kept
    from .auto_aug import auto_aug_ops
    from .schema import count_deprecated, read_schemas

    on_gpu = has_gpu() if gpu is None else gpu
    path = kept.kept_path(on_gpu)
    catalog = kept.load(path)
    if catalog is not None:
        return catalog
    catalog = Catalog(
        (_with_hints(op, on_gpu) for op in [*read_schemas(), *auto_aug_ops()]),
        gpu=on_gpu,
        deprecated_hidden=count_deprecated(),
    )
    kept.keep(path, catalog)
    return catalog
