"""Ready-made graphs: DALI's ImageNet training and validation pipelines, RandAugment, DALI's
auto_aug policies (AutoAugment, TrivialAugment Wide, RandAugment), a small starting graph, and
annotated ones: SSD detection training and segmentation, which read the bundled photos'
annotations (COCO). Each runs on the bundled samples as it is."""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable
from typing import Any

from .spec import GraphSpec, Node, Probability, Random, Ref, Source, chain

IMAGENET_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
IMAGENET_STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def basic() -> GraphSpec:
    """Decode, resize, rotate by a random angle, and flip half the images: a first graph to edit."""
    return chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_shorter": 256.0}),
        ("rotate", "rotate", {"angle": Random.uniform(-20, 20), "fill_value": 0.0}),
        ("crop", "crop", {"crop": [224.0, 224.0]}),
        ("flip", "flip", {"horizontal": Random.coin_flip(0.5)}),
        name="basic",
        batch_size=8,
    )


def reference() -> GraphSpec:
    """The benchmarks' reference graph: the basic graph plus a cheap, often-tuned last node (six
    operators), at batch 16."""
    spec = basic().insert_after(
        "flip", Node("brightness", "brightness_contrast", args={"brightness": 1.0, "contrast": 1.0})
    )
    return dataclasses.replace(spec, name="reference", batch_size=16)


def imagenet_train() -> GraphSpec:
    """DALI's ImageNet training pipeline: random-crop decoding, resize to 224, then crop, random
    mirror and normalize to CHW float."""
    return chain(
        Source("source"),
        (
            "decode",
            "decoders.image_random_crop",
            {
                "output_type": "RGB",
                "random_area": [0.08, 1.0],
                "random_aspect_ratio": [0.75, 4.0 / 3.0],
            },
        ),
        ("resize", "resize", {"resize_x": 224.0, "resize_y": 224.0}),
        (
            "normalize",
            "crop_mirror_normalize",
            {
                "crop": [224.0, 224.0],
                "mean": IMAGENET_MEAN,
                "std": IMAGENET_STD,
                "dtype": "FLOAT",
                "output_layout": "CHW",
                "mirror": Random.coin_flip(0.5),
            },
        ),
        name="imagenet_train",
        batch_size=8,
    )


def imagenet_val() -> GraphSpec:
    """DALI's ImageNet validation pipeline: decode, shorter side to 256, center crop 224, normalize."""
    return chain(
        Source("source", shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_shorter": 256.0}),
        (
            "normalize",
            "crop_mirror_normalize",
            {
                "crop": [224.0, 224.0],
                "mean": IMAGENET_MEAN,
                "std": IMAGENET_STD,
                "dtype": "FLOAT",
                "output_layout": "CHW",
            },
        ),
        name="imagenet_val",
        batch_size=8,
    )


def randaugment(magnitude: float = 9.0, num_ops: int = 2) -> GraphSpec:
    """RandAugment-style: six photometric and geometric operations, each applied to a sample with
    probability num_ops/6 (so num_ops on average) at a random strength scaled by `magnitude` (0-30).

    This is the independent-selection variant, built from nodes you can tune one by one: DALI's
    own `rand_augment` (the `dali_rand_augment` preset) picks exactly num_ops operations per
    sample. The expected number of operations and their strengths match.
    """
    scale = magnitude / 30.0
    p = Probability(round(num_ops / 6, 4))
    spec = chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_x": 224.0, "resize_y": 224.0}),
        ("rotate", "rotate", {"angle": Random.uniform(-30 * scale, 30 * scale), "keep_size": True}),
        (
            "brightness",
            "brightness",
            {"brightness": Random.uniform(1 - 0.9 * scale, 1 + 0.9 * scale)},
        ),
        ("contrast", "contrast", {"contrast": Random.uniform(1 - 0.9 * scale, 1 + 0.9 * scale)}),
        (
            "saturation",
            "saturation",
            {"saturation": Random.uniform(1 - 0.9 * scale, 1 + 0.9 * scale)},
        ),
        ("hue", "hue", {"hue": Random.uniform(-30 * scale, 30 * scale)}),
        ("flip", "flip", {"horizontal": 1}),
        name="randaugment",
        batch_size=8,
    )
    for node in spec.operators():
        if node.id not in ("decode", "resize"):
            spec = spec.set_probability(node.id, p)
    return spec


def random_affine() -> GraphSpec:
    """A different affine warp for every sample: a random rotation and scale about the image
    centre, composed into one matrix (`transforms.*`) and applied by `warp_affine`."""
    centre = [128.0, 128.0]  # images are resized to 256 x 256 first
    nodes = (
        Source("source"),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("resize", "resize", (Ref("decode"),), {"resize_x": 256.0, "resize_y": 256.0}),
        Node(
            "rotation",
            "transforms.rotation",
            (),
            {"angle": Random.uniform(-25, 25), "center": centre},
        ),
        Node(
            "scale",
            "transforms.scale",
            (Ref("rotation"),),
            {"scale": Random.uniform(0.8, 1.2, shape=2), "center": centre},
        ),
        Node(
            "warp",
            "warp_affine",
            (Ref("resize"),),
            {"matrix": Ref("scale"), "fill_value": 0.0, "inverse_map": False},
        ),
    )
    return GraphSpec(
        nodes,
        {"images": Ref("warp"), "labels": Ref("source", 1)},
        batch_size=8,
        name="random_affine",
    )


def _with_policy(name: str, policy: str, args: dict[str, Any]) -> GraphSpec:
    """DALI's ImageNet training pipeline with one of DALI's auto_aug policies between the resize
    and the normalization, where a DALI user puts it (it needs the uint8 HWC images)."""
    spec = imagenet_train()
    augment = Node("augment", policy, args=args)
    return dataclasses.replace(spec.insert_after("resize", augment), name=name)


def auto_augment_imagenet() -> GraphSpec:
    """AutoAugment (ImageNet): DALI's auto_augment with its ImageNet policy in the ImageNet
    training pipeline; translations relative to the 224 x 224 images."""
    return _with_policy(
        "auto_augment_imagenet",
        "auto_aug.auto_augment",
        {"policy_name": "image_net", "shape": [224, 224]},
    )


def trivial_augment_wide() -> GraphSpec:
    """TrivialAugment Wide: DALI's trivial_augment_wide (one random operation at a random
    strength per image) in the ImageNet training pipeline."""
    return _with_policy("trivial_augment_wide", "auto_aug.trivial_augment_wide", {})


def dali_rand_augment(n: int = 2, m: int = 9) -> GraphSpec:
    """RandAugment (DALI's own): DALI's rand_augment, exactly `n` operations per image at
    magnitude `m` of 31 bins, in the ImageNet training pipeline."""
    return _with_policy(
        "dali_rand_augment", "auto_aug.rand_augment", {"n": n, "m": m, "shape": [224, 224]}
    )


def _bundled_coco(**reader_args: Any) -> Source:
    """The bundled photos with their annotations (``annotations.json``) read by readers.coco."""
    return Source("source", "coco", seed=12, reader_args=reader_args)


def ssd_detection() -> GraphSpec:
    """DALI's SSD training pipeline: a random crop that keeps boxes (random_bbox_crop driving
    the slice), resize to 300 x 300, a random colour twist, a flip of images and boxes on one
    coin, and normalization to CHW float. Boxes are relative left-top-right-bottom."""
    source = _bundled_coco(ltrb=True, ratio=True, skip_empty=True)
    nodes = (
        source,
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node(
            "box_crop",
            "random_bbox_crop",
            (Ref("source", 1), Ref("source", 2)),
            {
                "aspect_ratio": [0.5, 2.0],
                "thresholds": [0.0, 0.1, 0.3, 0.5, 0.7, 0.9],
                "scaling": [0.3, 1.0],
                "bbox_layout": "xyXY",
                "allow_no_crop": True,
                "num_attempts": 50,
            },
            seed=21,
        ),
        Node("crop", "slice", (Ref("decode"), Ref("box_crop", 0), Ref("box_crop", 1))),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=22),
        Node("flip", "flip", (Ref("crop"),), {"horizontal": Ref("coin")}),
        Node(
            "bb_flip",
            "bb_flip",
            (Ref("box_crop", 2),),
            {"horizontal": Ref("coin"), "ltrb": True},
        ),
        Node("resize", "resize", (Ref("flip"),), {"resize_x": 300.0, "resize_y": 300.0}),
        Node(
            "twist",
            "color_twist",
            (Ref("resize"),),
            {
                "brightness": Random.uniform(0.875, 1.125),
                "contrast": Random.uniform(0.5, 1.5),
                "saturation": Random.uniform(0.5, 1.5),
                "hue": Random.uniform(-18.0, 18.0),
            },
        ),
        Node(
            "normalize",
            "crop_mirror_normalize",
            (Ref("twist"),),
            {
                "mean": [0.0, 0.0, 0.0],
                "std": [255.0, 255.0, 255.0],
                "dtype": "FLOAT",
                "output_layout": "CHW",
            },
        ),
    )
    outputs = {"images": Ref("normalize"), "boxes": Ref("bb_flip"), "labels": Ref("box_crop", 3)}
    return GraphSpec(nodes, outputs, batch_size=8, name="ssd_detection")


def segmentation() -> GraphSpec:
    """Images and their pixel masks through the same resize, crop, flip and rotation: one
    random crop position, one coin and one angle read by both chains, the masks resized and
    rotated with nearest-neighbour interpolation so that their class values stay whole."""
    crop = {"crop": [224.0, 224.0], "crop_pos_x": Ref("crop_x"), "crop_pos_y": Ref("crop_y")}
    nodes = (
        _bundled_coco(pixelwise_masks=True),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("resize", "resize", (Ref("decode"),), {"resize_shorter": 256.0}),
        # readers.coco gives int32 masks (class labels); resize takes 8 and 16 bit
        Node("mask_cast", "cast", (Ref("source", 3),), {"dtype": "UINT8"}),
        Node(
            "mask_resize",
            "resize",
            (Ref("mask_cast"),),
            {"resize_shorter": 256.0, "interp_type": "INTERP_NN"},
        ),
        Node("crop_x", "random.uniform", args={"range": [0.0, 1.0]}, seed=31),
        Node("crop_y", "random.uniform", args={"range": [0.0, 1.0]}, seed=32),
        Node("crop", "crop", (Ref("resize"),), crop),
        Node("mask_crop", "crop", (Ref("mask_resize"),), crop),
        Node("coin", "random.coin_flip", args={"probability": 0.5}, seed=33),
        Node("flip", "flip", (Ref("crop"),), {"horizontal": Ref("coin")}),
        Node("mask_flip", "flip", (Ref("mask_crop"),), {"horizontal": Ref("coin")}),
        Node("angle", "random.uniform", args={"range": [-20.0, 20.0]}, seed=34),
        Node(
            "rotate",
            "rotate",
            (Ref("flip"),),
            {"angle": Ref("angle"), "keep_size": True, "fill_value": 0.0},
        ),
        Node(
            "mask_rotate",
            "rotate",
            (Ref("mask_flip"),),
            {
                "angle": Ref("angle"),
                "keep_size": True,
                "fill_value": 0.0,
                "interp_type": "INTERP_NN",
            },
        ),
    )
    outputs = {"images": Ref("rotate"), "masks": Ref("mask_rotate")}
    return GraphSpec(nodes, outputs, batch_size=8, name="segmentation")


PRESETS: dict[str, Callable[[], GraphSpec]] = {
    "basic": basic,
    "imagenet_train": imagenet_train,
    "imagenet_val": imagenet_val,
    "randaugment": randaugment,
    "random_affine": random_affine,
    "reference": reference,
    "auto_augment_imagenet": auto_augment_imagenet,
    "trivial_augment_wide": trivial_augment_wide,
    "dali_rand_augment": dali_rand_augment,
    "ssd_detection": ssd_detection,
    "segmentation": segmentation,
}


def preset(name: str) -> GraphSpec:
    try:
        return PRESETS[name]()
    except KeyError:
        raise KeyError(
            f"no preset {name!r}; {_nearest(name)}presets: {', '.join(PRESETS)}"
        ) from None


def _nearest(name: str) -> str:
    """ "did you mean 'ssd_detection'? " for "detection"; "" where no preset is near."""
    near = difflib.get_close_matches(name, PRESETS, n=1, cutoff=0.6)
    return f"did you mean {near[0]!r}? " if near else ""


def graph_named(name: str | os.PathLike[str]) -> GraphSpec:
    """A preset by its name, or a graph file (the JSON that ``augexplorer import`` and
    :func:`augexplorer.spec.save` write): what ``Session(...)``, ``Explorer(...)`` and the
    command line take. A preset's name wins over a file of that name only where none exists."""
    if isinstance(name, str) and name in PRESETS and not os.path.exists(name):
        return PRESETS[name]()
    if os.path.exists(name) or str(name).endswith(".json"):
        from .spec import load

        return load(os.fspath(name))
    raise KeyError(
        f"no preset {str(name)!r} and no file of that name; {_nearest(str(name))}presets: "
        f"{', '.join(PRESETS)} "
        "(or the path of a graph's .json file)"
    )


# readers.coco reads masks as polygons or as pixels, not both: the preset's choice stands
_EXCLUSIVE_MASKS = ("polygon_masks", "pixelwise_masks")


def preset_on(name: str, source: Source) -> GraphSpec:
    """Preset `name` reading the data of `source` (the panel's source, kept when a preset is
    picked). An annotated preset on an annotated source reads what its own source reads (its
    operators expect those outputs) and what `source` reads besides, and carries every kind of
    annotation it reads through every geometric step that has a companion for it
    (:func:`~augexplorer.annotations.drawable.carry_all`): what is read is drawn where it is."""
    from .annotations.drawable import carry_all

    spec = preset(name)
    own = spec.sources()[0] if spec.sources() else None
    if own is not None and own.reads_coco and source.reads_coco:
        args = {**source.reader_args, **own.reader_args}
        for flag in _EXCLUSIVE_MASKS:
            if own.reader_args.get(flag):
                args = {k: v for k, v in args.items() if k not in _EXCLUSIVE_MASKS or k == flag}
        source = dataclasses.replace(source, reader_args=args)
    placed = spec.with_source(source)
    if own is not None:  # a classification preset on annotations: its labels are their labels
        placed = placed.outputs_read_as(own, placed.sources()[0])
    return carry_all(placed)
