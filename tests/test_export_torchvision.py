"""The exported detection loader in torchvision's form: ``make_loader(...,
target_format="torchvision")`` gives float CHW images in 0-1 and targets with float32 pixel
x1, y1, x2, y2 boxes and int64 labels, and a real torchvision detection model trains and
predicts on such a batch. The batch is made in a fresh process of this environment (DALI,
PyTorch) and fed to the model in the reference environment (real torchvision)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipelines_detection import write_coco

from augexplorer import GraphSpec, Node, Ref, Source, preset
from augexplorer.data import samples_dir
from augexplorer.export import export

# Loads each module, takes its first batch in both forms and writes them as arrays.
BATCHES = textwrap.dedent(
    """
    import importlib.util, json, sys
    import numpy as np

    saved = {}
    for name, path in json.load(open(sys.argv[1])).items():
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for form in ("graph", "torchvision"):
            loader = module.make_loader(device="cpu", num_threads=1, target_format=form)
            batch = next(loader)[0]
            images = batch[module.IMAGES_OUTPUT]
            images = images if isinstance(images, list) else list(images)
            for i, image in enumerate(images):
                saved[f"{name}/{form}/image{i}"] = image.numpy()
                for key, value in batch["targets"][i].items():
                    saved[f"{name}/{form}/target{i}/{key}"] = value.numpy()
        try:
            module.make_loader(device="cpu", target_format="coco")
        except ValueError as error:
            saved[f"{name}/refused"] = np.array(str(error))
    np.savez(sys.argv[2], **saved)
    """
)

# In the reference environment: a torchvision detection model trains on the batch (finite
# losses) and predicts boxes for it.
TRAIN = textwrap.dedent(
    """
    import json, math, sys
    import numpy as np
    import torch
    import torchvision

    stored = np.load(sys.argv[1])
    report = {}
    for name in json.loads(sys.argv[2]):
        count = len([k for k in stored.files if k.startswith(f"{name}/torchvision/image")])
        images = [torch.from_numpy(stored[f"{name}/torchvision/image{i}"]) for i in range(count)]
        targets = [
            {
                "boxes": torch.from_numpy(stored[f"{name}/torchvision/target{i}/boxes"]),
                "labels": torch.from_numpy(stored[f"{name}/torchvision/target{i}/labels"]),
            }
            for i in range(count)
        ]
        classes = int(max(int(t["labels"].max()) for t in targets if len(t["labels"]))) + 1
        torch.manual_seed(0)
        model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
            weights=None, weights_backbone=None, num_classes=classes
        )
        model.train()
        losses = model(images, targets)
        total = sum(losses.values())
        total.backward()
        model.eval()
        with torch.no_grad():
            found = model(images)
        report[name] = {
            "losses": {k: float(v) for k, v in losses.items()},
            "finite": all(math.isfinite(float(v)) for v in losses.values()),
            "predictions": [sorted(p) for p in found],
            "box_shapes": [list(p["boxes"].shape) for p in found],
            "box_dtypes": [str(p["boxes"].dtype) for p in found],
        }
    print(json.dumps(report))
    """
)


def uint8_xywh_graph(annotations: Path) -> GraphSpec:
    """uint8 HWC images resized and flipped with x, y, width, height ratio boxes on one coin."""
    source = Source(
        "source",
        "coco",
        path=str(annotations),
        file_root=str(samples_dir()),
        seed=3,
        reader_args={"ratio": True},
    )
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("resize", "resize", (Ref("decode"),), {"resize_x": 96.0, "resize_y": 64.0}),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=4),
        Node("flip", "flip", (Ref("resize"),), {"horizontal": Ref("coin")}),
        Node("bb_flip", "bb_flip", (Ref("source", 1),), {"horizontal": Ref("coin")}),
    )
    outputs = {"images": Ref("flip"), "boxes": Ref("bb_flip"), "labels": Ref("source", 2)}
    return GraphSpec(nodes, outputs, batch_size=3, name="uint8_xywh")


def pixel_graph(annotations: Path) -> GraphSpec:
    """Decoded images of one size (a resize with no box to move: pixel boxes of the decoded
    image are read before it) with the reader's pixel x, y, width, height boxes."""
    source = Source("source", "coco", path=str(annotations), file_root=str(samples_dir()), seed=5)
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
    )
    outputs = {"images": Ref("decode"), "boxes": Ref("source", 1), "labels": Ref("source", 2)}
    return GraphSpec(nodes, outputs, batch_size=1, name="pixels")


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("torchvision")
    annotations = write_coco(samples_dir(), tmp / "annotations.json")
    specs = {
        "ssd": preset("ssd_detection"),
        "uint8_xywh": uint8_xywh_graph(annotations),
        "pixels": pixel_graph(annotations),
    }
    modules = {name: str(export(spec, tmp / f"{name}_aug.py")) for name, spec in specs.items()}
    (tmp / "modules.json").write_text(json.dumps(modules))
    (tmp / "batches.py").write_text(BATCHES)
    out = tmp / "batches.npz"
    subprocess.run(
        [sys.executable, str(tmp / "batches.py"), str(tmp / "modules.json"), str(out)],
        check=True,
        timeout=300,
        cwd=tmp,
    )
    stored = np.load(out)
    return out, {key: stored[key] for key in stored.files}


def samples(saved: dict[str, Any], name: str, form: str) -> int:
    return len([k for k in saved if k.startswith(f"{name}/{form}/image")])


@pytest.mark.parametrize("name", ["ssd", "uint8_xywh", "pixels"])
def test_torchvision_form_is_the_graphs_batch_converted(
    batches: tuple[Path, dict[str, Any]], name: str
) -> None:
    _, saved = batches
    count = samples(saved, name, "graph")
    assert count == samples(saved, name, "torchvision") > 0
    ltrb, ratio = {"ssd": (True, True), "uint8_xywh": (False, True), "pixels": (False, False)}[name]
    for i in range(count):
        graph_image = saved[f"{name}/graph/image{i}"]
        image = saved[f"{name}/torchvision/image{i}"]
        assert image.dtype == np.float32 and image.ndim == 3 and image.shape[0] == 3
        assert image.min() >= 0.0 and image.max() <= 1.0
        if graph_image.dtype == np.uint8:  # HWC uint8 -> CHW / 255
            np.testing.assert_allclose(image, graph_image.transpose(2, 0, 1) / 255.0, atol=1e-6)
        else:  # the SSD graph already ends in CHW floats in 0-1
            np.testing.assert_array_equal(image, graph_image)
        height, width = image.shape[1:]
        boxes = saved[f"{name}/torchvision/target{i}/boxes"]
        labels = saved[f"{name}/torchvision/target{i}/labels"]
        assert boxes.dtype == np.float32 and boxes.shape[1:] == (4,)
        assert labels.dtype == np.int64 and labels.shape == (len(boxes),)
        made = saved[f"{name}/graph/target{i}/boxes"].astype(np.float64)
        np.testing.assert_array_equal(labels, saved[f"{name}/graph/target{i}/labels"])
        if not ltrb:
            made = np.concatenate([made[:, :2], made[:, :2] + made[:, 2:]], axis=1)
        if ratio:
            made = made * [width, height, width, height]
        np.testing.assert_allclose(boxes, made, rtol=1e-5, atol=1e-3)
        assert (boxes[:, 2] >= boxes[:, 0]).all() and (boxes[:, 3] >= boxes[:, 1]).all()
        assert boxes.max() <= max(width, height) + 1  # pixels, not fractions
    assert "target_format must be one of" in str(saved[f"{name}/refused"])


def test_a_torchvision_detection_model_trains_and_predicts_on_the_batch(
    batches: tuple[Path, dict[str, Any]], reference_python: str, tmp_path: Path
) -> None:
    path, _ = batches
    script = tmp_path / "train.py"
    script.write_text(TRAIN)
    names = ["ssd", "uint8_xywh"]
    done = subprocess.run(
        [reference_python, str(script), str(path), json.dumps(names)],
        check=True,
        timeout=600,
        capture_output=True,
        text=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for name in names:
        found = report[name]
        assert found["finite"], found["losses"]
        assert set(found["losses"]) == {
            "loss_classifier",
            "loss_box_reg",
            "loss_objectness",
            "loss_rpn_box_reg",
        }
        assert all(keys == ["boxes", "labels", "scores"] for keys in found["predictions"])
        assert all(shape[1:] == [4] for shape in found["box_shapes"])
        assert set(found["box_dtypes"]) == {"torch.float32"}


def test_a_graph_without_boxes_per_object_refuses_the_torchvision_form(tmp_path: Path) -> None:
    spec = preset("segmentation")
    module = export(spec, tmp_path / "segmentation_aug.py")
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(module)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "try:\n    m.make_loader(device='cpu', target_format='torchvision')\n"
        "except ValueError as error:\n    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, timeout=120, capture_output=True, text=True
    )
    assert "needs boxes and labels per object" in done.stdout
    assert "target_format='graph'" in done.stdout
