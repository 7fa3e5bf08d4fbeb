"""The fixed text of an exported module that reads a COCO source (``fn.readers.coco``): its data
constants, the padding of per-object outputs, the iterator that hands PyTorch a list of targets,
its loader and its main. ``@@name@@`` marks where codegen puts checked names and literals, as in
:mod:`.template`, whose shared pieces these are built from.

How PyTorch gets the annotations: boxes, labels, polygons and vertices have one row per object,
a count that differs from sample to sample, and a PyTorch tensor must be dense. ``make_loader``
runs the pipeline with ``padded=True``: each such output is padded with ``PAD_VALUE`` to the
batch's largest count and followed by its shape. Each batch then holds the padded tensors,
``<name>_counts`` (the real rows per sample), and ``targets``, one dict per sample of the
per-object outputs cut to their real rows, as the graph makes them (``target_format="graph"``:
boxes in the source's coordinates, often fractions of the image, labels int32, images as the
graph ends them, often uint8 HWC). ``target_format="torchvision"`` converts them to the form
torchvision's detection models take: images a list of float32 (3, H, W) tensors in 0-1, each
target's ``boxes`` float32 (N, 4) pixels x1, y1, x2, y2 and ``labels`` int64 (N,).
"""

from __future__ import annotations

from .template import (
    _MAIN,
    _READER_PIPELINE,
    _READER_PIPELINE_OPTIONS,
    _RESUMABLE,
    _RESUMED,
    HEADER,
    PIPELINE,
    READER_LOADER_START,
)


def _replaced(text: str, old: str, new: str) -> str:
    # the shared templates must still hold what is replaced: fail here, not in a module
    assert old in text, f"template text not found: {old!r}"
    return text.replace(old, new)


DETECTION_HEADER = _replaced(
    HEADER,
    "- `make_loader(data)`: a PyTorch DALIGenericIterator over a folder or a file list.",
    "- `make_loader(annotations_file, file_root)`: a PyTorch DALIGenericIterator over a COCO\n"
    "  file (`fn.readers.coco`). Each batch holds the images as one tensor; boxes, labels,\n"
    "  polygons and vertices (PER_OBJECT) padded with PAD_VALUE to the batch's largest count,\n"
    "  `<name>_counts` (real rows per sample), and `targets`: one dict per sample of them cut to\n"
    "  their real rows. Which form (target_format):\n"
    '  - "graph" (the default): as the graph makes them. Images of IMAGES_LAYOUT as the graph\n'
    "    ends them; boxes in the source's coordinates (BOXES_LTRB: left, top, right, bottom, else\n"
    "    x, y, width, height; BOXES_RATIO: fractions of the image's size, else pixels); labels\n"
    "    int32.\n"
    '  - "torchvision": what torchvision\'s detection models take, `model(batch["images"],\n'
    '    batch["targets"])`: images a list of float32 (3, H, W) tensors in 0-1 (uint8 divided\n'
    "    by 255; float images must already be in 0-1: the models normalize themselves); each\n"
    "    target `boxes` float32 (N, 4) in pixels x1, y1, x2, y2, `labels` int64 (N,), any other\n"
    "    per-object output as the graph makes it.",
)

CONSTANTS = '''# The graph this module was made from (augexplorer.graph format).
GRAPH = @@graph@@

# The COCO data the graph was explored on; pass your own to make_loader().
ANNOTATIONS_FILE = @@annotations_file@@
# The folder the file's image names are relative to.
FILE_ROOT = @@file_root@@
# The images of ANNOTATIONS_FILE that are read (names relative to FILE_ROOT): None for every
# image the file lists, or the images augexplorer kept when it left bad ones out (skip_bad).
IMAGES = @@images@@
BATCH_SIZE = @@batch_size@@
OUTPUTS = @@outputs@@
# The outputs with one row per object: their count differs from sample to sample, so
# make_loader pads them with PAD_VALUE and says how many rows of each sample are real.
PER_OBJECT = @@per_object@@
PAD_VALUE = -1
# The form the graph gives, which make_loader(target_format="torchvision") converts from: the
# images output and its layout, the boxes output (None: no boxes per object, e.g. box_encoder's
# encoded ones) in the source's coordinates, and the labels output.
IMAGES_OUTPUT = @@images_output@@
IMAGES_LAYOUT = @@images_layout@@
BOXES_OUTPUT = @@boxes_output@@
BOXES_LTRB = @@boxes_ltrb@@  # left, top, right, bottom (False: x, y, width, height)
BOXES_RATIO = @@boxes_ratio@@  # fractions of the image's width and height (False: pixels)
LABELS_OUTPUT = @@labels_output@@
TARGET_FORMATS = ("graph", "torchvision")
# What the pipeline returns with padded=True: OUTPUTS, each of PER_OBJECT followed by its shape.
LOADER_OUTPUTS = @@loader_outputs@@


def pad_per_object(outputs):
    """`outputs` (in the order of OUTPUTS) with each per-object output padded with PAD_VALUE to
    the batch's largest count and followed by its shape, so that PyTorch gets dense tensors."""
    padded = []
    for index, name in enumerate(OUTPUTS):
        output = outputs[index]
        if name in PER_OBJECT:
            padded.append(fn.pad(output, axes=[0], fill_value=PAD_VALUE))
            padded.append(output.shape())
        else:
            padded.append(output)
    return tuple(padded)

'''

PIPELINE_COCO = _replaced(
    _replaced(
        _replaced(
            PIPELINE,
            '(@@data_params@@, device="cpu", shard_id=@@shard_id@@, num_shards=@@num_shards@@, '
            "rank=0):",
            "(\n    annotations_file=ANNOTATIONS_FILE,\n    file_root=FILE_ROOT,\n    images=IMAGES,\n"
            '    device="cpu",\n    shard_id=@@shard_id@@,\n    num_shards=@@num_shards@@,\n'
            "    rank=0,\n    padded=False,\n):",
        ),
        "    @@device_doc@@\n",
        "    @@device_doc@@\n    With padded=True (as make_loader runs it) the outputs are LOADER_OUTPUTS:\n"
        "    the per-object ones padded, each followed by its shape (see pad_per_object).\n",
    ),
    "    return @@returns@@\n",
    "    if padded:\n        return pad_per_object(@@returns_tuple@@)\n    return @@returns@@\n",
)

DETECTION_ITERATOR = '''def torchvision_images(images):
    """`images` (the batch's images as the graph makes them) as torchvision's detection models
    take them: a list of float32 (3, H, W) tensors in 0-1. uint8 is divided by 255; float images
    must already be in 0-1, since the models normalize with their own mean and std."""
    if IMAGES_LAYOUT == "HWC":
        images = images.permute(0, 3, 1, 2)
    elif IMAGES_LAYOUT != "CHW":
        raise ValueError(
            f"images of layout {IMAGES_LAYOUT!r} are not images torchvision takes: end the graph "
            "with HWC or CHW images"
        )
    if images.dtype == torch.uint8:
        images = images.float() / 255.0
    else:
        images = images.float()
        low, high = float(images.min()), float(images.max())
        if low < -1e-3 or high > 1.0 + 1e-3:
            raise ValueError(
                f"the images' values run from {low:.4g} to {high:.4g}, but torchvision's detection "
                "models take values in 0-1 and normalize them themselves: end the graph with "
                "crop_mirror_normalize(mean=0, std=255) or with uint8 images"
            )
    return list(images.contiguous())


def torchvision_boxes(boxes, height, width):
    """(N, 4) boxes as the graph makes them (BOXES_LTRB, BOXES_RATIO) as torchvision's
    detection models take them: float32 pixels x1, y1, x2, y2 of a `width` x `height` image."""
    boxes = boxes.float()
    if not BOXES_LTRB:
        boxes = torch.cat([boxes[:, :2], boxes[:, :2] + boxes[:, 2:]], dim=1)
    if BOXES_RATIO:
        boxes = boxes * boxes.new_tensor([width, height, width, height])
    return boxes


class DetectionIterator(Batches):
    """A DALIGenericIterator over the padded pipeline. Each batch (a dict) holds OUTPUTS, those
    of PER_OBJECT padded with PAD_VALUE to (batch size, largest count, ...); for each of those
    `<name>_counts`, its real rows per sample; and `targets`, one dict per sample of the
    per-object outputs cut to their real rows. With target_format="graph" all of it is as the
    graph makes it; with "torchvision", batch[IMAGES_OUTPUT] is a list of float32 (3, H, W)
    tensors in 0-1 and each target's "boxes" float32 pixels x1, y1, x2, y2 and "labels" int64
    (see torchvision_images and torchvision_boxes)."""

    def __init__(self, *args, target_format="graph", **kwargs):
        super().__init__(*args, **kwargs)
        self.target_format = target_format

    def __next__(self):
        batches = super().__next__()
        for batch in batches:
            for name in PER_OBJECT:
                shapes = batch.pop(name + "_shape")
                batch[name + "_counts"] = shapes[:, 0].long()
            targets = []
            for index in range(len(batch[OUTPUTS[0]])):
                target = {}
                for name in PER_OBJECT:
                    count = int(batch[name + "_counts"][index])
                    target[name] = batch[name][index, :count]
                targets.append(target)
            batch["targets"] = targets
            if self.target_format == "torchvision":
                self._to_torchvision(batch)
        return batches

    def _to_torchvision(self, batch):
        images = torchvision_images(batch[IMAGES_OUTPUT])
        for image, target in zip(images, batch["targets"], strict=True):
            boxes = target.pop(BOXES_OUTPUT)
            labels = target.pop(LABELS_OUTPUT)
            target["boxes"] = torchvision_boxes(boxes, image.shape[1], image.shape[2])
            target["labels"] = labels.reshape(-1).long()
        batch[IMAGES_OUTPUT] = images

'''

LOADER_COCO = (
    _replaced(
        _replaced(
            READER_LOADER_START,
            "    data=DATA,\n",
            "    annotations_file=ANNOTATIONS_FILE,\n    file_root=FILE_ROOT,\n    images=None,\n"
            '    target_format="graph",\n',
        ),
        "    `data` is @@data_doc@@.\n",
        "    `annotations_file` is a COCO file whose image names are relative to `file_root`;\n"
        "    `images` the names to read (default: IMAGES for ANNOTATIONS_FILE, else all).\n"
        "    Per-object outputs come padded, with their counts and a list of `targets` (see\n"
        '    DetectionIterator). `target_format`: "graph" gives images and targets as the\n'
        "    graph makes them (boxes as BOXES_LTRB and BOXES_RATIO say, labels int32);\n"
        '    "torchvision" gives what torchvision\'s detection models take: images a list of\n'
        "    float32 (3, H, W) tensors in 0-1, target boxes float32 pixels x1, y1, x2, y2 and\n"
        '    labels int64, so that `model(batch["images"], batch["targets"])` trains.\n',
    )
    + """    if target_format not in TARGET_FORMATS:
        raise ValueError(f"target_format must be one of {TARGET_FORMATS}, not {target_format!r}")
    if target_format == "torchvision" and (BOXES_OUTPUT is None or LABELS_OUTPUT is None):
        raise ValueError(
            "target_format='torchvision' needs boxes and labels per object, which this graph "
            f"does not give (its outputs: {', '.join(OUTPUTS)}); use target_format='graph'"
        )
    if images is None and annotations_file == ANNOTATIONS_FILE:
        images = IMAGES  # the images augexplorer read from this file
"""
    + _RESUMED.replace("@@data@@", "[annotations_file, file_root, images]")
    + _READER_PIPELINE.replace(
        "@@arguments@@",
        "            annotations_file,\n            file_root,\n            images,\n"
        "            padded=True,\n",
    )
    + _READER_PIPELINE_OPTIONS
    + """    return DetectionIterator(
        [pipe],
        LOADER_OUTPUTS,
        reader_name=@@reader@@,
        last_batch_policy=last_batch_policy,
        auto_reset=True,
        target_format=target_format,
"""
    + _RESUMABLE
    + """    )

"""
)

MAIN_COCO = _replaced(
    _replaced(
        _MAIN,
        "@@data_argument@@",
        '    parser.add_argument("--annotations-file", default=ANNOTATIONS_FILE, help="a COCO file")\n'
        '    parser.add_argument("--file-root", default=FILE_ROOT, help="its images\' folder")\n',
    ),
    "@@data_value@@",
    "args.annotations_file, args.file_root",
)

# Written where the COCO source gives keypoints (Source.keypoints), as
# augexplorer.annotations.keypoints makes them in the explorer.
KEYPOINTS = '''# Keypoints: DALI's readers.coco reads none, so they come from the annotations file as two
# tables with a row per image: x, y of every keypoint object, padded to the most any image has,
# and their COCO visibility (0: not labelled, or padding). Each sample's rows are picked by its
# image id. KEYPOINTS_RATIO: x and y as fractions of the image's size (the reader's ratio).
KEYPOINTS_RATIO = @@keypoints_ratio@@


def keypoint_tables(annotations_file, images=None):
    """(image ids, (images, objects * points, 2) x, y, (images, objects, points) visibility) of
    `images` (names relative to the images folder; None: every image), in the file's order."""
    with open(annotations_file, encoding="utf-8") as file:
        coco = json.load(file)
    wanted = None if images is None else set(images)
    listed = [i for i in coco["images"] if wanted is None or i["file_name"] in wanted]
    found = {image["id"]: [] for image in listed}
    for annotation in coco.get("annotations", []):
        if annotation.get("keypoints") and annotation["image_id"] in found:
            found[annotation["image_id"]].append(annotation["keypoints"])
    objects = max([len(values) for values in found.values()] + [1])
    points = max([len(k) // 3 for values in found.values() for k in values] + [1])
    xy = np.zeros((len(listed), objects, points, 2), np.float32)
    visibility = np.zeros((len(listed), objects, points), np.int32)
    for row, image in enumerate(listed):
        for column, values in enumerate(found[image["id"]]):
            table = np.asarray(values, np.float32).reshape(-1, 3)
            if KEYPOINTS_RATIO:
                table[:, 0] /= image["width"]
                table[:, 1] /= image["height"]
            xy[row, column, : len(table)] = table[:, :2]
            visibility[row, column, : len(table)] = table[:, 2].astype(np.int32)
    ids = [image["id"] for image in listed]
    return ids, xy.reshape(len(listed), objects * points, 2), visibility


def keypoints_of(image_ids, tables):
    """Each sample's keypoints and their visibility: the rows of `tables` of its image id."""
    ids, xy, visibility = tables
    rows = list(range(len(ids)))
    row = fn.lookup_table(
        image_ids, keys=ids, values=rows, dtype=types.DALIDataType.INT32, default_value=0
    )
    index = row[0]
    return types.Constant(xy)[index], types.Constant(visibility)[index]

'''

# A YOLO source: ANNOTATIONS_FILE is None and FILE_ROOT the YOLO folder, converted to a COCO file
# when the pipeline is built by the functions below (augexplorer.yolo_folder's own).
CONSTANTS_YOLO = _replaced(
    _replaced(
        CONSTANTS,
        "# The COCO data the graph was explored on; pass your own to make_loader().\n",
        "# The data the graph was explored on; pass your own to make_loader(). ANNOTATIONS_FILE None:\n"
        "# FILE_ROOT is a YOLO folder (images with one .txt label file each), converted to a COCO\n"
        "# file in the cache when the pipeline is built (yolo_annotations_file).\n",
    ),
    "# The folder the file's image names are relative to.\n",
    "# The folder the file's image names are relative to (here the YOLO folder).\n",
)

YOLO_HEADER = """# Converting a YOLO folder to a COCO file: each line of a label file is `class cx cy w h`
# or a polygon `class x1 y1 x2 y2 ...`, fractions of the image's size; category ids are the
# class numbers plus one.
"""

# The images augexplorer kept belong to its folder: another folder's are all read.
LOADER_YOLO = _replaced(
    LOADER_COCO,
    "    if images is None and annotations_file == ANNOTATIONS_FILE:\n",
    "    if images is None and annotations_file == ANNOTATIONS_FILE and file_root == FILE_ROOT:\n",
)
