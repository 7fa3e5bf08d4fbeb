"""Validation of ``auto_aug`` policy nodes beyond their argument types: what they read (uint8
HWC images, as far as the graph tells), magnitudes within their bins, and the shape-related
arguments DALI accepts together. Each problem names the node, the argument and the fix."""

from __future__ import annotations

from typing import Any

from .catalog import Catalog
from .catalog.auto_aug import (
    INPUT_DTYPE,
    INPUT_LAYOUT,
    TRANSLATIONS,
    applied_augmentations,
)
from .catalog.flow import flow
from .catalog.inputs import Data
from .errors import Problem
from .spec import GraphSpec, Node, Random, Ref, Source

WANTED = Data("image", INPUT_LAYOUT, INPUT_DTYPE)


def policy_problems(spec: GraphSpec, catalog: Catalog, node: Node) -> list[Problem]:
    """Every problem of policy node `node` that its arguments' types do not already show."""
    problems = _input_problems(spec, catalog, node)
    problems += _magnitude_problems(node)
    problems += _shape_problems(node)
    return problems


def _input_problems(spec: GraphSpec, catalog: Catalog, node: Node) -> list[Problem]:
    if not node.inputs or node.inputs[0].node not in spec:
        return []  # the generic checks name a missing input
    ref = node.inputs[0]
    data = _data(spec, catalog, ref)
    what = f"{node.op} takes {INPUT_LAYOUT} uint8 images (DALI's auto_aug policies need them)"
    if data.kind == "encoded":
        return [
            Problem(
                f"{what}; {str(ref)!r} gives encoded image files",
                node.id,
                fix=f"decode them first: add a decoders.image node between {ref.node!r} and "
                f"{node.id!r}",
            )
        ]
    if data.kind in ("labels", "matrix", "number"):
        return [
            Problem(
                f"{what}; {str(ref)!r} gives {data.describe()}",
                node.id,
                fix="connect its input to a node that gives images",
            )
        ]
    if data.kind != "image":
        return []  # the graph cannot tell (python_function, copy, ...): DALI checks it
    wrong = (data.layout and data.layout != INPUT_LAYOUT) or (
        data.dtype and data.dtype != INPUT_DTYPE
    )
    if not wrong:
        return []
    earlier = _last_fitting(spec, catalog, ref.node)
    fix = (
        f"apply it before {ref.node!r}: connect it to {earlier!r} ({INPUT_LAYOUT} uint8) and "
        f"{ref.node!r} after it"
        if earlier is not None
        else f"give it {INPUT_LAYOUT} uint8 images (e.g. output_layout='HWC' and dtype='UINT8' "
        f"on {ref.node!r})"
    )
    return [Problem(f"{what}; {str(ref)!r} gives {data.describe()}", node.id, fix=fix)]


def _data(spec: GraphSpec, catalog: Catalog, ref: Ref) -> Data:
    read = spec.node(ref.node)
    if isinstance(read, Source) and ref.output == 1:
        return Data("labels")
    if ref.output != 0:
        return Data("other")
    return flow(spec, catalog)[ref.node]


def _last_fitting(spec: GraphSpec, catalog: Catalog, node_id: str) -> str | None:
    """The nearest node up the chain of first inputs whose output a policy can read."""
    data = flow(spec, catalog)
    seen = {node_id}
    current = spec.node(node_id)
    while isinstance(current, Node) and current.inputs:
        ref = current.inputs[0]
        if ref.node not in spec or ref.node in seen or ref.output != 0:
            return None
        if data[ref.node] == WANTED:
            return ref.node
        seen.add(ref.node)
        current = spec.node(ref.node)
    return None


# The most operations a RandAugment node may apply per image: DALI builds a branch per
# augmentation per operation, so the pipeline's build time grows with n (measured above).
MAX_OPERATIONS = 16
# The most magnitude bins a policy node may have: building grows with the count (measured
# below, trivial_augment_wide on a CPU).
MAX_MAGNITUDE_BINS = 100


def _integer(value: Any) -> int | None:
    """A whole-number constant as int; None for anything else (the type check names it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if float(value).is_integer() else None


def _magnitude_problems(node: Node) -> list[Problem]:
    problems: list[Problem] = []
    n = _integer(node.args.get("n"))
    if n is not None and n < 1:
        problems.append(
            Problem(
                f"n={n}: the policy applies n operations to each image, so it would do nothing",
                node.id,
                "n",
                fix="use n from 1 (RandAugment's paper uses 2), or remove the node",
            )
        )
    if n is not None and n > MAX_OPERATIONS:
        problems.append(
            Problem(
                f"n={n}: DALI builds a branch of every augmentation per operation (about "
                "1.7 s each on a CPU; n=32 took 55 s, a very large n never finishes)",
                node.id,
                "n",
                fix=f"use n from 1 to {MAX_OPERATIONS} (RandAugment's paper uses 2)",
            )
        )
    bins = _integer(node.args.get("num_magnitude_bins", 31))
    if bins is not None and not 1 <= bins <= MAX_MAGNITUDE_BINS:
        why = (
            "the magnitudes need at least one bin"
            if bins < 1
            else "DALI builds the policy's magnitudes bin by bin (1,000 bins took 36 s on a "
            "CPU, 31 took 11 s; a very large count never finishes)"
        )
        problems.append(
            Problem(
                f"num_magnitude_bins={bins}: {why}",
                node.id,
                "num_magnitude_bins",
                fix=f"use 31 (DALI's default) or another whole number from 1 to "
                f"{MAX_MAGNITUDE_BINS}",
            )
        )
        return problems
    m = _integer(node.args.get("m"))
    if m is not None and bins is not None and not 0 <= m < bins:
        problems.append(
            Problem(
                f"m={m} is not a magnitude bin: with {bins} bins, m is 0..{bins - 1}",
                node.id,
                "m",
                fix=f"use m from 0 to {bins - 1}"
                + (f", or raise num_magnitude_bins above {m}" if m >= bins else ""),
            )
        )
    excluded = node.args.get("excluded")
    if isinstance(excluded, (list, tuple)) and not applied_augmentations(node.op, None, excluded):
        problems.append(
            Problem(
                "every augmentation of the suite is excluded: there is nothing left to apply",
                node.id,
                "excluded",
                fix="keep at least one augmentation out of the list",
            )
        )
    return problems


def _shape_problems(node: Node) -> list[Problem]:
    problems: list[Problem] = []
    shape = node.args.get("shape")
    if isinstance(shape, Random):
        problems.append(
            Problem(
                "shape is each image's height and width, not a random draw",
                node.id,
                "shape",
                fix="give [height, width], or connect a node that gives each image's shape "
                "(peek_image_shape)",
            )
        )
    elif shape is not None and not isinstance(shape, Ref):
        items = shape if isinstance(shape, (list, tuple)) else [shape]
        sizes = [_integer(item) for item in items]
        if len(sizes) != 2 or any(size is None or size < 1 for size in sizes):
            problems.append(
                Problem(
                    f"shape {shape!r:.40} is not an image's height and width",
                    node.id,
                    "shape",
                    fix="give two whole numbers above 0, e.g. [224, 224], or connect a node "
                    "that gives each image's shape",
                )
            )
    given = [
        name for name in ("shape", "max_translate_abs", "max_translate_rel") if name in node.args
    ]
    applied = applied_augmentations(
        node.op, node.args.get("policy_name"), node.args.get("excluded")
    )
    if given and applied and not TRANSLATIONS & set(applied):
        policy = node.args.get("policy_name", "image_net")
        which = f"policy {policy!r}" if node.op == "auto_aug.auto_augment" else "suite"
        problems.append(
            Problem(
                f"the {which} applies no translation here, and {given[0]} only sets how far "
                "translations move the image",
                node.id,
                given[0],
                fix=f"remove {', '.join(given)}",
            )
        )
    elif "shape" in node.args and "max_translate_abs" in node.args:
        problems.append(
            Problem(
                "with shape given, translations move a fraction of each image's size; "
                "max_translate_abs (pixels) does not apply",
                node.id,
                "max_translate_abs",
                fix="use max_translate_rel (e.g. 0.45), or remove shape",
            )
        )
    elif "shape" not in node.args and "max_translate_rel" in node.args:
        problems.append(
            Problem(
                "max_translate_rel is a fraction of each image's size, which the node is not given",
                node.id,
                "max_translate_rel",
                fix="give shape too ([height, width] or a node), or use max_translate_abs (pixels)",
            )
        )
    return problems
