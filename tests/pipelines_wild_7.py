"""DALI code as it is written in the wild, a ninth set: the old ``ops`` style and the mixed styles
of NVIDIA's older examples, their forks and training repositories of 2019-2022. ``Pipeline``
subclasses making their operators in ``__init__``, ``ops.readers.File`` sharded, the decoders'
old and new names, ``resize_shorter`` validation, ``CropMirrorNormalize`` with ``output_dtype`` and
``image_type``, coins and uniforms old and new, ``Paste``, ``Rotate``, ``Hsv``, ``ColorTwist``,
``BrightnessContrast``, ``WarpAffine``, ``Sphere``, ``Water``, COCO with ``RandomBBoxCrop`` into
``Slice``, ``BbFlip`` and ``BoxEncoder``, operators made inside ``define_graph``, one operator
object for two inputs, counters kept by ``iter_setup``, ``nvidia.dali.ops`` under other names,
``ops`` and ``fn`` in one pipeline, the synchronous executor, ``prefetch_queue_depth``, an
iterator built in the same file, a pipeline loaded back by ``Pipeline.deserialize``; and what
DALI runs but a graph cannot hold (values fed by ``feed_input``), runs with boxes off their objects
(``BbFlip(ltrb=True)`` on x, y, width, height boxes) or refuses (``ops.Jitter`` on the CPU). Each template writes ``pipe``, the
pipeline the file builds, for the CPU; ``{root}`` is the samples folder, ``{annotations}`` their
COCO file.
"""

from __future__ import annotations

# DALI's PyTorch ImageNet example of 2020, its CPU path: ops.readers.File reading the second of
# two shards, ops.decoders.ImageRandomCrop, ops.random.CoinFlip, the pipeline handed to a
# DALIClassificationIterator built in the same file and read by a training loop.
SHARDED_ITERATOR = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False,
                 local_rank=0, world_size=1):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id, seed=12 + local_rank)
        dali_device = "cpu" if dali_cpu else "gpu"
        decoder_device = "cpu" if dali_cpu else "mixed"
        self.input = ops.readers.File(file_root=data_dir, shard_id=local_rank,
                                      num_shards=world_size, random_shuffle=True,
                                      pad_last_batch=True)
        self.decode = ops.decoders.ImageRandomCrop(device=decoder_device, output_type=types.RGB,
                                                   random_aspect_ratio=[0.8, 1.25],
                                                   random_area=[0.1, 1.0], num_attempts=100)
        self.res = ops.Resize(device=dali_device, resize_x=crop, resize_y=crop,
                              interp_type=types.INTERP_TRIANGULAR)
        self.cmnp = ops.CropMirrorNormalize(device=dali_device, dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
                                            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                            std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.coin = ops.random.CoinFlip(probability=0.5)

    def define_graph(self):
        rng = self.coin()
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        output = self.cmnp(images, mirror=rng)
        return [output, self.labels]


pipe = HybridTrainPipe(batch_size=3, num_threads=1, device_id=None, data_dir={root!r}, crop=32,
                       dali_cpu=True, local_rank=1, world_size=2)
pipe.build()
train_loader = DALIClassificationIterator(pipe, reader_name="Reader",
                                          last_batch_policy=LastBatchPolicy.PARTIAL,
                                          auto_reset=True)
for i, data in enumerate(train_loader):
    images = data[0]["data"]
    target = data[0]["label"].squeeze(-1).long()
    break
"""


# The validation pipeline of the same era: ops.FileReader unshuffled, ops.ImageDecoder,
# resize_shorter, CropMirrorNormalize with the old output_dtype and image_type, the iterator given
# its size from epoch_size and the old fill_last_batch.
VAL_RESIZE_SHORTER = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline
from nvidia.dali.plugin.pytorch import DALIGenericIterator


class HybridValPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, size):
        super(HybridValPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.FileReader(file_root=data_dir, shard_id=0, num_shards=1,
                                    random_shuffle=False)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(device="cpu", resize_shorter=size, interp_type=types.INTERP_TRIANGULAR)
        self.cmnp = ops.CropMirrorNormalize(device="cpu", output_dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
                                            image_type=types.RGB,
                                            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                            std=[0.229 * 255, 0.224 * 255, 0.225 * 255])

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        output = self.cmnp(images)
        return [output, self.labels]


pipe = HybridValPipe(batch_size=3, num_threads=1, device_id=None, data_dir={root!r}, crop=32,
                     size=40)
pipe.build()
val_loader = DALIGenericIterator(pipe, ["data", "label"], size=pipe.epoch_size("Reader"),
                                 fill_last_batch=False, auto_reset=True)
"""


# nvidia.dali imported as dali and its ops under other names (dali.ops.X, O.X, names imported
# from nvidia.dali.ops), the interpolation given as types.DALIInterpType.
OPS_OTHER_NAMES = """
import nvidia.dali as dali
import nvidia.dali.ops as O
from nvidia.dali import ops as dali_ops
from nvidia.dali.ops import CoinFlip, Flip, Resize
from nvidia.dali.types import DALIInterpType


class AliasPipe(dali.pipeline.Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=19)
        self.reader = dali.ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = O.ImageDecoder(device="cpu", output_type=dali.types.RGB)
        self.resize = Resize(device="cpu", resize_x=40, resize_y=32,
                             min_filter=DALIInterpType.INTERP_TRIANGULAR)
        self.rotate = dali_ops.Rotate(device="cpu", fill_value=0, keep_size=True)
        self.angle = O.random.Uniform(range=(-15.0, 15.0))
        self.flip = Flip(device="cpu")
        self.coin = CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = self.reader()
        images = self.resize(self.decode(jpegs))
        images = self.rotate(images, angle=self.angle())
        images = self.flip(images, horizontal=self.coin())
        return images, labels


pipe = AliasPipe(3, 1, None, {root!r})
"""


# Operators made inside define_graph and called at once (ops.Rotate(...)(images)), an ops
# constructor given data nodes drawn by fn (hue and saturation), ops.Cast of a coin.
OPS_IN_DEFINE_GRAPH = """
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class InlinePipe(Pipeline):
    def __init__(self, data_dir, batch_size=3, num_threads=1, device_id=None):
        super().__init__(batch_size, num_threads, device_id, seed=29)
        self.data_dir = data_dir

    def define_graph(self):
        jpegs, labels = ops.readers.File(file_root=self.data_dir, random_shuffle=True)()
        images = ops.decoders.Image(device="cpu", output_type=types.RGB)(jpegs)
        images = ops.Resize(device="cpu", size=[32, 32])(images)
        images = ops.Rotate(device="cpu", angle=10.0, fill_value=0, keep_size=True)(images)
        r = fn.cast(fn.random.uniform(range=(0, 1)) * 100, dtype=types.FLOAT)
        b = fn.cast(fn.random.uniform(range=(0, 1)), dtype=types.FLOAT)
        images = ops.Hsv(device="cpu", hue=r, saturation=b)(images)
        coin = ops.Cast(dtype=types.INT32)(ops.random.CoinFlip(probability=0.3)())
        images = ops.Flip(device="cpu")(images, vertical=coin)
        return images, labels


pipe = InlinePipe({root!r})
"""


# Segmentation in the ops style: two readers with one seed (images and their targets, here the
# same folder), one decoder, one Resize and one Flip object each used for both inputs on one coin.
OPS_REUSED = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class PairPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, image_dir, target_dir, size=32):
        super().__init__(batch_size, num_threads, device_id, seed=31)
        self.images = ops.FileReader(file_root=image_dir, random_shuffle=True, seed=5)
        self.targets = ops.FileReader(file_root=target_dir, random_shuffle=True, seed=5)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=size, resize_y=size,
                                 interp_type=types.INTERP_NN)
        self.flip = ops.Flip(device="cpu")
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = self.images(name="Images")
        masks, _ = self.targets(name="Targets")
        coin = self.coin()
        images = self.flip(self.resize(self.decode(jpegs)), horizontal=coin)
        targets = self.flip(self.resize(self.decode(masks)), horizontal=coin)
        return images, targets, labels


pipe = PairPipe(3, 1, None, {root!r}, {root!r})
"""


# Counters kept by iter_setup (self.iter, the epoch), the pipeline made with prefetch_queue_depth
# and set_affinity; SSD's zoom-out in the ops style: Paste at a drawn ratio and position (ops.Uniform
# called three times), Cast to float.
ITER_COUNTERS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class ZoomPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, epoch_len=8):
        super(ZoomPipe, self).__init__(batch_size, num_threads, device_id, seed=37,
                                       prefetch_queue_depth=4, set_affinity=False)
        self.iter = 0
        self.epoch = 0
        self.epoch_len = epoch_len
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.paste = ops.Paste(device="cpu", fill_value=(118, 117, 104))
        self.ratio = ops.Uniform(range=(1.0, 2.0))
        self.pos = ops.Uniform(range=(0.0, 1.0))
        self.back = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.cast = ops.Cast(device="cpu", dtype=types.FLOAT)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.resize(self.decode(jpegs))
        images = self.paste(images, ratio=self.ratio(), paste_x=self.pos(), paste_y=self.pos())
        images = self.cast(self.back(images))
        return images, labels

    def iter_setup(self):
        self.iter += 1
        if self.iter % self.epoch_len == 0:
            self.epoch += 1


pipe = ZoomPipe(3, 1, None, {root!r})
"""


# The synchronous executor of older scripts (exec_async=False, exec_pipelined=False), the image
# distorted in turn by Rotate, WarpAffine with a fixed matrix, Sphere and Water.
SYNC_DISTORTIONS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class DistortPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=41, exec_async=False,
                         exec_pipelined=False)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=48, resize_y=48)
        self.rotate = ops.Rotate(device="cpu", interp_type=types.INTERP_LINEAR, fill_value=0)
        self.angle = ops.Uniform(range=(-30.0, 30.0))
        self.warp = ops.WarpAffine(device="cpu", matrix=[1.0, 0.8, -16.0, 0.0, 1.2, -4.0],
                                   fill_value=0, interp_type=types.INTERP_LINEAR)
        self.sphere = ops.Sphere(device="cpu")
        self.water = ops.Water(device="cpu", ampl_x=4.0, ampl_y=3.0, freq_x=0.1, freq_y=0.2)
        self.crop = ops.Crop(device="cpu", crop=(40, 40))

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        rotated = self.crop(self.rotate(images, angle=self.angle()))
        warped = self.warp(images)
        sphered = self.sphere(images)
        watered = self.water(images)
        return rotated, warped, sphered, watered, labels


pipe = DistortPipe(batch_size=3, num_threads=1, device_id=None, data_dir={root!r})
"""


# Colour augmentation of SSD-era repositories: Hsv in float (no clipping in between),
# BrightnessContrast back to uint8, ColorTwist on four ops.random.Uniform draws, the old
# ops.Saturation, ops.Contrast and ops.Brightness beside it.
COLOUR_OPS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class ColourPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=43)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.hsv = ops.Hsv(device="cpu", dtype=types.FLOAT)
        self.bc = ops.BrightnessContrast(device="cpu", dtype=types.UINT8)
        self.hue = ops.random.Uniform(range=[-18.0, 18.0])
        self.sat = ops.random.Uniform(range=[0.5, 1.5])
        self.contrast = ops.random.Uniform(range=[0.5, 1.5])
        self.brightness = ops.random.Uniform(range=[0.875, 1.125])
        self.twist = ops.ColorTwist(device="cpu")
        self.saturation = ops.Saturation(device="cpu", saturation=0.8)
        self.contrast_op = ops.Contrast(device="cpu", contrast=1.2)
        self.brightness_op = ops.Brightness(device="cpu", brightness=1.1)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        jittered = self.hsv(images, hue=self.hue(), saturation=self.sat())
        jittered = self.bc(jittered, brightness=self.brightness(), contrast=self.contrast())
        twisted = self.twist(images, brightness=self.brightness(), contrast=self.contrast(),
                             saturation=self.sat(), hue=self.hue())
        old = self.brightness_op(self.contrast_op(self.saturation(images)))
        return jittered, twisted, old, labels


pipe = ColourPipe(3, 1, None, {root!r})
"""


# DALI's SSD example of 2019 for COCO: COCOReader sharded and skipping empty images, the image
# decoded whole and cut by Slice at RandomBBoxCrop's window, BbFlip and Flip on one coin, Resize,
# CropMirrorNormalize, BoxEncoder with anchors computed in Python.
COCO_SLICE_ENCODER = """
import itertools

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


def default_boxes(fig_size=64, feat_sizes=(4, 2), scales=(0.3, 0.6)):
    boxes = []
    for size, scale in zip(feat_sizes, scales):
        for i, j in itertools.product(range(size), repeat=2):
            cx, cy = (j + 0.5) / size, (i + 0.5) / size
            boxes.append([cx - scale / 2, cy - scale / 2, cx + scale / 2, cy + scale / 2])
    return [min(max(v, 0.0), 1.0) for box in boxes for v in box]


class COCOPipeline(Pipeline):
    def __init__(self, batch_size, device_id, file_root, annotations_file, num_gpus,
                 num_threads=1, seed=47):
        super(COCOPipeline, self).__init__(batch_size=batch_size, device_id=device_id,
                                           num_threads=num_threads, seed=seed)
        self.input = ops.COCOReader(file_root=file_root, annotations_file=annotations_file,
                                    shard_id=device_id or 0, num_shards=num_gpus, ratio=True,
                                    ltrb=True, random_shuffle=True, skip_empty=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.crop = ops.RandomBBoxCrop(device="cpu", aspect_ratio=[0.5, 2.0],
                                       thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                       scaling=[0.3, 1.0], bbox_layout="xyXY",
                                       allow_no_crop=True, num_attempts=1)
        self.slice = ops.Slice(device="cpu")
        self.flip = ops.Flip(device="cpu")
        self.bbflip = ops.BbFlip(device="cpu", ltrb=True)
        self.coin = ops.CoinFlip(probability=0.5)
        self.resize = ops.Resize(device="cpu", resize_x=64, resize_y=64)
        self.normalize = ops.CropMirrorNormalize(device="cpu", crop=(64, 64),
                                                 mean=[104.0, 117.0, 123.0], std=[1.0, 1.0, 1.0],
                                                 output_dtype=types.FLOAT,
                                                 output_layout=types.NCHW)
        self.encoder = ops.BoxEncoder(device="cpu", criteria=0.5, anchors=default_boxes())

    def define_graph(self):
        coin = self.coin()
        inputs, bboxes, labels = self.input(name="Reader")
        images = self.decode(inputs)
        crop_begin, crop_size, bboxes, labels = self.crop(bboxes, labels)
        images = self.slice(images, crop_begin, crop_size)
        images = self.flip(images, horizontal=coin)
        bboxes = self.bbflip(bboxes, horizontal=coin)
        images = self.normalize(self.resize(images))
        bboxes, labels = self.encoder(bboxes, labels)
        return images, bboxes, labels


pipe = COCOPipeline(batch_size=3, device_id=None, file_root={root!r},
                    annotations_file={annotations!r}, num_gpus=1)
"""


# ops objects and fn calls in one define_graph: fn.random.uniform feeding an ops.Rotate, an
# ops.random.CoinFlip feeding fn.flip, ops.RandomResizedCrop, fn.crop_mirror_normalize last.
OPS_AND_FN = """
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class MixedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop=32):
        super().__init__(batch_size, num_threads, device_id, seed=53)
        self.data_dir = data_dir
        self.crop = crop
        self.rrc = ops.RandomResizedCrop(device="cpu", size=crop, random_area=[0.25, 1.0],
                                         interp_type=types.INTERP_LINEAR)
        self.rotate = ops.Rotate(device="cpu", keep_size=True, fill_value=0)
        self.coin = ops.random.CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = fn.readers.file(file_root=self.data_dir, random_shuffle=True,
                                        name="Reader")
        images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
        images = self.rrc(images)
        images = self.rotate(images, angle=fn.random.uniform(range=[-20.0, 20.0]))
        images = fn.flip(images, horizontal=self.coin())
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                          mean=[127.5] * 3, std=[127.5] * 3)
        return images, fn.cast(labels, dtype=types.INT64)


pipe = MixedPipe(3, 1, None, {root!r})
"""


# Old argument names DALI 2.4 still takes and warns about: Resize and ColorSpaceConversion's
# image_type, Crop's and Rotate's output_dtype, Shapes' type; Crop at positions drawn by
# ops.Uniform, Transpose to CHW, NormalDistribution.
OLD_ARGUMENTS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class OldArgsPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=59)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_shorter=40, image_type=types.RGB)
        self.crop = ops.Crop(device="cpu", crop=(32, 32), output_dtype=types.FLOAT,
                             image_type=types.RGB)
        self.pos = ops.Uniform(range=(0.0, 1.0))
        self.rotate = ops.Rotate(device="cpu", output_dtype=types.FLOAT, keep_size=True)
        self.angle = ops.NormalDistribution(mean=0.0, stddev=8.0)
        self.grey = ops.ColorSpaceConversion(device="cpu", image_type=types.RGB,
                                             output_type=types.GRAY)
        self.shapes = ops.Shapes(device="cpu", type=types.INT32)
        self.transpose = ops.Transpose(device="cpu", perm=[2, 0, 1])

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        shapes = self.shapes(images)
        grey = self.grey(images)
        images = self.crop(images, crop_pos_x=self.pos(), crop_pos_y=self.pos())
        images = self.rotate(images, angle=self.angle())
        return self.transpose(images), grey, shapes, labels


pipe = OldArgsPipe(3, 1, None, {root!r})
"""


# DALI 0.x's fast resize-crop-mirror (ops.FastResizeCropMirror) and ResizeCropMirror with drawn
# crop positions and mirror, after ops.ImageDecoderCrop; the newer ops.random.Uniform called for
# two values at once (shape=2).
OPS_RESIZE_CROP_MIRROR = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class RcmPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=61)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoderCrop(device="cpu", crop=(96, 96), output_type=types.RGB)
        self.fast = ops.FastResizeCropMirror(device="cpu", crop=[32, 32], resize_shorter=40)
        self.rcm = ops.ResizeCropMirror(device="cpu", crop=[24, 24], resize_shorter=36)
        self.pos = ops.random.Uniform(range=(0.0, 1.0), shape=2)
        self.uniform = ops.Uniform(range=(0.0, 1.0))
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.decode(jpegs)
        fast = self.fast(images, crop_pos_x=self.uniform(), crop_pos_y=self.uniform(),
                         mirror=self.coin())
        pos = self.pos()
        slow = self.rcm(images, crop_pos_x=pos[0], crop_pos_y=pos[1])
        return fast, slow, labels


pipe = RcmPipe(3, 1, None, {root!r})
"""


# An augmentation class of a repository wrapping ops objects (made in its __init__, applied in
# __call__) handed to the pipeline, the epoch counter read in define_graph to pick the size of a
# progressive-resizing schedule.
OPS_WRAPPER_CLASS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class RandomRotate:
    def __init__(self, degrees, device="cpu"):
        self.rotate = ops.Rotate(device=device, keep_size=True, fill_value=0)
        self.angle = ops.Uniform(range=(-degrees, degrees))

    def __call__(self, images):
        return self.rotate(images, angle=self.angle())


class RandomGrey:
    def __init__(self, device="cpu"):
        self.grey = ops.ColorSpaceConversion(device=device, image_type=types.RGB,
                                             output_type=types.GRAY)
        self.cat = ops.Cat(device=device, axis=2)

    def __call__(self, images):
        grey = self.grey(images)
        return self.cat(grey, grey, grey)


class ProgressivePipe(Pipeline):
    SIZES = {{0: 24, 1: 32, 2: 40}}

    def __init__(self, batch_size, num_threads, device_id, data_dir, transforms, epoch=1):
        super().__init__(batch_size, num_threads, device_id, seed=71)
        self.epoch = epoch
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.transforms = transforms

    def define_graph(self):
        size = self.SIZES[min(self.epoch, 2)]
        jpegs, labels = self.input()
        images = ops.Resize(device="cpu", resize_x=size, resize_y=size)(self.decode(jpegs))
        for transform in self.transforms:
            images = transform(images)
        return images, labels


pipe = ProgressivePipe(3, 1, None, {root!r}, [RandomRotate(20.0), RandomGrey()])
"""


# The GPU path of an ops pipeline with ops.Jitter (a GPU-only operator): the mixed decoder, the
# images on the GPU, labels moved with .gpu().
OPS_JITTER_GPU = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class JitterPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=73)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="mixed", output_type=types.RGB)
        self.resize = ops.Resize(device="gpu", resize_x=32, resize_y=32)
        self.jitter = ops.Jitter(device="gpu", nDegree=2)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        images = self.jitter(images)
        return images, labels.gpu()


pipe = JitterPipe(3, 1, 0, {root!r})
"""


# The same Jitter kept on the CPU with the CPU decoder, as a port for a machine without a GPU
# writes it: DALI has no CPU Jitter and refuses the pipeline when it is built.
OPS_JITTER_CPU = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class JitterPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=73)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.jitter = ops.Jitter(device="cpu", nDegree=2)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        images = self.jitter(images)
        return images, labels


pipe = JitterPipe(3, 1, None, {root!r})
"""


# Angles fed from Python by iter_setup (ops.ExternalSource and feed_input), as augmentation
# schedules of 2019 wrote them: DALI runs it; a graph cannot hold values fed from Python.
FED_ANGLES = """
import numpy as np
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class FedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=79)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.rotate = ops.Rotate(device="cpu", keep_size=True)
        self.angles = ops.ExternalSource()
        self.rng = np.random.default_rng(0)

    def define_graph(self):
        jpegs, labels = self.input()
        self.angle = self.angles()
        images = self.resize(self.decode(jpegs))
        images = self.rotate(images, angle=self.angle)
        return images, labels

    def iter_setup(self):
        angles = self.rng.uniform(-20, 20, size=self.max_batch_size).astype(np.float32)
        self.feed_input(self.angle, [np.array(a, dtype=np.float32) for a in angles])


pipe = FedPipe(3, 1, None, {root!r})
"""


# A pipeline saved with serialize() and loaded back with Pipeline.deserialize, as scripts that
# ship a pipeline to another process do: the loaded pipeline is the one the file runs.
DESERIALIZED = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class SavedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=83)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.DALIImageType.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.flip = ops.Flip(device="cpu")
        self.coin = ops.CoinFlip(probability=0.5)
        self.cast = ops.Cast(device="cpu", dtype=types.DALIDataType.FLOAT)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.flip(self.resize(self.decode(jpegs)), horizontal=self.coin())
        return self.cast(images), labels


saved = SavedPipe(3, 1, None, {root!r}).serialize()
pipe = Pipeline.deserialize(serialized_pipeline=saved, batch_size=3, num_threads=1,
                            device_id=None)
"""
# Operators of the ops API seldom seen in fn code: ops.Constant giving a slice's window, Crop by
# crop_h and crop_w, LookupTable with the old output_dtype remapping the labels, OneHot, one
# drawn value shared by Brightness and Contrast, a mirror computed from a coin (1 - coin),
# CropMirrorNormalize with pad_output, resize_longer with max_size, the deprecated
# default_cuda_stream_priority.
OPS_CONSTANTS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class LookupPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=89,
                         default_cuda_stream_priority=0)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True, name="Reader")
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_longer=48, max_size=48)
        self.crop = ops.Crop(device="cpu", crop_h=20, crop_w=18)
        self.anchor = ops.Constant(fdata=[0.25, 0.25], shape=[2])
        self.window = ops.Constant(fdata=[0.5, 0.5], shape=[2])
        self.slice = ops.Slice(device="cpu", normalized_anchor=True, normalized_shape=True)
        self.lut = ops.LookupTable(keys=[0, 1, 2, 3, 4], values=[4, 3, 2, 1, 0], default_value=9,
                                   output_dtype=types.INT64)
        self.onehot = ops.OneHot(num_classes=5)
        self.coin = ops.CoinFlip()
        self.cmn = ops.CropMirrorNormalize(device="cpu", crop=(16, 16), pad_output=True,
                                           output_dtype=types.FLOAT, mean=[0.0], std=[255.0])
        self.scale = ops.random.Uniform(range=(0.5, 1.5))
        self.bright = ops.Brightness(device="cpu")
        self.contrast = ops.Contrast(device="cpu")

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        sliced = self.slice(images, self.anchor(), self.window())
        images = self.crop(images)
        s = self.scale()
        images = self.contrast(self.bright(images, brightness=s), contrast=s)
        mirror = 1 - self.coin()
        out = self.cmn(images, mirror=mirror)
        labels = self.lut(labels)
        return out, sliced, labels, self.onehot(labels)


pipe = LookupPipe(3, 1, None, {root!r})
"""

# A pipeline given seed=-1 (DALI 0.x's "draw one"), its operators each given their own seed, as
# scripts that wanted reproducible draws wrote it; WarpAffine by ops.transforms.Rotation into a
# float 24x24 output, Rotate to a size, BGR decoding, Reshape setting the layout.
OWN_SEEDS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class SeededPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=-1)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True, seed=3)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.BGR)
        self.resize = ops.Resize(device="cpu", resize_x=32, resize_y=32)
        self.warp = ops.WarpAffine(device="cpu", output_dtype=types.FLOAT, size=[24, 24],
                                   interp_type=types.DALIInterpType.INTERP_NN)
        self.m = ops.transforms.Rotation(angle=10.0, center=[16, 16])
        self.rot = ops.Rotate(device="cpu", size=[20, 30], output_dtype=types.UINT8, seed=4)
        self.angle = ops.Uniform(range=(-5.0, 5.0), seed=5)
        self.reshape = ops.Reshape(device="cpu", layout="HWC")

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.resize(self.decode(jpegs))
        warped = self.warp(images, matrix=self.m())
        rotated = self.reshape(self.rot(images, angle=self.angle()))
        return warped, rotated


pipe = SeededPipe(3, 1, None, {root!r})
"""


# A 2019 ops-style detection pipeline as newcomers adapt it: boxes read as x, y, width, height (no
# ltrb=True) flipped by BbFlip(ltrb=True), a RandomBBoxCrop with allow_no_crop=False and no
# total_num_attempts. DALI runs the flip without an error, boxes off their objects, and may search
# for a crop forever.
OPS_BOXES_AS_WRITTEN = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class DetPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, file_root, annotations_file):
        super().__init__(batch_size, num_threads, device_id, seed=97)
        self.input = ops.COCOReader(file_root=file_root, annotations_file=annotations_file,
                                    ratio=True, random_shuffle=True, skip_empty=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.crop = ops.RandomBBoxCrop(device="cpu", thresholds=[0.1, 0.3, 0.5],
                                       scaling=[0.3, 1.0], bbox_layout="xyWH",
                                       allow_no_crop=False)
        self.slice = ops.Slice(device="cpu")
        self.flip = ops.Flip(device="cpu")
        self.bbflip = ops.BbFlip(device="cpu", ltrb=True)
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        coin = self.coin()
        inputs, bboxes, labels = self.input()
        images = self.decode(inputs)
        crop_begin, crop_size, bboxes, labels = self.crop(bboxes, labels)
        images = self.flip(self.slice(images, crop_begin, crop_size), horizontal=coin)
        bboxes = self.bbflip(bboxes, horizontal=coin)
        return images, bboxes, labels


pipe = DetPipe(3, 1, None, {root!r}, {annotations!r})
"""


# Each runs here and must come back, in a Session and from its exported module, as it ran.
ROUND_TRIPS = {
    "sharded_iterator": SHARDED_ITERATOR,
    "val_resize_shorter": VAL_RESIZE_SHORTER,
    "ops_other_names": OPS_OTHER_NAMES,
    "ops_in_define_graph": OPS_IN_DEFINE_GRAPH,
    "ops_reused": OPS_REUSED,
    "iter_counters": ITER_COUNTERS,
    "sync_distortions": SYNC_DISTORTIONS,
    "colour_ops": COLOUR_OPS,
    "coco_slice_encoder": COCO_SLICE_ENCODER,
    "ops_and_fn": OPS_AND_FN,
    "old_arguments": OLD_ARGUMENTS,
    "ops_resize_crop_mirror": OPS_RESIZE_CROP_MIRROR,
    "ops_wrapper_class": OPS_WRAPPER_CLASS,
    "deserialized": DESERIALIZED,
    "ops_constants": OPS_CONSTANTS,
    "own_seeds": OWN_SEEDS,
}
