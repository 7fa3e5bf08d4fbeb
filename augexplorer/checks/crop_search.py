"""A ``random_bbox_crop`` that may search for its window forever (:mod:`augexplorer.crop_search`).

Refused rather than run: DALI's search runs on its own threads, which nothing can stop, so the
run would never return and the notebook's kernel would wait with it. A bound on the attempts is
the user's to set, not the lowering's: it changes which window a sample gets where none meets
the threshold (DALI then takes the best one found), and finds none where no window's shape is
ever taken.
"""

from __future__ import annotations

from ..crop_search import endless_search
from ..spec import Node
from .context import CheckContext

BOX_CROP = "random_bbox_crop"


def check_crop_search(ctx: CheckContext, node: Node) -> None:
    """Refuse `node`, a ``random_bbox_crop``, where its search may never end."""
    endless = endless_search(node.args)
    if endless is not None:
        ctx.problem(endless.message, node.id, endless.argument, fix=endless.fix)
