"""albumentations' saved form (``A.save`` as JSON or YAML, ``A.to_dict``) read into
:class:`~augexplorer.port.model.TransformCall` trees, without albumentations.

Every version from 1.4 to 2.x (AlbumentationsX included) writes the same tree::

    {"__version__": "2.0.8",
     "transform": {"__class_fullname__": "Compose", "p": 1.0,
                   "transforms": [{"__class_fullname__": "HorizontalFlip", "p": 0.5}, ...]}}

Class names are bare for albumentations' own transforms (older files may spell them in full,
``albumentations.augmentations.transforms.HorizontalFlip``) and dotted for anyone else's;
composes (``OneOf``, ``SomeOf``, ``Sequential``, ``ReplayCompose``) hold ``transforms``. The
arguments are kept as saved: which names a version used is settled when a call is mapped
(:mod:`.arguments`), since a Python file gives no version at all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import TransformCall

LIBRARY = "albumentations"
CLASS_KEY = "__class_fullname__"
VERSION_KEY = "__version__"
# Keys of a saved compose that say how boxes, keypoints and extra targets travel: nothing a port
# of the image pipeline uses, so they are not arguments of the call.
_COMPOSE_ONLY = frozenset({"additional_targets", "is_check_shapes", "strict"})
# A Compose's settings for targets beside the image, and what they carry: kept where given,
# the port says it does not carry them
TARGET_PARAMS = {"bbox_params": "boxes", "keypoint_params": "keypoints"}
# Saved by 1.x next to p; 2.x dropped it (always_apply=True is p=1).
_ALWAYS_APPLY = "always_apply"
_OWN_PREFIX = "albumentations."


class SavedFormError(ValueError):
    """A file or dict that is not albumentations' saved form; the message names where."""


@dataclass(frozen=True)
class SavedPipeline:
    """A saved albumentations pipeline: the version that wrote it (None when the file does not
    say) and its outermost transform (usually ``Compose``) as a call tree."""

    version: str | None
    root: TransformCall

    @property
    def major(self) -> int | None:
        """The major version (1 or 2), None when unknown."""
        if self.version is None:
            return None
        head = self.version.split(".", 1)[0]
        return int(head) if head.isdigit() else None


def looks_saved(data: object) -> bool:
    """Whether a loaded JSON/YAML document is albumentations' saved form (not an augexplorer
    graph, which has no ``__class_fullname__``)."""
    if not isinstance(data, Mapping):
        return False
    transform = data.get("transform")
    return CLASS_KEY in data or (isinstance(transform, Mapping) and CLASS_KEY in transform)


def read_saved_file(path: str | Path) -> SavedPipeline:
    """Read ``A.save``'s output: JSON, or YAML for ``.yaml``/``.yml`` files."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise SavedFormError(f"{path}: not valid YAML ({error})") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise SavedFormError(f"{path}: not valid JSON ({error})") from None
    try:
        return read_saved(data)
    except SavedFormError as error:
        raise SavedFormError(f"{path}: {error}") from None


def read_saved(data: object) -> SavedPipeline:
    """Read ``A.to_dict(transform)`` (or one transform's own dict) into a call tree."""
    if not looks_saved(data):
        raise SavedFormError(
            "not albumentations' saved form: expected {'__version__': ..., 'transform': "
            "{'__class_fullname__': 'Compose', ...}} as A.save or A.to_dict write it"
        )
    assert isinstance(data, Mapping)
    version = data.get(VERSION_KEY)
    root = data.get("transform", data)
    return SavedPipeline(str(version) if version is not None else None, _call(root, "transform"))


def class_name(full_name: str) -> str:
    """``HorizontalFlip`` for albumentations' own transforms however spelled; anyone else's
    keep their dotted name (``mypackage.MyTransform``)."""
    if full_name.startswith(_OWN_PREFIX):
        return full_name.rsplit(".", 1)[-1]
    return full_name


def _call(node: object, where: str) -> TransformCall:
    if not isinstance(node, Mapping):
        raise SavedFormError(f"{where} is {type(node).__name__}, not a transform's dict")
    full_name = node.get(CLASS_KEY)
    if not isinstance(full_name, str) or not full_name:
        raise SavedFormError(f"{where} has no {CLASS_KEY!r} naming its transform")
    name = class_name(full_name)
    children: tuple[TransformCall, ...] = ()
    if "transforms" in node:
        inner = node["transforms"]
        if not isinstance(inner, list):
            raise SavedFormError(f"{where} ({name}): 'transforms' is not a list")
        children = tuple(
            _call(child, f"{where} ({name}) > transforms[{index}]")
            for index, child in enumerate(inner)
        )
    kwargs: dict[str, Any] = {}
    for key, value in node.items():
        if key in (CLASS_KEY, "transforms") or key in _COMPOSE_ONLY:
            continue
        if key in TARGET_PARAMS and not value:  # no boxes or keypoints asked for
            continue
        if key == _ALWAYS_APPLY:
            if value:  # 1.x: applied whatever p says
                kwargs["p"] = 1.0
            continue
        if key == "p" and "p" in kwargs:
            continue  # always_apply came first and wins
        kwargs[key] = _plain(value)
    return TransformCall(LIBRARY, name, kwargs=kwargs, children=children)


def _plain(value: Any) -> Any:
    """Lists become tuples, as they would be written in Python (``scale=(0.08, 1.0)``)."""
    if isinstance(value, list):
        return tuple(_plain(item) for item in value)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


def is_saved_file(path: Path, text: str) -> bool:
    """Whether a ``.json``/``.yaml``/``.yml`` file holds albumentations' saved form (an
    augexplorer spec has no ``__class_fullname__``)."""
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml") or CLASS_KEY not in text:
        return False
    try:
        if suffix == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except ValueError:  # JSONDecodeError, and YAML's errors below
        return False
    except Exception as error:  # yaml.YAMLError is not a ValueError
        if type(error).__module__.startswith("yaml"):
            return False
        raise
    return looks_saved(data)
