"""DALI code as it is written in the wild, a sixth set, as files to import: three outputs (an
image, its label and the angle drawn for it), a comparison cast to a flip, draws cast and
scaled, two views stacked and set side by side, labels reshaped, one-hot encoded and cast
twice, ``resize(mode="not_smaller", max_size=...)`` into a padded ``crop_mirror_normalize``,
``paste`` zoom-out at drawn ratios with ``bbox_paste`` and ``random_bbox_crop`` on COCO boxes,
``hue``/``saturation``/``brightness_contrast`` on draws with ``seed=`` on every operator, a
multi-crop (two global views, four local ones) made by a helper, DALI's "operator objects"
tutorial in the ops API returning its drawn angle, and ``pad``/``normalize``/``expand_dims``/
``stack`` beside a YCbCr conversion; a pipeline made only under ``if __name__ == "__main__":``
(from required command-line arguments, or from literals), required arguments parsed at the top
level; and what DALI refuses as written (a comparison fed to a flip). Each template writes ``pipe``, the pipeline the file builds, for the CPU (anything after
a top-level ``pipe.build()`` is what the file does with it); ``{root}`` is the samples folder,
``{annotations}`` the samples' COCO file.
"""

from __future__ import annotations

# Three outputs (the drawn angle beside the image and its label), a flip from a uniform draw
# compared and cast to INT32, a coin cast to float and scaled into a brightness.
THREE_OUTPUTS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=12)
def rot_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[48, 48])
    angle = fn.random.uniform(range=(-10.0, 10.0)) * 2
    images = fn.rotate(images, angle=angle, fill_value=0, keep_size=True)
    flip = fn.cast(fn.random.uniform(range=(0.0, 1.0)) > 0.5, dtype=types.INT32)
    images = fn.flip(images, horizontal=flip)
    coin = fn.cast(fn.random.coin_flip(), dtype=types.FLOAT)
    images = fn.brightness_contrast(images, brightness=coin * 0.2 + 0.9)
    return images, labels, angle


pipe = rot_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# Two views of each image stacked (a new leading axis) and set side by side (fn.cat on the
# width), seed= on every operator, the executor options older scripts pass to the decorator.
VIEWS_STACKED = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=5, num_threads=1, prefetch_queue_depth=2, exec_async=False, exec_pipelined=False)
def views_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=5)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    v1 = fn.random_resized_crop(images, size=[32, 32], seed=1)
    v2 = fn.random_resized_crop(images, size=[32, 32], seed=2)
    v2 = fn.flip(v2, horizontal=fn.random.coin_flip(seed=3))
    both = fn.stack(v1, v2)
    side = fn.cat(v1, v2, axis=1)
    return both, side, labels


pipe = views_pipe({root!r}, batch_size=3, device_id=None)
"""

# Labels reshaped to scalars, one-hot encoded and cast twice; the image transposed to CHW,
# cast to float and scaled (a hand-written ToTensor).
LABEL_OPS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

NUM_CLASSES = 5


@pipeline_def(seed=8)
def label_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    images = fn.transpose(images, perm=[2, 0, 1])
    images = fn.cast(images, dtype=types.FLOAT)
    images = images / 255.0
    labels = fn.reshape(labels, shape=[])
    onehot = fn.one_hot(labels, num_classes=NUM_CLASSES)
    labels = fn.cast(fn.cast(labels, dtype=types.INT32), dtype=types.INT64)
    return images, labels, onehot


pipe = label_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# A validation resize as DALI loaders write it: mode="not_smaller" bounded by
# max_size, then a centre crop to float CHW with pad_output (a fourth, zero channel).
NOT_SMALLER_PAD = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=21)
def val_pipe(root, size=40):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=size, mode="not_smaller", max_size=200)
    images = fn.crop_mirror_normalize(images, crop=(size, size), pad_output=True,
                                      dtype=types.FLOAT, output_layout="CHW",
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
    return images, labels


pipe = val_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# SSD's zoom-out on images alone: paste at a drawn ratio and position, filled with the mean.
ZOOM_OUT = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=33)
def zoom_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[40, 40])
    ratio = fn.random.uniform(range=(1.0, 2.0))
    px = fn.random.uniform(range=(0.0, 1.0))
    py = fn.random.uniform(range=(0.0, 1.0))
    images = fn.paste(images, ratio=ratio, paste_x=px, paste_y=py, fill_value=(104, 117, 123))
    images = fn.resize(images, size=[40, 40])
    return images, labels


pipe = zoom_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# hue, saturation and brightness_contrast each on its own draw, seed= on every operator (the
# reader's and the decoder's too), BGR out; the executor options given to the call.
COLOURS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=44)
def colour_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB, seed=2)
    images = fn.resize(images, resize_shorter=40, seed=3)
    images = fn.crop(images, crop=[40, 40], seed=4)
    images = fn.hue(images, hue=fn.random.uniform(range=(-20.0, 20.0), seed=5))
    images = fn.saturation(images, saturation=fn.random.uniform(range=(0.5, 1.5), seed=6))
    images = fn.brightness_contrast(images, brightness=fn.random.uniform(range=(0.8, 1.2), seed=7),
                                    contrast=fn.random.uniform(range=(0.8, 1.2), seed=8))
    bgr = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.BGR)
    return bgr, labels


pipe = colour_pipe({root!r}, batch_size=3, num_threads=2, device_id=None, prefetch_queue_depth=1)
"""

# A self-supervised multi-crop (DINO/SwAV style): a helper makes each view (random resized
# crop, flip, colour jitter, normalize), two global and four local, returned with the labels.
MULTI_CROP = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def view(images, size, scale):
    crop = fn.random_resized_crop(images, size=size, random_area=scale)
    crop = fn.flip(crop, horizontal=fn.random.coin_flip(probability=0.5))
    crop = fn.color_twist(crop, brightness=fn.random.uniform(range=[0.6, 1.4]),
                          contrast=fn.random.uniform(range=[0.6, 1.4]),
                          saturation=fn.random.uniform(range=[0.8, 1.2]),
                          hue=fn.random.uniform(range=[-18.0, 18.0]))
    return fn.crop_mirror_normalize(crop, dtype=types.FLOAT, output_layout="CHW",
                                    mean=MEAN, std=STD)


@pipeline_def(seed=1234)
def multi_crop(data_dir, global_size=32, local_size=16, n_local=4):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    crops = [view(images, global_size, [0.4, 1.0]) for _ in range(2)]
    crops += [view(images, local_size, [0.05, 0.4]) for _ in range(n_local)]
    return (*crops, labels)


pipe = multi_crop({root!r}, batch_size=2, num_threads=1, device_id=None)
"""

# DALI's "operator objects" tutorial (the ops API): a rotation by a drawn angle, the angle
# returned beside the image, crop positions drawn by one Uniform object called twice.
OPS_TUTORIAL = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class RandomRotatedPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(RandomRotatedPipeline, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(file_root={root!r}, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.rotate = ops.Rotate()
        self.rng = ops.random.Uniform(range=(-10.0, 10.0))
        self.res = ops.Resize(resize_x=48, resize_y=48)
        self.cmn = ops.CropMirrorNormalize(dtype=types.FLOAT, output_layout=types.NCHW,
                                           crop=(32, 32), mean=[128.0, 128.0, 128.0],
                                           std=[64.0, 64.0, 64.0])
        self.coin = ops.random.CoinFlip(probability=0.5)
        self.uniform = ops.random.Uniform(range=(0.0, 1.0))

    def define_graph(self):
        self.jpegs, self.labels = self.input()
        images = self.decode(self.jpegs)
        angle = self.rng()
        images = self.rotate(images, angle=angle)
        images = self.res(images)
        output = self.cmn(images, mirror=self.coin(), crop_pos_x=self.uniform(),
                          crop_pos_y=self.uniform())
        return (output, self.labels, angle)


pipe = RandomRotatedPipeline(batch_size=3, num_threads=1, device_id=None)
pipe.build()
out = pipe.run()
"""

# SSD's zoom-out and crop with boxes: readers.coco(ratio=True, ltrb=True), paste and bbox_paste
# on the same draws, random_bbox_crop into slice, bb_flip on the coin that mirrors.
SSD_ZOOM = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=2024)
def ssd_pipe(file_root, annotations_file):
    jpegs, bboxes, labels = fn.readers.coco(file_root=file_root, annotations_file=annotations_file,
                                            ltrb=True, ratio=True, skip_empty=True, random_shuffle=True,
                                            name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    ratio = fn.random.uniform(range=[1.0, 2.0])
    px = fn.random.uniform(range=[0.0, 1.0])
    py = fn.random.uniform(range=[0.0, 1.0])
    images = fn.paste(images, ratio=ratio, paste_x=px, paste_y=py, fill_value=(104, 117, 123))
    bboxes = fn.bbox_paste(bboxes, ratio=ratio, paste_x=px, paste_y=py, ltrb=True)
    crop_begin, crop_size, bboxes, labels = fn.random_bbox_crop(
        bboxes, labels, device="cpu", aspect_ratio=[0.5, 2.0],
        thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
        scaling=[0.3, 1.0], bbox_layout="xyXY", allow_no_crop=True, num_attempts=50)
    images = fn.slice(images, crop_begin, crop_size, out_of_bounds_policy="trim_to_shape")
    flip = fn.random.coin_flip(probability=0.5)
    bboxes = fn.bb_flip(bboxes, ltrb=True, horizontal=flip)
    images = fn.resize(images, resize_x=64, resize_y=64)
    images = fn.crop_mirror_normalize(images, mirror=flip, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
    return images, bboxes, labels


pipe = ssd_pipe({root!r}, {annotations!r}, batch_size=3, num_threads=1, device_id=None)
"""

# pad to a fixed canvas, YCbCr beside, normalize with scalar mean and stddev, labels cast,
# expanded and stacked, a vector draw returned as it is.
MISC_OPS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=99)
def misc_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_x=40, resize_y=30, antialias=False,
                       interp_type=types.INTERP_TRIANGULAR)
    images = fn.pad(images, fill_value=0, axes=(0, 1), shape=(48, 48))
    ycc = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.YCbCr)
    images = fn.cast(images, dtype=types.FLOAT)
    images = fn.normalize(images, mean=120.0, stddev=60.0)
    labels = fn.expand_dims(fn.cast(labels, dtype=types.FLOAT), axes=0)
    pair = fn.stack(labels, labels, axis=0)
    shift = fn.random.uniform(range=[-2.0, 2.0], shape=[2])
    return images, ycc, pair, shift


pipe = misc_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# A training script that makes its pipeline only under `if __name__ == "__main__":`, from
# required command-line arguments, with its seed and thread count written in the call.
MAIN_ONLY = """
import argparse

import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def
def train_pipe(data_dir, crop):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.random_resized_crop(images, size=crop)
    mirror = fn.random.coin_flip(probability=0.5)
    images = fn.crop_mirror_normalize(images, mirror=mirror, dtype=types.FLOAT,
                                      mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])
    return images, labels


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("data", help="image folder")
    parser.add_argument("--crop", type=int, default=32)
    parser.add_argument("-b", "--batch-size", type=int, required=True)
    args = parser.parse_args()
    pipe = train_pipe(data_dir=args.data, crop=args.crop, batch_size=args.batch_size,
                      num_threads=1, device_id=None, seed=9)
    pipe.build()
"""

# The same made with literals and module constants, positional arguments first, for GPU 0,
# run in a loop.
MAIN_LITERAL = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

DATA = {root!r}
BATCH = 4


@pipeline_def
def train_pipe(data_dir, crop):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.random_resized_crop(images, size=crop)
    return images, labels


if __name__ == "__main__":
    pipe = train_pipe(DATA, 32, batch_size=BATCH, num_threads=2, device_id=0, seed=42)
    pipe.build()
    for _ in range(3):
        pipe.run()
"""

# A script that parses required command-line arguments at its top level, as training scripts
# do: argparse exits when the file runs without them.
TOP_LEVEL_ARGPARSE = """
import argparse

import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

parser = argparse.ArgumentParser()
parser.add_argument("data")
parser.add_argument("--batch-size", type=int, required=True)
args = parser.parse_args()


@pipeline_def(batch_size=args.batch_size, num_threads=1, device_id=None, seed=3)
def train_pipe():
    jpegs, labels = fn.readers.file(file_root=args.data, random_shuffle=True)
    return fn.decoders.image(jpegs), labels


pipe = train_pipe()
"""

# A uniform draw compared and fed to a flip as it is, which DALI refuses when it runs (the flip
# takes INT32, the comparison gives bool).
COMPARISON_FLIP = THREE_OUTPUTS.replace(
    "fn.cast(fn.random.uniform(range=(0.0, 1.0)) > 0.5, dtype=types.INT32)",
    "fn.random.uniform(range=(0.0, 1.0)) > 0.5",
)

# Each runs here and must come back, in a Session and from its exported module, as it ran.
ROUND_TRIPS = {
    "three_outputs": THREE_OUTPUTS,
    "views_stacked": VIEWS_STACKED,
    "label_ops": LABEL_OPS,
    "not_smaller_pad": NOT_SMALLER_PAD,
    "zoom_out": ZOOM_OUT,
    "colours": COLOURS,
    "multi_crop": MULTI_CROP,
    "ops_tutorial": OPS_TUTORIAL,
    "ssd_zoom": SSD_ZOOM,
    "misc_ops": MISC_OPS,
}
