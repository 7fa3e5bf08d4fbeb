"""evolve(): dataclasses.replace's result, faster, for plain frozen dataclasses only."""

from __future__ import annotations

import dataclasses
import functools
import sys

import pytest

from augexplorer import Session, preset, validate
from augexplorer.engine.session import constant_edit
from augexplorer.errors import GraphInvalid
from augexplorer.evolve import evolve
from augexplorer.spec import Node
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


def test_the_session_checks_only_the_constant_a_slider_changed() -> None:
    """The panel hands the session whole graphs; one constant changed takes the fast check,
    which gives the plan a full validation gives, and a bad value is still refused."""
    session = Session(preset("reference"), batch_size=2)
    calls: list[object] = []
    session_module = sys.modules[Session.__module__]
    full = session_module.validate  # type: ignore[attr-defined]

    def counted(spec: object, catalog: object = None) -> object:
        calls.append(spec)
        return full(spec, catalog)

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
