"""Graph specs: JSON round trip, strict loading, and edits."""

from __future__ import annotations

import json

import pytest

from augexplorer import PRESETS, GraphSpec, Node, Probability, Random, Ref, SpecFormatError, preset
from augexplorer.spec import dumps, load, loads, save, to_json


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_round_trip_through_json(name: str) -> None:
    spec = preset(name)
    assert loads(dumps(spec)) == spec


def test_random_bindings_and_refs_round_trip() -> None:
    spec = preset("random_affine")
    data = to_json(spec)
    warp = next(n for n in data["nodes"] if n["id"] == "warp")
    assert warp["args"]["matrix"] == {"ref": "scale"}
    scale = next(n for n in data["nodes"] if n["id"] == "scale")
    assert scale["args"]["scale"] == {"random": "uniform", "low": 0.8, "high": 1.2, "shape": 2}


@pytest.mark.parametrize(
    ("random", "short"),
    [
        (Random.uniform(-20.0, 20.0), "U(-20, 20)"),
        (Random.normal(0.0, 2.5), "N(0, 2.5)"),
        (Random.coin_flip(0.5), "coin(0.5)"),
        (Random.choice([0.0, 90.0, 180.0]), "choice(0, 90, 180)"),
        (Random.uniform(100.0, 200.0, shape=2), "U(100, 200) x2"),
    ],
)
def test_random_draws_have_a_short_form_for_narrow_places(random: Random, short: str) -> None:
    assert random.short() == short
    assert random.describe().startswith(random.dist)  # the long form names every parameter


def test_nan_survives_json_so_validation_can_name_it() -> None:
    spec = preset("basic").set_arg("rotate", "angle", float("nan"))
    loaded = loads(dumps(spec))
    angle = loaded.node("rotate").args["angle"]
    assert angle != angle  # NaN


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON (line 1"),
        ('{"format": "other", "version": 1}', "is this an augexplorer graph"),
        ('{"format": "augexplorer.graph", "version": 99}', "newer than this augexplorer"),
        (
            '{"format": "augexplorer.graph", "version": 1, "colour": 1}',
            "unknown field 'colour'; allowed",
        ),
        (
            '{"format": "augexplorer.graph", "version": 1, "nodes": [{"id": "a", "op": "rotate", "speed": 2}]}',
            "nodes[0] (node 'a'): unknown field 'speed'",
        ),
        (
            '{"format": "augexplorer.graph", "version": 1, "nodes": [{"id": "s", "source": "ftp"}]}',
            "unknown source kind 'ftp'",
        ),
        (
            '{"format": "augexplorer.graph", "version": 1, "nodes": [{"id": "a", "op": "rotate", "args": {"angle": {"random": "zipf"}}}]}',
            "unknown distribution 'zipf'",
        ),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_malformed_specs_get_clear_errors(text: str, message: str) -> None:
    with pytest.raises(SpecFormatError) as error:
        loads(text)
    assert message in str(error.value)


def test_save_is_atomic_and_refuses_to_overwrite(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "graph.json"
    save(preset("basic"), path)
    with pytest.raises(FileExistsError):
        save(preset("imagenet_val"), path)
    assert load(path) == preset("basic")
    save(preset("imagenet_val"), path, overwrite=True)
    assert load(path).name == "imagenet_val"
    assert [p.name for p in tmp_path.iterdir()] == ["graph.json"]  # no temporary left behind


def test_load_names_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "broken.json"
    path.write_text('{"format": "augexplorer.graph", "version": 1, "nodes": 3}')
    with pytest.raises(SpecFormatError) as error:
        load(path)
    assert str(path) in str(error.value) and "expected a list" in str(error.value)


def chain_ids(spec: GraphSpec) -> list[tuple[str, list[str]]]:
    return [(n.id, [str(r) for r in n.inputs]) for n in spec.nodes]


def test_insert_after_rewires_the_chain() -> None:
    spec = preset("basic").insert_after(
        "rotate", Node("blur", "gaussian_blur", args={"sigma": 1.0})
    )
    assert ("blur", ["rotate"]) in chain_ids(spec)
    assert ("crop", ["blur"]) in chain_ids(spec)
    assert spec.ids().index("blur") == spec.ids().index("rotate") + 1


def test_remove_reconnects_consumers_and_outputs() -> None:
    spec = preset("basic").remove("crop")
    assert ("flip", ["rotate"]) in chain_ids(spec)
    last = preset("basic").remove("flip")
    assert last.outputs["images"] == Ref("crop")


def test_move_swaps_chain_neighbours() -> None:
    spec = preset("basic").move("crop", -1)  # rotate -> crop becomes crop -> rotate
    assert ("crop", ["resize"]) in chain_ids(spec)
    assert ("rotate", ["crop"]) in chain_ids(spec)
    assert ("flip", ["rotate"]) in chain_ids(spec)
    assert spec.move("crop", 1) == preset("basic")


def test_duplicate_and_rewire() -> None:
    spec = preset("basic").duplicate("rotate")
    assert ("rotate_2", ["rotate"]) in chain_ids(spec)
    assert ("crop", ["rotate_2"]) in chain_ids(spec)
    spec = spec.rewire("crop", 0, Ref("rotate"))
    assert ("crop", ["rotate"]) in chain_ids(spec)


def test_edits_never_mutate_the_original() -> None:
    spec = preset("basic")
    before = json.dumps(to_json(spec))
    spec.set_arg("rotate", "angle", Random.normal(0, 5)).remove("crop").move("flip", -1)
    assert json.dumps(to_json(spec)) == before


def test_reseeded_gives_new_seeds_to_draws_and_random_operators_only() -> None:
    counter = iter(range(100, 200))
    spec = preset("imagenet_train").set_probability("resize", Probability(0.5, seed=1))
    reseeded = spec.reseeded(lambda: next(counter), random_ops={"decoders.image_random_crop"})
    assert reseeded.node("normalize").args["mirror"].seed is not None
    assert reseeded.node("resize").probability.seed not in (None, 1)
    assert reseeded.node("decode").seed is not None  # a random operator
    assert reseeded.node("resize").seed is None  # not a random operator
    assert reseeded.node("source") == spec.node("source")  # same images
