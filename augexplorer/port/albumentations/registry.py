"""The albumentations mappings by class name, and the one function that ports a call.

A mapping reads a call's :class:`~.arguments.Args` and returns :class:`Mapped`: graph nodes in
order, the first reading the image placeholder :data:`IMAGE` (the step before it), the last
giving the image on; each mapping module registers its transforms with :func:`mapping`.
Transforms DALI cannot express are registered with :func:`refused`, naming the nearest operator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...spec import Fidelity, Node
from .arguments import Args

LIBRARY = "albumentations"
# The placeholder a step's first node reads: the image from the step before it.
IMAGE = "image"


@dataclass(frozen=True)
class Mapped:
    """What one transform becomes: `nodes` in order (the last one gives the image on), its
    measured `fidelity` and what differs from albumentations, one sentence each."""

    nodes: tuple[Node, ...]
    fidelity: Fidelity
    differences: tuple[str, ...] = ()
    # nodes that read the image only to measure it (its size), not to carry it on
    measures: frozenset[str] = frozenset()


Mapping = Callable[[Args], Mapped]


@dataclass(frozen=True)
class Entry:
    mapping: Mapping | None
    positional: tuple[str, ...]
    default_p: float
    nearest: str = ""  # for refused transforms: the nearest DALI operator and why it differs


MAPPINGS: dict[str, Entry] = {}


def mapping(
    *names: str, positional: Sequence[str] = (), p: float = 0.5
) -> Callable[[Mapping], Mapping]:
    """Register a mapping for the classes `names` (an old name and its new one share one)."""

    def register(function: Mapping) -> Mapping:
        for name in names:
            MAPPINGS[name] = Entry(function, tuple(positional), p)
        return function

    return register


def refused(name: str, nearest: str) -> None:
    """Register a transform DALI cannot express; `nearest` names the closest operator."""
    MAPPINGS[name] = Entry(None, (), 0.5, nearest)


def image_nodes(mapped: Mapped) -> list[Node]:
    """The nodes that carry the image: the first reads :data:`IMAGE`, each next one reads the
    one before (nodes beside the chain compute arguments: draws, matrices, sizes)."""
    chain: list[Node] = []
    carried = IMAGE
    for node in mapped.nodes:
        if node.id in mapped.measures:
            continue
        if node.inputs and node.inputs[0].node == carried:
            chain.append(node)
            carried = node.id
    return chain
