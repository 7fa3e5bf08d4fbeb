"""A group's transforms given as torch's containers (``RandomApply(torch.nn.ModuleList([...]))``,
torchvision's documented scriptable form, or ``nn.Sequential``) are read as the transforms they
hold, live and in a source file; a group whose transforms cannot be read is refused with its
reason, and no coin or pick is left in the graph that gates nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from live_walk_run import walked

from augexplorer.port.door import port_call, port_file
from augexplorer.port.live import call_from_tree
from augexplorer.port.model import PortResult
from augexplorer.spec import Clause, Node, Ref, dumps, loads
from augexplorer.validate import validate

REPO = Path(__file__).resolve().parents[1]

LIST = "T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8)"
MODULE_LIST = "T.RandomApply(torch.nn.ModuleList([T.ColorJitter(0.4, 0.4, 0.4, 0.1)]), p=0.8)"
SEQUENTIAL = "T.RandomApply(nn.Sequential(T.ColorJitter(0.4, 0.4, 0.4, 0.1)), p=0.8)"
# nn.Sequential's named form
NAMED = (
    "T.RandomApply(nn.Sequential(OrderedDict([('jitter', T.ColorJitter(0.4, 0.4, 0.4, 0.1))])),"
    " p=0.8)"
)


def _pipeline(group: str) -> str:
    return (
        "from collections import OrderedDict\n"
        "import torch\n"
        "from torch import nn\n"
        "import torchvision.transforms as T\n"
        f"t = T.Compose([T.RandomResizedCrop(224), {group}])\n"
    )


def _calls(result: PortResult) -> list[tuple[str, str, dict[str, Any], tuple[Clause, ...]]]:
    """The graph's operators as (id, op, arguments, condition), seeds left out."""
    nodes = result.spec.unseeded().nodes
    return [(n.id, n.op, dict(n.args), n.when) for n in nodes if isinstance(n, Node)]


def _gated_by_coin(result: PortResult) -> None:
    """The RandomApply's coin is there, with its p, and the ColorJitter's image nodes run only
    where it fell true."""
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert not result.spec.not_ported
    coin = result.spec.node("random_apply")
    assert isinstance(coin, Node)
    assert (coin.op, coin.args["probability"]) == ("random.coin_flip", 0.8)
    jitter = [
        n
        for n in result.spec.operators()
        if n.origin is not None and n.origin.transform.startswith("ColorJitter")
    ]
    gated = [n.id for n in jitter if Clause(Ref("random_apply")) in n.when]
    assert {"brightness", "contrast", "saturation", "hue"} <= set(gated), gated
    assert [s.call.name for s in result.steps] == [
        "RandomResizedCrop",
        "RandomApply",
        "ColorJitter",
    ]
    validate(result.spec)


# ---- a source file ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "group", [MODULE_LIST, SEQUENTIAL, NAMED], ids=["ModuleList", "Sequential", "named"]
)
def test_a_module_list_in_a_file_is_read_as_the_list_it_holds(group: str, tmp_path: Path) -> None:
    held = tmp_path / "held.py"
    held.write_text(_pipeline(group))
    listed = tmp_path / "listed.py"
    listed.write_text(_pipeline(LIST))
    result = port_file(held)
    _gated_by_coin(result)
    assert _calls(result) == _calls(port_file(listed))  # the same graph as the list's


def test_aliases_of_torch_nn_are_followed(tmp_path: Path) -> None:
    path = tmp_path / "aliased.py"
    path.write_text(
        "import torch.nn as tnn\n"
        "from torch.nn import ModuleList\n"
        "from torchvision import transforms\n"
        "t = transforms.Compose([\n"
        "    transforms.RandomResizedCrop(224),\n"
        "    transforms.RandomApply(ModuleList([transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)]),"
        " p=0.8),\n"
        "    transforms.RandomChoice(tnn.ModuleList([transforms.Grayscale(3)])),\n"
        "])\n"
    )
    result = port_file(path)
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert [s.call.name for s in result.steps][1:3] == ["RandomApply", "ColorJitter"]
    assert "RandomChoice" in [s.call.name for s in result.steps]
    grey = result.spec.node("grayscale")
    assert isinstance(grey, Node) and grey.when, "the pick gates the Grayscale"


# ---- what cannot be read -----------------------------------------------------------------------


def _no_node_gates_nothing(result: PortResult) -> None:
    """Every coin, pick and test on a pick is read by some node."""
    read = {
        ref.node
        for node in result.spec.operators()
        for ref in (
            *node.inputs,
            *(c.ref for c in node.when),
            *(v for v in node.args.values() if isinstance(v, Ref)),
        )
    }
    for node in result.spec.operators():
        if node.op in ("random.coin_flip", "random.choice") or "_is_" in node.id:
            assert node.id in read, f"{node.id} gates nothing"


def test_a_group_whose_transforms_cannot_be_read_is_refused_with_its_reason(
    tmp_path: Path,
) -> None:
    path = tmp_path / "made.py"
    path.write_text(
        "import torchvision.transforms as T\n"
        "t = T.Compose([\n"
        "    T.RandomResizedCrop(224),\n"
        "    T.RandomApply(make_jitter(), p=0.8),\n"
        "    T.RandomApply([T.Lambda(lambda x: x)], p=0.5),\n"
        "    T.RandomChoice([T.Grayscale(3), T.Lambda(lambda x: x)]),\n"
        "    T.RandomApply([T.ColorJitter(0.4)], p=P),\n"
        "])\n"
    )
    result = port_file(path)
    said = [r.describe() for r in result.refusals]
    # a RandomApply holding nothing ported is refused itself, before what it holds: it was in
    # neither list, so the listing hid a transform of the file
    emptied = "none of the transforms it holds could be ported"
    assert said[0].startswith("line 4: RandomApply([make_jitter], p=0.8) not ported: " + emptied)
    assert said[1].startswith("line 4: make_jitter() not ported: ")
    assert "custom class or function" in said[1]
    assert said[2].startswith("line 5: RandomApply([Lambda], p=0.5) not ported: " + emptied)
    assert said[3].startswith("line 5: Lambda(lambda x: x) not ported: ")
    assert said[4].startswith("line 6: Lambda(lambda x: x) not ported: ")
    # a p known only at run time: refused with the fix, where it failed the whole port before
    assert said[5].startswith("line 7: RandomApply([ColorJitter], p=P) not ported: p=P is known")
    assert "--param P=VALUE" in said[5]
    assert len(said) == 6
    # the RandomApply that holds nothing ported is no step, its coin is gone; the pick keeps
    # only what the Grayscale reads
    names = [s.call.name for s in result.steps]
    assert names == ["RandomResizedCrop", "RandomChoice", "Grayscale"]
    _no_node_gates_nothing(result)
    assert "random_choice_is_1" not in result.spec
    assert len(result.spec.not_ported) == 6
    validate(result.spec)


def _live(tree_children: list[dict[str, Any]]) -> PortResult:
    module = "torchvision.transforms.transforms"
    tree = {"module": module, "name": "Compose", "kwargs": {}, "children": tree_children}
    return port_call(call_from_tree(tree))


def test_a_live_group_holding_something_unread_is_refused_and_leaves_no_coin() -> None:
    module = "torchvision.transforms.transforms"
    crop = {"module": module, "name": "CenterCrop", "kwargs": {"size": [8, 8]}, "children": []}
    # what live_walk gives where the transforms are held in something it cannot walk
    held = {"unknown": "ModuleDict(\n  (a): ColorJitter(brightness=(0.6, 1.4))\n)"}
    apply = {
        "module": module,
        "name": "RandomApply",
        "kwargs": {"transforms": held, "p": 0.8},
        "children": [],
    }
    result = _live([crop, apply])
    assert [s.call.name for s in result.steps] == ["CenterCrop"]
    (refusal,) = result.refusals
    said = refusal.describe()
    assert said.startswith("RandomApply(transforms=ModuleDict( (a): ColorJitter(")
    assert "could not be read as a sequence of transforms" in said
    assert "\n" not in said  # the module's repr on one line
    assert not [n for n in result.spec.operators() if n.op == "random.coin_flip"]
    (kept,) = loads(dumps(result.spec)).not_ported
    assert kept.transform.startswith("RandomApply(") and "could not be read" in kept.reason


def test_an_empty_group_adds_no_coin() -> None:
    module = "torchvision.transforms.transforms"
    apply = {"module": module, "name": "RandomApply", "kwargs": {"p": 0.5}, "children": []}
    result = _live([apply])
    assert not result.refusals
    assert not [n for n in result.spec.operators() if n.op == "random.coin_flip"]


# ---- the live objects (real torchvision, in the reference environment) -------------------------

LIVE = textwrap.dedent(
    """
    import importlib.util, json, sys
    from collections import OrderedDict
    spec = importlib.util.spec_from_file_location("live_walk", sys.argv[1])
    walk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk)
    import torch
    import torchvision.transforms as T
    import torchvision.transforms.v2 as v2

    def jitter():
        return T.ColorJitter(0.4, 0.4, 0.4, 0.1)

    pipelines = {
        "list": T.Compose([T.RandomResizedCrop(224), T.RandomApply([jitter()], p=0.8)]),
        "module_list": T.Compose(
            [T.RandomResizedCrop(224), T.RandomApply(torch.nn.ModuleList([jitter()]), p=0.8)]
        ),
        "sequential": T.Compose(
            [T.RandomResizedCrop(224), T.RandomApply(torch.nn.Sequential(jitter()), p=0.8)]
        ),
        "named": T.Compose(
            [T.RandomResizedCrop(224),
             T.RandomApply(torch.nn.Sequential(OrderedDict([("jitter", jitter())])), p=0.8)]
        ),
        "v2": v2.Compose(
            [v2.RandomResizedCrop(224),
             v2.RandomApply(torch.nn.ModuleList([v2.ColorJitter(0.4, 0.4, 0.4, 0.1)]), p=0.8)]
        ),
        "module_dict": T.Compose(
            [T.RandomResizedCrop(224),
             T.RandomApply(torch.nn.ModuleDict({"jitter": jitter()}), p=0.8)]
        ),
        "alone": T.RandomApply(torch.nn.ModuleList([jitter()]), p=0.8),
    }
    print(json.dumps({name: walk.describe(t) for name, t in pipelines.items()}))
    """
)


@pytest.fixture(scope="module")
def live_trees(reference_python: str) -> dict[str, Any]:
    trees: dict[str, Any] = walked(reference_python, LIVE)
    return trees


@pytest.mark.parametrize("name", ["module_list", "sequential", "named", "v2"])
def test_a_live_module_list_is_read_as_the_transforms_it_holds(
    name: str, live_trees: dict[str, Any]
) -> None:
    result = port_call(call_from_tree(live_trees[name]))
    _gated_by_coin(result)
    assert _calls(result) == _calls(port_call(call_from_tree(live_trees["list"])))


def test_a_live_module_dict_is_refused_not_left_as_an_empty_coin(
    live_trees: dict[str, Any],
) -> None:
    result = port_call(call_from_tree(live_trees["module_dict"]))
    (refusal,) = result.refusals
    assert refusal.call.name == "RandomApply"
    assert "could not be read as a sequence of transforms" in refusal.reason
    assert not [n for n in result.spec.operators() if n.op == "random.coin_flip"]
    assert [s.call.name for s in result.steps] == ["RandomResizedCrop"]
    assert "1 not ported" in result.summary()


def test_a_live_group_given_as_the_whole_pipeline_keeps_its_coin(
    live_trees: dict[str, Any],
) -> None:
    result = port_call(call_from_tree(live_trees["alone"]))
    assert not result.refusals
    coin = result.spec.node("random_apply")
    assert isinstance(coin, Node) and coin.args["probability"] == 0.8
    brightness = result.spec.node("brightness")
    assert isinstance(brightness, Node) and Clause(Ref("random_apply")) in brightness.when
