"""evolve(): dataclasses.replace's result, faster, for plain frozen dataclasses only."""

from __future__ import annotations

import dataclasses
import functools
import sys
from pathlib import Path

import pytest

from augexplorer import Session, preset, validate
from augexplorer.engine.session import constant_edit
from augexplorer.errors import AugExplorerError, GraphInvalid
from augexplorer.evolve import evolve
from augexplorer.presets import chain
from augexplorer.spec import Node, Random, Ref, Source
from augexplorer.validate import validate_constant_edit


@dataclasses.dataclass(frozen=True)
class Record:
    name: str
    values: tuple[int, ...] = ()

    @functools.cached_property
    def total(self) -> int:
        return sum(self.values)


@dataclasses.dataclass(frozen=True)
class Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


def test_matches_dataclasses_replace() -> None:
    node = Node("blur", "gaussian_blur", args={"sigma": 1.0})
    fast = evolve(node, args={"sigma": 2.0})
    assert fast == dataclasses.replace(node, args={"sigma": 2.0})
    assert type(fast) is Node and fast is not node
    assert node.args == {"sigma": 1.0}  # the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.op = "rotate"  # type: ignore[misc]


def test_drops_cached_properties_unless_kept() -> None:
    record = Record("a", (1, 2))
    assert record.total == 3
    changed = evolve(record, values=(5,))
    assert changed.total == 5  # computed again, not copied
    # `keep` is the caller's word that the change cannot alter it: the old value is carried
    assert evolve(record, keep=("total",), name="b").__dict__["total"] == 3


def test_refuses_unknown_fields_and_classes_it_cannot_copy() -> None:
    with pytest.raises(TypeError, match="no field 'colour'"):
        evolve(Record("a"), colour="red")
    with pytest.raises(TypeError, match=r"use dataclasses\.replace"):
        evolve(Checked(1), value=-1)


def test_a_fast_edit_keeps_what_a_constant_cannot_change() -> None:
    plan = validate(preset("reference"))
    assert not plan.runs_python
    step = plan.step("brightness")
    assert step.upstream_nodes
    edited = validate_constant_edit(plan, "brightness", "brightness", 1.7)
    assert edited is not None
    assert edited.step("brightness").args["brightness"] == 1.7
    assert edited.step("brightness").upstream_nodes == step.upstream_nodes
    assert edited.step("brightness").digest != step.digest  # the arguments did change
    assert edited == validate(edited.spec)  # the same plan a full validation makes


def test_a_graph_with_one_constant_changed_is_recognised() -> None:
    spec = preset("reference")
    assert constant_edit(spec, spec.set_arg("brightness", "brightness", 1.7)) == (
        "brightness",
        "brightness",
        1.7,
    )
    # anything more than one constant's new value needs the full check
    two = spec.set_arg("brightness", "brightness", 1.7).set_arg("brightness", "contrast", 1.2)
    assert constant_edit(spec, two) is None
    assert constant_edit(spec, spec.unset_arg("brightness", "brightness")) is None
    assert constant_edit(spec, spec.set_arg("brightness", "brightness_shift", 0.1)) is None
    assert constant_edit(spec, dataclasses.replace(spec, batch_size=3)) is None
    moved = spec.set_arg("brightness", "brightness", 1.7)
    assert constant_edit(spec, dataclasses.replace(moved, seed=spec.seed + 1)) is None
    assert constant_edit(spec, spec) is None
    # a type changed behind an equal value (1 == True == 1.0) is a change of its own
    retyped = spec.set_arg("brightness", "contrast", True).set_arg("brightness", "brightness", 1.3)
    assert constant_edit(spec.set_arg("brightness", "contrast", 1), retyped) is None


def test_the_session_checks_only_the_constant_a_slider_changed() -> None:
    """The panel hands the session whole graphs; one constant changed takes the fast check,
    which gives the plan a full validation gives, and a bad value is still refused."""
    session = Session(preset("reference"), batch_size=2)
    calls: list[object] = []
    session_module = sys.modules[Session.__module__]
    full = session_module.validate  # type: ignore[attr-defined]

    def counted(spec: object, catalog: object = None, **options: object) -> object:
        calls.append(spec)
        return full(spec, catalog, **options)

    session_module.validate = counted  # type: ignore[attr-defined]
    try:
        edited = session.spec.set_arg("brightness", "brightness", 1.3)
        session.update(edited)
        assert calls == [] and session.plan == validate(edited)
        with pytest.raises(GraphInvalid, match="brightness"):
            session.update(edited.set_arg("brightness", "brightness", "bright"))  # type: ignore[arg-type]
        assert session.spec.node("brightness").args["brightness"] == "bright"  # kept, not lost
        session.update(
            edited.set_arg("brightness", "contrast", 0.9).set_arg("brightness", "brightness", 1.1)
        )
        assert len(calls) == 1  # two changes: checked whole
    finally:
        session_module.validate = full  # type: ignore[attr-defined]


def test_constants_other_nodes_read_take_the_full_check() -> None:
    """A dtype or a layout is read by the nodes after it: a new one is checked whole, and a
    graph it breaks is refused as a full validation refuses it."""
    spec = chain(
        Source("source", "samples"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("normalize", "crop_mirror_normalize", {"dtype": "UINT8", "output_layout": "HWC"}),
        ("jpeg", "jpeg_compression_distortion", {"quality": 50}),
        batch_size=2,
    )
    session = Session(spec)
    for arg, value in (("dtype", "FLOAT"), ("output_layout", "CHW")):
        edited = spec.set_arg("normalize", arg, value)
        assert constant_edit(spec, edited) == ("normalize", arg, value)
        assert validate_constant_edit(session.plan, "normalize", arg, value) is None
        with pytest.raises(GraphInvalid):
            validate(edited)
        with pytest.raises(GraphInvalid):
            session.update(edited)


@pytest.mark.parametrize("name", ["reference", "basic", "random_affine", "imagenet_train"])
def test_every_fast_check_gives_the_plan_a_full_validation_gives(name: str) -> None:
    spec = preset(name)
    plan = validate(spec)
    checked = 0
    for node in spec.nodes:
        if not isinstance(node, Node):
            continue
        for arg, value in node.args.items():
            if isinstance(value, (Random, Ref)):
                continue
            new = [v + 0.25 for v in value] if isinstance(value, list) else value
            if isinstance(value, float):
                new = value + 0.25
            edited = spec.set_arg(node.id, arg, new)
            try:
                full = validate(edited)
            except GraphInvalid:
                full = None
            try:
                fast = validate_constant_edit(plan, node.id, arg, new)
            except GraphInvalid:
                assert full is None, f"{node.id}.{arg}: refused by the fast check only"
                continue
            if fast is not None:
                assert full is not None, f"{node.id}.{arg}: refused by the full check only"
                assert fast == full, f"{node.id}.{arg}"
                checked += 1
    assert checked  # the preset has numbers a slider moves


def test_a_source_that_fails_to_open_is_not_the_graph_later_edits_build_on(
    tmp_path: Path,
) -> None:
    session = Session(preset("reference"), batch_size=2)
    empty = tmp_path / "empty"
    empty.mkdir()
    moved = session.spec.with_source(Source("source", "folder", path=str(empty)))
    with pytest.raises(AugExplorerError):
        session.update(moved)
    # the next slider step on the graph with the folder is checked (and refused) whole
    with pytest.raises(AugExplorerError):
        session.update(moved.set_arg("brightness", "brightness", 1.2))
    assert session.plan.spec.sources()[0].kind == "samples"  # the last good graph still runs
