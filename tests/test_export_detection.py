"""Export of graphs that read a COCO source: the module's pipeline reads ``fn.readers.coco`` and
gives the explorer's boxes, labels, polygons and masks; make_loader hands them to PyTorch padded,
with counts, and as one target per sample."""

from __future__ import annotations

import ast
import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import black
import numpy as np
import pytest
from exported_checks import check_module
from exported_runner import run_exported
from pipelines_detection import write_coco

from augexplorer import GraphSpec, Node, Ref, Session, Source, preset
from augexplorer.builder import build_pipeline
from augexplorer.data import open_source, sample_annotations, samples_dir
from augexplorer.export import export, generate
from augexplorer.export.importer import import_graph

RUNS = 2  # batches compared


def coco_graph(annotations: Path, *, skip_bad: bool = False, batch_size: int = 3) -> GraphSpec:
    """Decode, resize, then flip images, boxes and polygon vertices on one shared coin; every
    annotation output returned. Shuffled with a seed, so the reader's order is checked too."""
    source = Source(
        "source",
        "coco",
        path=str(annotations),
        file_root=str(samples_dir()),
        seed=11,
        skip_bad=skip_bad,
        reader_args={"ltrb": True, "ratio": True, "polygon_masks": True, "initial_fill": 4},
    )
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("resize", "resize", (Ref("decode"),), {"resize_x": 64.0, "resize_y": 48.0}),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=7),
        Node("flip", "flip", (Ref("resize"),), {"horizontal": Ref("coin")}),
        Node("bb_flip", "bb_flip", (Ref("source", 1),), {"horizontal": Ref("coin"), "ltrb": True}),
        Node("coord_flip", "coord_flip", (Ref("source", 4),), {"flip_x": Ref("coin")}),
    )
    outputs = {
        "images": Ref("flip"),
        "boxes": Ref("bb_flip"),
        "labels": Ref("source", 2),
        "polygons": Ref("source", 3),
        "vertices": Ref("coord_flip"),
    }
    return GraphSpec(nodes, outputs, batch_size=batch_size, name="coco_flip")


def keypoints_graph() -> GraphSpec:
    """The bundled annotations with keypoints (looked up by image id), flipped on one coin with
    the images; shuffled with a seed, so each sample's lookup is checked."""
    source = Source(
        "source", "coco", seed=5, keypoints=True, reader_args={"ratio": True, "initial_fill": 4}
    )
    names = source.output_names()
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("resize", "resize", (Ref("decode"),), {"resize_x": 64.0, "resize_y": 48.0}),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=7),
        Node("flip", "flip", (Ref("resize"),), {"horizontal": Ref("coin")}),
        Node(
            "keypoint_flip",
            "coord_flip",
            (Ref("source", names.index("keypoints")),),
            {"flip_x": Ref("coin")},
        ),
    )
    outputs = {
        "images": Ref("flip"),
        "labels": Ref("source", names.index("labels")),
        "keypoints": Ref("keypoint_flip"),
        "keypoint_visibility": Ref("source", names.index("keypoint_visibility")),
    }
    return GraphSpec(nodes, outputs, batch_size=4, name="keypoints")


def explorer_batches(spec: GraphSpec) -> list[list[list[np.ndarray]]]:
    """RUNS batches of every output from the explorer's own fused pipeline (the statistics'),
    the first checked against a Session run by the tests."""
    session = Session(spec, device_id=None)
    data = {source.id: open_source(source, skip_bad=source.skip_bad) for source in spec.sources()}
    pipe = build_pipeline(session.plan, data, num_threads=1)
    pipe.build()
    return [
        [[np.array(out.at(i)) for i in range(len(out))] for out in pipe.run()] for _ in range(RUNS)
    ]


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("detection")
    annotations = write_coco(samples_dir(), tmp / "annotations.json")
    with_missing = write_coco(samples_dir(), tmp / "missing.json", missing="animal/gone.jpg")
    specs = {
        "coco_flip": coco_graph(annotations),
        "skip_bad": coco_graph(with_missing, skip_bad=True),
        "ssd_detection": preset("ssd_detection"),
        "segmentation": preset("segmentation"),
        "keypoints": keypoints_graph(),
        "flip_under_its_coin": flip_under_its_coin(),
    }
    jobs, found = [], {}
    for name, spec in specs.items():
        module = export(spec, tmp / f"{name}_aug.py")
        found[name] = {"spec": spec, "module": module}
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(tmp / f"{name}.npz"),
                "batch_size": spec.batch_size,
                "device": "cpu",
                "runs": RUNS,
                "loader": True,
            }
        )
    for name, saved in run_exported(jobs, tmp).items():
        found[name]["exported"] = saved
    return found


CASES = [
    "coco_flip",
    "skip_bad",
    "ssd_detection",
    "segmentation",
    "keypoints",
    "flip_under_its_coin",
]


def flip_under_its_coin() -> GraphSpec:
    """The SSD preset with its flip given probability 0.5 and the boxes carried again: the
    flip and its bb_flip run under one coin node, as DALI conditionals in the module."""
    from augexplorer.annotations.drawable import carry_all
    from augexplorer.spec import Probability

    spec = preset("ssd_detection")
    flip = spec.node("flip")
    assert isinstance(flip, Node)
    carried = carry_all(spec.replace_node(dataclasses.replace(flip, probability=Probability(0.5))))
    assert next(n.when for n in carried.operators() if n.op == "bb_flip")
    return carried


def assert_same(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, what
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("name", CASES)
def test_exported_pipeline_gives_the_explorers_outputs(cases: dict[str, Any], name: str) -> None:
    case = cases[name]
    spec, saved = case["spec"], case["exported"]
    live = Session(spec, device_id=None).run()
    fused = explorer_batches(spec)
    refs = list(live.plan.outputs.values())
    for index, ref in enumerate(refs):  # the first batch is the Session's, array for array
        for sample, want in enumerate(live.arrays(ref)):
            assert_same(saved[f"{index}_{sample}"], want, f"{name} {ref} #{sample}")
    for run in range(RUNS):  # and both batches are the explorer's fused pipeline's
        prefix = f"run{run}_" if run else ""
        for index, outputs in enumerate(fused[run]):
            for sample, want in enumerate(outputs):
                got = saved[f"{prefix}{index}_{sample}"]
                assert_same(got, want, f"{name} batch {run + 1} output {index} #{sample}")


@pytest.mark.parametrize("name", ["coco_flip", "skip_bad", "ssd_detection"])
def test_loader_pads_counts_and_lists_targets(cases: dict[str, Any], name: str) -> None:
    case = cases[name]
    spec, saved = case["spec"], case["exported"]
    fused = explorer_batches(spec)
    names = list(spec.outputs)
    per_object = [n for n in names if n != "images"]
    for run in range(RUNS):
        # the epoch's last batch is partial (LastBatchPolicy.PARTIAL): the pipeline's first
        # samples, where the fused pipeline goes on into the next epoch
        kept = len(saved[f"loader{run}_images"])
        assert 0 < kept <= spec.batch_size
        batch = [outputs[:kept] for outputs in fused[run]]
        images = np.stack(batch[names.index("images")])
        assert_same(saved[f"loader{run}_images"], images, f"{name} loader images")
        for output in per_object:
            rows = batch[names.index(output)]
            counts = np.array([len(r) for r in rows])
            np.testing.assert_array_equal(saved[f"loader{run}_{output}_counts"], counts)
            padded = saved[f"loader{run}_{output}"]
            assert padded.shape[:2] == (len(rows), counts.max()), output
            for sample, want in enumerate(rows):
                assert_same(padded[sample, : len(want)], want, f"{name} {output} #{sample}")
                assert (padded[sample, len(want) :] == -1).all()  # PAD_VALUE
                target = saved[f"loader{run}_targets_{sample}_{output}"]
                assert_same(target, want, f"{name} target {output} #{sample}")


def test_segmentation_loader_has_no_per_object_outputs(cases: dict[str, Any]) -> None:
    saved = cases["segmentation"]["exported"]
    assert {key for key in saved if key.startswith("loader0_")} == {
        "loader0_images",
        "loader0_masks",
    }
    masks = saved["loader0_masks"]
    assert masks.dtype == np.uint8 and masks.shape == (8, 224, 224, 1)


def test_skip_bad_module_reads_the_kept_images(cases: dict[str, Any]) -> None:
    source = cases["skip_bad"]["module"].read_text()
    tree = ast.parse(source)
    constants = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    kept = ast.literal_eval(constants["IMAGES"])
    assert "animal/gone.jpg" not in kept and len(kept) >= 5
    opened = open_source(cases["skip_bad"]["spec"].sources()[0], skip_bad=True)
    assert kept == list(opened.coco_images)
    plain = ast.parse(cases["coco_flip"]["module"].read_text())
    assert any(
        isinstance(n, ast.Assign)
        and ast.unparse(n.targets[0]) == "IMAGES"
        and ast.literal_eval(n.value) is None
        for n in plain.body
    )


@pytest.mark.parametrize("name", CASES)
def test_module_is_formatted_safe_and_imports_back(cases: dict[str, Any], name: str) -> None:
    case = cases[name]
    source = case["module"].read_text()
    assert black.format_str(source, mode=black.Mode(line_length=100)) == source
    check_module(source, case["spec"])
    assert import_graph(case["module"]) == case["spec"]
    assert "fn.readers.coco(" in source and "annotations_file=annotations_file" in source


def test_modules_are_lint_clean(cases: dict[str, Any]) -> None:
    paths = [str(cases[name]["module"]) for name in CASES]
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", *paths],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_default_data_is_the_bundled_annotations() -> None:
    source = generate(preset("ssd_detection"), formatted=False)
    assert f"ANNOTATIONS_FILE = {str(sample_annotations())!r}" in source
    assert f"FILE_ROOT = {str(samples_dir())!r}" in source
    assert "PER_OBJECT = ['boxes', 'labels']" in source


SHARDS = textwrap.dedent(
    """
    import importlib.util, json, os, sys

    spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = {}
    for rank in (0, 1):
        os.environ.update(RANK=str(rank), WORLD_SIZE="2")  # as torchrun sets them
        batches = []
        for batch in module.make_loader(batch_size=2, device="cpu", num_threads=1):
            batches.append(batch[0]["image_ids"].view(-1).tolist())
        seen[rank] = batches
    json.dump(seen, open(sys.argv[2], "w"))
    """
)


def test_loader_shards_by_rank(tmp_path: Path) -> None:
    annotations = write_coco(samples_dir(), tmp_path / "annotations.json")
    spec = coco_graph(annotations)
    source = spec.sources()[0]
    spec = spec.replace_node(dataclasses.replace(source, shuffle=False)).set_reader_arg(
        "source", "image_ids", True
    )
    spec = dataclasses.replace(spec, outputs={**spec.outputs, "image_ids": Ref("source", 5)})
    module = export(spec, tmp_path / "sharded_aug.py")
    (tmp_path / "shards.py").write_text(SHARDS)
    subprocess.run(
        [sys.executable, str(tmp_path / "shards.py"), str(module), str(tmp_path / "seen.json")],
        check=True,
        timeout=240,
        cwd=tmp_path,
    )
    batches = {int(k): v for k, v in json.loads((tmp_path / "seen.json").read_text()).items()}
    listed = len(json.loads(annotations.read_text())["images"])
    # several ranks: each runs the same number of full batches (DDP steps them together; an
    # empty last batch would give a NaN loss), a shard's end padded with its last image
    assert len(batches[0]) == len(batches[1]) and all(len(b) == 2 for b in batches[0] + batches[1])
    seen = {rank: [i for batch in got for i in batch] for rank, got in batches.items()}
    assert not set(seen[0]) & set(seen[1])
    assert sorted(set(seen[0]) | set(seen[1])) == list(range(1, listed + 1))  # every image
    for ids in seen.values():  # repeated: only the shard's last image, as padding
        assert all(i == ids[-1] for i in ids[len(set(ids)) :])


def test_segmentation_masks_hold_only_class_labels() -> None:
    """Masks go through resize and rotate with nearest-neighbour interpolation: every pixel is
    background or a label of its own image (linear interpolation makes in-between values)."""
    live = Session("segmentation", device_id=None).run()
    masks = live.arrays(live.plan.outputs["masks"])
    labels = live.arrays(Ref("source", 2))  # the labels of each image's objects
    assert any(mask.any() for mask in masks)
    for sample, (mask, own) in enumerate(zip(masks, labels, strict=True)):
        assert set(np.unique(mask).tolist()) <= {0} | set(own.tolist()), sample


@pytest.mark.gpu
def test_exported_detection_loader_on_gpu(tmp_path: Path) -> None:
    """On the GPU the images are resized there (not bit for bit the CPU's), but the boxes and
    labels the loader hands over are the explorer's."""
    spec = preset("ssd_detection")
    module = export(spec, tmp_path / "gpu_aug.py")
    job = {
        "name": "gpu",
        "module": str(module),
        "out": str(tmp_path / "gpu.npz"),
        "batch_size": spec.batch_size,
        "device": "gpu",
        "loader": True,
    }
    saved = run_exported([job], tmp_path)["gpu"]
    fused = explorer_batches(spec)[0]
    names = list(spec.outputs)
    assert saved["loader0_images"].shape == np.stack(fused[names.index("images")]).shape
    for output in ("boxes", "labels"):
        for sample, want in enumerate(fused[names.index(output)]):
            got = saved[f"loader0_targets_{sample}_{output}"]
            np.testing.assert_array_equal(got, want, err_msg=f"{output} #{sample}")
