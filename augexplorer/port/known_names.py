"""The transform names users know (torchvision's, albumentations'), by the DALI operators the
ports make of them, so that the operator picker and ``Catalog.search`` find ``random_resized_crop``
for "RandomResizedCrop" and ``flip`` for "HorizontalFlip". Generated from the mappings: each
library's example of a transform (its ``EXAMPLES``) is ported and the operators of its nodes are
read, never typed by hand.
"""

from __future__ import annotations

import functools
import importlib

from .door import PORTED_LIBRARIES
from .reading import read_source

IMPORTS = {
    # v2: it has every class the port maps (v1 lacks ToImage, ToDtype and
    # RandomPhotometricDistort, and a file naming them there fails)
    "torchvision": "from torchvision.transforms import v2 as T\n",
    "albumentations": "import albumentations as T\n",
}
# Operators that carry a port's plumbing rather than the transform itself (a cast, a layout
# change, a draw, a kernel made, arithmetic); named only where a transform is that one node
# (albumentations' Transpose is DALI's transpose). A transform made of arithmetic alone
# (RandomInvert: 255 - x) has no operator to find.
PLUMBING_PREFIXES = ("source.", "decoders.", "random.", "reductions.", "_conditional")
PLUMBING = frozenset(
    {"cast", "expression", "transpose", "cat", "stack", "shapes", "constant", "full", "reshape"}
)


def _is_plumbing(op: str) -> bool:
    return op in PLUMBING or op.startswith(PLUMBING_PREFIXES)


@functools.lru_cache(maxsize=1)
def known_names() -> dict[str, tuple[str, ...]]:
    """DALI operator -> the transform names ported to it: ``random_resized_crop`` ->
    ``("RandomResizedCrop", "RandomSizedCrop")``, ``flip`` -> ``("HorizontalFlip", ...)``."""
    found: dict[str, set[str]] = {}
    for library in PORTED_LIBRARIES:
        package = importlib.import_module(f"{__package__}.{library}")
        groups = set(getattr(package.MAPPING, "groups", {}))
        for name, example in getattr(package, "EXAMPLES", {}).items():
            if name in groups:  # OneOf, RandomApply: conditions, not operators
                continue
            for op in _ops_of(package, library, example):
                found.setdefault(op, set()).add(name)
    return {op: tuple(sorted(names)) for op, names in sorted(found.items())}


def _ops_of(package: object, library: str, example: str) -> list[str]:
    try:
        (read,) = read_source(f"{IMPORTS[library]}t = T.Compose([T.{example}])\n")
        result = package.port(read.compose)  # type: ignore[attr-defined]
    except Exception:  # a mapping's example that fails is the coverage test's to name
        return []
    ops = [node.op for step in result.steps for node in step.nodes]
    kept = [op for op in ops if not _is_plumbing(op)]
    if kept:
        return list(dict.fromkeys(kept))
    alone = [op for op in ops if not op.startswith(("random.", "source."))]
    return alone if len(alone) == 1 and alone[0] != "expression" else []


def _squeezed(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def ops_known_as(text: str, *, whole: bool = False) -> list[str]:
    """The DALI operators a name the user knows is ported to, best first: the whole name
    (case, spaces and underscores aside: "random resized crop"), then (unless `whole`) a name
    containing it ("HorizontalFlip" is in "RandomHorizontalFlip" too)."""
    needle = _squeezed(text)
    if len(needle) < 3:
        return []
    exact, partial = [], []
    for op, names in known_names().items():
        squeezed = [_squeezed(name) for name in names]
        if needle in squeezed:
            exact.append(op)
        elif any(needle in name for name in squeezed):
            partial.append(op)
    return exact if whole else exact + partial
