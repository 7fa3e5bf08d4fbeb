"""Read a live pipeline object (a Compose built in the notebook) into a TransformCall tree,
from its attributes, without calling it (:mod:`.live_walk`)."""

from __future__ import annotations

import sys
from typing import Any

from .live_walk import describe
from .model import Symbol, TransformCall, Unknown
from .reading import LIBRARY_MODULES, ReadRefused, library_of


def read_live(obj: Any) -> TransformCall:
    """The call tree of a torchvision or albumentations transform object (a Compose)."""
    module = type(obj).__module__
    # a torch.nn.Sequential of torchvision's transforms describes itself as their Compose
    tree = describe(obj) if module.startswith("torch.nn") else None
    if tree is not None:
        module = str(tree["module"])
    if library_of(module) is None and not module.startswith(tuple(LIBRARY_MODULES)):
        raise ReadRefused(
            f"{type(obj).__name__} (from {module}) is not a torchvision or albumentations "
            "transform (fix: pass the Compose object itself, or the file that builds it)"
        )
    return call_from_tree(tree or describe(obj))


def library_major(obj: Any) -> int | None:
    """The major version of the library `obj` comes from, as this process runs it (a live
    albumentations 1.x object describes itself with 1.x's names); None where it says none."""
    package = sys.modules.get(type(obj).__module__.split(".", 1)[0])
    head = str(getattr(package, "__version__", "")).split(".", 1)[0]
    return int(head) if head.isdigit() else None


def call_from_tree(tree: dict[str, Any]) -> TransformCall:
    """A TransformCall from :func:`.live_walk.describe`'s tree (of this process or another)."""
    module = str(tree.get("module", ""))
    library = library_of(module) or ("torchvision" if module.startswith("torchvision") else "")
    if module.startswith("albumentations"):
        library = "albumentations"
    kwargs = {str(k): decode(v) for k, v in dict(tree.get("kwargs", {})).items()}
    children = tuple(call_from_tree(child) for child in tree.get("children", ()))
    name = str(tree["name"])
    return TransformCall(library or "custom", name, (), kwargs, None, children, module)


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "tuple" in value:
        return tuple(decode(item) for item in value["tuple"])
    if "symbol" in value:
        return Symbol(str(value["symbol"]))
    if "dict" in value:
        return {k: decode(v) for k, v in value["dict"].items()}
    return Unknown(str(value.get("unknown", value)), None)
