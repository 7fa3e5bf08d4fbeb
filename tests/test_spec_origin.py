"""A ported node's origin (library, transform, line, fidelity, differences) survives JSON."""

from __future__ import annotations

import pytest

from augexplorer.errors import SpecFormatError
from augexplorer.spec import GraphSpec, Node, Origin, Ref, Source
from augexplorer.spec.io import dumps, loads


def _ported(origin: Origin) -> GraphSpec:
    decode = Node("decode", "decoders.image", (Ref("source"),))
    flip = Node("flip", "flip", (Ref("decode"),), {"horizontal": 1}, origin=origin)
    return GraphSpec(nodes=(Source("source"), decode, flip), outputs={"images": Ref("flip")})


def test_origin_round_trips_through_json() -> None:
    origin = Origin(
        "torchvision",
        "RandomRotation(15)",
        "approximate",
        line=12,
        differences=("linear interpolation where torchvision uses nearest",),
    )
    spec = _ported(origin)
    assert loads(dumps(spec)) == spec
    assert loads(dumps(spec)).node("flip").origin == origin


def test_origin_describes_itself() -> None:
    origin = Origin("albumentations", "HorizontalFlip(p=0.5)", "exact", line=3)
    assert origin.describe() == "albumentations HorizontalFlip(p=0.5) (line 3): exact"


def test_an_unknown_fidelity_is_named() -> None:
    text = dumps(_ported(Origin("torchvision", "RandomCrop(32)", "exact"))).replace(
        '"exact"', '"same"'
    )
    with pytest.raises(SpecFormatError, match=r"origin\.fidelity"):
        loads(text)
