"""After a port that left transforms out: does the graph still give every image one size?

A transform left out may have been the one fixing the images' size (a RandomResizedCrop
written for another version of its library). The graph then ports and runs, but training's
loader, which hands PyTorch a batch as one tensor, fails on its first batch of several sizes.
One batch of the bundled photos (of several sizes) run on the CPU says so at import, not hours
later.
"""

from __future__ import annotations

import re

from .model import PortResult, TransformCall

BATCH = 8  # photos of the bundled samples, which come in several sizes
# Transforms that can give an image its size (a resize, a crop, a pad, a geometric transform
# that may fit its output): a transform left out that is none of these did not make the images
# of several sizes, the pipeline as written gives them too.
SIZING = re.compile(r"Resize|Crop|Pad|MaxSize|Scale|Affine|Perspective|Rotat|Lambda|Sized", re.I)


def uneven_sizes(result: PortResult) -> str | None:
    """Where transforms were left out and the ported graph leaves images of several sizes in a
    batch: a warning naming the transforms left out and the fix; None otherwise, or where the
    graph cannot be run here (it needs trust, or fails: the panel and the loader say why)."""
    left_out = [refusal for refusal in result.refusals if not refusal.part]
    if not any(_may_size(refusal.call) for refusal in left_out):
        return None
    from ..engine import Session

    try:
        session = Session(result.spec, None, batch_size=BATCH, device_id=None)
        if session.plan.needs_trust:
            return None
        said = session.run().shapes_differ("a batch of the bundled photos")
    except Exception:  # an advice only: whatever stops the trial run, the import stands
        return None
    if said is None:
        return None
    names = ", ".join(sorted({refusal.what for refusal in left_out}))
    return f"with {names} left out, {said}"


def _may_size(call: TransformCall) -> bool:
    return bool(SIZING.search(call.name)) or any(_may_size(child) for child in call.children)
