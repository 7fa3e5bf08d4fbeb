"""What you tune is what you train: the explorer (a live Session), the exported module and a
hand-built DALI pipeline agree on random draws, class lists and labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import run_exported
from nvidia.dali import fn, pipeline_def, types

from augexplorer import GraphSpec, Node, Random, Ref, Session, Source
from augexplorer.data import samples_dir
from augexplorer.export import export

BATCH = 8
ANGLES = (0.0, 90.0, 180.0)
WEIGHTS = (0.6, 0.3, 0.1)


def weighted_rotation_graph() -> GraphSpec:
    """Decoded samples rotated by an angle drawn from a weighted choice."""
    nodes = (
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 32.0, "resize_y": 24.0}),
        Node("rotate", "rotate", (Ref("small"),), {"angle": Random.choice(ANGLES, p=WEIGHTS)}),
    )
    return GraphSpec(nodes, {"images": Ref("rotate"), "labels": Ref("source", 1)}, batch_size=BATCH)


def hand_built_rotation(seed: int) -> tuple[list[np.ndarray], list[float]]:
    """The same graph written with DALI alone: images and the angles drawn."""

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None)
    def hand() -> tuple[Any, ...]:
        jpegs, _ = fn.readers.file(file_root=str(samples_dir()), random_shuffle=False)
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=32.0, resize_y=24.0)
        angle = fn.random.choice(
            types.Constant(list(ANGLES), dtype=types.FLOAT), p=list(WEIGHTS), seed=seed
        )
        return fn.rotate(images, angle=angle), angle

    pipe = hand()
    pipe.build()
    images, angles = pipe.run()
    return (
        [np.array(images.at(i)) for i in range(BATCH)],
        [float(np.array(angles.at(i))) for i in range(BATCH)],
    )


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, np.ndarray]]:
    """Each graph of this file exported and run (one batch) in one fresh process."""
    tmp = tmp_path_factory.mktemp("divergence")
    graphs = {"weighted_choice": weighted_rotation_graph()}
    jobs = [
        {
            "name": name,
            "module": str(export(spec, tmp / f"{name}_aug.py")),
            "out": str(tmp / f"{name}.npz"),
            "batch_size": spec.batch_size,
            "device": "cpu",
        }
        for name, spec in graphs.items()
    ]
    return run_exported(jobs, tmp)


# ---- weighted choices ---------------------------------------------------------------------------


def test_weighted_choice_draws_agree_with_export_and_dali(exported: dict[str, Any]) -> None:
    session = Session(weighted_rotation_graph(), device_id=None)
    result = session.run()
    drawn = result.draws("rotate")["rotate"]["angle"]
    seed = session.plan.step("rotate_angle").seed
    assert seed is not None
    hand_images, hand_angles = hand_built_rotation(seed)
    assert drawn == hand_angles
    assert len(set(drawn)) > 1, "the batch should show more than one angle"
    live_images = result.arrays(Ref("rotate"))
    for sample in range(BATCH):
        np.testing.assert_array_equal(live_images[sample], hand_images[sample])
        np.testing.assert_array_equal(
            exported["weighted_choice"][f"0_{sample}"], hand_images[sample]
        )


def test_weighted_choice_follows_its_weights() -> None:
    draws = 4000
    images = [np.zeros((1, 1, 3), np.uint8)] * draws
    spec = GraphSpec(
        (
            Source("source", "arrays"),
            Node(
                "flip",
                "flip",
                (Ref("source"),),
                {"horizontal": Random.choice([0, 1], p=[0.9, 0.1])},
            ),
        ),
        {"images": Ref("flip")},
        batch_size=draws,
    )
    flips = Session(spec, data=images, device_id=None).run().draws("flip")["flip"]["horizontal"]
    assert len(flips) == draws and set(flips) <= {0, 1}
    # 400 expected; 5 standard deviations (about 95) either side. Uniform draws would give 2000.
    mean, spread = draws * 0.1, 5 * (draws * 0.1 * 0.9) ** 0.5
    assert mean - spread < sum(flips) < mean + spread


def test_unweighted_choice_still_draws_every_value_evenly() -> None:
    spec = weighted_rotation_graph().set_arg("rotate", "angle", Random.choice(ANGLES, seed=4))
    step = Session(spec, device_id=None).plan.step("rotate_angle")
    assert step.op == "random.uniform" and step.args["values"] == list(ANGLES)


def test_exported_module_writes_the_weights(tmp_path: Path) -> None:
    source = export(weighted_rotation_graph(), tmp_path / "aug.py").read_text()
    assert "fn.random.choice(" in source and "p=[0.6, 0.3, 0.1]" in source
