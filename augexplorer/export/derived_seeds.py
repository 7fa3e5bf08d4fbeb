"""Seeds DALI derives from a pipeline's seed for the random operators given none.

``Pipeline.serialize()`` records the seeds written in the code and the pipeline's own ``seed=``,
not the seeds DALI gives the other random operators when it builds the pipeline. DALI 2.4 derives
them in its C++ backend (``Pipeline::Init`` and ``Pipeline::PrepareOpSpec``), and the rule can be
followed here exactly:

- the pipeline's seed fills a table of 1024 seeds through C++'s ``std::seed_seq`` (the standard
  fixes its algorithm, so it is the same on every machine);
- the operators are prepared in the order they were added to the backend, which is the order of
  the serialized operators; each one whose schema takes a random seed (``HasRandomSeedArg``:
  readers, ``random.*``, random crops, ...) and has none of its own takes the next seed of the
  table, wrapping around after 1024;
- operators that share a logical id (one operator object called again) share one seed.

An import gives each such operator the seed DALI gave it, so its draws and shuffles are the
pipeline's. What still cannot be reproduced (a policy whose internal operators each drew their own
derived seed, while an explorer node has one seed) is said with :class:`DrawsDiffer`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Sequence
from typing import Any

from ..catalog import Catalog, load_catalog
from ..spec import GraphSpec, Node, Source
from .protobuf import Argument, OpRecord

SEED_TABLE = 1024  # DALI's MAX_SEEDS: the length of the table a pipeline seed fills
_WORD = 0xFFFFFFFF


class DrawsDiffer(UserWarning):
    """An imported graph draws other values than its pipeline did: DALI derived some seeds."""


def seed_sequence(seeds: Sequence[int], count: int) -> list[int]:
    """``std::seed_seq{seeds...}.generate(count values)``, as the C++ standard defines it
    ([rand.util.seedseq]): 32-bit words from 32-bit inputs."""
    words = [seed & _WORD for seed in seeds]
    size = len(words)
    out = [0x8B8B8B8B] * count
    if count == 0:
        return out
    t = (
        11
        if count >= 623
        else 7
        if count >= 68
        else 5
        if count >= 39
        else 3
        if count >= 7
        else (count - 1) // 2
    )
    p = (count - t) // 2
    q = p + t
    m = max(size + 1, count)

    def mix(x: int) -> int:
        return x ^ (x >> 27)

    for k in range(m):
        r1 = (1664525 * mix(out[k % count] ^ out[(k + p) % count] ^ out[(k - 1) % count])) & _WORD
        if k == 0:
            r2 = r1 + size
        elif k <= size:
            r2 = r1 + k % count + words[k - 1]
        else:
            r2 = r1 + k % count
        r2 &= _WORD
        out[(k + p) % count] = (out[(k + p) % count] + r1) & _WORD
        out[(k + q) % count] = (out[(k + q) % count] + r2) & _WORD
        out[k % count] = r2
    for k in range(m, m + count):
        total = (out[k % count] + out[(k + p) % count] + out[(k - 1) % count]) & _WORD
        r3 = (1566083941 * mix(total)) & _WORD
        r4 = (r3 - k % count) & _WORD
        out[(k + p) % count] ^= r3
        out[(k + q) % count] ^= r4
        out[k % count] = r4
    return out


@functools.cache
def takes_random_seed(schema: str) -> bool:
    """Whether DALI gives operators of `schema` a seed (``OpSchema::HasRandomSeedArg``)."""
    backend: Any = importlib.import_module("nvidia.dali.backend")  # untyped in DALI's stubs
    try:
        return bool(backend.GetSchema(schema).HasRandomSeedArg())
    except RuntimeError:  # a schema this DALI does not know: it cannot have drawn anything
        return False


def derived_seeds(ops: Iterable[OpRecord], pipeline_seed: int) -> dict[str, int]:
    """The seed DALI gives each random operator of `ops` (in serialized order) that has none of
    its own, by instance name, for a pipeline built with ``seed=pipeline_seed``."""
    table = seed_sequence([pipeline_seed], SEED_TABLE)
    by_logical_id: dict[int, int] = {}
    found: dict[str, int] = {}
    current = 0
    for op in ops:
        if not takes_random_seed(op.schema):
            continue
        own = op.args.get("seed")
        if own is not None and own.value() is not None:
            by_logical_id[op.logical_id] = int(own.value())
            continue
        if op.logical_id not in by_logical_id:
            by_logical_id[op.logical_id] = table[current]
        found[op.instance] = by_logical_id[op.logical_id]
        current = (current + 1) % SEED_TABLE
    return found


def unseeded_random_nodes(spec: GraphSpec) -> list[str]:
    """Nodes that draw at random with no seed of their own: readers that shuffle, random
    operators (random.*, random crops, coin flips), auto_aug policies."""
    catalog = load_catalog()
    found = []
    for node in spec.nodes:
        if isinstance(node, Source):
            if node.shuffle and node.seed is None and node.kind != "arrays":
                found.append(node.id)
        elif isinstance(node, Node) and node.seed is None and _draws(catalog, node):
            found.append(node.id)
    return found


def draws_per_sample(spec: GraphSpec) -> bool:
    """Whether an operator of `spec` draws at random (random.*, random crops, coin flips,
    policies): what DALI draws for a sample depends on its place in its batch. A reader's
    shuffled order does not depend on the batch size."""
    catalog = load_catalog()
    return any(
        node.probability is not None  # a coin flip folded into the node (`if coin_flip():`)
        or _draws(catalog, node)
        for node in spec.operators()
    )


def _draws(catalog: Catalog, node: Node) -> bool:
    """Whether `node`'s operator draws at random (the catalog's random operators)."""
    info = catalog.get(node.op)
    return info is not None and info.random


def draws_differ_message(pipeline_seed: int, nodes: list[str]) -> str:
    names = ", ".join(repr(n) for n in nodes)
    return (
        f"the pipeline's seed={pipeline_seed} gave the operators behind {names} seeds that DALI "
        "derives one by one, which one node cannot carry (an auto_aug policy called without "
        "seed= draws each of its internal operators with its own seed): the imported graph "
        "draws them with a seed of its own (same distributions, other values), so its batches "
        "will not equal the pipeline's (fix: give the policy call seed=... in your code to "
        "import it bit for bit)"
    )


def unseeded_message(pipeline: str, nodes: list[str]) -> str:
    names = ", ".join(repr(n) for n in nodes)
    return (
        f"pipeline {pipeline!r} gives no seed, so DALI draws anew each time it runs; the graph "
        f"gives {names} seeds of their own, so the explorer, and a module exported from it, "
        "draw the same values on every run (what lets a grid be replayed; fix: give the "
        "pipeline seed=... to choose them, or edit the seeds in the graph)"
    )


def seed_operators(ops: Iterable[OpRecord], pipeline_seed: int, skip: set[str]) -> None:
    """Give every random operator of `ops` that has no seed the one DALI derived for it (as
    its ``seed`` argument), except the operators named in `skip`."""
    by_name = {op.instance: op for op in ops}
    for instance, seed in derived_seeds(by_name.values(), pipeline_seed).items():
        if instance not in skip:
            by_name[instance].args["seed"] = Argument("seed", ints=[seed])
