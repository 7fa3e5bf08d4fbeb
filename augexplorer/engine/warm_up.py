"""Warm DALI's conditionals up in the background, so that the first "apply with probability" of a
process costs what later ones do.

A pipeline built with ``enable_conditionals=True`` has its Python turned into graph code by
DALI's AutoGraph, function by function, the first time each is called in the process; the
builder's own functions (the group, the step, the call) are converted with it. On two cores
that first conversion took 1.4-3.5 s of an edit that otherwise takes under 0.1 s. Building a tiny
conditional graph through the same runners converts those functions once, off the edit's path.

AutoGraph parses and compiles Python while it converts, on this thread while the user's cells
are compiled on the kernel's: see :mod:`augexplorer.engine.ast_threads` for why that needs care.
"""

from __future__ import annotations

import atexit
import threading

import numpy as np

from ..spec import GraphSpec, Node, Probability, Random, Ref, Source
from .ast_threads import no_collection_where_ast_is_shared

EXIT_WAIT_S = 60.0  # the warm-up takes 3-6 s on a busy two-core machine
_started = threading.Event()
_done = threading.Event()


def tiny_conditional_graph() -> GraphSpec:
    """Arrays in, then under an ``if`` each: a random rotation with constants baked in (an enum,
    a number), a crop of a constant size, a flip drawn by a coin: the kinds of argument a step
    applied with a probability passes through the builder."""
    return GraphSpec(
        (
            Source("source", "arrays"),
            Node(
                "rotate",
                "rotate",
                (Ref("source"),),
                {
                    "angle": Random.uniform(-20.0, 20.0),
                    "fill_value": 0.0,
                    "interp_type": "INTERP_NN",
                },
                probability=Probability(0.5, 1),
                seed=2,
            ),
            Node(
                "crop",
                "crop",
                (Ref("rotate"),),
                {"crop": [4.0, 4.0]},
                probability=Probability(0.5, 3),
            ),
            Node(
                "flip",
                "flip",
                (Ref("crop"),),
                {"horizontal": Random.coin_flip(0.5)},
                probability=Probability(0.5, 4),
                seed=5,
            ),
        ),
        {"images": Ref("flip")},
        batch_size=2,
    )


def warm_conditionals_now(num_threads: int = 1) -> None:
    """Build and run the tiny conditional graph on the CPU: AutoGraph's conversion of the
    builder's functions is the same whatever device the user's graph runs on."""
    from .session import Session

    images = [np.zeros((8, 8, 3), np.uint8)] * 2
    # CPU operators only, on the CPU: nothing to warn about (and warnings.catch_warnings is not
    # for threads: it would silence the user's own warnings while this runs)
    session = Session(
        tiny_conditional_graph(), (images, [0, 1]), device_id=None, num_threads=num_threads
    )
    session.run()


def warm_conditionals_in_background(num_threads: int = 1) -> threading.Thread | None:
    """Start the warm-up on a daemon thread, once per process; None when it already started."""
    if _started.is_set():
        return None
    _started.set()

    def work() -> None:
        try:
            with no_collection_where_ast_is_shared():
                warm_conditionals_now(num_threads)
        except Exception:  # a warm-up that fails leaves the first toggle slow, no more
            pass
        finally:
            _done.set()

    thread = threading.Thread(target=work, name="augexplorer-warm-conditionals", daemon=True)
    # DALI shuts its pipelines down at exit and asserts none is left: one the warm-up builds
    # meanwhile would fail that. Handlers run last-registered first, so this one (registered
    # after DALI's) lets the warm-up finish before DALI's runs.
    atexit.register(_done.wait, EXIT_WAIT_S)
    thread.start()
    return thread


def conditionals_warm() -> bool:
    """Whether the background warm-up has finished (successfully or not)."""
    return _done.is_set()
