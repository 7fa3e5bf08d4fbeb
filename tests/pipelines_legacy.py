"""DALI code as older examples and GPU training scripts write it, as files to import: the ``ops``
API (``Pipeline`` subclasses with ``define_graph``, after DALI's ResNet-50 and SSD examples of
2019-2021), the aliases DALI 2.4 still accepts, readers given lists built in Python, shapes
with a type, a policy call written with the pipeline's parameters (DALI's EfficientNet example)
and the ResNet-50 training pipeline with its mixed decoder and ``.gpu()`` transfers.

Each is a template: ``{root}`` is the samples folder, ``{annotations}`` their COCO file.
"""

from __future__ import annotations

# DALI's ResNet-50 example of 2019 (HybridTrainPipe), with its CPU-decoding option on: every
# operator an ops.* object made in __init__, old names throughout, seed from the device id.
OPS_RESNET = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id,
                                              seed=12 + device_id)
        self.input = ops.FileReader(file_root=data_dir, shard_id=0, num_shards=1,
                                    random_shuffle=True)
        dali_device = "cpu" if dali_cpu else "gpu"
        decoder_device = "cpu" if dali_cpu else "mixed"
        self.decode = ops.ImageDecoderRandomCrop(device=decoder_device, output_type=types.RGB,
                                                 random_aspect_ratio=[0.8, 1.25],
                                                 random_area=[0.1, 1.0], num_attempts=100)
        self.res = ops.Resize(device=dali_device, resize_x=crop, resize_y=crop,
                              interp_type=types.INTERP_TRIANGULAR, image_type=types.RGB)
        self.cmnp = ops.CropMirrorNormalize(device=dali_device, output_dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
                                            image_type=types.RGB,
                                            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                            std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.coin = ops.CoinFlip(probability=0.5)
        self.angle = ops.Uniform(range=(-10.0, 10.0))
        self.rotate = ops.Rotate(device=dali_device, fill_value=0, keep_size=True)

    def define_graph(self):
        rng = self.coin()
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        images = self.rotate(images, angle=self.angle())
        output = self.cmnp(images, mirror=rng)
        return [output, self.labels]


pipe = HybridTrainPipe(batch_size=4, num_threads=1, device_id=0, data_dir={root!r}, crop=64,
                       dali_cpu=True)
"""

# DALI's SSD example (COCOPipeline), ops API, with its GPU operators on a `device` switch.
OPS_SSD = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class COCOPipeline(Pipeline):
    def __init__(self, batch_size, device_id, file_root, annotations_file, num_gpus,
                 num_threads=1, seed=15, device="gpu"):
        super(COCOPipeline, self).__init__(batch_size=batch_size, device_id=device_id,
                                           num_threads=num_threads, seed=seed)
        self.input = ops.COCOReader(file_root=file_root, annotations_file=annotations_file,
                                    shard_id=0, num_shards=num_gpus, ratio=True, ltrb=True,
                                    random_shuffle=True, skip_empty=True)
        self.decode_slice = ops.ImageDecoderSlice(device="cpu", output_type=types.RGB)
        self.crop = ops.RandomBBoxCrop(device="cpu", aspect_ratio=[0.5, 2.0],
                                       thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                       scaling=[0.3, 1.0], bbox_layout="xyXY",
                                       allow_no_crop=True, num_attempts=50)
        self.twist = ops.ColorTwist(device=device)
        self.resize = ops.Resize(device=device, resize_x=96, resize_y=96,
                                 min_filter=types.INTERP_TRIANGULAR)
        self.normalize = ops.CropMirrorNormalize(device=device, crop=(96, 96),
                                                 mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0],
                                                 mirror=0, output_dtype=types.FLOAT,
                                                 output_layout=types.NCHW)
        self.rng1 = ops.Uniform(range=[0.5, 1.5])
        self.rng2 = ops.Uniform(range=[0.875, 1.125])
        self.rng3 = ops.Uniform(range=[-0.5, 0.5])
        self.flip = ops.Flip(device=device)
        self.bbflip = ops.BbFlip(device="cpu", ltrb=True)
        self.flip_coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        saturation = self.rng1()
        contrast = self.rng1()
        brightness = self.rng2()
        hue = self.rng3()
        coin_rnd = self.flip_coin()
        inputs, bboxes, labels = self.input(name="Reader")
        crop_begin, crop_size, bboxes, labels = self.crop(bboxes, labels)
        images = self.decode_slice(inputs, crop_begin, crop_size)
        images = self.flip(images, horizontal=coin_rnd)
        bboxes = self.bbflip(bboxes, horizontal=coin_rnd)
        images = self.resize(images)
        images = self.twist(images, saturation=saturation, contrast=contrast,
                            brightness=brightness, hue=hue)
        images = self.normalize(images)
        return (images, bboxes, labels)


pipe = COCOPipeline(batch_size=3, device_id=0, file_root={root!r},
                    annotations_file={annotations!r}, num_gpus=1, device="cpu")
"""

# An operator DALI deprecates for one that takes other inputs: no alias, refused by name.
OPS_SSD_RANDOM_CROP = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops


class OldCrop(Pipeline):
    def __init__(self):
        super().__init__(batch_size=2, num_threads=1, device_id=None, seed=3)
        self.input = ops.readers.COCO(file_root={root!r}, annotations_file={annotations!r},
                                      ltrb=True, ratio=True)
        self.decode = ops.decoders.Image(device="cpu")
        self.crop = ops.SSDRandomCrop(device="cpu", num_attempts=1)

    def define_graph(self):
        inputs, boxes, labels = self.input()
        images = self.decode(inputs)
        return self.crop(images, boxes, labels)


pipe = OldCrop()
"""

# The fn aliases and deprecated arguments DALI 2.4 still accepts, and shapes with a type.
FN_ALIASES = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=None, seed=21)
def old_names():
    jpegs, labels = fn.file_reader(file_root={root!r}, random_shuffle=True)
    images = fn.image_decoder_random_crop(jpegs, output_type=types.RGB, random_area=[0.3, 1.0])
    images = fn.resize(images, resize_x=48, resize_y=40, min_filter=types.INTERP_TRIANGULAR,
                       image_type=types.RGB)
    angle = fn.uniform(range=[-20.0, 20.0])
    images = fn.rotate(images, angle=angle, fill_value=0, keep_size=True)
    images = fn.flip(images, horizontal=fn.coin_flip(probability=0.5))
    jitter = fn.normal_distribution(mean=1.0, stddev=0.1)
    images = fn.brightness(images, brightness=jitter)
    shapes = fn.shapes(images)
    typed = images.shape(dtype=types.INT32)
    old_typed = fn.shapes(images, type=types.FLOAT)
    out = fn.crop_mirror_normalize(images, output_dtype=types.FLOAT, output_layout=types.NCHW,
                                   mean=[128.0], std=[64.0])
    return out, labels, shapes, typed, old_typed


pipe = old_names()
"""

# A reader given its files and labels as lists built in Python, as training scripts build
# them from a CSV or a glob.
FILES_IN_CODE = """
import glob
import os

from nvidia.dali import fn, pipeline_def, types

root = {root!r}
files = sorted(glob.glob(os.path.join(root, "*", "*.jpg")))
classes = sorted({{os.path.basename(os.path.dirname(f)) for f in files}})
labels = [classes.index(os.path.basename(os.path.dirname(f))) for f in files]


@pipeline_def(batch_size=5, num_threads=1, device_id=None)
def listed():
    jpegs, found = fn.readers.file(files=files, labels=labels, random_shuffle=True, seed=3)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=40, resize_y=32), found


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def unlabelled():
    # no labels=: DALI numbers the files 0, 1, 2, ...
    relative = [os.path.relpath(f, root) for f in files[:6]]
    jpegs, found = fn.readers.file(file_root=root, files=relative, seed=4)
    return fn.decoders.image(jpegs, device="cpu"), found
"""

# A COCO reader given the images to read as a list built in Python.
COCO_IMAGES_IN_CODE = """
import json

from nvidia.dali import fn, pipeline_def

with open({annotations!r}) as file:
    listed = json.load(file)["images"]
chosen = [image["file_name"] for image in sorted(listed, key=lambda i: i["id"])][2:7]


@pipeline_def(batch_size=5, num_threads=1, device_id=None)
def some_images():
    jpegs, boxes, labels = fn.readers.coco(file_root={root!r}, annotations_file={annotations!r},
                                           images=chosen, ltrb=True, seed=2)
    return fn.decoders.image(jpegs), boxes, labels
"""

# DALI's EfficientNet example: a policy called with the pipeline's parameters and no seed,
# its interpolation given as a DALI name.
EFFICIENTNET = """
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali.auto_aug import auto_augment, trivial_augment


@pipeline_def(enable_conditionals=True)
def training_pipe(data_dir, interpolation, image_size, automatic_augmentation,
                  dali_device="gpu", rank=0, world_size=1):
    rng = fn.random.coin_flip(probability=0.5)
    jpegs, labels = fn.readers.file(name="Reader", file_root=data_dir, shard_id=rank,
                                    num_shards=world_size, random_shuffle=True,
                                    pad_last_batch=True)
    if dali_device == "gpu":
        decoder_device = "mixed"
        resize_device = "gpu"
    else:
        decoder_device = "cpu"
        resize_device = "cpu"
    images = fn.decoders.image_random_crop(jpegs, device=decoder_device, output_type=types.RGB,
                                           random_aspect_ratio=[0.75, 4.0 / 3.0],
                                           random_area=[0.08, 1.0])
    images = fn.resize(images, device=resize_device, size=[image_size, image_size],
                       interp_type=interpolation, antialias=False)
    images = fn.flip(images, horizontal=rng)
    if automatic_augmentation == "autoaugment":
        images = auto_augment.auto_augment_image_net(images, shape=[image_size, image_size])
    elif automatic_augmentation == "trivialaugment":
        images = trivial_augment.trivial_augment_wide(images)
    output = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      crop=(image_size, image_size),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
    return output, labels
"""

# DALI's ResNet-50 training example (fn API): a mixed decoder through an alias, GPU resize and
# normalisation, and both outputs moved to the GPU.
RESNET_GPU = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(num_threads=4, device_id=0)
def create_dali_pipeline(data_dir, crop, size, shard_id, num_shards, dali_cpu=False,
                         is_training=True):
    images, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id,
                                     num_shards=num_shards, random_shuffle=is_training,
                                     pad_last_batch=True, name="Reader", seed=5)
    dali_device = "cpu" if dali_cpu else "gpu"
    decoder_device = "cpu" if dali_cpu else "mixed"
    if is_training:
        images = fn.image_decoder_random_crop(images, device=decoder_device,
                                              output_type=types.RGB,
                                              random_aspect_ratio=[0.8, 1.25],
                                              random_area=[0.1, 1.0], num_attempts=100, seed=42)
        images = fn.resize(images, device=dali_device, resize_x=crop, resize_y=crop,
                           interp_type=types.INTERP_TRIANGULAR)
        mirror = fn.coin_flip(probability=0.5, seed=7)
    else:
        images = fn.decoders.image(images, device=decoder_device, output_type=types.RGB)
        images = fn.resize(images, device=dali_device, size=size, mode="not_smaller",
                           interp_type=types.INTERP_TRIANGULAR)
        mirror = False
    images = fn.crop_mirror_normalize(images.gpu(), dtype=types.FLOAT,
                                      output_layout=types.NCHW, crop=(crop, crop),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=mirror)
    labels = labels.gpu()
    return images, labels
"""
