"""torchvision's AutoAugment policies as a graph node (``auto_aug.torchvision_auto_augment``):
the catalog record, the live engine, and the exported module, which carries the policy's source
and draws the engine's very pixels."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from exported_checks import check_module
from exported_runner import run_exported
from PIL import Image
from port_parity import ported, run, sample_images

from augexplorer import GraphSpec, Node, Ref, Session, Source
from augexplorer import auto_aug_torchvision as carried
from augexplorer.catalog import Catalog
from augexplorer.engine import policy_draws
from augexplorer.errors import GraphInvalid
from augexplorer.export import export
from augexplorer.export.auto_aug_source import CARRIED_NAMES
from augexplorer.export.importer import import_graph
from augexplorer.validate import validate

OP = "auto_aug.torchvision_auto_augment"
BATCH = 4
SIZE = 40.0


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny")
    rng = np.random.default_rng(1)
    for index in range(4):
        folder = root / ("a" if index % 2 else "b")
        folder.mkdir(exist_ok=True)
        pixels = rng.integers(0, 255, (50, 70, 3), dtype=np.uint8)
        pixels[10:40, 15:50] = (210, 50 + 40 * index, 20)
        Image.fromarray(pixels).save(folder / f"{index}.jpg", quality=90)
    return root


def policy_graph(folder: Path, policy: str, **args: object) -> GraphSpec:
    nodes = (
        Source("source", "folder", str(folder), shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": SIZE, "resize_y": SIZE}),
        Node("augment", OP, (Ref("small"),), {"policy_name": policy, **args}),
    )
    return GraphSpec(nodes, {"images": Ref("augment"), "labels": Ref("source", 1)}, BATCH)


def test_the_catalog_offers_torchvisions_three_policies(catalog: Catalog) -> None:
    info = catalog[OP]
    assert info.random and info.category == "auto_aug" and info.available
    args = info.arg_index
    assert args["policy_name"].choices == ("imagenet", "cifar10", "svhn")
    assert args["policy_name"].default == "imagenet"
    assert args["fill_value"].default == 0  # torchvision's fill
    assert args["shape"].per_sample  # a node may give each image's size


def test_every_policy_holds_torchvisions_25_sub_policies_of_two_stages() -> None:
    for name, table in carried.TORCHVISION_POLICIES.items():
        policy = carried.torchvision_policy(name)
        assert policy.num_magnitude_bins == 10
        assert len(policy.sub_policies) == 25 and len(table) == 25
        for stages, written in zip(policy.sub_policies, table, strict=True):
            for (aug, probability, magnitude_bin), (_op, p, b) in zip(stages, written, strict=True):
                assert (probability, magnitude_bin) == (p, b)
                assert (aug.mag_range is None) == (b is None), (name, aug.name)


def test_shape_given_to_a_policy_that_does_not_translate_is_named(tiny_folder: Path) -> None:
    spec = policy_graph(tiny_folder, "imagenet", shape=[40, 40])
    with pytest.raises(GraphInvalid) as raised:
        validate(spec)
    (problem,) = raised.value.for_node("augment")
    assert problem.argument == "shape" and "no translation" in problem.message
    validate(policy_graph(tiny_folder, "cifar10", shape=[40, 40]))  # cifar10 translates


@pytest.mark.parametrize("policy", ["imagenet", "svhn"])
def test_exported_module_carries_the_policy_and_draws_the_engine_values(
    policy: str, tiny_folder: Path, tmp_path: Path
) -> None:
    spec = policy_graph(tiny_folder, policy)
    session = Session(spec, device_id=None)
    live = session.run()
    expected = [np.array(a) for a in live.arrays(Ref("augment"))]
    small = [np.array(a) for a in live.arrays(Ref("small"))]
    assert all(a.shape == (SIZE, SIZE, 3) and a.dtype == np.uint8 for a in expected)
    assert any(not np.array_equal(a, b) for a, b in zip(expected, small, strict=True))

    module = export(spec, tmp_path / f"{policy}_aug.py")
    source = module.read_text()
    check_module(source, spec)  # only the template's calls, catalog operators and carried code
    config = Path(__file__).parents[1] / "pyproject.toml"
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", str(config), str(module)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    tree = ast.parse(source)
    defined = {
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.ClassDef)
    } | {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    for function in carried.CARRIED:
        name = getattr(function, "op", function).__name__
        assert name in defined and name in CARRIED_NAMES
    assert set(carried.CARRIED_CONSTANTS) <= defined
    seed = session.plan.node_step("augment").seed
    flat = " ".join(source.split()).replace("( ", "(").replace(" )", ")")
    assert (
        f'augment = torchvision_auto_augment(small, policy_name="{policy}", '
        f"seed=rank_seed({seed}, rank))" in flat
    ), flat

    job = {
        "name": policy,
        "module": str(module),
        "out": str(tmp_path / f"{policy}.npz"),
        "batch_size": BATCH,
        "data": str(tiny_folder),
        "device": "cpu",
    }
    exported = run_exported([job], tmp_path)[policy]
    for sample, want in enumerate(expected):
        np.testing.assert_array_equal(exported[f"0_{sample}"], want)


# ---- the port and its draws against torchvision -----------------------------------------------


@pytest.mark.parametrize(
    ("code", "args"),
    [
        ("T.AutoAugment()", {"policy_name": "imagenet"}),
        (
            "T.AutoAugment(T.AutoAugmentPolicy.CIFAR10, fill=7)",
            {"policy_name": "cifar10", "fill_value": 7},
        ),
    ],
)
def test_torchvisions_auto_augment_ports_to_the_node(
    code: str, args: dict[str, object], tmp_path: Path
) -> None:
    result = ported(code, sample_images(2), tmp_path)
    (node,) = [n for n in result.spec.nodes if isinstance(n, Node) and n.op == OP]
    assert node.args == {**args, "interp_type": "INTERP_NN"}
    images = run(result)
    assert len(images) == 2 and all(image.dtype == np.uint8 for image in images)


DRAWS = 1000
POLICIES = ["imagenet", "cifar10"]
# torchvision's own draws (AutoAugment.get_params) for DRAWS images, for each policy named (each
# seeded alike on its own): the sub-policy and whether each of its two stages ran
TORCHVISION_DRAWS = textwrap.dedent(
    """
    import json, sys, torch
    from torchvision.transforms import autoaugment

    found = {}
    for name in sys.argv[2:]:
        torch.manual_seed(0)
        policy = autoaugment.AutoAugment(autoaugment.AutoAugmentPolicy[name.upper()])
        draws = []
        for _ in range(int(sys.argv[1])):
            chosen, probs, _signs = policy.get_params(len(policy.policies))
            stages = policy.policies[chosen]
            draws.append([chosen, *(bool(probs[i] <= p) for i, (_op, p, _b) in enumerate(stages))])
        found[name] = draws
    print(json.dumps(found))
    """
)


@pytest.fixture(scope="module")
def torchvision_draws(reference_python: str) -> dict[str, list[tuple[int, bool, bool]]]:
    """torchvision's draws for each policy, from one run of the reference."""
    printed = subprocess.run(
        [reference_python, "-c", TORCHVISION_DRAWS, str(DRAWS), *POLICIES],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        policy: [(int(s), bool(a), bool(b)) for s, a, b in draws]
        for policy, draws in json.loads(printed).items()
    }


def our_draws(tiny_folder: Path, policy: str) -> list[tuple[int, bool, bool]]:
    """What the node drew for DRAWS images (the sub-policy and whether each stage ran), read
    from the policy's recorded draws (:mod:`augexplorer.engine.policy_draws`)."""
    step = Session(policy_graph(tiny_folder, policy), device_id=None).plan.node_step("augment")
    probe = policy_draws.PolicyProbe(step, DRAWS)
    rng = np.random.default_rng(2)
    _pixels, calls = probe.run([rng.integers(0, 255, (8, 8, 3), dtype=np.uint8)] * DRAWS)
    found = []
    for said in probe.describe(calls):
        head, stages = said.split(": ", 1)
        ran = [not stage.startswith("not ") for stage in stages.split(", ")]
        found.append((int(head.removeprefix("sub-policy ")), ran[0], ran[1]))
    return found


@pytest.mark.parametrize("policy", POLICIES)
def test_the_node_draws_sub_policies_and_stages_as_torchvision_does(
    policy: str, tiny_folder: Path, torchvision_draws: dict[str, list[tuple[int, bool, bool]]]
) -> None:
    from scipy.stats import chi2_contingency

    theirs = torchvision_draws[policy]
    ours = our_draws(tiny_folder, policy)
    table = carried.TORCHVISION_POLICIES[policy]

    def sub_policy_counts(draws: list[tuple[int, bool, bool]]) -> list[int]:
        return [sum(d[0] == k for d in draws) for k in range(len(table))]

    # which sub-policy: one of 25, evenly, on both sides (seeded on both: the same p each run)
    assert chi2_contingency([sub_policy_counts(ours), sub_policy_counts(theirs)]).pvalue > 0.01

    def runs_by_probability(draws: list[tuple[int, bool, bool]]) -> dict[float, list[int]]:
        counts: dict[float, list[int]] = {}
        for sub, *ran in draws:
            for (_op, p, _b), did in zip(table[sub], ran, strict=True):
                counts.setdefault(p, [0, 0])[0 if did else 1] += 1
        return counts

    mine, other = runs_by_probability(ours), runs_by_probability(theirs)
    assert mine.get(0.0, [0, 0])[0] == 0 and mine.get(1.0, [0, 0])[1] == 0
    # each stage runs with its probability: the run rates of every probability level compared
    for p in sorted(set(mine) & set(other) - {0.0, 1.0}):
        if min(sum(mine[p]), sum(other[p])) >= 40:
            assert chi2_contingency([mine[p], other[p]]).pvalue > 0.001, (p, mine[p], other[p])


def test_an_exported_module_run_and_traced_imports_its_policies_back(
    tiny_folder: Path, tmp_path: Path
) -> None:
    """Read from the pipeline the module builds (its GRAPH literal hidden): the torchvision
    node, and a DALI policy called through independent_draws, come back as the same nodes
    drawing the same pixels."""
    nodes = (
        Source("source", "folder", str(tiny_folder), shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("tv", OP, (Ref("decode"),), {"policy_name": "svhn"}),
        Node("rand", "auto_aug.rand_augment", (Ref("tv"),), {"n": 2, "m": 9}),
    )
    spec = GraphSpec(nodes, {"images": Ref("rand"), "labels": Ref("source", 1)}, BATCH)
    module = export(spec, tmp_path / "traced_aug.py")
    module.write_text(module.read_text().replace("\nGRAPH = ", "\nGRAPH_AS_WRITTEN = "))
    files = sorted(str(path) for path in tiny_folder.rglob("*.jpg"))
    params = {"files": files, "labels": [0] * len(files), "batch_size": BATCH}
    graph = import_graph(module, run_file=True, params=params)
    policies = {
        node.op: node.args
        for node in graph.nodes
        if isinstance(node, Node) and node.op.startswith("auto_aug.")
    }
    assert policies == {
        OP: {"policy_name": "svhn"},
        "auto_aug.rand_augment": {"n": 2, "m": 9, "independent_draws": True},
    }
    want = Session(spec, device_id=None).run().arrays(Ref("rand"))
    got = Session(graph, device_id=None).run().arrays(graph.outputs["images"])
    for ours, theirs in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.array(ours), np.array(theirs))
