"""A file's batch mixing outside its pipeline (``cutmix = v2.CutMix(num_classes=10)``, timm's
``Mixup``), read without running it: it mixes the loader's batches in the training loop, which
no graph node does, so the port says it is left there."""

from __future__ import annotations

import ast
from collections.abc import Callable

# the classes that mix a batch (images and labels), by their resolved dotted names
MIXING = frozenset(
    {
        "torchvision.transforms.v2.CutMix",
        "torchvision.transforms.v2.MixUp",
        "timm.data.Mixup",
        "timm.data.mixup.Mixup",
    }
)
SHOWN = 70  # characters of a call quoted


def batch_mixes(
    tree: ast.AST,
    dotted: Callable[[ast.expr], str | None],
    inside_pipeline: Callable[[ast.AST], bool],
) -> tuple[str, ...]:
    """Notes on the file's batch mixers outside a pipeline (one in a pipeline is refused with
    the pipeline's other transforms), each ``line N: text ...``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or dotted(node.func) not in MIXING:
            continue
        if inside_pipeline(node):
            continue
        text = " ".join(ast.unparse(node).split())
        text = text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."
        found.append(
            (
                node.lineno,
                f"line {node.lineno}: {text} mixes the loader's batches (images with their "
                "labels) outside the pipeline: the graph does not run it; keep it in the "
                "training loop, on the exported loader's batches",
            )
        )
    return tuple(text for _, text in sorted(found))
