"""A ported node's origin (library, transform, line, fidelity, differences) survives JSON."""

from __future__ import annotations

from pathlib import Path

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


def test_an_edit_since_the_port_is_recorded_and_said() -> None:
    # found in a newcomer's trial: an edited node still said "exact port of ..." in the panel
    # and the exported module's header, as though it still did what the transform does
    origin = Origin("albumentations", "HorizontalFlip(p=0.5)", "exact", line=3)
    spec = _ported(origin)
    assert spec.node("flip").origin == origin  # nothing edited yet
    assert spec.set_arg("flip", "horizontal", 1).node("flip").origin == origin  # the same value
    edited = spec.set_arg("flip", "horizontal", 0).unset_arg("flip", "horizontal")
    edited = edited.set_probability("flip", None)  # the same as before: not an edit
    assert edited.node("flip").origin.edited == ("horizontal",)
    assert edited.node("flip").origin.describe() == (
        "albumentations HorizontalFlip(p=0.5) (line 3): exact; edited since the port: horizontal"
    )
    assert loads(dumps(edited)).node("flip").origin.edited == ("horizontal",)
    # other nodes, and a spec loaded from before this field, say nothing of edits
    assert loads(dumps(spec)).node("flip").origin.edited == ()


def test_the_exported_header_and_the_panel_say_a_ported_node_was_edited() -> None:
    from augexplorer_widgets.node_panel import origin_html

    from augexplorer.export.port_note import port_note

    spec = _ported(Origin("albumentations", "HorizontalFlip(p=0.5)", "exact", line=3))
    assert "- flip: albumentations HorizontalFlip(p=0.5) (line 3), exact\n" in port_note(spec)
    assert "edited" not in origin_html(spec.node("flip"))
    edited = spec.set_arg("flip", "horizontal", 0)
    note = port_note(edited)
    assert (
        "- flip (edited since: horizontal): albumentations HorizontalFlip(p=0.5) (line 3)," in note
    )
    assert "exact as ported, before the edits" in " ".join(note.split())  # wrapped at 96
    assert "edited since the port (horizontal)" in origin_html(edited.node("flip"))


def test_the_node_panel_says_so_on_the_first_edit_without_a_rebuild(tmp_path: Path) -> None:
    from augexplorer_widgets import Explorer

    (tmp_path / "train.py").write_text(
        "import albumentations as A\n"
        "train_transform = A.Compose([A.RandomResizedCrop(size=(96, 96)), A.HorizontalFlip()])\n"
    )
    explorer = Explorer(port=str(tmp_path / "train.py"), batch_size=2, autosave=None)
    node = next(
        n.id for n in explorer.controller.session.spec.nodes if n.op == "random_resized_crop"
    )
    explorer.select(node)
    slider = explorer.node_panel.controls["size"]
    assert "edited" not in explorer.node_panel.title.value
    explorer.set_arg(node, "size", [64.0, 64.0])
    explorer.flush()
    assert "edited since the port (size)" in explorer.node_panel.title.value
    assert explorer.node_panel.controls["size"] is slider  # a drag's control stays in place
