"""What flows through a graph, node by node, and where a new operator can go.

Built on :mod:`.inputs`: each node's output is worked out from its operator, its arguments and
what it reads, without running anything, so the picker can say at once which operators fit at
the selected point and why the others do not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..spec import AnyNode, GraphSpec, Node, Ref, Source, exclusive
from . import Catalog
from .hints import SHRINKS_RELATIVELY
from .inputs import DECODED, DECODERS, PASSES_IMAGES, Data, output_of, passed_on, refusal, takes

# What an in-memory arrays source gives, as far as the picker assumes.
ARRAYS = Data("image", "HWC", "")


def flow(spec: GraphSpec, catalog: Catalog, *, arrays: Data = ARRAYS) -> dict[str, Data]:
    """Each node's first output, every input worked out before the node that reads it (a
    depth-first walk with a stack of its own, so a long chain costs no call stack); a node in a
    cycle, or reading a node that does not exist, reads ``other``."""
    found: dict[str, Data] = {}
    for start in spec.nodes:
        todo: list[tuple[AnyNode, bool]] = [(start, False)]
        entered: set[str] = set()
        while todo:
            node, inputs_done = todo.pop()
            if node.id in found:
                continue
            if inputs_done:
                found[node.id] = _output(spec, catalog, node, found, arrays)
                continue
            entered.add(node.id)
            todo.append((node, True))
            refs = node.inputs if isinstance(node, Node) else ()
            for ref in reversed(refs):
                if ref.node in spec and ref.node not in found and ref.node not in entered:
                    todo.append((spec.node(ref.node), False))
    return found


def _output(
    spec: GraphSpec, catalog: Catalog, node: AnyNode, found: dict[str, Data], arrays: Data
) -> Data:
    if isinstance(node, Source):
        return arrays if node.kind == "arrays" else Data("encoded")
    refs = [first_read(spec, node), *node.inputs[1:]] if node.inputs else []
    read = [_read(spec, ref, found) for ref in refs]
    if node.op in PASSES_IMAGES:  # `expression` is the graph's own, not in DALI's catalog
        return passed_on(node.op, node.args, read)
    out = output_of(catalog.get(node.op), node.args, read[0] if read else None)
    # a cast, resize or crop of masks gives masks still
    return (
        dataclasses.replace(out, mask=True)
        if read and read[0].mask and out.kind == "image"
        else out
    )


def first_read(spec: GraphSpec, node: Node) -> Ref:
    """What `node`'s first input holds where `node` runs. Mostly its first input; but the first
    node of an ``else`` side reads, in the graph, the last node of the ``if`` side, which on the
    samples the ``else`` runs on passes its own input through (DALI never gives the ``if``
    side's output to the ``else``): so, while the node read runs only where `node` does not
    (one of its clauses negated in `node`'s), its first input is what `node` reads."""
    ref = node.inputs[0]
    seen: set[str] = set()
    while ref.output == 0 and ref.node in spec and ref.node not in seen:
        seen.add(ref.node)
        other = spec.node(ref.node)
        if not isinstance(other, Node) or not other.inputs or not _excludes(node, other):
            break
        ref = other.inputs[0]
    return ref


def _excludes(node: Node, other: Node) -> bool:
    """Whether `other` never runs where `node` does: one of its clauses negated in `node`'s."""
    return exclusive(other.when, node.when)


def _read(spec: GraphSpec, ref: Ref, found: dict[str, Data]) -> Data:
    if ref.node not in spec or ref.node not in found:
        return Data("other")  # missing, or a cycle back into the nodes being worked out
    return found[ref.node] if ref.output == 0 else _other_output(spec, ref)


# What the flow knows for certain: data of these kinds is what it says it is.
KNOWN_KINDS = frozenset({"encoded", "image", "labels", "matrix", "number"})


def input_problems(
    spec: GraphSpec, catalog: Catalog, *, certain_only: bool = False
) -> dict[str, str]:
    """Nodes whose first input is data their operator cannot read, with the reason (operators
    the catalog does not describe are left to validation). `certain_only` keeps the cases where
    what flows in is known (no Python code or unknown operator upstream): what validation
    refuses, since a picker may be cautious but a check must never refuse a working graph."""
    # In-memory arrays are most often decoded HWC images, but may be encoded bytes: not certain.
    data = flow(spec, catalog, arrays=Data("any") if certain_only else ARRAYS)
    problems: dict[str, str] = {}
    for node in spec.operators():
        info = catalog.get(node.op)
        if info is None or takes(info) is None or not node.inputs:
            continue
        ref = first_read(spec, node)  # an `else` side's first node: the input passed through
        if ref.node not in spec:
            continue
        read = data[ref.node] if ref.output == 0 else _other_output(spec, ref)
        if certain_only and (read.kind not in KNOWN_KINDS or read.inferred):
            continue
        reason = refusal(info, read)
        if reason is not None:
            problems[node.id] = f"{reason} (from {ref})"
        elif not certain_only:  # it runs: a note for the panel, never a refusal
            spoiled = mask_resampling(node, read)
            if spoiled is not None:
                problems[node.id] = spoiled
    return problems


def _other_output(spec: GraphSpec, ref: Ref) -> Data:
    node = spec.node(ref.node)
    if not isinstance(node, Source):
        return Data("other")
    if ref.output == node.labels_output:
        return Data("labels")
    if node.output_name(ref.output) == "masks":
        return MASKS  # readers.coco's pixelwise masks: a class id per pixel
    return Data("other")


# What a COCO source's pixelwise masks are: HWC (one channel) int32 class ids.
MASKS = Data("image", "HWC", "INT32", mask=True)
# Operators that resample their input, linearly where no interp_type is given (DALI's default)
RESAMPLES = frozenset(
    {
        "resize",
        "rotate",
        "warp_affine",
        "warp_perspective",
        "random_resized_crop",
        "resize_crop_mirror",
    }
)


def mask_resampling(node: Node, read: Data) -> str | None:
    """Why `node` spoils the class ids it reads (None: it does not): an interpolation other
    than nearest-neighbour makes, between two classes, values that are neither."""
    if not read.mask or node.op not in RESAMPLES:
        return None
    interp = node.args.get("interp_type", "INTERP_LINEAR")
    if not isinstance(interp, str) or interp == "INTERP_NN":
        return None
    return (
        f"{node.id} resamples masks (class ids) with {interp}: between two classes it writes "
        "ids of neither (fix: set interp_type to INTERP_NN)"
    )


@dataclass(frozen=True)
class Placement:
    """Where a new operator goes: after `anchor` (None: on its own, reading nothing), or why it
    cannot go there (`reason`). `note` says when it goes somewhere other than the selection."""

    op: str
    anchor: str | None
    reason: str | None = None
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.reason is None


def decoder_after(spec: GraphSpec, catalog: Catalog, node_id: str) -> str | None:
    """The first node reading `node_id`'s first output that writes decoded images."""
    data = flow(spec, catalog)
    for node in spec.operators():
        if node.inputs and node.inputs[0] == Ref(node_id) and data[node.id] == DECODED:
            return node.id
    return None


def place(
    spec: GraphSpec,
    catalog: Catalog,
    op_name: str,
    selected: str | None,
    args: Mapping[str, Any] | None = None,
) -> Placement:
    """Where `op_name` goes when added at `selected` (None: the image output), and whether the
    graph still fits together with it there: every node after it must read what it writes."""
    info = catalog.get(op_name)
    if info is None:
        return Placement(op_name, None, f"no operator {op_name!r} in the catalog")
    if not info.available:
        return Placement(op_name, None, str(info.unavailable_reason))
    want = takes(info)
    if info.max_inputs == 0:
        return Placement(op_name, None)  # a reader or generator: a node of its own
    if want is None:
        return Placement(op_name, None, f"{op_name} does not read images; add it from code")
    anchor = selected if selected in spec else _image_tail(spec)
    data = flow(spec, catalog)
    # Python code reads whatever it is given: it goes into the chain like an image step.
    if want.optional and want.kind != "any" and (anchor is None or data[anchor].kind != want.kind):
        return Placement(op_name, None)  # transforms and random draws start on their own
    if anchor is None:
        return Placement(op_name, None, "the graph has no node to add it after")
    note = ""
    if want.kind == "image" and data[anchor].kind == "encoded":
        decoder = decoder_after(spec, catalog, anchor)
        if decoder is None:
            return Placement(
                op_name,
                anchor,
                f"{op_name} takes decoded images; {anchor} gives encoded files: add a decoder "
                "(decoders.image) first",
            )
        note = f"placed after {decoder}: {anchor} gives encoded files"
        anchor = decoder
    reason = refusal(info, data[anchor], placing=True)
    if reason is not None:
        return Placement(op_name, anchor, reason)
    need = size_needed_after(spec, anchor)
    if need and op_name in SHRINKS_RELATIVELY:
        return Placement(
            op_name,
            anchor,
            f"{op_name} shrinks the images by a fraction, and a crop after it needs at least "
            f"{need:g} pixels: add it after that crop",
        )
    node = Node(spec.unique_id(op_name.rsplit(".", 1)[-1]), op_name, args=dict(args or {}))
    trial = spec.insert_after(anchor, node)
    before = input_problems(spec, catalog)
    after = input_problems(trial, catalog)
    new = [f"{name}: {why}" for name, why in after.items() if name not in before]
    if new:
        wrote = flow(trial, catalog)[node.id].describe()
        return Placement(op_name, anchor, f"{op_name} writes {wrote} here, which breaks {new[0]}")
    return Placement(op_name, anchor, note=note)


def decoder_downstream(spec: GraphSpec, catalog: Catalog, node_id: str) -> str | None:
    """For an image operator given encoded files (placed before the decoder), the first
    decoder after it: where it belongs. None when `node_id` is not such a node."""
    if node_id not in spec:
        return None
    node = spec.node(node_id)
    if not isinstance(node, Node) or not node.inputs or node.inputs[0].output != 0:
        return None
    if flow(spec, catalog).get(node.inputs[0].node) != Data("encoded"):
        return None
    current, seen = node_id, {node_id}
    while True:
        readers = [n for n in spec.operators() if n.inputs and n.inputs[0] == Ref(current)]
        if not readers or readers[0].id in seen:
            return None
        if readers[0].op in DECODERS:
            return readers[0].id
        current = readers[0].id
        seen.add(current)


def size_needed_after(spec: GraphSpec, node_id: str) -> float:
    """The largest fixed crop size among the nodes reading `node_id`, directly or not, whose
    crop fails rather than pads when the image is smaller (0: none)."""
    downstream: set[str] = set()
    frontier = [node_id]
    while frontier:
        current = frontier.pop()
        for reader in spec.consumers(current):
            if reader not in downstream:
                downstream.add(reader)
                frontier.append(reader)
    need = 0.0
    for node in spec.operators():
        if node.id not in downstream or node.op not in ("crop", "crop_mirror_normalize"):
            continue
        if node.args.get("out_of_bounds_policy", "error") != "error":
            continue
        for name in ("crop", "crop_h", "crop_w"):
            value = node.args.get(name)
            values = value if isinstance(value, list) else [value]
            need = max([need, *(float(v) for v in values if isinstance(v, (int, float)))])
    return need


def relocated(spec: GraphSpec, node_id: str, after: str) -> GraphSpec:
    """`node_id` taken out of its place (its readers read its input) and put after `after`."""
    node = spec.node(node_id)
    assert isinstance(node, Node)
    spec = spec.remove(node_id)
    # insert_after connects a node that reads nothing; other inputs (a matrix) stay as they are
    inputs = (Ref(after), *node.inputs[1:]) if len(node.inputs) > 1 else ()
    return spec.insert_after(after, dataclasses.replace(node, inputs=inputs))


def _image_tail(spec: GraphSpec) -> str | None:
    final = spec.final_output()
    return final.node if final is not None else None
