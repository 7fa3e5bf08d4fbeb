"""DALI detection and segmentation code as it is written in the wild, an eighth set, as files to
import: Mask R-CNN's polygons, DALI's polygon crop with ``segmentation.select_masks``, pixel masks
resized, flipped and cropped with their images, foreground-centred crops
(``segmentation.random_object_bbox``, ``roi_random_crop``, ``segmentation.random_mask_pixel``),
EfficientDet's scale jitter with a crop in pixels, RetinaNet's ``box_encoder``, ``bbox_rotate``,
one affine draw for the image and its polygons, the ops API's COCO reader, x, y, width, height
boxes throughout, a zoom-out under conditionals, an evaluation pipeline returning image ids and
shapes, a mask flipped on a coin of its own, vertical flips of boxes and polygons, a letterbox
padded in ``crop_mirror_normalize``; boxes given to ``bb_flip`` or ``random_bbox_crop``
in another layout than the reader gives them, which DALI runs without an error; and int32 pixel
masks resized as read, which DALI refuses. Each template writes ``pipe``, the
pipeline the file builds, for the CPU; ``{root}`` is the samples folder, ``{annotations}`` the
samples' COCO file.
"""

from __future__ import annotations

# Mask R-CNN's COCO reading: polygon masks with their boxes, one coin flipping the image, its boxes
# (bb_flip) and its polygons' vertices (coord_flip), a shorter-side resize capped by max_size,
# normalized with Detectron's BGR-ordered means.
MASK_RCNN = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=12)
def mask_rcnn_pipe(file_root, annotations_file):
    jpegs, bboxes, labels, polygons, vertices = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, skip_empty=True, ratio=True,
        ltrb=True, polygon_masks=True, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    flip = fn.random.coin_flip(probability=0.5)
    images = fn.flip(images, horizontal=flip)
    bboxes = fn.bb_flip(bboxes, horizontal=flip, ltrb=True)
    vertices = fn.coord_flip(vertices, flip_x=flip, layout="xy")
    images = fn.resize(images, resize_shorter=48, max_size=80)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[102.9801, 115.9465, 122.7717], std=[1.0, 1.0, 1.0])
    return images, bboxes, labels, polygons, vertices


pipe = mask_rcnn_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# DALI's documented crop of polygons: random_bbox_crop giving the indices of the boxes it kept,
# segmentation.select_masks keeping their polygons, the vertices moved into the crop by
# transforms.crop and coord_transform, the image decoded straight into the window.
SELECT_MASKS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=31)
def crop_masks_pipe(file_root, annotations_file):
    jpegs, bboxes, labels, polygons, vertices = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        polygon_masks=True, skip_empty=True, random_shuffle=True)
    crop_begin, crop_size, bboxes, labels, kept = fn.random_bbox_crop(
        bboxes, labels, aspect_ratio=[0.5, 2.0], thresholds=[0.1, 0.3, 0.5], scaling=[0.3, 1.0],
        bbox_layout="xyXY", allow_no_crop=True, num_attempts=20, output_bbox_indices=True)
    polygons, vertices = fn.segmentation.select_masks(kept, polygons, vertices, reindex_masks=True)
    into_crop = fn.transforms.crop(from_start=crop_begin, from_end=crop_begin + crop_size,
                                   to_start=[0.0, 0.0], to_end=[1.0, 1.0])
    vertices = fn.coord_transform(vertices, MT=into_crop)
    images = fn.decoders.image_slice(jpegs, crop_begin, crop_size, output_type=types.RGB)
    images = fn.resize(images, size=[64, 64])
    return images, bboxes, labels, polygons, vertices


pipe = crop_masks_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# Segmentation training on COCO's pixel masks: image and mask resized (the mask nearest-neighbour,
# cast to uint8 as DALI's resize wants), flipped on one coin and cropped at the same drawn place.
PIXEL_MASKS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=5)
def seg_pipe(file_root, annotations_file, size=64):
    jpegs, _, _, masks = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, pixelwise_masks=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[size, size])
    masks = fn.resize(fn.cast(masks, dtype=types.UINT8), size=[size, size],
                      interp_type=types.INTERP_NN)
    flip = fn.random.coin_flip()
    images = fn.flip(images, horizontal=flip)
    masks = fn.flip(masks, horizontal=flip)
    px = fn.random.uniform(range=(0.0, 1.0))
    py = fn.random.uniform(range=(0.0, 1.0))
    images = fn.crop(images, crop=(48, 48), crop_pos_x=px, crop_pos_y=py)
    masks = fn.crop(masks, crop=(48, 48), crop_pos_x=px, crop_pos_y=py)
    return images, masks


pipe = seg_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# nnU-Net-style foreground sampling: segmentation.random_object_bbox picks an object of the mask,
# roi_random_crop a window holding it, and both the mask and the image are sliced there.
OBJECT_CROP = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=77)
def object_crop_pipe(file_root, annotations_file):
    jpegs, _, _, masks = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, pixelwise_masks=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    roi_start, roi_end = fn.segmentation.random_object_bbox(masks, format="start_end",
                                                            foreground_prob=0.9, k_largest=2)
    anchor = fn.roi_random_crop(masks, roi_start=roi_start, roi_end=roi_end,
                                crop_shape=[96, 96, 1])
    anchor = fn.cast(anchor, dtype=types.INT32)
    masks = fn.slice(masks, start=anchor, shape=[96, 96, 1], axis_names="HWC",
                      out_of_bounds_policy="pad")
    images = fn.slice(images, start=anchor[0:2], shape=[96, 96], axis_names="HW",
                      out_of_bounds_policy="pad", fill_values=0)
    return images, masks


pipe = object_crop_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A crop centred on a pixel drawn from the mask (foreground 70% of the time), the anchor computed
# and cast, returned beside the image and mask.
MASK_PIXEL = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


CROP = 64


@pipeline_def(seed=8)
def mask_pixel_pipe(file_root, annotations_file):
    jpegs, _, _, masks = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, pixelwise_masks=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    foreground = fn.random.coin_flip(probability=0.7)
    center = fn.segmentation.random_mask_pixel(masks, foreground=foreground)
    anchor = fn.cast(center - CROP // 2, dtype=types.INT32)
    masks = fn.slice(masks, start=anchor, shape=[CROP, CROP, 1], axis_names="HWC",
                      out_of_bounds_policy="pad")
    images = fn.slice(images, start=anchor[0:2], shape=[CROP, CROP], axis_names="HW",
                      out_of_bounds_policy="pad")
    return images, masks, center


pipe = mask_pixel_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# EfficientDet's scale jitter: a flip with its boxes, a resize of the longer side to a drawn size,
# random_bbox_crop in pixels (input_shape, crop_shape) into a padded slice.
EFFDET = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


IMAGE_SIZE = (96, 96)


@pipeline_def(seed=101)
def efficientdet_pipe(file_root, annotations_file):
    jpegs, bboxes, classes = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        skip_empty=True, shuffle_after_epoch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    flip = fn.random.coin_flip(probability=0.5)
    images = fn.flip(images, horizontal=flip)
    bboxes = fn.bb_flip(bboxes, horizontal=flip, ltrb=True)
    scale = fn.random.uniform(range=[0.5, 1.5])
    size = fn.cast(scale * IMAGE_SIZE[0], dtype=types.FLOAT)
    images = fn.resize(images, resize_longer=size)
    anchor, shape, bboxes, classes = fn.random_bbox_crop(
        bboxes, classes, input_shape=fn.shapes(images, dtype=types.INT32)[0:2],
        crop_shape=IMAGE_SIZE,
        bbox_layout="xyXY", allow_no_crop=False, total_num_attempts=64, shape_layout="HW")
    images = fn.slice(images, anchor, shape, normalized_anchor=False, normalized_shape=False,
                      out_of_bounds_policy="pad")
    images = fn.crop_mirror_normalize(images, mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
    return images, bboxes, classes


pipe = efficientdet_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# RetinaNet-style encoding: anchors made by a helper, mirrored in crop_mirror_normalize with bb_flip
# on the same coin, box_encoder with offsets, means and standard deviations.
RETINANET = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

import itertools


def anchors(grid=4, scales=(0.25, 0.5), ratios=(0.5, 1.0, 2.0)):
    boxes = []
    for i, j in itertools.product(range(grid), repeat=2):
        cx, cy = (j + 0.5) / grid, (i + 0.5) / grid
        for s, r in itertools.product(scales, ratios):
            w, h = s * r ** 0.5, s / r ** 0.5
            boxes += [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    return boxes


@pipeline_def(seed=4)
def retinanet_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[80, 80])
    mirror = fn.random.coin_flip()
    bboxes = fn.bb_flip(bboxes, horizontal=mirror, ltrb=True)
    images = fn.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT,
                                      output_layout="CHW", mean=[123.7, 116.3, 103.5],
                                      std=[58.4, 57.1, 57.4])
    bboxes, labels = fn.box_encoder(bboxes, labels, anchors=anchors(), criteria=0.4, offset=True,
                                    scale=1.0, means=[0.0, 0.0, 0.0, 0.0],
                                    stds=[0.1, 0.1, 0.2, 0.2])
    return images, bboxes, labels


pipe = retinanet_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A rotation with its boxes: bbox_rotate given the angle the image's rotate draws.
BBOX_ROTATE = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=19)
def rotate_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[64, 64])
    angle = fn.random.uniform(range=(-20.0, 20.0))
    bboxes, labels = fn.bbox_rotate(bboxes, labels, angle=angle, input_shape=[64, 64],
                                    keep_size=True, bbox_layout="xyXY", mode="halfway")
    images = fn.rotate(images, angle=angle, keep_size=True, fill_value=0)
    return images, bboxes, labels


pipe = rotate_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# One drawn angle and zoom, made into a pixel matrix for warp_affine (forward) and a ratio matrix
# for the polygons' coord_transform.
AFFINE_POLYGONS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=23)
def affine_pipe(file_root, annotations_file):
    jpegs, bboxes, labels, polygons, vertices = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, polygon_masks=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[64, 64])
    angle = fn.random.uniform(range=(-10.0, 10.0))
    zoom = fn.random.uniform(range=(0.8, 1.2))
    pixels = fn.transforms.rotation(angle=angle, center=[32.0, 32.0])
    pixels = fn.transforms.scale(pixels, scale=fn.stack(zoom, zoom), center=[32.0, 32.0])
    relative = fn.transforms.rotation(angle=angle, center=[0.5, 0.5])
    relative = fn.transforms.scale(relative, scale=fn.stack(zoom, zoom), center=[0.5, 0.5])
    images = fn.warp_affine(images, matrix=pixels, inverse_map=False, fill_value=0)
    vertices = fn.coord_transform(vertices, MT=relative)
    return images, labels, polygons, vertices


pipe = affine_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# DALI's 2019 detection examples in the ops API: COCOReader with save_img_ids, ImageDecoder, BbFlip
# and BBoxPaste beside Flip and Paste on shared draws, seed and batch size by position.
OLD_OPS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class COCOTrainPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, file_root, annotations_file):
        super().__init__(batch_size, num_threads, device_id, seed=42)
        self.input = ops.COCOReader(file_root=file_root, annotations_file=annotations_file,
                                    ltrb=True, ratio=True, skip_empty=True, save_img_ids=True,
                                    shuffle_after_epoch=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.coin = ops.CoinFlip(probability=0.5)
        self.flip = ops.Flip(device="cpu")
        self.bbflip = ops.BbFlip(device="cpu", ltrb=True)
        self.ratio = ops.Uniform(range=[1.0, 1.5])
        self.paste_pos = ops.Uniform(range=[0.0, 1.0])
        self.paste = ops.Paste(device="cpu", fill_value=(0, 0, 0))
        self.bbpaste = ops.BBoxPaste(device="cpu", ltrb=True)
        self.resize = ops.Resize(device="cpu", resize_x=64, resize_y=64)

    def define_graph(self):
        jpegs, bboxes, labels, img_ids = self.input(name="Reader")
        images = self.decode(jpegs)
        coin = self.coin()
        images = self.flip(images, horizontal=coin)
        bboxes = self.bbflip(bboxes, horizontal=coin)
        ratio = self.ratio()
        px = self.paste_pos()
        py = self.paste_pos()
        images = self.paste(images, ratio=ratio, paste_x=px, paste_y=py)
        bboxes = self.bbpaste(bboxes, ratio=ratio, paste_x=px, paste_y=py)
        images = self.resize(images)
        return images, bboxes, labels, img_ids


pipe = COCOTrainPipeline(3, 1, None, {root!r}, {annotations!r})
"""


# Boxes kept as x, y, width, height throughout: random_bbox_crop(bbox_layout="xyWH") with the
# overlap threshold, bb_flip(ltrb=False).
XYWH_CROP = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=63)
def xywh_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, skip_empty=True,
        random_shuffle=True)
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
        bboxes, labels, bbox_layout="xyWH", aspect_ratio=[0.75, 1.33], scaling=[0.5, 1.0],
        thresholds=[0.0, 0.5], threshold_type="overlap", num_attempts=10)
    images = fn.decoders.image_slice(jpegs, crop_begin, crop_size)
    flip = fn.random.coin_flip()
    images = fn.flip(images, horizontal=flip)
    bboxes = fn.bb_flip(bboxes, horizontal=flip, ltrb=False)
    images = fn.resize(images, size=[56, 56])
    return images, bboxes, labels


pipe = xywh_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# SSD's zoom-out applied half the time, under DALI's conditionals: paste and bbox_paste in one if.
COND_ZOOM = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=29, enable_conditionals=True)
def cond_zoom_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    if fn.random.coin_flip(probability=0.5):
        ratio = fn.random.uniform(range=[1.0, 2.0])
        px = fn.random.uniform(range=[0.0, 1.0])
        py = fn.random.uniform(range=[0.0, 1.0])
        images = fn.paste(images, ratio=ratio, paste_x=px, paste_y=py, fill_value=(104, 117, 123))
        bboxes = fn.bbox_paste(bboxes, ratio=ratio, paste_x=px, paste_y=py, ltrb=True)
    images = fn.resize(images, size=[64, 64])
    return images, bboxes, labels


pipe = cond_zoom_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# An evaluation pipeline: image ids and the decoded shapes kept (for mapping boxes back), the
# empty images read too, no shuffling, normalized with scalars.
IDS_EVAL = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=3)
def eval_pipe(file_root, annotations_file):
    jpegs, bboxes, labels, image_ids = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, image_ids=True, ratio=True,
        ltrb=True, skip_empty=False, random_shuffle=False, pad_last_batch=True)
    images = fn.decoders.image(jpegs, device="cpu")
    shapes = fn.shapes(images, dtype=types.INT32)
    images = fn.resize(images, resize_x=64, resize_y=64)
    images = fn.normalize(fn.cast(images, dtype=types.FLOAT), mean=128.0, stddev=64.0)
    return images, bboxes, labels, image_ids, shapes


pipe = eval_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A newcomer's mask flip: the image and the mask each flipped on a coin of its own (the mask no
# longer matches its image on about half the samples; DALI runs it, and so must the graph).
SEPARATE_COINS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=9)
def two_coins_pipe(file_root, annotations_file):
    jpegs, _, _, masks = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, pixelwise_masks=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[48, 48])
    masks = fn.resize(fn.cast(masks, dtype=types.UINT8), size=[48, 48],
                      interp_type=types.INTERP_NN)
    images = fn.flip(images, horizontal=fn.random.coin_flip())
    masks = fn.flip(masks, horizontal=fn.random.coin_flip())
    return images, masks


pipe = two_coins_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# Boxes read as x, y, width, height (no ltrb=True) flipped by bb_flip(ltrb=True): DALI runs it.
XYWH_AS_LTRB = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=41)
def wrong_layout_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, skip_empty=True,
        random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    flip = fn.random.coin_flip()
    images = fn.flip(images, horizontal=flip)
    bboxes = fn.bb_flip(bboxes, horizontal=flip, ltrb=True)
    images = fn.resize(images, size=[48, 48])
    return images, bboxes, labels


pipe = wrong_layout_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A newcomer's flip of boxes in pixels: the reader gives them without ratio=True, and bb_flip
# flips as 1 - x (boxes leave the image; DALI runs it and says nothing).
PIXEL_BOXES_FLIPPED = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=41)
def pixel_boxes_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ltrb=True, skip_empty=True,
        random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    flip = fn.random.coin_flip()
    images = fn.flip(images, horizontal=flip)
    bboxes = fn.bb_flip(bboxes, horizontal=flip, ltrb=True)
    images = fn.resize(images, size=[48, 48])
    return images, bboxes, labels


pipe = pixel_boxes_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A polygon crop with vertical flips too: random_bbox_crop keeping box indices, select_masks
# without reindexing, bb_flip and coord_flip on both coins; the reader keeps COCO's category ids
# (avoid_class_remapping) and drops tiny objects (size_threshold).
VERTICAL = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=71)
def vertical_pipe(file_root, annotations_file):
    jpegs, bboxes, labels, polygons, vertices = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        polygon_masks=True, skip_empty=True, random_shuffle=True, avoid_class_remapping=True,
        size_threshold=4.0)
    crop_begin, crop_size, bboxes, labels, kept = fn.random_bbox_crop(
        bboxes, labels, bbox_layout="xyXY", scaling=[0.5, 1.0], aspect_ratio=[0.75, 1.33],
        thresholds=[0.3], output_bbox_indices=True, allow_no_crop=True, num_attempts=30)
    polygons, vertices = fn.segmentation.select_masks(kept, polygons, vertices)
    images = fn.decoders.image_slice(jpegs, crop_begin, crop_size)
    h = fn.random.coin_flip(probability=0.5)
    v = fn.random.coin_flip(probability=0.2)
    images = fn.flip(images, horizontal=h, vertical=v)
    bboxes = fn.bb_flip(bboxes, horizontal=h, vertical=v, ltrb=True)
    vertices = fn.coord_flip(vertices, flip_x=h, flip_y=v)
    images = fn.resize(images, size=[40, 40])
    return images, bboxes, labels, polygons, vertices


pipe = vertical_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""

# A letterbox in crop_mirror_normalize: the longer side resized, the crop larger than the image
# and padded with fill_values, mirrored on a coin.
CMN_PAD = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=83)
def cmn_pad_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_longer=56)
    mirror = fn.random.coin_flip()
    images = fn.crop_mirror_normalize(images, crop=(64, 64), crop_pos_x=0.0, crop_pos_y=0.0,
                                      out_of_bounds_policy="pad", fill_values=[0.0, 0.0, 0.0],
                                      mirror=mirror, mean=[0.0, 0.0, 0.0],
                                      std=[255.0, 255.0, 255.0])
    return images, labels


pipe = cmn_pad_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""


# x, y, width, height boxes cropped by random_bbox_crop with no bbox_layout (its ltrb=True
# default): DALI runs it.
XYWH_CROPPED_AS_LTRB = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=53)
def default_layout_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, skip_empty=True,
        random_shuffle=True)
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
        bboxes, labels, aspect_ratio=[0.5, 2.0], scaling=[0.3, 1.0], thresholds=[0.1, 0.5])
    images = fn.decoders.image_slice(jpegs, crop_begin, crop_size)
    images = fn.resize(images, size=[48, 48])
    return images, bboxes, labels


pipe = default_layout_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""

# COCO's pixel masks resized as the reader gives them, int32: DALI fails the first batch.
INT32_MASK_RESIZE = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=9)
def int_mask_pipe(file_root, annotations_file):
    jpegs, _, _, masks = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, pixelwise_masks=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[48, 48])
    masks = fn.flip(masks, horizontal=fn.random.coin_flip())
    masks = fn.resize(masks, size=[48, 48], interp_type=types.INTERP_NN)
    return images, masks


pipe = int_mask_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""

# Boxes and labels padded to the batch's most boxes (fill -1), as YOLO- and DETR-style loaders
# hand a batch of boxes to PyTorch as one tensor: DALI's pad takes any data, not only images.
PADDED_BOXES = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=21)
def padded_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(
        file_root=file_root, annotations_file=annotations_file, ratio=True, ltrb=True,
        skip_empty=True, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    flip = fn.random.coin_flip(probability=0.5)
    images = fn.resize(fn.flip(images, horizontal=flip), size=[64, 64])
    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip)
    bboxes = fn.pad(bboxes, axes=[0], fill_value=-1.0)
    labels = fn.pad(labels, fill_value=-1)
    return images, bboxes, labels


pipe = padded_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""

ROUND_TRIPS = {
    "mask_rcnn": MASK_RCNN,
    "select_masks": SELECT_MASKS,
    "pixel_masks": PIXEL_MASKS,
    "object_crop": OBJECT_CROP,
    "mask_pixel": MASK_PIXEL,
    "effdet": EFFDET,
    "retinanet": RETINANET,
    "bbox_rotate": BBOX_ROTATE,
    "affine_polygons": AFFINE_POLYGONS,
    "old_ops": OLD_OPS,
    "xywh_crop": XYWH_CROP,
    "cond_zoom": COND_ZOOM,
    "ids_eval": IDS_EVAL,
    "separate_coins": SEPARATE_COINS,
    "vertical": VERTICAL,
    "cmn_pad": CMN_PAD,
    "padded_boxes": PADDED_BOXES,
}
