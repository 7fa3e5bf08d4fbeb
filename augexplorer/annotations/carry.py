"""Carrying a kind of annotation through an image operator already in the graph.

:mod:`.wiring` wires every companion when an operator is added. A graph made another way (a
preset, a file, a source switched to read polygons after the crop was added) can hold an image
operator that moves pixels while some kinds of annotation stay behind
(:attr:`~.tracks.Tracks.left`). :func:`carry_through` adds the missing companions to that
operator, reading its own draws (its coin, its angle, its crop window), and :func:`carry` does so
for every operator on the way to a node (:func:`.drawable.carry_all` for every kind a source
reads). :func:`why_not_carried` says when DALI has no companion
to add, in words a user can act on.

An image operator that runs only on some samples (an apply probability, a condition) has its
companions run under the same condition: an apply probability becomes a coin node that the
operator and its companions read (the same probability and seed: the images draw as before),
and companions it already had are put under it too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from ..spec import ArgValue, Clause, GraphSpec, Node, Random, Ref
from ..spec.graph import pinned_seeds
from .geometry import mover, no_safe_form
from .tracks import Tracks, cmn_crop_moves, image_chain, masks_own_differs, tracks_at
from .wiring import (
    BOX_CROP,
    POINT_KINDS,
    _flip_companions,
    _paste,
    _resize,
    _rotate,
    _warp_affine,
    _Wiring,
    box_crop_companions,
)

# the kinds that come along when a kind is carried: a box's label moves (or is dropped) with it
_ALONG = {"boxes": ("labels",), "polygons": ("vertices",), "vertices": ("polygons",)}
MAX_CARRIES = 16  # image nodes one carry may wire: a graph has far fewer on one chain


def box_crop_of(spec: GraphSpec, image: Node) -> str | None:
    """The ``random_bbox_crop`` whose window `image` (a slice) cuts: its anchor and shape are the
    slice's second and third inputs. None for any other crop."""
    if image.op not in ("slice", "decoders.image_slice") or len(image.inputs) < 3:
        return None
    anchor, shape = image.inputs[1], image.inputs[2]
    if anchor.node != shape.node or (anchor.output, shape.output) != (0, 1):
        return None
    found = spec.node(anchor.node) if anchor.node in spec else None
    return found.id if isinstance(found, Node) and found.op == BOX_CROP else None


def why_not_carried(spec: GraphSpec, image_id: str, kinds: Iterable[str]) -> str | None:
    """Why `kinds` cannot be carried through image node `image_id` (None: they can)."""
    image = spec.node(image_id)
    assert isinstance(image, Node)
    before = tracks_at(spec, image.inputs[0].node) if image.inputs else None
    if before is None:
        return "its images come from no annotated source"
    if image.probability is not None or image.when:
        several = _several_outputs(spec, image, kinds, before)
        if several is not None:
            return (
                f"it runs only on some samples (a probability or a condition), and its "
                f"companion {several} gives several outputs, which cannot run under a condition"
            )
    op = image.op
    # every companion but bbox_rotate moves coordinates in ratio to the image size
    placed = [k for k in kinds if k in POINT_KINDS or (k == "boxes" and op != "rotate")]
    if op == "crop_mirror_normalize" and cmn_crop_moves(spec, image):
        return f"its crop has no {mover(kinds)}; crop with random_bbox_crop and slice before it"
    if op == "warp_affine" and image.args.get("inverse_map", True) is not False:
        return (
            "its matrix maps output points back (inverse_map=True), which no point operator "
            "follows; set inverse_map=False"
        )
    if op in ("slice", "decoders.image_slice") and box_crop_of(spec, image) is None:
        return str(no_safe_form(op, kinds))
    if op not in _CARRIERS or op in _MASKS_TWIN_FIRST:
        # the masks' own crop or resize cut them otherwise: that one is to fix, not to double
        differs = _masks_own_differs(spec, image, before, kinds)
        if differs is not None:
            return differs
    if op not in _CARRIERS:
        return no_safe_form(op, kinds) or "no annotation operator follows it"
    if placed and not before.format.ratio:
        return (
            "its companions move coordinates in ratio to the image size, but source "
            f"{before.source!r} reads pixels: set ratio=True on it"
        )
    return None


# Operators whose twin on the masks (the segmentation preset's mask_resize) is named when it
# differs, where a carry would add a second one after it; a flip's or rotation's is replaced
# by the carry.
_MASKS_TWIN_FIRST = frozenset({"resize"})


MASKS_OWN = "the masks' own"  # how _masks_own_differs begins


def _masks_own_differs(
    spec: GraphSpec, image: Node, before: Tracks, kinds: Iterable[str]
) -> str | None:
    """Where the masks have an operator of `image`'s kind of their own that cuts or sizes them
    otherwise (another window, another size): which, on what, and the fix."""
    masks = before.refs.get("masks")
    twin = masks_own_differs(spec, image, masks) if masks and "masks" in kinds else None
    if twin is None:
        return None
    arg, value = twin.argument, twin.wanted
    if isinstance(value, Ref):
        fix = f"read {value.node!r}, as {image.id!r} does"
    elif isinstance(value, Random):
        fix = f"make the {arg} of {image.id!r} a random node both read"
    elif value is None:
        fix = f"leave {arg} unset, as {image.id!r} does"
    else:
        fix = f"set it to {value!r}, as {image.id!r} has it"
    return f"{MASKS_OWN} {image.op}, {twin.node!r}, has another {arg}: {fix}"


def carry_through(spec: GraphSpec, image_id: str, kinds: Iterable[str]) -> GraphSpec:
    """`spec` with `kinds` moved with image node `image_id`, which left them behind: companion
    operators reading its draws are added after it, and what read the old annotations reads the
    moved ones. Raises ValueError saying why where no companion exists."""
    wanted = list(dict.fromkeys(kinds))
    why = why_not_carried(spec, image_id, wanted)
    if why is not None:
        raise ValueError(f"cannot carry {', '.join(wanted)} through {image_id!r}: {why}")
    image = spec.node(image_id)
    assert isinstance(image, Node)
    if image.probability is not None or image.when:
        spec = _shared_condition(spec, image)
        image = spec.node(image_id)
        assert isinstance(image, Node)
        # the companions it had carry their kinds, under its condition now
        now = tracks_at(spec, image_id)
        wanted = [kind for kind in wanted if now and kind in now.left.get(image_id, ())]
        if not wanted:
            return spec
    # companions wired before an edit of the image's geometry move the annotations as they did:
    # they go, and the wiring adds ones that follow (left, the new ones would read theirs)
    spec = _dropped(spec, _stale(spec, image_id), image_chain(spec, image_id))
    before = tracks_at(spec, image.inputs[0].node)
    assert before is not None
    for kind in list(wanted):
        wanted += [along for along in _ALONG.get(kind, ()) if along not in wanted]
    refs = {kind: ref for kind, ref in before.refs.items() if kind in wanted}
    wiring = _Wiring(spec, image.inputs[0].node, image, dataclasses.replace(before, refs=refs))
    _CARRIERS[image.op](wiring)
    carried = _under(wiring.finish_in_place(), _made_from(wiring, before), image.when)
    after = tracks_at(carried, image_id)
    still = [k for k in (after.left.get(image_id, ()) if after else ()) if k in wanted]
    if still:  # a companion the wiring could not add: say so rather than add half of it
        raise ValueError(f"cannot carry {', '.join(still)} through {image_id!r}")
    return carried


def carry(spec: GraphSpec, node_id: str, kinds: Iterable[str]) -> GraphSpec:
    """`spec` with `kinds` carried through every image operator between the source and
    `node_id` that leaves them behind, in order. Raises ValueError naming the first operator
    that has no companion for them."""
    wanted = tuple(kinds)
    for _ in range(MAX_CARRIES):
        tracks = tracks_at(spec, node_id)
        if tracks is None:
            return spec
        first = next(
            (
                (image, [k for k in left if k in wanted])
                for image, left in tracks.left.items()
                if any(k in wanted for k in left)
            ),
            None,
        )
        if first is None:
            return spec
        spec = carry_through(spec, *first)
    raise ValueError(f"{', '.join(wanted)} are left behind by more than {MAX_CARRIES} nodes")


def _stale(spec: GraphSpec, image_id: str) -> list[str]:
    """The companions wired to `image_id` that no longer follow its geometry (an argument edited
    since: :func:`.tracks.follows`)."""
    wired, following = tracks_at(spec, image_id, agreeing=False), tracks_at(spec, image_id)
    if wired is None or following is None:
        return []
    kept = set(following.companions.get(image_id, ()))
    return [node for node in wired.companions.get(image_id, ()) if node not in kept]


def _dropped(spec: GraphSpec, node_ids: Iterable[str], keep: Iterable[str]) -> GraphSpec:
    """`spec` without the companions `node_ids`: what read one of their outputs reads the input
    at that position (the annotations as they came in), and the nodes only they read (their
    matrices, their sizes) go with them; the image chain `keep` and the sources stay."""
    kept = set(keep)
    gone: set[str] = set()
    for node_id in node_ids:
        node = spec.node(node_id)
        assert isinstance(node, Node)

        def back(ref: Ref, node: Node = node) -> Ref:
            at = ref.output
            return node.inputs[at] if ref.node == node.id and at < len(node.inputs) else ref

        nodes = [n.map_refs(back) if isinstance(n, Node) else n for n in spec.nodes]
        outputs = {name: back(ref) for name, ref in spec.outputs.items()}
        spec = dataclasses.replace(
            spec, nodes=tuple(n for n in nodes if n.id != node_id), outputs=outputs
        )
        gone |= {ref.node for ref in node.reads()}
    while True:
        read = {ref.node for n in spec.operators() for ref in n.reads()}
        read |= {ref.node for ref in spec.outputs.values()}
        read |= {target.node for target in spec.schedules}
        unread = [n for n in spec.operators() if n.id in gone - kept - read]
        if not unread:
            return spec
        gone |= {ref.node for n in unread for ref in n.reads()}
        spec = dataclasses.replace(spec, nodes=tuple(n for n in spec.nodes if n not in unread))


def _several_outputs(
    spec: GraphSpec, image: Node, kinds: Iterable[str], before: Tracks
) -> str | None:
    """The companion, named, that `image` has or would be given and that gives several
    outputs (a node under a condition gives one: its first input passes through elsewhere)."""
    for node_id in _companions_had(spec, image):
        node = spec.node(node_id)
        if isinstance(node, Node) and _outputs(node) > 1:
            return f"{node_id!r} ({node.op})"
    if image.op in ("slice", "decoders.image_slice"):
        return "random_bbox_crop"
    wanted = {*kinds, *(along for kind in kinds for along in _ALONG.get(kind, ()))}
    keep_size = bool(image.args.get("keep_size", False))  # where boxes are dropped, labels too
    if image.op == "rotate" and "boxes" in wanted and before.get("labels") and keep_size:
        return "bbox_rotate (boxes and labels)"
    return None


def _companions_had(spec: GraphSpec, image: Node) -> tuple[str, ...]:
    """The companions wired to `image` as it would have them running on every sample (its
    condition aside: they run on every sample, or under another condition)."""
    stripped = spec.replace_node(dataclasses.replace(image, probability=None, when=()))
    tracks = tracks_at(stripped, image.id)
    return tracks.companions.get(image.id, ()) if tracks else ()


def _outputs(node: Node) -> int:
    """How many outputs a companion gives: bbox_rotate its labels too where it reads them,
    random_bbox_crop a window and the boxes in it."""
    if node.op == "bbox_rotate":
        return len(node.inputs)
    return 4 if node.op == BOX_CROP else 1


def _shared_condition(spec: GraphSpec, image: Node) -> GraphSpec:
    """`spec` with `image`'s condition one its companions can share: an apply probability
    becomes a coin node read as the condition (its probability and seed, so the same draws),
    and the companions `image` had run under that condition too."""
    had = _companions_had(spec, image)
    when = image.when
    probability = pinned_seeds(image, spec.seed).probability
    if probability is not None:
        coin = Node(
            spec.unique_id(f"{image.id}_coin"),
            "random.coin_flip",
            args={"probability": float(probability.p), "dtype": "BOOL"},
            seed=probability.seed,
        )
        index = spec.ids().index(image.id)
        nodes = [*spec.nodes[:index], coin, *spec.nodes[index:]]
        spec = dataclasses.replace(spec, nodes=tuple(nodes))
        when = (Clause(Ref(coin.id)),)
    spec = spec.replace_node(dataclasses.replace(image, probability=None, when=when))
    return _under(spec, set(had), when)


def _made_from(wiring: _Wiring, tracks: Tracks) -> set[str]:
    """The companions the wiring added that move annotations: each reads, as its first input,
    the annotations (or masks cast for it) or another such companion's output."""
    annotations = set(tracks.refs.values())
    annotations |= {Ref(n.id) for n in wiring.before if n.inputs[:1] and n.inputs[0] in annotations}
    moving: set[str] = set()
    for node in wiring.after:
        if node.inputs[:1] and (node.inputs[0] in annotations or node.inputs[0].node in moving):
            moving.add(node.id)
    return moving


def _under(spec: GraphSpec, node_ids: set[str], when: tuple[Clause, ...]) -> GraphSpec:
    """`spec` with nodes `node_ids` under condition `when`: elsewhere their first input, the
    annotations as they were, passes through, as the image does."""
    if not when:
        return spec
    for node_id in node_ids:
        node = spec.node(node_id)
        assert isinstance(node, Node)
        spec = spec.replace_node(dataclasses.replace(node, probability=None, when=when))
    return spec


def _carry_flip(w: _Wiring) -> None:
    """The flip's own coins (a draw bound to it becomes a node both read)."""
    axes = {"horizontal": 1, "vertical": 0}
    values: dict[str, ArgValue] = {}
    for name, default in axes.items():
        value = w.node.args.get(name, default)
        if isinstance(value, Random):
            value = w.shared(f"{name[0]}coin", value, "INT32")
            w.set_arg(name, value)
        values[name] = value
    _flip_companions(w, values["horizontal"], values["vertical"])


def _carry_mirror(w: _Wiring) -> None:
    """crop_mirror_normalize's mirror (it crops nothing: :func:`why_not_carried`)."""
    mirror = w.node.args.get("mirror", 0)
    if isinstance(mirror, Random):
        mirror = w.shared("mirror_coin", mirror, "INT32")
        w.set_arg("mirror", mirror)
    _flip_companions(w, mirror, 0)


def _carry_box_crop(w: _Wiring) -> None:
    """A slice cutting a ``random_bbox_crop``'s window: the other kinds through the same window
    (the crop also gives the indices of the boxes it keeps, which pick the polygons)."""
    crop_id = box_crop_of(w.spec, w.node)
    assert crop_id is not None  # why_not_carried checked it
    crop = w.spec.node(crop_id)
    assert isinstance(crop, Node)
    if w.track("polygons") is not None and not crop.args.get("output_bbox_indices"):
        crop = crop.with_arg("output_bbox_indices", True)
    w.spec = w.spec.replace_node(crop)
    box_crop_companions(w, crop_id)


_CARRIERS: dict[str, Callable[[_Wiring], None]] = {
    "flip": _carry_flip,
    "crop_mirror_normalize": _carry_mirror,
    "rotate": _rotate,
    "paste": _paste,
    "resize": _resize,
    "experimental.resize": _resize,
    "warp_affine": _warp_affine,
    "slice": _carry_box_crop,
    "decoders.image_slice": _carry_box_crop,
}

__all__ = ["box_crop_of", "carry", "carry_through", "why_not_carried"]
