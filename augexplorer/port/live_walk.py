"""Describe a live pipeline object (a torchvision or albumentations Compose in a notebook) from
its attributes, without calling it: a JSON-able tree that :mod:`.live` turns into
:class:`~.model.TransformCall` trees.

This module imports nothing of augexplorer, so it also runs where only the user's library is
installed (the reference environment the ports are checked against).

A transform's arguments are its constructor's parameters read back from the attributes of the
same names (torchvision keeps ``size``, ``scale``, ``ratio``, ``degrees``, ``p``, ... as it
normalized them: ``degrees=15`` is held as ``[-15.0, 15.0]``, which means the same);
albumentations transforms describe themselves (``to_dict_private``). A group's ``transforms``
(a list, or the ``torch.nn.ModuleList`` / ``nn.Sequential`` torchvision documents for its
scriptable form) are its children; any other value there stays an argument, which the port
refuses (it cannot tell what the group holds). Values: numbers, text,
lists; tuples as ``{"tuple": [...]}``, enums and dtypes as ``{"symbol": "Class.NAME"}``,
anything else as ``{"unknown": repr}``.
"""

from __future__ import annotations

import enum
import inspect
from typing import Any

NESTED_ATTRIBUTE = "transforms"


def describe(obj: Any) -> dict[str, Any]:
    """The tree of a transform object: ``{"module", "name", "kwargs", "children"}``."""
    cls = type(obj)
    module = cls.__module__
    held = _sequential_transforms(obj)
    if held is not None:  # torch.nn.Sequential(T.RandomCrop(...), ...): run as their Compose
        modules = [describe(child) for child in held]
        return {"module": SEQUENTIAL_AS, "name": "Compose", "kwargs": {}, "children": modules}
    if module.startswith("albumentations") and hasattr(obj, "to_dict_private"):
        try:
            return _from_saved(obj.to_dict_private(), module)
        except Exception:
            # a transform that will not describe itself (a Lambda without a name), or a group
            # holding one: read from the attributes, as any other, so the rest is still ported
            pass
    kwargs: dict[str, Any] = {}
    children: list[dict[str, Any]] = []
    for name, parameter in _parameters(cls).items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if not hasattr(obj, name):
            continue
        value = getattr(obj, name)
        if name == NESTED_ATTRIBUTE:
            held = held_transforms(value)
            if held is not None:
                children = [describe(child) for child in held]
                continue
        kwargs[name] = encode(value)
    kwargs.update(_target_settings(obj))
    return {"module": module, "name": cls.__name__, "kwargs": kwargs, "children": children}


# the module a Sequential of torchvision's transforms is described from: the Compose it runs as
SEQUENTIAL_AS = "torchvision.transforms.transforms"


def _sequential_transforms(obj: Any) -> list[Any] | None:
    """The modules of a ``torch.nn.Sequential`` holding torchvision's transforms (torchvision's
    documented scriptable pipeline), in order; None for anything else (a model's layers)."""
    cls = type(obj)
    if not (cls.__module__.startswith("torch.nn") and cls.__name__ == "Sequential"):
        return None
    held = list(obj)
    if any(type(module).__module__.startswith("torchvision.transforms") for module in held):
        return held
    return None


# albumentations' targets beside the image, as a Compose keeps them (its `processors`), by the
# argument that set them
_TARGETS = {"bboxes": "bbox_params", "keypoints": "keypoint_params"}


def _target_settings(obj: Any) -> dict[str, Any]:
    """A Compose's box and keypoint settings where they are not attributes of their own (read
    from the attributes, albumentations keeps them as processors): so that they are still said
    to be left out of the port."""
    found: dict[str, Any] = {}
    extra = getattr(obj, "additional_targets", None)  # a property over _additional_targets
    if isinstance(extra, dict) and extra:
        found["additional_targets"] = encode(dict(extra))
    processors = getattr(obj, "processors", None)
    if not isinstance(processors, dict):
        return found
    for target, name in _TARGETS.items():
        params = getattr(processors.get(target), "params", None)
        if params is not None:
            to_dict = getattr(params, "to_dict_private", None)
            found[name] = encode(to_dict() if callable(to_dict) else repr(params))
    return found


def held_transforms(value: Any) -> list[Any] | None:
    """The transforms a group holds, in order: a list or tuple, or any other sized sequence of
    them (``torch.nn.ModuleList``, ``nn.Sequential``); None for anything else (text, a mapping
    such as ``nn.ModuleDict``, an array)."""
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str | bytes) or hasattr(value, "keys") or hasattr(value, "ndim"):
        return None
    if hasattr(value, "__len__") and hasattr(value, "__iter__"):
        try:
            return list(value)
        except Exception:  # a container that cannot be walked: the port refuses the group
            return None
    return None


def _parameters(cls: type) -> dict[str, inspect.Parameter]:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return {}
    return {k: v for k, v in signature.parameters.items() if k != "self"}


def _from_saved(data: dict[str, Any], module: str) -> dict[str, Any]:
    """albumentations' own description (``__class_fullname__``, ``p``, ``transforms``, its
    arguments) as a tree."""
    name = str(data.get("__class_fullname__", "?")).rsplit(".", 1)[-1]
    kwargs = {
        key: encode(value)
        for key, value in data.items()
        if key not in ("__class_fullname__", "transforms")
    }
    children = [_from_saved(child, module) for child in data.get("transforms") or ()]
    return {"module": "albumentations", "name": name, "kwargs": kwargs, "children": children}


def encode(value: Any) -> Any:
    """A value as JSON: see the module's documentation."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return {"symbol": f"{type(value).__name__}.{value.name}"}
    if isinstance(value, tuple):
        return {"tuple": [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str | type) for key in value):
        # v2's values per type ({tv_tensors.Image: 127, "others": 0}): a type by its dotted name
        return {"dict": {_key(key): encode(item) for key, item in value.items()}}
    if type(value).__module__ == "torch" and type(value).__name__ == "dtype":
        return {"symbol": str(value)}
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", None) == 0:  # a NumPy or torch scalar
        return encode(item())
    tolist = getattr(value, "tolist", None)
    if callable(tolist):  # a NumPy array or a torch tensor
        return encode(tolist())
    return {"unknown": repr(value)}


def _key(key: str | type) -> str:
    return key if isinstance(key, str) else f"{key.__module__}.{key.__qualname__}"
