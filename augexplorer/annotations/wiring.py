"""Adding an operator to an annotated graph wires its companions, the way DALI code does it.

On a graph whose images come from a COCO source, a geometric operator added to the image chain
gets the annotation operators that move boxes, polygon vertices, keypoints and masks with it,
reading the same draws (a node of their own, so the image and its annotations cannot disagree):

- ``flip``: a ``random.coin_flip`` read by ``flip``, ``bb_flip`` (boxes, ``ltrb`` as the source
  reads them) and ``coord_flip`` (vertices, keypoints); masks through the same ``flip``. The
  ``mirror`` of ``crop_mirror_normalize`` the same way (its crop has no box operator: a note).
- ``random_bbox_crop`` (DALI's SSD pattern): it reads boxes and labels and gives anchor, shape,
  boxes and labels; the image crop is a ``slice`` reading that anchor and shape, and so are the
  masks; polygons follow through ``segmentation.select_masks`` (the boxes kept) and a
  ``coord_transform`` by ``transforms.crop`` of the window.
- ``rotate``: one angle node read by ``rotate``, ``bbox_rotate`` (boxes and labels) and, for
  vertices, the ``transforms.rotation`` of a ``coord_transform``; masks rotated with
  nearest-neighbour interpolation.
- ``warp_affine``: one matrix node read by the image (``inverse_map=False``: the matrix maps
  points forward, as ``coord_transform`` applies it) and the vertices' ``coord_transform``;
  boxes become the boxes enclosing their moved corners (a ``coord_transform`` of the box rows
  by a 4x5 matrix made of the same matrix).
- ``paste``: one ratio, ``paste_x`` and ``paste_y`` read by ``paste`` and ``bbox_paste``.
- ``resize``: ratio coordinates need nothing; masks get the same resize, nearest-neighbour.

Companions that move coordinates in ratio to the image size (all of them but ``bbox_rotate``)
need the source to read ``ratio=True``: the note says so and :func:`with_ratio` is the fix.
``random_bbox_crop`` is refused until then: DALI fails on boxes outside [0, 1].
An operator that moves pixels with no annotation-safe form is added with a note saying so, and
:attr:`~.tracks.Tracks.mismatched` names it from then on. Masks are cast to uint8 once
(DALI's resize, rotate, warp_affine and paste take no int32).
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog import Catalog
from ..catalog.flow import Placement, place
from ..expressions.nodes import constant, expression
from ..expressions.rename import renamed
from ..expressions.syntax import MATH, parse
from ..lowering import random_call
from ..spec import AnyNode, ArgValue, GraphSpec, Node, Random, Ref
from ..spec.graph import pinned_seeds
from .geometry import PLACED_KINDS, kinds_said, mover, moves_pixels, no_safe_form
from .tracks import Tracks, tracks_at

# Picked like an image operator on an annotated graph: it brings its image crop with it.
BOX_CROP = "random_bbox_crop"
# DALI's SSD training example's box-safe crop.
SSD_CROP_ARGS: dict[str, ArgValue] = {
    "aspect_ratio": [0.5, 2.0],
    "thresholds": [0.0, 0.1, 0.3, 0.5, 0.7, 0.9],
    "scaling": [0.3, 1.0],
    "allow_no_crop": True,
    "num_attempts": 50,
}
# kinds moved like polygon vertices (points in the image)
POINT_KINDS = ("vertices", "keypoints")


@dataclass(frozen=True)
class Added:
    """The graph with a new operator in it: `node_id` the image node (the one to select),
    `added` every node that came with it, `notes` what the user should know."""

    spec: GraphSpec
    node_id: str
    added: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        return " ".join(self.notes)


def placement(
    spec: GraphSpec,
    catalog: Catalog,
    op: str,
    selected: str | None,
    args: Mapping[str, Any] | None = None,
) -> Placement:
    """Where `op` goes when added at `selected` (see :func:`~augexplorer.catalog.flow.place`);
    ``random_bbox_crop`` on an annotated graph goes where its image crop goes."""
    if op != BOX_CROP:
        return place(spec, catalog, op, selected, args)
    where = place(spec, catalog, "slice", selected)
    # boxes first: on a graph without them, why the slice could not go there is beside the point
    at = where.anchor if where.anchor is not None else selected
    tracks = tracks_at(spec, at) if at is not None and at in spec else None
    if tracks is None or tracks.get("boxes") is None:
        return Placement(
            op,
            where.anchor,
            "random_bbox_crop crops around boxes: read a COCO source (boxes) first",
        )
    if not tracks.format.ratio:
        # DALI's random_bbox_crop takes boxes in [0, 1] only: pixel boxes fail on every run
        return Placement(
            op,
            where.anchor,
            f"random_bbox_crop takes boxes in ratio to the image size, but source "
            f"{tracks.source} reads pixels: set ratio=True on it (with_ratio) first",
        )
    if not where.ok or where.anchor is None:
        # the reason is the slice's, which applies the window: say whose slice it is
        reason = (
            f"random_bbox_crop's window is cut by a slice: {where.reason}" if where.reason else None
        )
        return dataclasses.replace(where, op=op, reason=reason)
    return dataclasses.replace(where, op=op)


def add_operator(
    spec: GraphSpec,
    catalog: Catalog,
    op: str,
    selected: str | None = None,
    args: Mapping[str, ArgValue] | None = None,
) -> Added:
    """`spec` with operator `op` added at `selected` (None: the image output), its annotation
    companions wired where the images come from an annotated source. Raises ValueError saying
    why when `op` cannot go there."""
    where = placement(spec, catalog, op, selected, args)
    if not where.ok:
        raise ValueError(f"cannot add {op} there: {where.reason}")
    notes = (where.note,) if where.note else ()
    node = Node(spec.unique_id(op.rsplit(".", 1)[-1]), op, args=dict(args or {}))
    if where.anchor is None:
        return Added(spec.insert_after(None, node, rewire=False), node.id, notes=notes)
    tracks = tracks_at(spec, where.anchor)
    if tracks is None or not tracks.refs:
        return Added(spec.insert_after(where.anchor, node), node.id, notes=notes)
    wiring = _Wiring(spec, where.anchor, node, tracks)
    WIRINGS.get(op, _without_companion)(wiring)
    return wiring.finish(notes)


def with_ratio(spec: GraphSpec, source_id: str | None = None) -> GraphSpec:
    """The fix for pixel coordinates: the COCO source reads boxes and polygons in ratio to the
    image size (``ratio=True``), which every companion but ``bbox_rotate`` needs."""
    for source in spec.sources():
        if source.reads_coco and source_id in (None, source.id):
            return spec.set_reader_arg(source.id, "ratio", True)
    raise ValueError("the graph reads no COCO source to set ratio=True on")


class _Wiring:
    """One operator being added with its companions: the nodes before it (draws it shares with
    them), after it (the companions and what they are made of) and the tracks they move."""

    def __init__(self, spec: GraphSpec, anchor: str, node: Node, tracks: Tracks) -> None:
        self.spec = spec
        self.anchor = anchor
        self.node = node
        self.tracks = tracks
        self.before: list[Node] = []
        self.after: list[Node] = []
        self.moves: dict[Ref, Ref] = {}
        self.notes: list[str] = []
        self._taken = {*spec.ids(), node.id}

    # ---- building blocks ----------------------------------------------------------------------
    def name(self, suffix: str) -> str:
        """A new node's name: the operator's, then what it is for."""
        return self.fresh(f"{self.node.id}_{suffix}")

    def fresh(self, stem: str) -> str:
        stem = stem.replace(".", "_")
        name, index = stem, 2
        while name in self._taken:
            name, index = f"{stem}_{index}", index + 1
        self._taken.add(name)
        return name

    @property
    def images(self) -> Ref:
        """What the image operator reads."""
        return Ref(self.anchor)

    def track(self, kind: str) -> Ref | None:
        return (
            self.moves.get(self.tracks.refs[kind], self.tracks.refs[kind])
            if (kind in self.tracks.refs)
            else None
        )

    @property
    def has_points(self) -> bool:
        return any(self.track(kind) is not None for kind in POINT_KINDS)

    def set_arg(self, name: str, value: ArgValue) -> None:
        self.node = self.node.with_arg(name, value)

    def shared(self, suffix: str, value: ArgValue, dtype: str = "FLOAT") -> ArgValue:
        """`value` as a node the image operator and its companions all read: a draw stays a
        draw (same distribution and seed), a constant becomes a constant node; an output
        already read stays as it is."""
        if isinstance(value, Ref):
            return value
        node_id = self.name(suffix)
        if isinstance(value, Random):
            seed = value.seed or self._own_seed(value) or _seed(self.spec, node_id)
            node = _random_node(node_id, value, seed, dtype)
            if node is None:  # no DALI operator draws it alone: bind the same draw to each
                self._taken.discard(node_id)
                return value
        else:
            values = list(value) if isinstance(value, (list, tuple)) else [value]
            shape = [len(values)] if isinstance(value, (list, tuple)) else []
            node = constant(node_id, values, dtype, shape=shape)
        self.before.append(node)
        return Ref(node_id)

    def _own_seed(self, value: Random) -> int | None:
        """The seed the operator's argument holding draw `value` draws with (its graph's rule):
        the shared node draws what the operator drew, so a carry leaves its images as they were."""
        pinned = pinned_seeds(self.node, self.spec.seed).args
        for name, held in self.node.args.items():
            drawn = pinned.get(name)
            if held is value and isinstance(drawn, Random):
                return drawn.seed
        return None

    def add(self, node: Node) -> Ref:
        self.after.append(node)
        return Ref(node.id)

    def move(self, kind: str, new: Ref) -> None:
        old = self.tracks.refs[kind]
        self.moves[old] = new

    def masks_like_images(self, op: str, args: dict[str, ArgValue]) -> None:
        """The masks through `op` with the image's draws `args` and output `size`, sampled
        nearest-neighbour and filled with 0 (class values stay whole, new area is no class)."""
        masks = self.masks_u8()
        if masks is None:
            return
        args = {**args, "interp_type": "INTERP_NN", "fill_value": 0.0}
        if "size" in self.node.args:
            args["size"] = self.node.args["size"]
        self.move("masks", self.add(Node(self.name("masks"), op, (masks,), args)))

    def masks_u8(self) -> Ref | None:
        """The masks as uint8, cast once (they come as int32)."""
        masks = self.track("masks")
        if masks is None:
            return None
        made_by = self.spec.node(masks.node) if masks.node in self.spec else None
        if isinstance(made_by, Node) and made_by.op == "cast":
            return masks
        cast = Node(self.name("masks_u8"), "cast", inputs=(masks,), args={"dtype": "UINT8"})
        self.before.append(cast)
        self.moves[masks] = Ref(cast.id)
        return Ref(cast.id)

    def needs_ratio(self, what: str) -> bool:
        """Whether the source reads ratio coordinates; when not, a note with the fix."""
        if self.tracks.format.ratio:
            return True
        self.notes.append(
            f"{what} moves coordinates in ratio to the image size, but source "
            f"{self.tracks.source} reads pixels: set ratio=True on it (with_ratio) or the "
            "annotations will not match."
        )
        return False

    def vertex_companions(self, matrix: Ref) -> None:
        """A ``coord_transform`` by `matrix` (ratio to ratio) for every kind of point."""
        for kind in POINT_KINDS:
            points = self.track(kind)
            if points is not None:
                moved = Node(self.name(f"{kind}"), "coord_transform", (points,), {"MT": matrix})
                self.move(kind, self.add(moved))

    def expression(self, suffix: str, text: str, *inputs: Ref) -> Ref:
        """An expression node of `text`, whose names stand for `inputs` in order. A name that
        is another node of the graph (a user's node called ``matrix``) would read as that node:
        it becomes the name of the node it reads, or a free one."""
        renames: dict[str, str] = {}
        for name, ref in zip(parse(text).names, inputs, strict=True):
            if name in self._taken and ref.node != name:
                plain = ref.output == 0 and ref.node.isidentifier() and ref.node != MATH
                renames[name] = ref.node if plain else self.fresh(f"{name}_in")
        if renames:
            text = renamed(text, renames)
        return self.add(expression(self.name(suffix), text, inputs))

    def transform(self, suffix: str, op: str, args: dict[str, ArgValue], *inputs: Ref) -> Ref:
        return self.add(Node(self.name(suffix), f"transforms.{op}", tuple(inputs), args))

    # ---- the result ----------------------------------------------------------------------------
    def finish(self, notes: tuple[str, ...]) -> Added:
        spec = self._wired_around(self.spec.insert_after(self.anchor, self.node))
        made = tuple(sorted(node.id for node in (*self.before, *self.after)))
        return Added(spec, self.node.id, made, (*notes, *self.notes))

    def finish_in_place(self) -> GraphSpec:
        """The graph with the companions wired to the image node already in it (`node`, its
        arguments as the wiring left them): what reads an old track reads the moved one."""
        return self._wired_around(self.spec.replace_node(self.node))

    def _wired_around(self, spec: GraphSpec) -> GraphSpec:
        """`spec` (holding the image node) with the companions placed around the image node and
        whatever read an old track reading the moved one, outputs included."""
        nodes: list[AnyNode] = list(spec.nodes)
        index = spec.ids().index(self.node.id)
        nodes[index : index + 1] = [*self.before, spec.node(self.node.id), *self.after]
        made = {node.id for node in (*self.before, *self.after)}

        def follow(ref: Ref) -> Ref:
            for _ in range(8):  # masks -> their cast -> the companion reading it
                if ref not in self.moves:
                    break
                ref = self.moves[ref]
            return ref

        rewired = [
            n.map_refs(follow) if isinstance(n, Node) and n.id not in made else n for n in nodes
        ]
        outputs = {name: follow(ref) for name, ref in spec.outputs.items()}
        return dataclasses.replace(spec, nodes=tuple(rewired), outputs=outputs)


def _seed(spec: GraphSpec, node_id: str) -> int:
    """A seed for a new draw, fixed by the graph's seed and the node's name."""
    return zlib.crc32(f"{spec.seed}:{node_id}".encode()) & 0x7FFFFFFF


def _random_node(node_id: str, value: Random, seed: int, dtype: str) -> Node | None:
    """`value` drawn by a node of its own, as validation draws an argument bound to it; None for
    a choice (no DALI operator draws one alone without its values as an input)."""
    if value.dist == "choice":
        return None
    op, args = random_call(value, dtype)
    return Node(node_id, op, args=args, seed=seed)


# ---- one function per operator ------------------------------------------------------------------
def _flip(w: _Wiring) -> None:
    axes: dict[str, ArgValue] = {}
    for name, default in (("horizontal", 1), ("vertical", 0)):
        value = w.node.args.get(name, default)
        if isinstance(value, (int, float, bool)):
            if not value:
                continue
            value = Random.coin_flip(0.5)
            w.notes.append(f"{w.node.id} flips {name}ly with probability 0.5 (a coin node).")
        axes[name] = w.shared(f"{name[0]}coin", value, "INT32")
        w.set_arg(name, axes[name])
    _flip_companions(w, axes.get("horizontal", 0), axes.get("vertical", 0))


def _flip_companions(w: _Wiring, horizontal: ArgValue, vertical: ArgValue) -> None:
    """``bb_flip``, ``coord_flip`` and a mask ``flip`` reading the image's coins."""
    boxes = w.track("boxes")
    if boxes is not None:
        w.needs_ratio("bb_flip")
        args = {"horizontal": horizontal, "vertical": vertical, "ltrb": w.tracks.format.ltrb}
        w.move("boxes", w.add(Node(w.name("boxes"), "bb_flip", (boxes,), args)))
    if any(w.track(kind) is not None for kind in POINT_KINDS):
        w.needs_ratio("coord_flip")
    for kind in POINT_KINDS:
        points = w.track(kind)
        if points is not None:
            args = {"flip_x": horizontal, "flip_y": vertical}
            w.move(kind, w.add(Node(w.name(kind), "coord_flip", (points,), args)))
    masks = w.track("masks")
    if masks is not None:
        args = {"horizontal": horizontal, "vertical": vertical}
        w.move("masks", w.add(Node(w.name("masks"), "flip", (masks,), args)))


def _crop_mirror_normalize(w: _Wiring) -> None:
    """Its `mirror` is a horizontal flip: wired like ``flip``'s (one coin). A crop by it has no
    box operator, so the annotations keep their place only when it does not crop."""
    mirror = w.node.args.get("mirror", 0)
    if isinstance(mirror, (int, float, bool)) and mirror:
        mirror = Random.coin_flip(0.5)
        w.notes.append(f"{w.node.id} mirrors with probability 0.5 (a coin node).")
    if not (isinstance(mirror, (int, float, bool)) and not mirror):
        coin = w.shared("mirror_coin", mirror, "INT32")
        w.set_arg("mirror", coin)
        _flip_companions(w, coin, 0)
    placed = [kind for kind in PLACED_KINDS if w.track(kind) is not None]
    if placed and moves_pixels(w.node.op, {k: v for k, v in w.node.args.items() if k != "mirror"}):
        w.notes.append(
            f"{kinds_said(placed)} no longer match the images after {w.node.id}: its crop has "
            f"no {mover(placed)}; crop with random_bbox_crop and slice before it instead."
        )


def _box_crop(w: _Wiring) -> None:
    """``random_bbox_crop`` picked: it becomes the crop window, and the image node a slice."""
    boxes, labels = w.track("boxes"), w.track("labels")
    # placement refuses a graph without boxes, or with boxes in pixels
    assert boxes is not None and w.tracks.format.ratio
    crop_id = w.node.id
    args: dict[str, ArgValue] = {
        "bbox_layout": "xyXY" if w.tracks.format.ltrb else "xyWH",
        **SSD_CROP_ARGS,
        **w.node.args,
    }
    if w.track("polygons") is not None:
        args["output_bbox_indices"] = True
    inputs = (boxes, labels) if labels is not None else (boxes,)
    crop = Node(crop_id, BOX_CROP, inputs, args, seed=_seed(w.spec, crop_id))
    w.before.append(crop)
    w.node = Node(w.fresh("crop"), "slice", (w.images, Ref(crop_id, 0), Ref(crop_id, 1)))
    w.move("boxes", Ref(crop_id, 2))
    if labels is not None:
        w.move("labels", Ref(crop_id, 3))
    box_crop_companions(w, crop_id)


def box_crop_companions(w: _Wiring, crop_id: str) -> None:
    """The masks, polygons, vertices and keypoints through the window of ``random_bbox_crop``
    `crop_id` (its output 4, the indices of the boxes kept, picks the polygons: the crop must
    give it, ``output_bbox_indices=True``)."""
    anchor, shape = Ref(crop_id, 0), Ref(crop_id, 1)
    masks = w.track("masks")
    if masks is not None:
        w.move("masks", w.add(Node(w.name("masks"), "slice", (masks, anchor, shape))))
    polygons, vertices = w.track("polygons"), w.track("vertices")
    if polygons is not None and vertices is not None:
        kept = Node(
            w.name("polygons"),
            "segmentation.select_masks",
            (Ref(crop_id, 4), polygons, vertices),
            {"reindex_masks": True},
        )
        w.add(kept)
        w.move("polygons", Ref(kept.id, 0))
        w.move("vertices", Ref(kept.id, 1))
    if any(w.track(kind) is not None for kind in POINT_KINDS):
        window = _window_of(w.spec, anchor, shape)  # one already carries other points
        if window is None:
            end = w.expression("window_end", "anchor + shape", anchor, shape)
            window = w.transform("window", "crop", {"from_start": anchor, "from_end": end})
        w.vertex_companions(window)
        if w.track("keypoints") is not None:
            w.notes.append("keypoints of the objects the crop drops stay (moved with the window).")


def _window_of(spec: GraphSpec, anchor: Ref, shape: Ref) -> Ref | None:
    """The ``transforms.crop`` of the window at `anchor` of `shape` that the graph already
    has (made when other points were carried through the same crop), or None."""
    for node in spec.operators():
        end = node.args.get("from_end")
        if node.op != "transforms.crop" or node.args.get("from_start") != anchor:
            continue
        made = spec.node(end.node) if isinstance(end, Ref) and end.node in spec else None
        if isinstance(made, Node) and made.op == "expression" and made.inputs == (anchor, shape):
            return Ref(node.id)
    return None


def _rotate(w: _Wiring) -> None:
    angle = w.shared("angle", w.node.args.get("angle", 15.0))
    w.set_arg("angle", angle)
    keep_size = bool(w.node.args.get("keep_size", False))
    boxes, labels = w.track("boxes"), w.track("labels")
    if boxes is not None and isinstance(angle, Ref):
        size = w.expression("input_shape", "images.shape()[0:2]", w.images)
        args: dict[str, ArgValue] = {
            "angle": angle,
            "input_shape": size,
            "bbox_layout": "xyXY" if w.tracks.format.ltrb else "xyWH",
            "bbox_normalized": w.tracks.format.ratio,
            "keep_size": keep_size,
        }
        if "size" in w.node.args:  # the output canvas rotate was given
            args["size"] = w.node.args["size"]
        # boxes are dropped (and their labels with them) only where the canvas keeps its size
        inputs = (boxes, labels) if labels is not None and keep_size else (boxes,)
        rotated = w.add(Node(w.name("boxes"), "bbox_rotate", inputs, args))
        w.move("boxes", rotated)
        if len(inputs) > 1:
            w.move("labels", Ref(rotated.node, 1))
    if w.has_points and isinstance(angle, Ref) and w.needs_ratio("coord_transform"):
        # ratio -> pixels about the centre, turned as rotate turns them (its angle is
        # counter-clockwise, transforms.rotation's clockwise), -> ratio of the output
        size_in = w.expression("size_in", "images.shape()[1::-1] * 1.0", w.images)
        size_out = w.expression("size_out", "1.0 / rotated.shape()[1::-1]", Ref(w.node.id))
        turn = w.expression("turn", "-angle", angle)
        centre = [0.5, 0.5]
        scaled = w.transform("to_pixels", "scale", {"scale": size_in, "center": centre})
        turned = w.transform("turn_matrix", "rotation", {"angle": turn, "center": centre}, scaled)
        matrix = w.transform("to_ratio", "scale", {"scale": size_out, "center": centre}, turned)
        w.vertex_companions(matrix)
    w.masks_like_images("rotate", {"angle": angle, "keep_size": keep_size})


def _warp_affine(w: _Wiring) -> None:
    matrix = w.node.args.get("matrix", [1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    if isinstance(matrix, (list, tuple)):
        shared = w.shared("matrix", [float(x) for x in matrix])
        # a constant node of 6 numbers: DALI wants the matrix as 2x3
        assert isinstance(shared, Ref)
        w.before[-1] = w.before[-1].with_arg("shape", [2, 3])
        matrix = shared
    w.set_arg("matrix", matrix)
    w.set_arg("inverse_map", False)
    w.notes.append(
        f"{w.node.id} reads its matrix as the forward map of points (inverse_map=False), as "
        "coord_transform applies it."
    )
    boxes = w.track("boxes")
    in_ratio: Ref | None = None
    if isinstance(matrix, Ref) and w.tracks.format.ratio and (boxes is not None or w.has_points):
        size_in = w.expression("size_in", "images.shape()[1::-1] * 1.0", w.images)
        size_out = w.expression("size_out", "1.0 / warped.shape()[1::-1]", Ref(w.node.id))
        to_pixels = w.transform("to_pixels", "scale", {"scale": size_in})
        moved = w.transform("moved", "combine", {}, to_pixels, matrix)
        in_ratio = w.transform("to_ratio", "scale", {"scale": size_out}, moved)
    if boxes is not None and isinstance(matrix, Ref):
        w.move("boxes", _enclosing_boxes(w, boxes, in_ratio or matrix))
    elif boxes is not None:
        w.notes.append(
            f"the boxes no longer match the images after {w.node.id}: its matrix is no node output."
        )
    if w.has_points and w.needs_ratio("coord_transform") and in_ratio is not None:
        w.vertex_companions(in_ratio)
    w.masks_like_images("warp_affine", {"matrix": matrix, "inverse_map": False})


def _enclosing_boxes(w: _Wiring, boxes: Ref, matrix: Ref) -> Ref:
    """The boxes enclosing each box's four corners moved by the affine `matrix` (2x3, in the
    boxes' own coordinates), as one ``coord_transform`` of the box rows by a 4x5 matrix: for
    ltrb, left' = max(a, 0) * left + min(a, 0) * right + max(b, 0) * top + min(b, 0) * bottom + e
    (a, b, e the first row), and so on; for xywh the width is |a| * w + |b| * h. Boxes are not
    clipped to the image: a box moved partly outside keeps its full extent."""
    if w.tracks.format.ltrb:  # left, top: the positive parts on left, top; right, bottom: swapped
        texts = {
            "positive": "math.max(matrix[:, 0:2], 0.0)",
            "negative": "math.min(matrix[:, 0:2], 0.0)",
            "offset": "matrix[:, 2:3]",
        }
        rows = (("positive", "negative", "offset"), ("negative", "positive", "offset"))
    else:  # rows: x, y moved like the corner, w, h grown by |a| and |b|
        texts = {
            "linear": "matrix[:, 0:2]",
            "negative": "math.min(matrix[:, 0:2], 0.0)",
            "offset": "matrix[:, 2:3]",
            "zeros": "matrix[:, 0:2] * 0.0",
            "extent": "math.abs(matrix[:, 0:2])",
            "no_offset": "matrix[:, 2:3] * 0.0",
        }
        rows = (("linear", "negative", "offset"), ("zeros", "extent", "no_offset"))
    parts = {key: w.expression(f"boxes_{key}", text, matrix) for key, text in texts.items()}
    halves = [
        w.add(Node(w.name(f"boxes_rows{i}"), "cat", tuple(parts[k] for k in row), {"axis": 1}))
        for i, row in enumerate(rows)
    ]
    table = w.add(Node(w.name("boxes_matrix"), "cat", tuple(halves), {"axis": 0}))
    return w.add(Node(w.name("boxes"), "coord_transform", (boxes,), {"MT": table}))


def _paste(w: _Wiring) -> None:
    ratio = w.shared("ratio", w.node.args.get("ratio", 1.5))
    x = w.shared("paste_x", w.node.args.get("paste_x", 0.5))
    y = w.shared("paste_y", w.node.args.get("paste_y", 0.5))
    for name, value in (("ratio", ratio), ("paste_x", x), ("paste_y", y)):
        w.set_arg(name, value)
    boxes = w.track("boxes")
    if boxes is not None:
        w.needs_ratio("bbox_paste")
        args = {"ratio": ratio, "paste_x": x, "paste_y": y, "ltrb": w.tracks.format.ltrb}
        w.move("boxes", w.add(Node(w.name("boxes"), "bbox_paste", (boxes,), args)))
    shared = all(isinstance(v, Ref) for v in (ratio, x, y))
    if w.has_points and shared and w.needs_ratio("the points' paste"):
        assert isinstance(ratio, Ref) and isinstance(x, Ref) and isinstance(y, Ref)
        where = w.add(Node(w.name("position"), "stack", (x, y)))
        for kind in POINT_KINDS:  # bbox_paste's formula, for points
            points = w.track(kind)
            if points is not None:
                text = "points / ratio + (ratio - 1) / ratio * position"
                w.move(kind, w.expression(kind, text, points, ratio, where))
    masks = w.masks_u8()
    if masks is not None:
        args = {"ratio": ratio, "paste_x": x, "paste_y": y, "fill_value": [0], "n_channels": 1}
        w.move("masks", w.add(Node(w.name("masks"), "paste", (masks,), args)))


def _resize(w: _Wiring) -> None:
    placed = [k for k in ("boxes", *POINT_KINDS) if w.track(k) is not None]
    if placed:
        w.needs_ratio(f"{w.node.id} (boxes in pixels would need scaling)")
    masks = w.masks_u8()
    if masks is not None:
        size = w.expression("mask_size", "resized.shape()[0:2] * 1.0", Ref(w.node.id))
        args = {"size": size, "interp_type": "INTERP_NN", "antialias": False}
        w.move("masks", w.add(Node(w.name("masks"), w.node.op, (masks,), args)))


def _without_companion(w: _Wiring) -> None:
    """An operator with no companion wiring: a word when it moves pixels."""
    if not moves_pixels(w.node.op, w.node.args):
        return
    placed = [kind for kind in PLACED_KINDS if w.track(kind) is not None]
    if placed:
        fix = no_safe_form(w.node.op, placed) or "no annotation operator follows it"
        said = kinds_said(placed)
        w.notes.append(f"{said} no longer match the images after {w.node.id}: {fix}.")


WIRINGS: dict[str, Callable[[_Wiring], None]] = {
    "flip": _flip,
    "crop_mirror_normalize": _crop_mirror_normalize,
    BOX_CROP: _box_crop,
    "rotate": _rotate,
    "warp_affine": _warp_affine,
    "paste": _paste,
    "resize": _resize,
    "experimental.resize": _resize,
}

__all__ = ["BOX_CROP", "Added", "add_operator", "placement", "with_ratio"]
