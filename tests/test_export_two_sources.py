"""A graph that reads two sources exports a module that reads both: segmentation images and masks
from two ``fn.readers.file`` sharing a seed, and MixUp of two readers. Imported in a fresh
process, its loader gives the explorer's arrays batch after batch, its ranks keep images and
masks paired on disjoint shards, and the module imports back as the same graph."""

from __future__ import annotations

import dataclasses
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import exported_module, run_exported
from PIL import Image
from test_import_two_sources import MIXUP
from wild_round_trips import first_batches

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.export import export, layout
from augexplorer.export.codegen import ExportError
from augexplorer.export.importer import import_graph
from augexplorer.spec import GraphSpec, Node, Ref, Schedule, load
from augexplorer.spec.io import to_json

PAIRS = 16  # images and masks; two ranks read 8 each, two whole batches of 4
RUNS = 2  # batches compared with the explorer's

# The common segmentation setup: images and masks listed apart, read by two readers with one
# seed so that they shuffle alike, and flipped by one coin.
SEGMENTATION = """
from nvidia.dali import fn, pipeline_def, types

image_list = {images!r}
mask_list = {masks!r}


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=3)
def segmentation():
    images, image_labels = fn.readers.file(
        files=image_list, seed=42, random_shuffle=True, name="images"
    )
    masks, mask_labels = fn.readers.file(
        files=mask_list, seed=42, random_shuffle=True, name="masks"
    )
    flip = fn.random.coin_flip()
    images = fn.flip(fn.decoders.image(images, output_type=types.RGB), horizontal=flip)
    masks = fn.flip(fn.decoders.image(masks, output_type=types.GRAY), horizontal=flip)
    return images, masks, image_labels, mask_labels


pipe = segmentation()
"""

# The first batches of a loader under torchrun's variables (a rank's whole epoch), and the second
# batch again from a loader resumed from the first's checkpoint, in a process that imports no
# augexplorer.
RUNNER = textwrap.dedent(
    """
    import importlib.util, json, os, sys
    import numpy as np

    for job in json.load(open(sys.argv[1])):
        os.environ["RANK"], os.environ["WORLD_SIZE"] = str(job["rank"]), str(job["world_size"])
        spec = importlib.util.spec_from_file_location(job["name"], job["module"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert "augexplorer" not in sys.modules, "the exported module imported augexplorer"
        loader = module.make_loader(device="cpu")
        saved = {}
        for run in range(job["runs"]):
            if run == 1:  # a job stopped here resumes from its loader's checkpoint
                resumed = module.make_loader(device="cpu", checkpoint=loader.checkpoint())
            for key, value in next(loader)[0].items():
                saved[f"{run}_{key}"] = value.numpy()
        for key, value in next(resumed)[0].items():
            saved[f"resumed_{key}"] = value.numpy()
        np.savez(job["out"], **saved)
    """
)


def _segmentation_data(folder: Path) -> tuple[list[str], list[str]]:
    """PAIRS images and their masks: mask i is 10 * i on its left half and 250 on its right, as
    is image i's first channel (the others noise), so a pair shows whether it was flipped."""
    rng = np.random.default_rng(0)
    (folder / "images").mkdir(parents=True)
    (folder / "masks").mkdir()
    images, masks = [], []
    for index in range(PAIRS):
        mask = np.full((40, 48), 10 * index, np.uint8)
        mask[:, 24:] = 250
        image = rng.integers(0, 256, (40, 48, 3), dtype=np.uint8)
        image[:, :, 0] = mask
        images.append(str(folder / "images" / f"image_{index:02d}.png"))
        masks.append(str(folder / "masks" / f"mask_{index:02d}.png"))
        Image.fromarray(image).save(images[-1])
        Image.fromarray(mask).save(masks[-1])
    return images, masks


def _imported(code: str, path: Path) -> GraphSpec:
    path.write_text(code)
    target = path.with_suffix(".json")
    assert main(["import", str(path), "-o", str(target), "--run-file"]) == 0
    return load(target)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("two_sources")
    images, masks = _segmentation_data(tmp / "data")
    graphs = {
        "segmentation": _imported(
            SEGMENTATION.format(images=images, masks=masks), tmp / "segmentation.py"
        ),
        "mixup": _imported(MIXUP.format(root=str(samples_dir())), tmp / "mixup.py"),
    }
    modules = {name: export(graph, tmp / f"{name}_aug.py") for name, graph in graphs.items()}
    jobs = [
        {"name": name, "module": str(modules[name]), "rank": 0, "world_size": 1, "runs": RUNS}
        for name in graphs
    ]
    jobs += [
        {"name": f"rank{rank}", "module": str(modules["segmentation"]), "rank": rank}
        | {"world_size": 2, "runs": PAIRS // 2 // 4}
        for rank in range(2)
    ]
    for job in jobs:
        job["out"] = str(tmp / f"{job['name']}.npz")
    files = {name: tmp / f"{name}.py" for name in graphs}
    ran = run_exported(jobs, tmp, runner=RUNNER)
    return {"graphs": graphs, "modules": modules, "files": files, "ran": ran}


@pytest.mark.parametrize("name", ["segmentation", "mixup"])
def test_the_explorer_gives_the_files_own_dali_batches(cases: dict[str, Any], name: str) -> None:
    """The graph the import made, run by the explorer, against the file's own pipeline run by
    DALI (the file makes its pipeline and builds nothing: it is made here, run here)."""
    original = first_batches(runpy.run_path(str(cases["files"][name]))["pipe"])
    graph = cases["graphs"][name]
    session = Session(graph, device_id=None)
    for run, batch in enumerate(original):
        live = session.run() if run == 0 else session.next_batch()
        for (output, ref), samples in zip(graph.outputs.items(), batch, strict=True):
            got = [np.asarray(a) for a in live.arrays(ref)]
            what = f"{name}: batch {run + 1}, output {output!r}"
            assert len(got) == len(samples), what
            for mine, theirs in zip(got, samples, strict=True):
                np.testing.assert_array_equal(mine, theirs, err_msg=what)


@pytest.mark.parametrize("name", ["segmentation", "mixup"])
def test_exported_loader_gives_the_explorers_arrays(cases: dict[str, Any], name: str) -> None:
    graph, ran = cases["graphs"][name], cases["ran"][name]
    assert len(graph.sources()) == 2
    session = Session(graph, device_id=None)
    for run in range(RUNS):
        live = session.run() if run == 0 else session.next_batch()
        for output, ref in live.plan.outputs.items():
            expected = np.stack([np.asarray(a) for a in live.arrays(ref)])
            got = ran[f"{run}_{output}"]
            what = f"{name}: batch {run + 1}, output {output!r}"
            assert got.dtype == expected.dtype and got.shape == expected.shape, what
            np.testing.assert_array_equal(got, expected, err_msg=what)


@pytest.mark.parametrize("name", ["segmentation", "mixup", "rank1"])
def test_a_resumed_loader_goes_on_with_every_readers_files_and_draws(
    cases: dict[str, Any], name: str
) -> None:
    ran = cases["ran"][name]
    resumed = [key.removeprefix("resumed_") for key in ran if key.startswith("resumed_")]
    assert resumed == list(cases["graphs"]["segmentation" if name == "rank1" else name].outputs)
    for key in resumed:
        np.testing.assert_array_equal(ran[f"resumed_{key}"], ran[f"1_{key}"], err_msg=key)


@pytest.mark.parametrize("name", ["segmentation", "mixup"])
def test_module_imports_back_as_the_same_graph(cases: dict[str, Any], name: str) -> None:
    back = import_graph(cases["modules"][name])
    assert to_json(back) == to_json(cases["graphs"][name])


def test_two_ranks_keep_images_and_masks_paired_on_disjoint_shards(
    cases: dict[str, Any],
) -> None:
    read: list[list[int]] = []
    for rank in range(2):
        ran = cases["ran"][f"rank{rank}"]
        labels: list[int] = []
        for run in range(PAIRS // 2 // 4):
            image_labels = ran[f"{run}_labels"].reshape(-1)
            np.testing.assert_array_equal(ran[f"{run}_output_3"].reshape(-1), image_labels)
            for image, mask, label in zip(
                ran[f"{run}_images"], ran[f"{run}_output_1"], image_labels, strict=True
            ):
                # the mask is the image's (its value) and flipped with it (its bright side)
                assert set(np.unique(mask)) == {10 * int(label), 250}
                np.testing.assert_array_equal(image[:, :, 0], mask[:, :, 0])
            labels += image_labels.tolist()
        read.append(labels)
    assert not set(read[0]) & set(read[1])
    assert sorted(read[0] + read[1]) == list(range(PAIRS))
    # rank 1's first batch is the one the explorer previews for it: its shard and its draws
    live = Session(cases["graphs"]["segmentation"], device_id=None, rank=1, world_size=2).run()
    ran = cases["ran"]["rank1"]
    for output, ref in live.plan.outputs.items():
        expected = np.stack([np.asarray(a) for a in live.arrays(ref)])
        np.testing.assert_array_equal(ran[f"0_{output}"], expected, err_msg=output)


def test_two_sources_it_cannot_read_together_are_refused_with_the_fix(
    cases: dict[str, Any], tmp_path: Path
) -> None:
    graph = cases["graphs"]["segmentation"]
    masks = graph.node("masks")
    arrays = graph.replace_node(dataclasses.replace(masks, kind="arrays", path=None))
    with pytest.raises(ExportError, match=r"'masks' \(arrays\).*\(fix: "):
        export(arrays, tmp_path / "arrays_aug.py")
    skipping = graph.replace_node(dataclasses.replace(masks, skip_bad=True))
    with pytest.raises(ExportError, match=r"only 'masks' .* skip bad files.*\(fix: set skip"):
        export(skipping, tmp_path / "skipping_aug.py")
    with pytest.raises(ExportError, match=r"2 readers has no one data path.*\(fix: export"):
        export(graph, tmp_path / "data_aug.py", data_path=str(tmp_path))
    rotated = graph.insert_after("flip", Node("rotate", "rotate", (Ref("flip"),), {"angle": 10.0}))
    scheduled = rotated.with_epochs(3).with_schedule("rotate.angle", Schedule.linear(5, 30))
    with pytest.raises(ExportError, match=r"schedules is exported for one reader.*\(fix: export"):
        export(scheduled, tmp_path / "scheduled_aug.py")


def test_module_is_formatted_and_lint_clean(cases: dict[str, Any]) -> None:
    paths = [str(path) for path in cases["modules"].values()]
    for path in paths:
        source = Path(path).read_text()
        assert layout.formatted(source) == source, path
        assert "make_loader()`: a PyTorch DALIGenericIterator over every reader's DATA" in source
    for config in (["--isolated"], ["--config", str(Path(__file__).parents[1] / "pyproject.toml")]):
        lint = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--no-cache", *config, *paths],
            capture_output=True,
            text=True,
        )
        assert lint.returncode == 0, lint.stdout + lint.stderr


def test_make_loader_takes_each_readers_data_by_name(cases: dict[str, Any], tmp_path: Path) -> None:
    module = exported_module(cases["graphs"]["segmentation"], tmp_path, "segmentation_aug")
    masks = Path(module.DATA["masks"])
    fewer = tmp_path / "fewer_masks.txt"
    fewer.write_text("".join(masks.read_text().splitlines(keepends=True)[:3]))
    files, _ = module.read_readers({"masks": str(fewer)})
    assert len(files["images"]) == PAIRS and len(files["masks"]) == 3  # one reader replaced
    with pytest.raises(ValueError, match=r"no reader named mask \(fix: give the data of images"):
        module.make_loader({"mask": str(fewer)}, device="cpu")
    with pytest.raises(TypeError, match=r"2 readers, whose data make_loader takes by name"):
        module.make_loader(str(masks), device="cpu")
