"""How many images DALI's readers.coco reads with skip_empty, worked out from the COCO file as
DALI 2.4 does (a box at least size_threshold wide and high; crowd boxes count), checked against
the reader itself; the explorer's epochs and padding marks follow it, as training's loader."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from nvidia.dali import fn, pipeline_def

from augexplorer import Session
from augexplorer.coco_file import SIZE_THRESHOLD, images_read, read_coco
from augexplorer.data import samples_dir

# per image, its boxes (x, y, w, h) and whether each is a crowd
OBJECTS: list[list[tuple[list[float], int]]] = [
    [],
    [([1, 1, 10, 10], 1)],
    [([1, 1, 0.05, 10], 0)],
    [([5, 5, 20, 20], 0)],
    [([1, 1, 10, 10], 1), ([5, 5, 20, 20], 0)],
    [([1, 1, 0.05, 10], 0), ([5, 5, 20, 20], 0)],
    [([5, 5, 0, 0], 0)],
]


@pytest.fixture(scope="module")
def coco(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("coco_read")
    photo = sorted(samples_dir().rglob("*.jpg"))[0]
    images, annotations = [], []
    for index, objects in enumerate(OBJECTS):
        shutil.copy(photo, root / f"{index}.jpg")
        images.append({"id": index + 1, "file_name": f"{index}.jpg", "width": 100, "height": 100})
        for box, crowd in objects:
            annotations.append(
                {
                    "id": len(annotations) + 1,
                    "image_id": index + 1,
                    "category_id": 1,
                    "bbox": box,
                    "iscrowd": crowd,
                    "area": box[2] * box[3],
                }
            )
    path = root / "annotations.json"
    categories = [{"id": 1, "name": "thing"}]
    path.write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": categories})
    )
    return path


def dalis_count(path: Path, **args: object) -> int:
    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def pipeline():  # type: ignore[no-untyped-def]
        _, _, labels = fn.readers.coco(
            file_root=str(path.parent), annotations_file=str(path), name="reader", **args
        )
        return labels

    pipe = pipeline()
    pipe.build()
    return int(pipe.reader_meta("reader")["epoch_size"])


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"skip_empty": True},
        {"skip_empty": True, "include_iscrowd": False},
        *({"skip_empty": True, "size_threshold": t} for t in (0.0, 0.01, 15.0)),
    ],
)
def test_the_count_is_what_dalis_reader_reads(coco: Path, args: dict[str, object]) -> None:
    index = read_coco(coco)
    names = [image.file_name for image in index.images]
    ours = images_read(
        index,
        names,
        skip_empty=bool(args.get("skip_empty")),
        size_threshold=float(args.get("size_threshold", SIZE_THRESHOLD)),  # type: ignore[arg-type]
        include_iscrowd=bool(args.get("include_iscrowd", True)),
    )
    assert ours == dalis_count(coco, **args)


def test_a_skip_empty_preset_counts_its_epoch_from_the_images_read() -> None:
    """ssd_detection reads the bundled COCO file with skip_empty: 14 of its 19 images have
    boxes, so an epoch at batch 8 is two batches, the second ending in two padding copies."""
    session = Session("ssd_detection", device_id=None)
    first = session.run()
    assert first.batches_per_epoch() == 2
    assert not any(first.padded())
    assert session.next_batch().padded() == [False] * 6 + [True] * 2
    assert not any(session.next_batch().padded())  # the next epoch's first batch
