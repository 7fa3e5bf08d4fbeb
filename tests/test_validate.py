"""Validation reports every problem at once, each naming the node, the argument and the fix."""

from __future__ import annotations

import dataclasses

import pytest

from augexplorer import (
    GraphInvalid,
    GraphSpec,
    Node,
    Probability,
    Random,
    Ref,
    Source,
    chain,
    preset,
    validate,
)
from augexplorer.catalog import load_catalog
from augexplorer.checks.devices import gpu_stand_ins, stand_in_note
from augexplorer.errors import Problem


def problems(spec: GraphSpec, gpu: bool = False) -> list[Problem]:
    with pytest.raises(GraphInvalid) as error:
        validate(spec, load_catalog(gpu=gpu))
    return error.value.problems


def only(spec: GraphSpec, gpu: bool = False) -> Problem:
    found = problems(spec, gpu)
    assert len(found) == 1, found
    return found[0]


BASIC = preset("basic")


def test_presets_are_valid() -> None:
    for name in ("basic", "imagenet_train", "imagenet_val", "randaugment", "random_affine"):
        plan = validate(preset(name))
        assert plan.steps and plan.outputs


def test_every_random_draw_gets_an_explicit_stable_seed() -> None:
    plan = validate(BASIC)
    random_steps = [
        s for s in plan.steps if s.role in ("random", "apply") or (s.info and s.info.random)
    ]
    assert random_steps and all(s.seed is not None for s in random_steps)
    assert validate(BASIC).steps == plan.steps  # derived seeds are deterministic
    angle = plan.spec.node("rotate").args["angle"]
    assert isinstance(angle, Random) and angle.seed == plan.step("rotate_angle").seed
    reseeded = validate(dataclasses.replace(BASIC, seed=1))
    assert reseeded.step("rotate_angle").seed != plan.step("rotate_angle").seed


def test_unknown_operator_suggests_the_closest() -> None:
    problem = only(BASIC.replace_node(Node("rotate", "rotat", (Ref("resize"),), {"angle": 3.0})))
    assert problem.node == "rotate" and "unknown operator 'rotat'" in problem.message
    assert "'rotate'" in (problem.fix or "")


def test_unknown_argument_suggests_the_closest() -> None:
    problem = only(BASIC.set_arg("rotate", "angel", 3.0))
    assert (problem.node, problem.argument) == ("rotate", "angel")
    assert "'angle'" in (problem.fix or "")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("ten", "expected a number"),
        (float("nan"), "not a finite number"),
        (float("inf"), "not a finite number"),
        ([1.0, 2.0], "expected a single float"),
        (True, "expected a number"),
    ],
)
def test_wrong_constant_values(value: object, expected: str) -> None:
    problem = only(BASIC.set_arg("rotate", "angle", value))
    assert (problem.node, problem.argument) == ("rotate", "angle")
    assert expected in problem.message and problem.fix


def test_out_of_range_and_wrong_enum_values() -> None:
    problem = only(BASIC.set_arg("crop", "crop_pos_x", 1.5))
    assert "out of range [0, 1]" in problem.message and problem.argument == "crop_pos_x"
    problem = only(BASIC.set_arg("decode", "output_type", "CMYK"))
    assert "not one of RGB" in problem.message
    problem = only(BASIC.set_arg("flip", "horizontal", 2.5))
    assert "whole number" in problem.message


def test_bad_random_bindings() -> None:
    problem = only(BASIC.set_arg("rotate", "angle", Random.uniform(10, -10)))
    assert "reversed" in problem.message and problem.fix == "swap low and high"
    problem = only(BASIC.set_arg("decode", "output_type", Random.uniform(0, 1)))
    assert "per batch" in problem.message
    problem = only(BASIC.set_arg("rotate", "angle", Random.uniform(0, float("nan"))))
    assert "finite" in problem.message
    problem = only(BASIC.set_arg("crop", "crop", Random.uniform(100, 200)))
    assert "needs a shape" in problem.message


def test_missing_input_and_missing_required_argument() -> None:
    spec = BASIC.replace_node(Node("rotate", "rotate", (Ref("resise"),), {}))
    found = problems(spec)
    messages = " | ".join(str(p) for p in found)
    assert (
        "reads 'resise', which does not exist" in messages and "did you mean 'resize'" in messages
    )
    assert any(p.argument == "angle" and "required" in p.message for p in found)
    no_input = BASIC.replace_node(Node("rotate", "rotate", (), {"angle": 1.0}))
    assert "needs at least 1 input" in only(no_input).message


def test_cycle_is_named() -> None:
    spec = BASIC.rewire("resize", 0, Ref("crop"))
    found = problems(spec)
    assert any("cycle" in p.message and "resize" in p.message for p in found)


def test_operator_this_machine_cannot_run() -> None:
    spec = BASIC.insert_after("crop", Node("jitter", "jitter"))
    problem = only(spec, gpu=False)
    assert problem.node == "jitter" and "GPU" in problem.message


def test_cpu_operator_after_a_gpu_one() -> None:
    spec = BASIC.set_device("resize", "gpu").set_device("rotate", "cpu")
    found = problems(spec, gpu=True)
    problem = next(p for p in found if p.node == "rotate")
    assert "cannot read GPU data" in problem.message and "'resize'" in problem.message


def test_gpu_device_without_a_gpu_runs_on_the_cpu_and_is_kept() -> None:
    spec = BASIC.set_device("rotate", "gpu").set_device("decode", "mixed")
    plan = validate(spec, load_catalog(gpu=False))
    assert plan.step("rotate").device == plan.step("decode").device == "cpu"
    assert plan.spec.node("rotate").device == "gpu"  # the graph keeps what was written
    assert gpu_stand_ins(plan) == {"decode": "mixed", "rotate": "gpu"}
    assert "decoder (decode)" in stand_in_note(gpu_stand_ins(plan))
    # on a GPU machine the same graph runs where it says
    on_gpu = validate(spec, load_catalog(gpu=True))
    assert on_gpu.step("rotate").device == "gpu" and gpu_stand_ins(on_gpu) == {}


def test_auto_devices_follow_the_data_on_a_gpu_machine() -> None:
    plan = validate(BASIC, load_catalog(gpu=True))
    devices = {s.id: s.device for s in plan.steps}
    assert devices["source"] == "cpu" and devices["decode"] == "mixed"
    assert devices["resize"] == devices["rotate"] == devices["flip"] == "gpu"
    assert devices["rotate_angle"] == "cpu"  # argument inputs live on the CPU


def test_nodes_that_feed_arguments_or_cpu_only_operators_stay_on_the_cpu() -> None:
    """On a GPU machine a node left on auto must not move data the CPU has to read: an
    argument input (a crop window made by an operator), or the boxes a CPU-only operator reads
    (bb_flip before random_bbox_crop), and whatever those read in turn."""
    height = Node("height", "random.uniform", args={"range": [100.0, 200.0]}, seed=3)
    width = Node("width", "random.uniform", args={"range": [100.0, 200.0]}, seed=4)
    made = Node("made", "stack", (Ref("height"), Ref("width")))
    spec = BASIC.insert_after(None, height).insert_after(None, width).insert_after(None, made)
    spec = spec.replace_node(dataclasses.replace(spec.node("crop"), args={"crop": Ref("made")}))
    devices = {s.id: s.device for s in validate(spec, load_catalog(gpu=True)).steps}
    assert devices["made"] == "cpu" and devices["crop"] == "gpu"  # stack has a GPU backend

    boxes = Source("source", "coco", reader_args={"ltrb": True, "ratio": True})
    nodes = (
        boxes,
        Node("decode", "decoders.image", (Ref("source"),)),
        Node("coin", "random.coin_flip", seed=1),
        Node("flip", "flip", (Ref("decode"),), {"horizontal": Ref("coin")}),
        Node("bb_flip", "bb_flip", (Ref("source", 1),), {"horizontal": Ref("coin"), "ltrb": True}),
        Node("box_crop", "random_bbox_crop", (Ref("bb_flip"), Ref("source", 2)), seed=2),
        Node("crop", "slice", (Ref("flip"), Ref("box_crop", 0), Ref("box_crop", 1))),
    )
    detection = GraphSpec(nodes, {"images": Ref("crop"), "boxes": Ref("box_crop", 2)})
    plan = validate(detection, load_catalog(gpu=True))
    devices = {s.id: s.device for s in plan.steps}
    assert devices["bb_flip"] == devices["box_crop"] == "cpu"
    assert devices["flip"] == devices["crop"] == "gpu" and devices["decode"] == "mixed"
    # what the user pins stays pinned, and is named
    pinned = detection.set_device("bb_flip", "gpu")
    assert any(p.node == "box_crop" for p in problems(pinned, gpu=True))


def test_auto_nodes_on_cpu_data_stay_on_the_cpu_as_dali_places_them() -> None:
    """DALI's GPU operators refuse CPU data in most inputs: a node left on auto goes to the GPU
    only where its data is there (found on a real GPU: boxes from a reader made bb_flip fail)."""
    nodes = (
        Source("source", "coco", reader_args={"ltrb": True}),
        Node("decode", "decoders.image", (Ref("source"),)),
        Node("coin", "random.coin_flip", seed=1),
        Node("flip", "flip", (Ref("decode"),), {"horizontal": Ref("coin")}),
        Node("bb_flip", "bb_flip", (Ref("source", 1),), {"horizontal": Ref("coin"), "ltrb": True}),
    )
    spec = GraphSpec(nodes, {"images": Ref("flip"), "boxes": Ref("bb_flip")})
    devices = {s.id: s.device for s in validate(spec, load_catalog(gpu=True)).steps}
    assert devices == {
        "source": "cpu",
        "decode": "mixed",
        "coin": "cpu",
        "flip": "gpu",
        "bb_flip": "cpu",
    }
    problem = next(p for p in problems(spec.set_device("bb_flip", "gpu"), gpu=True))
    assert (problem.node, problem.argument) == ("bb_flip", "device")
    assert "cannot read CPU data" in problem.message and "'source'" in problem.message
    assert problem.fix == "set 'source' to gpu, or set 'bb_flip' to cpu (or leave it on auto)"


def test_a_gpu_operator_after_a_cpu_decoder_is_told_to_set_the_decoder_to_mixed() -> None:
    # A decoder has cpu and mixed backends, no gpu: "set it to gpu" would be refused in turn.
    spec = chain(
        Source("source"), ("decode", "decoders.image", {}), ("rotate", "rotate", {"angle": 5.0})
    )
    placed = spec.set_device("decode", "cpu").set_device("rotate", "gpu")
    problem = next(p for p in problems(placed, gpu=True))
    assert problem.fix == "set 'decode' to mixed, or set 'rotate' to cpu (or leave it on auto)"


def test_a_gpu_operator_may_read_the_inputs_its_schema_takes_from_the_cpu() -> None:
    matrix = Node("matrix", "transforms.rotation", args={"angle": 10.0})
    warp = Node("warp", "warp_affine", (Ref("decode"), Ref("matrix")))
    spec = BASIC.insert_after(None, matrix).insert_after("decode", warp)
    warp_affine = load_catalog(gpu=True).get("warp_affine")
    assert warp_affine is not None and warp_affine.inputs[1].gpu_reads_cpu
    devices = {s.id: s.device for s in validate(spec, load_catalog(gpu=True)).steps}
    assert devices["matrix"] == "cpu" and devices["warp"] == "gpu"


def test_names_must_be_safe_identifiers() -> None:
    spec = GraphSpec((Source("my source"),))
    problem = only(spec)
    assert "Python identifier" in problem.message and "'my_source'" in (problem.fix or "")
    injected = GraphSpec((Source("x = __import__('os')"),))
    assert "Python identifier" in only(injected).message
    reserved = GraphSpec((Source("fn"),))
    assert "reserved" in only(reserved).message


def test_probability_must_be_in_range() -> None:
    problem = only(BASIC.set_probability("rotate", Probability(1.5)))
    assert problem.argument == "probability"


def test_all_problems_are_reported_together() -> None:
    spec = (
        BASIC.set_arg("rotate", "angel", 1.0)
        .set_arg("crop", "crop_pos_x", 3.0)
        .set_device("flip", "mixed")
    )
    found = problems(spec)
    assert {p.node for p in found} == {"rotate", "crop", "flip"}
    text = str(GraphInvalid(found))
    assert text.startswith("the graph has 3 problems")


def test_a_graph_needs_a_source() -> None:
    spec = GraphSpec((Node("rotate", "rotate", (), {"angle": 1.0}),))
    assert any("no data source" in p.message for p in problems(spec))
