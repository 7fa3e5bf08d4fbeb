"""Under torchrun each rank draws its own values: the exported module derives every seed from the
graph's and the rank (rank 0 drawing what the explorer shows), and the explorer previews any
rank's batch with the same rule."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from augexplorer import GraphSpec, Node, Random, Ref, Session, Source
from augexplorer.engine.ranks import RankError, plan_for_rank
from augexplorer.export import export
from augexplorer.spec.seeds import rank_seed

BATCH = 4
WORLD = 2


def rank_graph() -> GraphSpec:
    """A shuffled read, an angle drawn by a node of its own (so the loader hands it over), a
    rotation by it and a coin-flipped flip: every kind of seed a module writes."""
    nodes = (
        Source("source", shuffle=True, seed=7),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 32.0, "resize_y": 24.0}),
        Node("angle", "random.uniform", args={"range": [-40.0, 40.0]}),
        Node("rotate", "rotate", (Ref("small"),), {"angle": Ref("angle"), "keep_size": True}),
        Node("flip", "flip", (Ref("rotate"),), {"horizontal": Random.coin_flip(0.5)}),
    )
    outputs = {"images": Ref("flip"), "angle": Ref("angle"), "labels": Ref("source", 1)}
    return GraphSpec(nodes, outputs, batch_size=BATCH)


# Each rank a fresh process, as torchrun starts them: RANK and WORLD_SIZE in the environment,
# the first two batches of make_loader (on the CPU) saved, the second as next_<output>.
RANK_RUNNER = textwrap.dedent(
    """
    import importlib.util, sys
    import numpy as np

    spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert "augexplorer" not in sys.modules
    loader = module.make_loader(device="cpu", num_threads=1)
    first, second = next(loader)[0], next(loader)[0]
    saved = {name: first[name].numpy() for name in module.OUTPUTS}
    saved.update({"next_" + name: second[name].numpy() for name in module.OUTPUTS})
    np.savez(sys.argv[2], **saved)
    """
)


@pytest.fixture(scope="module")
def ranks(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, np.ndarray]]:
    """The first batch of each of two ranks of the exported module, each in its own process."""
    tmp = tmp_path_factory.mktemp("ranks")
    module = export(rank_graph(), tmp / "rank_aug.py")
    (tmp / "runner.py").write_text(RANK_RUNNER)
    found = {}
    for rank in range(WORLD):
        env = {**os.environ, "RANK": str(rank), "WORLD_SIZE": str(WORLD), "LOCAL_RANK": "0"}
        out = tmp / f"rank{rank}.npz"
        subprocess.run(
            [sys.executable, str(tmp / "runner.py"), str(module), str(out)],
            check=True,
            cwd=tmp,
            env=env,
            timeout=240,
        )
        found[rank] = dict(np.load(out))
    return found


def explorer_batch(
    rank: int, world_size: int | None = WORLD, device_id: int | str | None = None
) -> dict[str, list[np.ndarray]]:
    session = Session(rank_graph(), device_id=device_id, rank=rank, world_size=world_size)
    result = session.run()
    return {name: result.arrays(ref) for name, ref in session.plan.outputs.items()}


def assert_same_batch(module: dict[str, np.ndarray], live: dict[str, list[np.ndarray]]) -> None:
    for name, arrays in live.items():
        for sample, array in enumerate(arrays):
            np.testing.assert_array_equal(module[name][sample], np.asarray(array), err_msg=name)


def test_each_rank_draws_its_own_values(ranks: dict[int, dict[str, np.ndarray]]) -> None:
    first, second = (ranks[rank]["angle"].reshape(-1) for rank in range(WORLD))
    assert len(first) == len(second) == BATCH
    # no k-th sample of one rank rotates by the angle of the other's
    assert not np.any(np.isclose(first, second)), (first, second)


def test_rank_zero_draws_what_the_explorer_shows(ranks: dict[int, dict[str, np.ndarray]]) -> None:
    assert_same_batch(ranks[0], explorer_batch(0))


def test_the_explorers_preview_of_rank_one_is_rank_ones_batch(
    ranks: dict[int, dict[str, np.ndarray]],
) -> None:
    assert_same_batch(ranks[1], explorer_batch(1))


def test_the_next_batch_of_a_previewed_rank_is_that_ranks_second_batch(
    ranks: dict[int, dict[str, np.ndarray]],
) -> None:
    """Its random operators' state moves on from batch to batch, as on that rank."""
    session = Session(rank_graph(), device_id=None, rank=1, world_size=WORLD)
    session.run()
    result = session.next_batch()
    second = {
        name[len("next_") :]: values
        for name, values in ranks[1].items()
        if name.startswith("next_")
    }
    assert_same_batch(
        second, {name: result.arrays(ref) for name, ref in session.plan.outputs.items()}
    )
    assert not np.allclose(second["angle"], ranks[1]["angle"]), "a new batch draws anew"


def test_a_session_switches_rank_and_back() -> None:
    session = Session(rank_graph(), device_id=None)
    own = session.run().arrays(Ref("angle"))
    other = session.set_rank(1).arrays(Ref("angle"))  # the graph's own shard, rank 1's draws
    assert not np.allclose(np.asarray(own), np.asarray(other))
    assert session.set_rank(0).arrays(Ref("angle")) == own
    assert session.spec == rank_graph(), "a preview of a rank leaves the graph as it is"


def test_one_rule_for_every_seed_and_rank_zero_keeps_the_graphs() -> None:
    session = Session(rank_graph(), device_id=None)
    plan = session.plan
    assert plan_for_rank(plan, 0) is plan
    shifted = plan_for_rank(plan, 3, 4)
    for before, after in zip(plan.steps, shifted.steps, strict=True):
        if before.seed is None:
            assert after.seed is None
        else:
            assert after.seed == rank_seed(before.seed, 3) != before.seed
    source = shifted.step("source").source
    assert source is not None and source.reader_args == {"shard_id": 3, "num_shards": 4}


def test_the_module_carries_the_rule_and_writes_every_seed_through_it(tmp_path: Path) -> None:
    text = export(rank_graph(), tmp_path / "aug.py").read_text()
    plan = Session(rank_graph(), device_id=None).plan
    seeds = [step.seed for step in plan.steps if step.seed is not None]
    assert len(seeds) == 3  # the reader's shuffle, the angle node, the flip's coin
    for seed in seeds:
        assert f"seed=rank_seed({seed}, rank)" in text
    assert "seed=" not in text.replace("seed=rank_seed(", ""), "a seed written as it is"
    assert "rank=shard_id" in text


@pytest.mark.parametrize(
    ("rank", "world_size", "named"),
    [
        (-1, None, "rank"),
        (2, 2, "rank 2"),
        (0, 0, "world_size"),
        (True, None, "rank"),
        ("1", 2, "rank"),
    ],
)
def test_a_rank_no_job_has_is_refused_and_changes_nothing(
    rank: Any, world_size: Any, named: str
) -> None:
    session = Session(rank_graph(), device_id=None)
    before = session.plan
    with pytest.raises(RankError, match=named) as raised:
        session.set_rank(rank, world_size)
    assert "(fix:" in str(raised.value)
    assert session.plan is before and (session.rank, session.world_size) == (0, None)
    with pytest.raises(RankError):
        Session(rank_graph(), device_id=None, rank=rank, world_size=world_size)


def test_rank_seeds_are_stable_across_processes() -> None:
    """The rule must not depend on Python's hash seed: a rank in another process draws the same."""
    code = "from augexplorer.spec.seeds import rank_seed; print(rank_seed(1786384669, 1))"
    printed = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "123"},
    ).stdout
    assert json.loads(printed) == rank_seed(1786384669, 1) != 1786384669


def test_the_panels_rank_boxes_preview_a_rank_and_refuse_one_the_job_lacks(
    tmp_path: Path,
) -> None:
    from augexplorer_widgets import Explorer

    panel = Explorer(rank_graph(), autosave=tmp_path / "autosave.json")
    panel.flush()
    bar, session = panel.toolbar, panel.controller.session
    assert (session.rank, session.world_size) == (0, None)
    bar.world.value = "2"
    bar.rank.value = "1"
    panel.flush()
    assert (session.rank, session.world_size) == (1, 2)
    assert "ax-rank-other" in bar.rank._dom_classes
    shown = panel.state.result
    assert shown is not None
    want = explorer_batch(1, device_id="auto")  # where the panel runs
    for name, ref in shown.plan.outputs.items():
        for sample, array in enumerate(shown.arrays(ref)):
            np.testing.assert_array_equal(np.asarray(array), np.asarray(want[name][sample]))
    assert panel.state.spec == rank_graph(), "the graph and its history stay as they were"
    bar.rank.value = "2"  # no process of a job of 2
    panel.flush()
    # said under the bar as a refused batch size is, the box outlined, the text kept
    said = bar.rank_message.value
    assert "Not applied: rank 2 is no process of a job of 2" in said, said
    assert "The grid stays on rank 1 of 2." in said and bar.rank_message.layout.display == ""
    assert "ax-input-refused" in bar.rank._dom_classes and bar.rank.value == "2"
    assert (session.rank, session.world_size) == (1, 2), "the last rank stays previewed"
    bar.world.value = "1.5"  # the job size at fault now: its box is outlined instead
    assert "'1.5' is not a whole number" in html.unescape(bar.rank_message.value)
    assert "ax-input-refused" in bar.world._dom_classes
    assert "ax-input-refused" not in bar.rank._dom_classes
    bar.world.value = "1"
    bar.rank.value = "0"
    panel.flush()
    assert (session.rank, session.world_size) == (0, None)
    assert "ax-rank-other" not in bar.rank._dom_classes
    assert bar.rank_message.value == "" and bar.rank_message.layout.display == "none"
    assert "ax-input-refused" not in bar.world._dom_classes
