"""Box operators that read a COCO source's boxes in another layout than the source gives them
(``bb_flip(ltrb=True)`` on x, y, width, height boxes; ``random_bbox_crop``'s default layout), or
in 0-1 units where the source gives pixels (no ``ratio=True``).

DALI runs such a graph without an error and its boxes come out off their objects, so these are
warnings, not refusals: the graph runs as written (a DALI file imported with the mistake gives
what its own pipeline gives), and the run shows them (:attr:`~augexplorer.plan.Plan.warnings`,
the boxes' overlay). What each operator reads is :mod:`augexplorer.box_layouts`', which the
import of DALI code says the same mismatch by.
"""

from __future__ import annotations

from ..box_layouts import BOX_OPS, NEEDS_RATIO, misread_layout, misread_said, pixels_said
from ..errors import Problem
from ..spec import AnyNode, GraphSpec, Node, Ref, Source


def box_layout_warnings(spec: GraphSpec) -> list[Problem]:
    """Each box operator of `spec` that reads its COCO source's boxes in a layout the source
    does not give them, naming the operator and its argument, the source and its reader
    argument, and the fix."""
    said: list[Problem] = []
    for node in spec.operators():
        box_op = BOX_OPS.get(node.op)
        if box_op is None or len(node.inputs) <= box_op[0]:
            continue
        source = coco_source_of(spec, node.inputs[box_op[0]])
        if source is None:
            continue
        given_ltrb = bool(source.reader_args.get("ltrb", False))
        read = misread_layout(node.op, node.args, given_ltrb)
        if read is not None:
            reader = f"source {source.id!r} (reader_args.ltrb={given_ltrb})"
            fix = f"set reader_args.ltrb={read.ltrb} on {source.id!r}"
            fix += f", or {read.other} on {node.id!r}" if read.other else ""
            said.append(
                Problem(misread_said(read, reader, given_ltrb), node.id, read.argument, fix)
            )
        # both mistakes at once are both said: fixing one must not uncover the other later
        if node.op in NEEDS_RATIO and not source.reader_args.get("ratio", False):
            reader = f"source {source.id!r}"
            fix = f"set reader_args.ratio=True on {source.id!r}"
            said.append(Problem(pixels_said(reader), node.id, None, fix))
    return said


def coco_source_of(spec: GraphSpec, ref: Ref) -> Source | None:
    """The COCO-read source whose boxes `ref` holds, followed back through box operators (which
    give them on in the layout they were read); None where it holds something else."""
    seen: set[str] = set()
    while ref.node in spec and ref.node not in seen:
        seen.add(ref.node)
        node = spec.node(ref.node)
        if isinstance(node, Source):
            return node if node.reads_coco and node.output_name(ref.output) == "boxes" else None
        back = _boxes_read(node, ref.output)
        if back is None:
            return None
        ref = back
    return None


def box_nodes_of(spec: GraphSpec, ref: Ref) -> list[str]:
    """The box operators whose output `ref` holds, directly or through other box operators
    (nearest first): each moved the boxes `ref` holds."""
    passed: list[str] = []
    while ref.node in spec and ref.node not in passed:
        back = _boxes_read(spec.node(ref.node), ref.output)
        if back is None:
            break
        passed.append(ref.node)
        ref = back
    return passed


def _boxes_read(node: AnyNode, output: int) -> Ref | None:
    """The boxes that `node`'s output `output` gives on, where `node` is a box operator and
    that output its boxes; None otherwise."""
    box_op = BOX_OPS.get(node.op) if isinstance(node, Node) else None
    if not isinstance(node, Node) or box_op is None or box_op[1] != output:
        return None
    return node.inputs[box_op[0]] if len(node.inputs) > box_op[0] else None
