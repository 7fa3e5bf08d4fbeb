"""albumentations as a :class:`~augexplorer.port.build.LibraryMapping`: every registered mapping
as a handler, and the composes as groups with albumentations' own semantics (2.x):

- ``OneOf(p)``: with probability p, one child picked by the children's p normalized, applied
  whatever its own p says;
- ``SomeOf(n, replace=False, p)``: with probability p, n children picked with equal chances,
  each applied with its own p (n=1: a pick among them; every child: all of them);
- ``Sequential(p)``, a nested ``Compose`` or ``ReplayCompose``: with probability p, every
  child with its own p;
- ``ToTensorV2``: HWC to CHW, folded into a Normalize just before it.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from ...spec import Clause, Ref
from ..build import Grade, LibraryMapping, PortContext, Refuse
from ..model import SPREAD, Refusal, TransformCall, Unknown
from ..picked_refusals import note_picks_doing_nothing
from .arguments import Args, NotPorted, area_when_shrinking
from .names_2x import (
    REMOVED_IN_2X,
    ignored_in_2x,
    names_2x_for,
    removed_in_2x,
    single_numbers_2x_refuses,
)
from .registry import IMAGE, LIBRARY, MAPPINGS, image_nodes

# Operators that draw on their own: their nodes get a seed, as the graph's other draws do.
RANDOM_OPS = frozenset(
    {
        "random.uniform",
        "random.coin_flip",
        "random.choice",
        "random.normal",
        "random_resized_crop",
        "noise.gaussian",
    }
)
# Calls a compose applies whatever their own p says (OneOf's pick), held in the context's state.
FORCED = "albumentations_forced"
# SomeOf with more subsets than this is refused: one expression per child names its subsets.
MOST_SUBSETS = 35


def _forced(call: TransformCall, context: PortContext) -> bool:
    forced: list[TransformCall] = context.state.get(FORCED, [])
    return any(item is call for item in forced)


def _force(children: tuple[TransformCall, ...], context: PortContext) -> None:
    context.state.setdefault(FORCED, []).extend(children)


# Where a group's p stands among its positional arguments, the transforms held apart
# (albumentations 2.x's signatures: OneOf(transforms, p), SomeOf(transforms, n, replace, p))
P_POSITION = {
    "OneOf": 0,
    "Sequential": 0,
    "SomeOf": 2,
    "RandomOrder": 2,
    "SelectiveChannelTransform": 1,
    "Compose": 3,
    "ReplayCompose": 3,
}


def _given_p(call: TransformCall, default: object) -> object:
    """A group's p by keyword or by its position, else `default`."""
    _no_spread(call)
    position = P_POSITION.get(call.name)
    if position is None:
        return call.kwargs.get("p", default)
    return call.argument(position, "p", default)


def _probability(call: TransformCall, default: float) -> float:
    return float(_number(call, "p", _given_p(call, default)))


def _number(call: TransformCall, name: str, value: object) -> float | int:
    """A group's argument `name` as a number, else refused: one known only when the file runs
    said as any such argument is (with its --param fix), never as the reader's own value."""
    if isinstance(value, Unknown):
        raise Refuse(value.explain(name, with_line=False))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refuse(f"{call.name}: {name}={value!r} is not a number")
    return value


def _no_spread(call: TransformCall) -> None:
    """A group's ``**mapping`` not known from the file may give its p or n: refused."""
    spread = call.kwargs.get(SPREAD)
    if isinstance(spread, Unknown):
        raise Refuse(spread.explain(SPREAD, with_line=False))


def _count(call: TransformCall) -> int:
    """SomeOf's n, by keyword or second (the reading holds the transforms apart, so the first
    of `call.args`), 1 where not given."""
    _no_spread(call)
    return int(_number(call, "n", call.argument(0, "n", 1)))


# albumentations 2.x ignores always_apply (it warns and keeps p); 1.x saved files have it read
# as p=1 by the saved form's reader, so in a call it is a 2.x pipeline's and changes nothing
IGNORED_ALWAYS_APPLY = (
    "always_apply=True is ignored, as albumentations 2.x ignores it (with a warning): the "
    "transform applies with its p, as there"
)


def handle(call: TransformCall, context: PortContext) -> Grade:
    """Port one transform through its registered mapping."""
    entry = MAPPINGS[call.name]
    assert entry.mapping is not None
    if _uint8_only(call) and _after_float(context):
        raise Refuse(
            f"{call.name} after Normalize or ToFloat is not ported: albumentations runs it on "
            "the float image there, the port on 8-bit pixels only (fix: put it before "
            "Normalize or ToFloat)"
        )
    try:
        args = Args(call, entry.positional, entry.default_p)
        args.float_image = _after_float(context)
        _no_area_for_downscale(args)
        mapped = entry.mapping(args)
        p = 1.0 if _forced(call, context) else args.p
    except NotPorted as error:
        raise Refuse(error.reason) from None
    chain = {node.id for node in image_nodes(mapped)}
    before = context.image
    names: dict[str, str] = {}
    carried: list[Ref] = []

    def redirect(ref: Ref) -> Ref:
        if ref.node == IMAGE:
            return before
        return Ref(names.get(ref.node, ref.node), ref.output)

    for node in mapped.nodes:
        moved = node.map_refs(redirect)
        made = context.add(
            node.id,
            moved.op,
            moved.args,
            inputs=moved.inputs,
            image=node.id in chain,
            seed=node.op in RANDOM_OPS,
        )
        names[node.id] = made.node
        if moved.when:  # a node of the mapping's own that runs only where its clauses hold
            context.run_under([made], moved.when)
        if node.id in chain:
            carried.append(made)
    context.apply_with_probability(p, carried)
    differences = mapped.differences
    if not differences and mapped.fidelity == "exact":
        differences = ("The same pixels.",)
    fidelity = mapped.fidelity
    if call.kwargs.get("always_apply") is True:
        differences = (*differences, IGNORED_ALWAYS_APPLY)
    if call.name in CLIPS_FLOAT and _after_float(context):
        differences = (*differences, CLIPPED_AFTER_NORMALIZE)
        fidelity = "approximate"
    return Grade(fidelity, tuple(_sentence(text) for text in differences))


def _no_area_for_downscale(args: Args) -> None:
    """2.x's resizes take area_for_downscale: OpenCV's INTER_AREA where they shrink (left
    unread, it ported as INTER_LINEAR graded exact: max 24 grey levels off). Read where one
    factor scales both sides (:func:`.arguments.area_when_shrinking`); refused elsewhere, where
    albumentations takes INTER_AREA for both sides when either shrinks."""
    value = args.get("area_for_downscale")
    if value is not None and not area_when_shrinking(args):
        raise NotPorted(
            f"area_for_downscale={value!r}: albumentations shrinks with OpenCV's INTER_AREA "
            "and enlarges with the interpolation given, image by image, which the port reads "
            "only for LongestMaxSize, SmallestMaxSize and RandomScale with INTER_LINEAR (fix: "
            "leave it out for INTER_LINEAR, or interpolation=cv2.INTER_AREA, ported as DALI's "
            "antialiased linear, where every image shrinks)"
        )


# Transforms whose float output albumentations 2.0.8 clips to 0-1 (measured: each after
# Normalize on a random image gives values in 0..1 only); flips, affines, resizes, crops,
# dropouts, ToGray, InvertImg and ChannelShuffle keep the normalized range.
CLIPS_FLOAT = frozenset(
    {
        "GaussianBlur", "MotionBlur", "MedianBlur", "Sharpen", "Emboss", "GaussNoise",
        "RandomBrightnessContrast", "ColorJitter", "HueSaturationValue", "RGBShift", "CLAHE",
        "Downscale", "ImageCompression", "Equalize", "Posterize", "Solarize", "RandomGamma",
    }
)  # fmt: skip
# Ports written for 8-bit pixels alone (DALI's clahe takes uint8 only; UnsharpMask's divides by
# 255 and casts back): on a float image albumentations gives float, the port would not.
UINT8_PORTS = frozenset({"CLAHE", "UnsharpMask", "HueSaturationValue"})
CLIPPED_AFTER_NORMALIZE = (
    "after Normalize (or ToFloat) the image is float, and albumentations clips this "
    "transform's output to 0-1, undoing the normalization (RandomGamma gives NaN); the port "
    "keeps the normalized values (fix: put Normalize last, as albumentations expects)"
)


def _uint8_only(call: TransformCall) -> bool:
    """Whether `call`'s port is written for 8-bit pixels alone: UINT8_PORTS, and a brightness
    shift by the image's mean (its share of 255 is an 8-bit image's)."""
    by_mean = call.name == "RandomBrightnessContrast" and not call.argument(
        2, "brightness_by_max", True
    )
    return call.name in UINT8_PORTS or by_mean


def _after_float(context: PortContext) -> bool:
    """Whether a transform ported before made the image float (Normalize, ToFloat)."""
    return any(step.call.name in ("Normalize", "ToFloat") for step in context.steps)


def _sentence(text: str) -> str:
    """A difference as the table and the summary print it: a capital and a full stop."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _group_apply(call: TransformCall, context: PortContext, default_p: float) -> list[Clause]:
    p = 1.0 if _forced(call, context) else _probability(call, default_p)
    if p >= 1.0:
        return []
    base = _SNAKE.get(call.name, call.name.lower())
    return [Clause(context.coin(f"{base}_apply", p))]


_SNAKE = {"OneOf": "one_of", "SomeOf": "some_of", "ReplayCompose": "replay_compose"}


def _pick(context: PortContext, base: str, weights: list[float]) -> list[Clause]:
    """One index per sample drawn with `weights` (normalized): a uniform draw compared with
    the weights' running sums; for each index, the clause that holds where it was drawn."""
    total = sum(weights)
    if total <= 0:
        raise Refuse("the transforms' p add up to 0, so none is ever picked")
    draw = context.add(base, "random.uniform", {"range": [0.0, 1.0]}, image=False, seed=True)
    clauses = []
    low = 0.0
    for index, weight in enumerate(weights):
        high = low + weight / total
        if index == len(weights) - 1:
            text = f"{draw.node} >= {low!r}"
        elif index == 0:
            text = f"{draw.node} < {high!r}"
        else:
            text = f"({draw.node} >= {low!r}) & ({draw.node} < {high!r})"
        clauses.append(Clause(context.add_expression(f"{draw.node}_is_{index}", text, [draw])))
        low = high
    return clauses


def _child_p(child: TransformCall) -> float:
    entry = MAPPINGS.get(child.name)
    default = entry.default_p if entry is not None else _GROUP_P.get(child.name, 0.5)
    value = _given_p(child, default)
    return float(value) if isinstance(value, (int, float)) else default


def _port_one_picked(
    call: TransformCall, context: PortContext, outer: list[Clause], base: str
) -> None:
    """One child picked per image by the children's p normalized (under the group's own
    clauses, `outer`), applied whatever its own p says; a refused child's refusal says how
    often the group then does nothing."""
    weights = [_child_p(child) for child in call.children]
    picks = _pick(context, base, weights)
    _force(call.children, context)
    refused_from = len(context.refusals)
    for child, pick in zip(call.children, picks, strict=True):
        context.port_children([child], [*outer, pick])
    note_picks_doing_nothing(call, context, weights, refused_from)


def one_of(call: TransformCall, context: PortContext) -> Grade:
    _port_one_picked(call, context, _group_apply(call, context, 0.5), "one_of")
    return Grade(
        "distribution",
        (
            "One transform picked per image by the normalized p, as OneOf does (how often each "
            "applies, against albumentations' own picks over 2000 samples, p=0.8 and weights "
            "1, 0.5, 0.2, the first and last: 0.472 and 0.0905 here, 0.480 and 0.0975 there, for "
            "0.471 and 0.0941; Compare counts yours).",
        ),
    )


def one_or_other(call: TransformCall, context: PortContext) -> Grade:
    """The first transform with probability p, else the last, whichever is picked applied."""
    if len(call.children) < 2:
        raise Refuse("OneOrOther needs two transforms")
    p = 1.0 if _forced(call, context) else _probability(call, 0.5)
    first, last = call.children[0], call.children[-1]
    picks = _pick(context, "one_or_other", [p, 1.0 - p])
    _force((first, last), context)
    context.port_children([first], [picks[0]])
    context.port_children([last], [picks[1]])
    return Grade("distribution", ("The first transform with probability p, else the last.",))


def some_of_1x(call: TransformCall, context: PortContext) -> Grade:
    """SomeOf as albumentations 1.x ran it: n picks weighted by the transforms' p, each applied
    whatever its own p says."""
    count = _count(call)
    if count != 1:
        raise Refuse(
            "SomeOf of albumentations 1.x picks n > 1 transforms weighted by their p, which is "
            "not ported (nearest: a OneOf per pick)"
        )
    _port_one_picked(call, context, _group_apply(call, context, 1.0), "some_of")
    return Grade(
        "approximate",
        (
            "One transform picked per image by the normalized p, as SomeOf(n=1) of 1.x does "
            "(read from 1.4.0's source; not measured against 1.x).",
        ),
    )


def some_of(call: TransformCall, context: PortContext) -> Grade:
    count = _count(call)
    replace = call.kwargs.get("replace", False)
    children = call.children
    outer = _group_apply(call, context, 1.0)
    if count >= len(children) and not replace:
        context.port_children(children, outer)
        return Grade("distribution", ("Every transform is picked (n covers them all).",))
    if replace and count > 1:
        raise Refuse(
            "SomeOf(replace=True) with n > 1 may apply one transform twice, which a graph "
            "cannot; use replace=False (nearest: a OneOf per pick)"
        )
    subsets = list(itertools.combinations(range(len(children)), count))
    if len(subsets) > MOST_SUBSETS:
        raise Refuse(f"SomeOf picks among {len(subsets)} subsets; at most {MOST_SUBSETS} ported")
    picks = _pick(context, "some_of", [1.0] * len(subsets))
    refused_from = len(context.refusals)
    for index, child in enumerate(children):
        holding = [picks[i] for i, subset in enumerate(subsets) if index in subset]
        if len(holding) == 1:
            clause = holding[0]
        else:
            text = " | ".join(clause.ref.node for clause in holding)
            inputs = [clause.ref for clause in holding]
            clause = Clause(context.add_expression(f"some_of_has_{index}", text, inputs))
        context.port_children([child], [*outer, clause])
    if count == 1:  # a pick of one child: where it falls on a refused one, nothing is applied
        note_picks_doing_nothing(call, context, [1.0] * len(children), refused_from, own_p=True)
    return Grade(
        "distribution",
        (
            f"{count} of {len(children)} transforms picked with equal chances, each applied with "
            "its own p, in the written order (as albumentations 2.x does; 1.4 picked by p). How "
            "often each applies, against albumentations' own picks over 2000 samples (2 of 3, "
            "p=0.9, own p 1, 0.5, 1): 0.584, 0.325, 0.590 here, 0.577, 0.301, 0.610 there, for "
            "0.6, 0.3, 0.6; Compare counts yours.",
        ),
    )


def sequential(call: TransformCall, context: PortContext) -> Grade:
    outer = _group_apply(call, context, _GROUP_P.get(call.name, 1.0))
    context.port_children(call.children, outer)
    if not outer:
        return Grade("exact", ("Every transform in turn, each with its own p.",))
    return Grade("distribution", ("One coin per image with the compose's p.",))


# Transforms that change the image's type or layout (float, CHW): under a coin, a batch would
# hold both kinds, which DALI's conditionals cannot merge (nor PyTorch's collate stack).
RETYPING = frozenset({"Normalize", "ToFloat", "FromFloat", "ToTensorV2"})


def _retypes(call: TransformCall) -> bool:
    return call.name in RETYPING or any(_retypes(child) for child in call.children)


def compose(call: TransformCall, context: PortContext) -> Grade:
    """A Compose (or ReplayCompose) given a p: every transform under one coin, as Sequential;
    where it holds a Normalize or ToTensorV2, the p is left out and said, since an image the coin
    skips would keep its uint8 HWC form beside the others' float tensors."""
    p = 1.0 if _forced(call, context) else _probability(call, 1.0)
    if p >= 1.0 or not _retypes(call):
        return sequential(call, context)
    reason = (
        f"its p={p:g} is left out, its transforms applied to every image: where the coin says "
        "no, albumentations returns the image untouched, so its Normalize or ToTensorV2 would "
        "give float tensors for some images and uint8 arrays for others, which no batch can "
        f"hold (fix: wrap the augmentations in A.Sequential([...], p={p:g}) before Normalize)"
    )
    context.refusals.append(Refusal(call, reason))
    context.port_children(call.children)
    return Grade("approximate", (_sentence(reason),))


def to_tensor_v2(call: TransformCall, context: PortContext) -> Grade:
    """HWC -> CHW: folded into the Normalize right before it, else a transpose."""
    last = context.node(context.image.node) if context.image.node != "decode" else None
    if last is not None and last.op == "crop_mirror_normalize" and not last.when:
        context.replace(last.id, args={**last.args, "output_layout": "CHW"})
        return Grade("exact", ("Folded into the Normalize before it (CHW output).",))
    context.add("to_chw", "transpose", {"perm": [2, 0, 1], "output_layout": "CHW"})
    return Grade("exact", ("HWC to CHW, as a transpose.",))


_GROUP_P = {"OneOf": 0.5, "SomeOf": 1.0, "Sequential": 0.5, "Compose": 1.0, "ReplayCompose": 1.0}


# Transforms whose drawing or kernel albumentations 2.x changed: a 1.x file's are ported the
# 2.x way and graded approximate (not measured against 1.x).
CHANGED_SINCE_1X = frozenset({"MotionBlur"})


def _as_in_1x(call: TransformCall, context: PortContext) -> Grade:
    grade = handle(call, context)
    note = (
        f"Ported as albumentations 2.x builds {call.name}; 1.x built it otherwise "
        "(not measured against 1.x)."
    )
    return Grade("approximate", (*grade.differences, note))


def _as_in_2x(call: TransformCall, context: PortContext) -> Grade:
    """A Python file's transform as albumentations 2.x runs it: the names it does not take
    (1.x's ``var_limit``, ``max_holes``, ``value``, ...) left out, its defaults applying, and
    said. A saved file or a live object (no line) holds the names of the version that wrote
    it (AlbumentationsX's among them): those are read."""
    if call.line is not None:
        _refuse_single_numbers(call)
    # always_apply is said on its own (IGNORED_ALWAYS_APPLY), by handle
    ignored = tuple(name for name in ignored_in_2x(call) if name != "always_apply")
    if not ignored or call.line is None:
        return handle(call, context)
    kept = dataclasses.replace(
        call, kwargs={k: v for k, v in call.kwargs.items() if k not in ignored}
    )
    if _forced(call, context):  # a OneOf's pick: applied whatever its p says, as before
        _force((kept,), context)
    names = ", ".join(ignored)
    which = ("is not an argument", "it") if len(ignored) == 1 else ("are not arguments", "them")
    said = f"{names} {which[0]} of albumentations 2.x's {call.name}, which ignores {which[1]}"
    try:
        grade = handle(kept, context)
    except Refuse as error:  # a required argument given only under a 1.x name
        raise Refuse(f"{error.reason} ({said} and then fails as here)") from None
    note = (
        f"left out: {said} (with a warning), its defaults applying{_names_fix(call, ignored)}; "
        "running albumentations 1.x? save the pipeline with A.save and import that file: it "
        "records its version"
    )
    return Grade(grade.fidelity, (*grade.differences, _sentence(note)), ignored)


def _names_fix(call: TransformCall, ignored: tuple[str, ...]) -> str:
    """What to write for the 1.x names 2.x has a plain name for (said, never applied: 2.x
    ignores them, and the port does what 2.x does)."""
    renamed = names_2x_for(call.name, ignored)
    if not renamed:
        return ""
    said = ", ".join(f"{old} -> {new}" for old, new in renamed)
    which = "it by 2.x's name" if len(renamed) == 1 else "them by 2.x's names"
    return f" (fix: give {which}, {said})"


# What each pair-only argument holds, for the fix; a range otherwise
_PAIR_OF = {
    "size": "(height, width)",
    "max_size_hw": "(height, width)",
    "tile_grid_size": "(rows, columns)",
    "shift_xy": "(x, y)",
}
# Where 1.x took two numbers by position that 2.x takes as one pair: their place in 1.x's
# positional arguments, 1.x's names for them and 2.x's pair (crops took height and width where
# 2.x takes size=(height, width); ImageCompression quality_lower and quality_upper)
_PAIR_IN_1X = {
    "RandomResizedCrop": (0, "height and width", "size"),
    "RandomSizedCrop": (1, "height and width", "size"),
    "ImageCompression": (0, "quality_lower and quality_upper", "quality_range"),
}


def _refuse_single_numbers(call: TransformCall) -> None:
    """A Python file's call giving a single number where 2.x takes only a pair fails there
    (2.x validates it); so it is refused, with the 1.x reading where the crop's size moved."""
    singles = single_numbers_2x_refuses(call, MAPPINGS[call.name].positional)
    if not singles:
        return
    given = ", ".join(f"{name}={value!r}" for name, value in singles)
    kinds = {_PAIR_OF.get(name, "(low, high)") for name, _ in singles}
    which = ("it as a pair", "a single number")
    if len(singles) > 1:
        which = ("them as pairs", "single numbers")
    reason = (
        f"{given}: albumentations 2.x's {call.name} takes {which[0]} "
        f"{' and '.join(sorted(kinds))}, and fails on {which[1]}"
    )
    first, names_1x, pair = _PAIR_IN_1X.get(call.name, (None, "", ""))
    both = call.args[first : first + 2] if first is not None else ()
    if len(both) == 2 and all(isinstance(v, int) for v in both):
        before = ", ".join(repr(v) for v in call.args[:first])
        as_pair = f"{pair}=({both[0]}, {both[1]})"
        as_2x = f"{before}, {as_pair}" if before else as_pair
        reason += (
            f" (written for 1.x, whose {call.name} took {names_1x} there? fix: "
            f"{call.name}({as_2x}))"
        )
    elif "(low, high)" in kinds:
        reason += " (fix: a (low, high) pair, the same number twice for one value)"
    raise Refuse(reason)


def _mapping(version: int = 2) -> LibraryMapping:
    """The mapping for files of albumentations `version` (1 or 2; Python files: 2): only
    SomeOf's semantics changed between them."""
    from . import (  # noqa: F401  (they register their mappings)
        affine,
        blur_noise,
        channels,
        clahe,
        colour,
        dropout,
        filters,
        geometric,
        grid_dropout,
        hsv,
        not_ported,
        padding,
        perspective,
        scaling,
        xy_masking,
    )

    handlers: dict[str, Any] = {}
    nearest: dict[str, str] = {}
    for name, entry in MAPPINGS.items():
        if entry.mapping is None:
            nearest[name] = entry.nearest
        else:
            handlers[name] = handle
    handlers["ToTensorV2"] = to_tensor_v2
    if version < 2:
        for name in CHANGED_SINCE_1X:
            handlers[name] = _as_in_1x
    else:
        for name, handler in handlers.items():
            if handler is handle:
                handlers[name] = _as_in_2x
    nearest["Lambda"] = "python_function"
    # a 1.x saved file's classes are its version's own: only 2.x lacks these
    removed = {name: removed_in_2x(name) or "" for name in REMOVED_IN_2X} if version >= 2 else {}
    return LibraryMapping(
        LIBRARY,
        handlers=handlers,
        groups={
            "OneOf": one_of,
            "SomeOf": some_of if version >= 2 else some_of_1x,
            "OneOrOther": one_or_other,
            "Sequential": sequential,
            "Compose": compose,
            "ReplayCompose": compose,
        },
        nearest=nearest,
        removed=removed,
    )


MAPPING = _mapping()
# Saved files written by albumentations 1.x
MAPPING_1X = _mapping(version=1)

__all__ = ["MAPPING", "MAPPING_1X"]
