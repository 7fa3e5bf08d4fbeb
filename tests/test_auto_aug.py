"""DALI's auto_aug policies as graph nodes: generated arguments, validation at the node, the live
engine, the exported module and a hand-written DALI pipeline drawing the same values."""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path

import numpy as np
import pytest
from exported_runner import run_exported
from PIL import Image

from augexplorer import GraphSpec, Node, Probability, Random, Ref, Session, Source, preset
from augexplorer.builder import resolve_fn
from augexplorer.catalog import Catalog
from augexplorer.catalog.auto_aug import (
    INDEPENDENT_DRAWS,
    POLICIES,
    takes_independent_draws,
)
from augexplorer.errors import GraphInvalid
from augexplorer.export import export, generate
from augexplorer.profiling import profile
from augexplorer.validate import validate

BATCH = 3
SIZE = 48.0
NEW_PRESETS = ("auto_augment_imagenet", "trivial_augment_wide", "dali_rand_augment")


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four small JPEGs in two classes, with blocks of colour so every operation shows."""
    root = tmp_path_factory.mktemp("tiny")
    rng = np.random.default_rng(0)
    for index in range(4):
        folder = root / ("a" if index % 2 else "b")
        folder.mkdir(exist_ok=True)
        pixels = rng.integers(0, 255, (60, 80, 3), dtype=np.uint8)
        pixels[15:45, 20:60] = (200, 60 + 40 * index, 30)
        Image.fromarray(pixels).save(folder / f"{index}.jpg", quality=90)
    return root


def policy_graph(folder: Path) -> GraphSpec:
    """Each policy on small images: one with a shape fed from a node, one applied with a
    probability, one excluding augmentations."""
    nodes = (
        Source("source", "folder", str(folder), shuffle=False),
        Node("shapes", "peek_image_shape", (Ref("source"),)),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
        Node(
            "auto",
            "auto_aug.auto_augment",
            (Ref("small"),),
            {"policy_name": "svhn", "shape": Ref("shapes")},
        ),
        Node(
            "rand",
            "auto_aug.rand_augment",
            (Ref("auto"),),
            {"n": 3, "m": 17, "interp_type": "INTERP_NN", "fill_value": 0},
            probability=Probability(0.7),
        ),
        Node(
            "trivial",
            "auto_aug.trivial_augment_wide",
            (Ref("rand"),),
            {"num_magnitude_bins": 11, "excluded": ["identity", "equalize"]},
        ),
    )
    return GraphSpec(
        nodes, {"images": Ref("trivial"), "labels": Ref("source", 1)}, batch_size=BATCH
    )


# ---- the catalog ------------------------------------------------------------------------------


def test_policy_arguments_come_from_the_functions(catalog: Catalog) -> None:
    for op in POLICIES:
        info = catalog[op]
        function = resolve_fn(op)
        assert info.random and info.category == "auto_aug" and info.available
        parameters = inspect.signature(function).parameters
        # DALI's arguments, and the node's own switch for seeding the draws apart
        own = {INDEPENDENT_DRAWS.name} if takes_independent_draws(op) else set()
        assert {arg.name for arg in info.args} == set(parameters) - {"data", "seed"} | own
        for arg in info.args:
            if arg.name in own:
                assert arg.default is True and arg.kind == "BOOL"
                continue
            default = parameters[arg.name].default
            if default is inspect.Parameter.empty:
                assert arg.required, (op, arg.name)
            elif default is not None:
                assert arg.has_default and arg.default == default, (op, arg.name)
    rand = catalog["auto_aug.rand_augment"]
    assert [a.name for a in rand.args if a.required] == ["m", "n"]
    assert "solarize" in rand.arg_index["excluded"].choices
    policies = catalog["auto_aug.auto_augment"].arg_index["policy_name"].choices
    assert set(policies) == {"image_net", "reduced_image_net", "svhn", "reduced_cifar10"}
    assert catalog["auto_aug.rand_augment"].arg_index["shape"].per_sample  # a node may feed it


# ---- validation -------------------------------------------------------------------------------


def problems_of(spec: GraphSpec, node: str) -> dict[str | None, str]:
    with pytest.raises(GraphInvalid) as raised:
        validate(spec)
    return {p.argument: f"{p.message} (fix: {p.fix})" for p in raised.value.for_node(node)}


def test_a_policy_after_normalization_is_refused_at_the_node() -> None:
    spec = preset("imagenet_train").insert_after(
        "normalize", Node("augment", "auto_aug.rand_augment", args={"n": 2, "m": 9})
    )
    found = problems_of(spec, "augment")
    assert list(found) == [None]
    message = found[None]
    assert "HWC uint8 images" in message and "CHW FLOAT images" in message, message
    assert "connect it to 'resize'" in message, message


def test_a_policy_on_encoded_files_asks_for_a_decoder() -> None:
    spec = GraphSpec(
        (
            Source("source"),
            Node("augment", "auto_aug.trivial_augment_wide", (Ref("source"),)),
        ),
        {"images": Ref("augment")},
    )
    assert "decoders.image" in problems_of(spec, "augment")[None]


@pytest.mark.parametrize(
    ("args", "argument", "expected"),
    [
        ({"n": 0, "m": 9}, "n", "would do nothing"),
        ({"n": 2, "m": 31}, "m", "m is 0..30"),
        ({"n": 2, "m": 5, "num_magnitude_bins": 4}, "m", "raise num_magnitude_bins above 5"),
        ({"n": 2, "m": -1}, "m", "m is 0..30"),
        ({"n": 2, "m": 1, "num_magnitude_bins": 0}, "num_magnitude_bins", "at least one bin"),
        ({"n": 1.5, "m": 9}, "n", "whole number"),
        ({"m": 9}, "n", "required"),
        ({"n": 2, "m": 9, "excluded": ["blur"]}, "excluded", "is not one of"),
        ({"n": 2, "m": 9, "shape": Random.uniform(1, 2, shape=2)}, "shape", "not a random"),
        ({"n": 2, "m": 9, "shape": [224]}, "shape", "height and width"),
        ({"n": 2, "m": 9, "max_translate_rel": 0.3}, "max_translate_rel", "give shape too"),
        ({"n": 2, "m": 9, "shape": [9, 9], "max_translate_abs": 5}, "max_translate_abs", "rel"),
        ({"n": 2, "m": 9, "interp_type": "INTERP_CUBIC"}, "interp_type", "INTERP_NN"),
    ],
)
def test_bad_rand_augment_arguments_are_named(
    args: dict[str, object], argument: str, expected: str
) -> None:
    spec = preset("basic").insert_after("flip", Node("augment", "auto_aug.rand_augment", args=args))
    found = problems_of(spec, "augment")
    assert argument in found, found
    assert expected in found[argument], found[argument]


def test_bad_policy_arguments_are_named(catalog: Catalog) -> None:
    def augment(op: str, **args: object) -> GraphSpec:
        return preset("basic").insert_after("flip", Node("augment", op, args=args))

    everything = list(catalog["auto_aug.trivial_augment_wide"].arg_index["excluded"].choices)
    found = problems_of(augment("auto_aug.trivial_augment_wide", excluded=everything), "augment")
    assert "nothing left to apply" in found["excluded"]
    found = problems_of(augment("auto_aug.auto_augment", policy_name="cifar"), "augment")
    assert "reduced_cifar10" in found["policy_name"]
    reduced = augment("auto_aug.auto_augment", policy_name="reduced_image_net", shape=[9, 9])
    assert "applies no translation" in problems_of(reduced, "augment")["shape"]
    cast = preset("basic").insert_after("flip", Node("as_float", "cast", args={"dtype": "FLOAT"}))
    after_cast = cast.insert_after("as_float", Node("augment", "auto_aug.trivial_augment_wide"))
    assert "HWC FLOAT images" in problems_of(after_cast, "augment")[None]


# ---- the live engine --------------------------------------------------------------------------


def test_the_engine_runs_policies_incrementally_with_replayable_seeds(tiny_folder: Path) -> None:
    spec = policy_graph(tiny_folder)
    session = Session(spec)
    result = session.run()
    for node in ("auto", "rand", "trivial"):
        step = session.plan.node_step(node)
        assert step.seed is not None and step.seed == session.plan.spec.node(node).seed
        assert node in result.node_times()
        arrays = result.arrays(Ref(node))
        assert len(arrays) == BATCH
        assert all(a.dtype == np.uint8 and a.shape == (SIZE, SIZE, 3) for a in arrays)
    first = [np.array(a) for a in result.arrays(Ref("trivial"))]
    decoded = [np.array(a) for a in result.arrays(Ref("small"))]
    assert any(not np.array_equal(a, b) for a, b in zip(first, decoded, strict=True))

    edited = session.set_arg("rand", "m", 3)
    assert edited.ran() == ["rand", "trivial"]  # the policies before it keep their outputs

    replayed = Session(session.plan.spec.set_arg("rand", "m", 17)).run()
    for got, want in zip(replayed.arrays(Ref("trivial")), first, strict=True):
        np.testing.assert_array_equal(np.array(got), want)

    old_seed = session.plan.node_step("trivial").seed
    rerolled = session.reroll()
    assert session.plan.node_step("trivial").seed != old_seed
    assert rerolled.ran()[-1] == "trivial"


# ---- export and plain DALI -------------------------------------------------------------------


def test_exported_module_and_plain_dali_draw_the_engine_values(
    tiny_folder: Path, tmp_path: Path
) -> None:
    spec = policy_graph(tiny_folder)
    session = Session(spec, device_id=None)  # the three compared on one device
    live = session.run()
    expected = [np.array(a) for a in live.arrays(Ref("trivial"))]

    module = export(spec, tmp_path / "policies_aug.py")
    source = module.read_text()
    assert "from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment" in source
    assert "@pipeline_def(enable_conditionals=True)" in source
    plan = session.plan
    seeds = {node: plan.node_step(node).seed for node in ("auto", "rand", "trivial")}
    flat = " ".join(source.split()).replace("( ", "(").replace(" )", ")")
    # every seed goes through rank_seed, so that each torchrun rank draws its own values
    assert (
        "auto = independent_draws(auto_augment.auto_augment, small, "
        f'policy_name="svhn", shape=shapes, seed=rank_seed({seeds["auto"]}, rank)' in flat
    ), source
    assert (
        "if rand_apply: rand = independent_draws(rand_augment.rand_augment, auto, n=3, m=17,"
        in flat
    ), flat

    job = {
        "name": "policies",
        "module": str(module),
        "out": str(tmp_path / "policies.npz"),
        "batch_size": BATCH,
        "data": str(tiny_folder),
        "device": "cpu",
    }
    exported = run_exported([job], tmp_path)["policies"]
    for sample, want in enumerate(expected):
        np.testing.assert_array_equal(exported[f"0_{sample}"], want)

    np.testing.assert_array_equal(np.stack(plain_dali(session, seeds)), np.stack(expected))


def plain_dali(session: Session, seeds: dict[str, int | None]) -> list[np.ndarray]:
    """The same graph written by hand, as a DALI user would, with the plan's seeds, each policy
    called through independent_draws (as the exported module calls it)."""
    from nvidia.dali import fn, pipeline_def, types
    from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment

    from augexplorer.policy_seeds import independent_draws

    files = [
        str(path) for path in sorted(Path(session.plan.spec.sources()[0].path or "").rglob("*.jpg"))
    ]
    apply_seed = session.plan.step("rand_apply").seed

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, enable_conditionals=True)
    def by_hand():  # type: ignore[no-untyped-def]
        jpegs, _ = fn.readers.file(files=files, random_shuffle=False)
        shapes = fn.peek_image_shape(jpegs)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
        images = independent_draws(
            auto_augment.auto_augment, images, policy_name="svhn", shape=shapes, seed=seeds["auto"]
        )
        if fn.random.coin_flip(probability=0.7, dtype=types.BOOL, seed=apply_seed):
            images = independent_draws(
                rand_augment.rand_augment,
                images,
                n=3,
                m=17,
                interp_type=types.INTERP_NN,
                fill_value=0,
                seed=seeds["rand"],
            )
        return independent_draws(
            trivial_augment.trivial_augment_wide,
            images,
            num_magnitude_bins=11,
            excluded=["identity", "equalize"],
            seed=seeds["trivial"],
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = by_hand()
        pipe.build()
    (images,) = pipe.run()
    return [np.array(images.at(i)) for i in range(BATCH)]


# ---- presets and profiles ---------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW_PRESETS)
def test_policy_presets_validate_and_run(name: str, tiny_folder: Path) -> None:
    session = Session(name, str(tiny_folder), batch_size=2)
    result = session.run()
    assert session.plan.node_step("augment").op.startswith("auto_aug.")
    assert "augment" in result.ran() and result.node_times()["augment"] > 0
    assert "auto_aug." in generate(preset(name))


def test_profile_times_a_policy_node(tiny_folder: Path) -> None:
    spec = policy_graph(tiny_folder)
    found = profile(spec, repeats=1, warmup=0)
    assert {"auto", "rand", "trivial"} <= set(found.nodes)
    assert found.fused_ms > 0
