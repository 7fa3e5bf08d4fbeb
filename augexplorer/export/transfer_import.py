"""Where a serialized pipeline moves data from the CPU to the GPU, kept as a node of its own.

``images.gpu()`` makes no operator: ``Pipeline.serialize()`` records it only as an input (or a
pipeline output) read on the "gpu" while the operator that made it wrote it on the "cpu". A
graph that dropped it would let the operators before it move onto the GPU when exported with
``device="gpu"``, and would return ``labels.gpu()`` on the CPU. So each such point becomes a
``copy`` node set to "gpu" (DALI's copy reads CPU data on its GPU backend: a host-to-device
copy), and the node that made the data is set to "cpu", as it ran, so the nodes before it stay
there too (:func:`augexplorer.checks.devices.cpu_bound`). On a machine without a GPU the copy
runs on the CPU like any node set to "gpu", said once by the explorer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from ..expressions import GRAPH_OPS
from ..spec import Node, Ref, Source
from .protobuf import OpRecord, Port

TRANSFER_OP = "copy"


def written_devices(ops: Sequence[OpRecord]) -> dict[str, str]:
    """The device each operator output was written on, by its name in the serialized pipeline."""
    return {port.name: port.device for op in ops for port in op.outputs}


def moves_to_gpu(port: Port, written: dict[str, str]) -> bool:
    """Whether reading `port` moves data from the CPU to the GPU (a ``.gpu()`` in the code).
    Argument inputs are read on the CPU whatever they say: never a move."""
    return not port.is_argument and port.device == "gpu" and written.get(port.name) == "cpu"


class Transfers:
    """The copy nodes of one import: one per CPU output moved to the GPU, however often read."""

    def __init__(
        self,
        node: Callable[[str], object],
        replace: Callable[[Node], None],
        fresh_id: Callable[[str], str],
        append: Callable[[Node], None],
    ) -> None:
        self._node = node
        self._replace = replace
        self._fresh_id = fresh_id
        self._append = append
        self._made: dict[Ref, Ref] = {}

    def onto_gpu(self, ref: Ref) -> Ref:
        """The output of the copy node that moves `ref` onto the GPU, made the first time."""
        if ref in self._made:
            return self._made[ref]
        producer = self._node(ref.node)
        self._keep_on_cpu(producer)
        node = Node(
            id=self._fresh_id(f"{_what(producer, ref)}_to_gpu"),
            op=TRANSFER_OP,
            inputs=(ref,),
            device="gpu",
        )
        self._append(node)
        self._made[ref] = Ref(node.id)
        return self._made[ref]

    def _keep_on_cpu(self, producer: object) -> None:
        # a node left to choose would follow a GPU placement; expressions run where their
        # inputs are and have no device of their own
        if isinstance(producer, Node) and producer.device is None and producer.op not in GRAPH_OPS:
            self._replace(dataclasses.replace(producer, device="cpu"))

    def sources_of(self, refs: Sequence[Ref]) -> list[Ref]:
        """`refs` with each copy's output as the output it copies (to name what outputs hold)."""
        back = {made: ref for ref, made in self._made.items()}
        return [back.get(ref, ref) for ref in refs]


def _what(producer: object, ref: Ref) -> str:
    """A name for the data moved: a source's output by what it holds, else the node's id."""
    if isinstance(producer, Source):
        return producer.output_names()[ref.output]
    node_id = getattr(producer, "id", "data")
    return node_id if ref.output == 0 else f"{node_id}_{ref.output}"
