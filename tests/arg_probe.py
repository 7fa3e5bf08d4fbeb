"""Unusual argument values and combinations for every image operator of the catalog, and what
running each one gives: ran, refused by validation, or a DALI failure said in our words.

Each case is one node of `op` reading small HWC uint8 arrays, with the operator's curated
starting values and one or two arguments set to values at the edges of what the schema allows
(empty and odd-length lists, every choice of an enum, zero, negative, the curated limits, layout
strings, per-sample draws). Used by ``tests/test_arg_probe.py``; run as a script it prints
every outcome (``python tests/arg_probe.py [op ...]``).
"""

from __future__ import annotations

import itertools
import os
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from augexplorer import Session
from augexplorer.catalog import ArgInfo, Catalog, OpInfo
from augexplorer.catalog.hints import starting_values
from augexplorer.catalog.inputs import is_image_step
from augexplorer.catalog.limits import LIMITS, STRING_CHOICES, VECTOR_LENGTHS
from augexplorer.errors import AugExplorerError, GraphInvalid, RunError
from augexplorer.spec import GraphSpec, Node, Random, Ref, Source

IMAGES = [np.full((24 + 8 * i, 32, 3), 40 * i, dtype=np.uint8) for i in range(2)]
# `make explore` sets it: other seeded pairs (and, in test_properties.py, new draws) than the
# fixed ones `make test` runs, so that a change elsewhere cannot fail the suite by chance.
EXPLORE_SEED = int(os.environ.get("AUGEXPLORER_EXPLORE", "0") or 0)
NODE = "probed"
LAYOUT_TEXTS = ("", "HWC", "CHW", "xyz", "é")


FEEDER = "fed_images"  # a node whose output (the images as floats) feeds an argument


@dataclass(frozen=True)
class Case:
    op: str
    args: dict[str, Any]
    changed: tuple[str, ...]  # the arguments set to unusual values

    def spec(self) -> GraphSpec:
        nodes: list[Any] = [Source("source", "arrays")]
        if any(isinstance(value, Ref) for value in self.args.values()):
            nodes.append(Node(FEEDER, "cast", (Ref("source"),), {"dtype": "FLOAT"}))
        nodes.append(Node(NODE, self.op, (Ref("source"),), self.args))
        return GraphSpec(tuple(nodes), batch_size=len(IMAGES))


@dataclass(frozen=True)
class Outcome:
    case: Case
    kind: str  # "ran", "invalid", "run" or "raw"
    error: Exception | None = None


def image_operators(catalog: Catalog) -> list[OpInfo]:
    return [op for op in catalog if is_image_step(op) and op.available]


def unusual_values(op: OpInfo, arg: ArgInfo) -> list[Any]:
    """Values of `arg` the schema allows but that are unusual for images."""
    if arg.kind == "PYTHON_OBJECT":
        return []
    if arg.choices:
        return list(arg.choices)
    if arg.kind == "BOOL":
        return [True, False]
    if arg.kind in ("STRING", "TENSOR_LAYOUT"):
        return [*LAYOUT_TEXTS, *STRING_CHOICES.get((op.name, arg.name), ())]
    if not arg.is_numeric:
        return []
    limits = LIMITS.get((op.name, arg.name)) or LIMITS.get(("*", arg.name))
    edges: list[float] = [0, 1, -1, 3, *(limits or (1e6, -1e6))]
    numbers: list[Any] = [int(x) if arg.is_integer else float(x) for x in edges]
    if not arg.is_vector:
        return numbers
    lengths = VECTOR_LENGTHS.get((op.name, arg.name)) or (0, 1, 2, 3)
    # the empty vector once: it is the same whatever number it would have repeated
    filled = [[number] * count for count in sorted({1, *lengths} - {0}) for number in numbers[:4]]
    return [[], *filled]


def per_sample(op: OpInfo, arg: ArgInfo) -> list[Any]:
    """A per-sample draw for a per-sample number, and whole images fed to it from another
    node (arrays of a different size per sample, where DALI wants one number)."""
    if not (arg.per_sample and arg.is_numeric):
        return []
    fed = [Ref(FEEDER)] if arg.kind == "FLOAT" else []
    if arg.is_vector:
        return fed
    low, high = LIMITS.get((op.name, arg.name)) or LIMITS.get(("*", arg.name)) or (0.0, 2.0)
    if arg.is_integer:
        return [Random.choice([int(low), int(min(high, low + 2))], seed=3), *fed]
    return [Random.uniform(low, min(high, low + 2.0), seed=3), *fed]


def probe_values(op: OpInfo, arg: ArgInfo) -> list[Any]:
    """Every unusual value the probe gives `arg`: constants, then per-sample ones."""
    return [*unusual_values(op, arg), *per_sample(op, arg)]


def cases(op: OpInfo, *, pairs: int = 6, seed: int = EXPLORE_SEED) -> Iterator[Case]:
    """One argument at a time, every unusual value; each per-sample argument drawn, and fed
    from another node; and `pairs` seeded combinations of two unusual values."""
    start = starting_values(op.name, "HWC")
    singles: list[tuple[str, Any]] = []
    seen: set[str] = set()  # arguments probed already (a value equal to the starting one)
    for arg in op.args:
        for value in probe_values(op, arg):
            singles.append((arg.name, value))
            args = {**start, arg.name: value}
            if repr(sorted(args.items())) not in seen:
                seen.add(repr(sorted(args.items())))
                yield Case(op.name, args, (arg.name,))
    chooser = random.Random(f"{op.name}:{seed}")
    combos = [
        (a, b) for a, b in itertools.combinations(singles, 2) if a[0] != b[0]
    ]  # two different arguments
    for (first, one), (second, other) in chooser.sample(combos, min(pairs, len(combos))):
        yield Case(op.name, {**start, first: one, second: other}, (first, second))


def run_case(case: Case, catalog: Catalog) -> Outcome:
    try:
        Session(case.spec(), IMAGES, catalog=catalog, device_id=None).run()
    except GraphInvalid as error:
        return Outcome(case, "invalid", error)
    except RunError as error:
        return Outcome(case, "run", error)
    except AugExplorerError as error:
        return Outcome(case, "ours", error)
    except Exception as error:  # what the probe looks for: none may come here
        return Outcome(case, "raw", error)
    return Outcome(case, "ran")


DALI_NOISE = ("Traceback", "C++ context", "Stacktrace", "Current pipeline object")


def check_outcome(outcome: Outcome, catalog: Catalog) -> None:
    """The outcome is one the user can act on: ran; refused naming the node and a fix; or
    DALI's failure beside our sentence naming the node, an argument of it and what to try."""
    case, error = outcome.case, outcome.error
    label = f"{case.op} {case.args}"
    assert outcome.kind in ("ran", "invalid", "run"), f"{label}: {outcome.kind}: {error!r}"
    names = {arg.name for arg in catalog[case.op].args}
    if isinstance(error, GraphInvalid):
        for problem in error.problems:
            assert problem.node == NODE and problem.fix, f"{label}: {problem}"
    elif isinstance(error, RunError):
        text = str(error)
        assert error.node == NODE and error.explanation and error.fix, f"{label}: {text}"
        # a rule of ours read DALI's message: not the sentence for messages none reads
        assert not error.explanation.startswith("DALI refused"), f"{label}: {text}"
        assert error.argument in names, f"{label}: names no argument of {case.op}: {text}"
        assert text.startswith(f"node {NODE!r}, argument {error.argument!r}: "), text
        assert f"{error.explanation} (DALI: {error.dali_message})" in text, text
        assert not any(noise in text for noise in DALI_NOISE), text


def main(names: list[str]) -> None:
    from augexplorer.catalog import load_catalog

    catalog = load_catalog(gpu=False)
    for op in image_operators(catalog):
        if names and op.name not in names:
            continue
        for case in cases(op):
            outcome = run_case(case, catalog)
            if outcome.kind in ("ran", "invalid"):
                continue
            print(f"{case.op} {case.changed} {case.args}: {outcome.kind}: {outcome.error}")


if __name__ == "__main__":
    main(sys.argv[1:])
