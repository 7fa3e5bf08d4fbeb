"""Functions of augexplorer that an exported module carries as their own source, so that it
decides as the explorer does with nothing but the standard library: the seed rule for ranks
(:func:`augexplorer.spec.seeds.rank_seed`) and the check of which image files DALI can read
(:mod:`augexplorer.image_check`)."""

from __future__ import annotations

import inspect

from .. import image_check
from ..spec.seeds import rank_seed
from .literals import literal

RANK = "rank"  # the pipeline function's parameter that rank_seed reads


def seed_source(seed: int) -> str:
    """How the module writes a random operator's seed: derived from the graph's for the rank."""
    return f"rank_seed({literal(int(seed))}, {RANK})"


def rank_seed_source() -> str:
    return inspect.getsource(rank_seed) + "\n\n"


def image_check_source() -> str:
    """:data:`augexplorer.image_check.CARRIED` and its constants, as module text."""
    constants = "".join(
        f"{name} = {literal(getattr(image_check, name))}\n"
        for name in image_check.CARRIED_CONSTANTS
    )
    functions = "\n\n".join(inspect.getsource(function) for function in image_check.CARRIED)
    return f"{constants}\n\n{functions}\n\n"
