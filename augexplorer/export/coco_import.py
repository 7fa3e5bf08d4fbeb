"""``fn.readers.coco`` in a serialized pipeline, read back as a COCO source, and the names of a
detection pipeline's outputs.

The annotations file becomes the source's path, ``file_root`` its file root, shuffling and seed
its own fields; every other argument the code gave the reader is kept in ``reader_args``, typed
by the reader's schema, so the source reads exactly what the code read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from ..annotations import tracks_at
from ..catalog import ArgInfo, Catalog
from ..catalog.readers import COCO_OWNED, COCO_READER, EPOCH_AS_DALI_DOES
from ..spec import GraphSpec, Ref, Source
from .inline_lists import InlineListRefused, ListWriter, coco_subset, in_cache
from .protobuf import Argument, OpRecord


class CocoRefused(Exception):
    """A readers.coco call a COCO source cannot stand for; the message says why and the fix."""


def coco_source(
    op: OpRecord,
    catalog: Catalog,
    node_id: str,
    constant: Callable[[ArgInfo, Argument], Any],
    write: ListWriter = in_cache,
) -> Source:
    """The COCO source that reads what `op` (a ``readers.coco``) reads; `constant` types an
    argument as the importer types every other operator's. A reader given ``images=`` reads
    a COCO file of only those images, which `write` writes (:mod:`.inline_lists`)."""
    args = {name: arg.value() for name, arg in op.args.items()}
    if not args.get("annotations_file"):
        raise CocoRefused(
            "a COCO reader without annotations_file= (preprocessed_annotations, say) cannot be "
            "imported (fix: read the COCO annotations file with annotations_file=)"
        )
    path = str(args["annotations_file"])
    file_root = None
    if args.get("images"):
        # the subset lies elsewhere: its images stay where the original file's are
        file_root = os.path.dirname(os.path.abspath(path))
        try:
            subset = coco_subset(path, [str(name) for name in args["images"]])
        except InlineListRefused as error:
            raise CocoRefused(str(error)) from None
        path = write(f"{node_id}.json", subset)
    if args.get("masks"):  # DALI's old polygon form: other outputs than a COCO source gives
        raise CocoRefused(
            "readers.coco(masks=True), the polygon form DALI deprecates (its polygons count "
            "coordinates, not vertices), cannot be imported (fix: polygon_masks=True, with "
            "each polygon's range in vertices: [mask_id, 0, 3] for 3 vertices, not [mask_id, "
            "0, 6])"
        )
    info = catalog.get(COCO_READER)
    assert info is not None, f"{COCO_READER} is not in the catalog"
    reader_args = {
        name: constant(arg_info, op.args[name])
        for name in op.args
        if name not in COCO_OWNED
        and not name.startswith("_")
        and (arg_info := info.arg(name)) is not None
    }
    # where the code set none, what DALI then does: the graph runs the code's batches
    reader_args = {**EPOCH_AS_DALI_DOES, **reader_args}
    return Source(
        id=node_id,
        kind="coco",
        path=path,
        shuffle=bool(args.get("random_shuffle", False)),
        seed=int(args["seed"]) if "seed" in args else None,
        file_root=str(args["file_root"]) if args.get("file_root") else file_root,
        reader_args=reader_args,
    )


# Operators whose output is their input's data in another type or shape: an output made by them
# from a source's labels is still named labels
SAME_DATA = frozenset({"cast", "reshape", "squeeze", "expand_dims", "one_hot"})


def output_names(nodes: tuple[Any, ...], outputs: list[Ref]) -> list[str]:
    """Names for a pipeline's outputs: what a source's outputs hold (``labels``, ``boxes``,
    ...), what an annotation output holds where it moved on with the first output's images
    (``boxes`` after ``bb_flip``), ``box_encoder``'s boxes and labels, ``images`` for the first
    and ``output_<index>`` else. A cast, reshape or one-hot encoding of a source's output keeps
    its name (labels cast to INT64 and reshaped to scalars for PyTorch, or one-hot for MixUp,
    are still ``labels``)."""
    sources = {node.id: node for node in nodes if isinstance(node, Source)}
    ops = {node.id: node.op for node in nodes if not isinstance(node, Source)}
    first_inputs = {
        node.id: node.inputs[0] for node in nodes if not isinstance(node, Source) and node.inputs
    }
    graph = GraphSpec(nodes=nodes, outputs={f"output_{i}": r for i, r in enumerate(outputs)})
    tracks = tracks_at(graph, outputs[0].node) if outputs else None
    tracked: Mapping[Ref, str] = (
        {ref: kind for kind, ref in tracks.refs.items()} if tracks is not None else {}
    )
    names: list[str] = []
    for index, output in enumerate(outputs):
        ref = output
        while ops.get(ref.node) in SAME_DATA and isinstance(first_inputs.get(ref.node), Ref):
            ref = first_inputs[ref.node]  # what the cast or reshape converts
        if ref.node not in sources or ref.output == 0:
            ref = output
        source = sources.get(ref.node)
        if source is not None and ref.output > 0:
            name = source.output_names()[ref.output]
        elif index > 0 and ref in tracked:
            name = tracked[ref]
        elif index > 0 and ops.get(ref.node) == "box_encoder":  # boxes and labels per anchor
            name = ("boxes", "labels")[ref.output]
        else:
            name = "images" if index == 0 else f"output_{index}"
        names.append(name if name not in names else f"output_{index}")
    return names
