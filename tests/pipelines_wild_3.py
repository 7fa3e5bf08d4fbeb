"""DALI code as it is written in the wild, a fifth set, as files to import: ``@pipeline_def(
enable_conditionals=True)`` with ``if`` on coins, draws, comparisons and shapes (and in helper
functions), the decoders' own random crops and slices (``fn.decoders.image_random_crop``,
``ops.ImageDecoderRandomCrop``, ``fn.decoders.image_slice``), ``fn.warp_affine`` fed by
``fn.transforms.rotation/scale/shear/translation/combine``, noise, water, sphere, grid_mask and
erase at drawn anchors, ``fn.readers.file(file_list=...)`` and ``files=[...]``, a
``DALIGenericIterator`` with ``last_batch_policy``, an ops subclass with odd names run in a
``pipe.build(); pipe.run()`` loop, ``fn.random.choice`` and ``fn.random.normal``, labels
squeezed and one-hot encoded, the decoders' crops and slices of the ops API; and what cannot
come in or is wrong as written (external sources, the numpy reader, a random crop window DALI
refuses, an error inside a conditional branch). Each template writes ``pipe``, the pipeline the
file builds, for the CPU (anything after a top-level ``pipe.build()`` is what the file does
with it); ``{root}`` is the samples folder.
"""

from __future__ import annotations

# DALI's conditionals example, as a training script writes it: a decoder's random crop, an
# interpolation named by types.DALIInterpType, `if` on coins (one with an else), float16 output.
CONDITIONALS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(enable_conditionals=True, seed=42)
def train_pipe(data_dir, crop=48):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB,
                                           random_aspect_ratio=[0.8, 1.25],
                                           random_area=[0.1, 1.0], num_attempts=100)
    images = fn.resize(images, resize_x=crop, resize_y=crop,
                       interp_type=types.DALIInterpType.INTERP_CUBIC)
    if fn.random.coin_flip(probability=0.5):
        images = fn.rotate(images, angle=fn.random.uniform(range=(-20.0, 20.0)), keep_size=True)
    if fn.random.coin_flip(probability=0.3):
        images = fn.color_twist(images, saturation=0.0)
    else:
        images = fn.hsv(images, hue=fn.random.uniform(range=(-10.0, 10.0)))
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT16, output_layout="CHW",
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=fn.random.coin_flip())
    return images, labels


pipe = train_pipe(data_dir={root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# Conditions on a shape (a portrait image turned), on a draw compared (`contrast < 0.8 or` a
# boolean coin), on a uniform draw (apply with probability), greyscale by fn.cat of the grey
# channel.
CONDITIONS_ON_DATA = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(enable_conditionals=True, seed=101)
def cond_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    shape = images.shape()
    if shape[0] > shape[1]:
        images = fn.rotate(images, angle=90.0, keep_size=False)
    images = fn.resize(images, size=[40, 56])
    do_grey = fn.random.coin_flip(probability=0.3)
    if do_grey:
        grey = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)
        images = fn.cat(grey, grey, grey, axis=2)
    contrast = fn.random.uniform(range=[0.5, 1.5])
    if contrast < 0.8 or fn.random.coin_flip(probability=0.1, dtype=types.BOOL):
        images = fn.contrast(images, contrast=contrast)
    if fn.random.uniform(range=[0.0, 1.0]) < 0.5:
        images = fn.gaussian_blur(images, window_size=5, sigma=fn.random.uniform(range=[0.1, 2.0]))
    return images, labels


pipe = cond_pipe({root!r}, batch_size=4, num_threads=1, device_id=None)
"""

# Conditionals in helper functions the pipeline calls (`random_apply(images, op, p)`).
CONDITIONAL_HELPERS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def random_apply(images, op, p, **kwargs):
    if fn.random.coin_flip(probability=p):
        images = op(images, **kwargs)
    return images


def augment(images):
    images = random_apply(images, fn.flip, 0.5, horizontal=1)
    images = random_apply(images, fn.rotate, 0.3, angle=15.0, keep_size=True)
    return images


@pipeline_def(enable_conditionals=True, seed=55)
def helper_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    images = augment(images)
    return images, labels


pipe = helper_pipe({root!r}, batch_size=4, num_threads=1, device_id=None)
"""

# DALI's warp_affine example: a rotation about the centre, scaled, then combined with a shear
# and a translation, each drawn per sample; warp_affine with inverse_map=False.
WARP_TRANSFORMS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

SIZE = 64


@pipeline_def(seed=3)
def warp_pipe():
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=(SIZE, SIZE))
    center = [SIZE / 2, SIZE / 2]
    mt = fn.transforms.rotation(angle=fn.random.uniform(range=(-30.0, 30.0)), center=center)
    mt = fn.transforms.scale(mt, scale=fn.random.uniform(range=(0.8, 1.2), shape=[2]),
                             center=center)
    shear = fn.transforms.shear(angles=fn.random.uniform(range=(-10.0, 10.0), shape=[2]),
                                center=center)
    move = fn.transforms.translation(offset=fn.random.uniform(range=(-4.0, 4.0), shape=[2]))
    mt = fn.transforms.combine(mt, shear, move)
    images = fn.warp_affine(images, matrix=mt, fill_value=0, inverse_map=False,
                            interp_type=types.INTERP_LINEAR)
    return images, labels


pipe = warp_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# Noise, distortions and occlusion, each on the same image: fn.noise.*, water, sphere, grid_mask
# at a drawn angle, erase at a drawn normalized anchor, color_twist of four draws.
NOISE_AND_OCCLUSION = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=11)
def noise_pipe(image_dir):
    jpegs, labels = fn.readers.file(file_root=image_dir)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_shorter=40)
    images = fn.crop(images, crop=(40, 40))
    a = fn.noise.gaussian(images, stddev=fn.random.uniform(range=(5.0, 15.0)))
    b = fn.noise.salt_and_pepper(images, prob=0.05, salt_vs_pepper=0.3)
    c = fn.noise.shot(images, factor=fn.random.uniform(range=(0.5, 2.0)))
    d = fn.water(images, ampl_x=5.0, ampl_y=5.0)
    e = fn.sphere(images)
    f = fn.grid_mask(images, ratio=0.5, tile=16, angle=fn.random.uniform(range=(0.0, 1.0)))
    g = fn.erase(images, anchor=fn.random.uniform(range=(0.0, 0.6), shape=[2]),
                 shape=[0.3, 0.3], normalized_anchor=True, normalized_shape=True,
                 axis_names="HW", fill_value=0)
    h = fn.color_twist(images, brightness=fn.random.uniform(range=(0.8, 1.2)),
                       contrast=fn.random.uniform(range=(0.8, 1.2)),
                       saturation=fn.random.uniform(range=(0.5, 1.5)),
                       hue=fn.random.uniform(range=(-20.0, 20.0)))
    return a, b, c, d, e, f, g, h, labels


pipe = noise_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# An EfficientNet-style ops pipeline (the decoder's random crop, ops.ImageDecoderRandomCrop),
# `if self.training` choosing the operators in __init__ and define_graph, labels cast to float.
OPS_DECODER_RANDOM_CROP = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class DaliPipeline(Pipeline):
    def __init__(self, image_dir, height, width, batch_size, num_threads, device_id,
                 dali_cpu=True, training=True):
        super(DaliPipeline, self).__init__(batch_size, num_threads, device_id, seed=7)
        self.training = training
        self.input = ops.FileReader(file_root=image_dir, random_shuffle=True,
                                    initial_fill=16)
        if self.training:
            self.decode = ops.ImageDecoderRandomCrop(device="cpu" if dali_cpu else "mixed",
                                                     output_type=types.RGB,
                                                     random_aspect_ratio=[0.75, 1.33],
                                                     random_area=[0.05, 1.0],
                                                     num_attempts=100)
            self.resize = ops.Resize(device="cpu" if dali_cpu else "gpu",
                                     resize_x=width, resize_y=height)
        else:
            self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
            self.resize = ops.Resize(device="cpu" if dali_cpu else "gpu",
                                     resize_x=width, resize_y=height)
        self.normalize = ops.CropMirrorNormalize(device="cpu" if dali_cpu else "gpu",
                                                 output_dtype=types.FLOAT,
                                                 image_type=types.RGB,
                                                 output_layout=types.NHWC,
                                                 crop=(height, width),
                                                 mean=[123.68, 116.78, 103.94],
                                                 std=[58.40, 57.12, 57.38])
        self.mirror = ops.CoinFlip()
        self.cast_float = ops.Cast(device="cpu", dtype=types.FLOAT)

    def define_graph(self):
        self.inputs, self.labels = self.input(name="Reader")
        images = self.decode(self.inputs)
        images = self.resize(images)
        if self.training:
            images = self.normalize(images, mirror=self.mirror())
        else:
            images = self.normalize(images)
        return images, self.cast_float(self.labels)


pipe = DaliPipeline({root!r}, 40, 48, batch_size=3, num_threads=1, device_id=None)
"""

# files= and labels= lists built by os.walk, the decoder's slice at a drawn anchor (as inputs),
# random_resized_crop without antialias.
DECODER_SLICE_FILES = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
import os

root = {root!r}
files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(root) for f in fs
               if f.lower().endswith((".jpg", ".jpeg", ".png")))
labels = [i % 5 for i in range(len(files))]


@pipeline_def(seed=5)
def slice_pipe():
    jpegs, labels_ = fn.readers.file(files=files, labels=labels, random_shuffle=True,
                                     name="Reader")
    anchor = fn.random.uniform(range=(0.0, 0.3), shape=[2])
    images = fn.decoders.image_slice(jpegs, anchor, types.Constant([0.6, 0.6]), device="cpu",
                                     normalized_anchor=True, normalized_shape=True,
                                     axis_names="WH")
    images = fn.random_resized_crop(images, size=[32, 32], random_area=[0.3, 1.0],
                                    antialias=False)
    return images, labels_


pipe = slice_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# A file list the script writes beside itself, read with file_root; a drawn resize_shorter and
# crop position, float16 output.
FILE_LIST = """
import os
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

root = {root!r}
list_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_list.txt")
with open(list_path, "w") as f:
    for i, cls in enumerate(sorted(os.listdir(root))):
        for name in sorted(os.listdir(os.path.join(root, cls))):
            f.write(f"{{cls}}/{{name}} {{i}}\\n")


@pipeline_def(seed=9)
def list_pipe():
    jpegs, labels = fn.readers.file(file_root=root, file_list=list_path, random_shuffle=True,
                                    name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_shorter=fn.random.uniform(range=(36, 48)))
    images = fn.crop_mirror_normalize(images, crop=(32, 32), dtype=types.FLOAT16,
                                      crop_pos_x=fn.random.uniform(range=(0.0, 1.0)),
                                      crop_pos_y=fn.random.uniform(range=(0.0, 1.0)),
                                      mean=[127.5], std=[127.5])
    return images, labels


pipe = list_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# DALI's PyTorch ResNet-50 example's create_dali_pipeline, its CPU path, handed to a
# DALIGenericIterator with reader_name and last_batch_policy.
GENERIC_ITERATOR = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def
from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy


@pipeline_def
def create_dali_pipeline(data_dir, crop, size, shard_id, num_shards, dali_cpu=False,
                         is_training=True):
    images, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id,
                                     num_shards=num_shards, random_shuffle=is_training,
                                     pad_last_batch=True, name="Reader")
    dali_device = "cpu" if dali_cpu else "gpu"
    decoder_device = "cpu" if dali_cpu else "mixed"
    if is_training:
        images = fn.decoders.image_random_crop(images, device=decoder_device,
                                               output_type=types.RGB,
                                               random_aspect_ratio=[0.8, 1.25],
                                               random_area=[0.1, 1.0], num_attempts=100)
        images = fn.resize(images, device=dali_device, resize_x=crop, resize_y=crop,
                           interp_type=types.INTERP_TRIANGULAR)
        mirror = fn.random.coin_flip(probability=0.5)
    else:
        images = fn.decoders.image(images, device=decoder_device, output_type=types.RGB)
        images = fn.resize(images, device=dali_device, size=size, mode="not_smaller",
                           interp_type=types.INTERP_TRIANGULAR)
        mirror = False
    images = fn.crop_mirror_normalize(images.gpu() if not dali_cpu else images,
                                      dtype=types.FLOAT, output_layout="CHW",
                                      crop=(crop, crop),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=mirror)
    labels = labels.gpu() if not dali_cpu else labels
    return images, labels


pipe = create_dali_pipeline(batch_size=3, num_threads=1, device_id=None, seed=12,
                            data_dir={root!r}, crop=32, size=40, dali_cpu=True,
                            shard_id=0, num_shards=1, is_training=True)
pipe.build()
train_loader = DALIGenericIterator(pipe, ["data", "label"], reader_name="Reader",
                                   last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
"""

# An ops subclass with its operators under short names (self.dec, self.rz, self.jit, self.gn),
# ops.noise.Gaussian, built and run in a loop at the top level.
OPS_ODD_NAMES = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class TrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super(TrainPipe, self).__init__(batch_size, num_threads, device_id, seed=1234)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True)
        self.dec = ops.decoders.ImageRandomCrop(device="cpu", output_type=types.RGB,
                                                random_area=[0.2, 1.0])
        self.rz = ops.Resize(device="cpu", resize_x=40, resize_y=40,
                             interp_type=types.DALIInterpType.INTERP_LINEAR)
        self.jit = ops.ColorTwist(device="cpu")
        self.b_rng = ops.random.Uniform(range=[0.6, 1.4])
        self.c_rng = ops.random.Uniform(range=[0.6, 1.4])
        self.rotate_op = ops.Rotate(device="cpu", fill_value=0.0)
        self.ang = ops.random.Uniform(range=[-15.0, 15.0])
        self.gn = ops.noise.Gaussian(device="cpu", stddev=8.0)
        self.to_chw = ops.Transpose(device="cpu", perm=[2, 0, 1])
        self.flt = ops.Cast(device="cpu", dtype=types.FLOAT)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        out = self.rz(self.dec(jpegs))
        out = self.jit(out, brightness=self.b_rng(), contrast=self.c_rng())
        out = self.rotate_op(out, angle=self.ang())
        out = self.gn(out)
        return self.flt(self.to_chw(out)), labels


pipe = TrainPipe(3, 1, None, {root!r})
pipe.build()
for _ in range(2):
    out = pipe.run()
"""

# fn.random.choice of angles, a brightness drawn from a normal, an integer draw cast to float.
CHOICE_AND_NORMAL = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=77)
def choice_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    angle = fn.random.choice([0.0, 90.0, 180.0, 270.0])
    images = fn.rotate(images, angle=angle)
    b = fn.random.normal(mean=1.0, stddev=0.1)
    images = fn.brightness_contrast(images, brightness=b, contrast_center=128)
    size = fn.cast(fn.random.uniform(range=[28, 36], dtype=types.INT32), dtype=types.FLOAT)
    images = fn.resize(images, resize_x=size, resize_y=size)
    images = fn.crop(images, crop=(24, 24), crop_pos_x=fn.random.uniform(range=[0, 1]))
    images = fn.crop_mirror_normalize(images, mean=[0.5 * 255] * 3, std=[0.5 * 255] * 3,
                                      scale=1.0, shift=0.0, dtype=types.FLOAT)
    return images, labels


pipe = choice_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# Labels squeezed to scalars and one-hot encoded for a cross-entropy on floats (Keras style),
# the images also flattened (an MLP baseline's input).
SQUEEZED_LABELS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=5)
def label_pipe(root, num_classes=5):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_shorter=fn.random.uniform(range=[32.0, 40.0]))
    images = fn.crop_mirror_normalize(images, crop_h=32, crop_w=32, dtype=types.FLOAT,
                                      crop_pos_x=fn.random.uniform(range=[0.0, 1.0]),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=fn.random.coin_flip(probability=0.5))
    labels = fn.squeeze(labels, axes=[0])
    labels = fn.one_hot(labels, num_classes=num_classes, dtype=types.FLOAT)
    return images, fn.reshape(images, shape=[-1]), labels


pipe = label_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# DALI's decoder ROI examples in the ops API: ops.ImageDecoderCrop at drawn positions and
# ops.ImageDecoderSlice given its window as inputs, beside fn.decoders.image_slice with
# rel_start/rel_end and fn.decoders.image_crop; the executor options of older scripts
# (prefetch_queue_depth as a dict, max_streams, bytes_per_sample).
OPS_DECODER_ROI = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.fn as fn
import nvidia.dali.types as types


class DecoderROIPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=12,
                         prefetch_queue_depth={{"cpu_size": 2, "gpu_size": 2}},
                         exec_async=True, exec_pipelined=True,
                         max_streams=-1, bytes_per_sample=1024)
        self.input = ops.FileReader(file_root={root!r}, random_shuffle=True)
        self.decode_crop = ops.ImageDecoderCrop(device="cpu", output_type=types.RGB,
                                                crop=(32, 32))
        self.pos_x = ops.random.Uniform(range=(0.0, 1.0))
        self.pos_y = ops.random.Uniform(range=(0.0, 1.0))
        self.decode_slice = ops.ImageDecoderSlice(device="cpu", output_type=types.RGB)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        a = self.decode_crop(jpegs, crop_pos_x=self.pos_x(), crop_pos_y=self.pos_y())
        b = fn.decoders.image_slice(jpegs, rel_start=[0.1, 0.2], rel_end=[0.6, 0.9],
                                    axis_names="WH")
        c = fn.decoders.image_crop(jpegs, crop_h=20, crop_w=30,
                                   crop_pos_x=0.0, crop_pos_y=1.0)
        d = self.decode_slice(jpegs, fn.random.uniform(range=[0.0, 0.4], shape=2),
                              types.Constant([0.5, 0.5]), normalized_anchor=True,
                              normalized_shape=True)
        return a, b, c, d, labels


pipe = DecoderROIPipe(3, 1, None)
"""

# random_area with three values, as a misread of its doc writes it: DALI refuses it when the
# pipeline is built.
RANDOM_AREA_THREE_VALUES = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(seed=1)
def area_pipe():
    jpegs, labels = fn.readers.file(file_root={root!r})
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.random_resized_crop(images, size=[32, 32], random_area=[0.08, 0.5, 1.0])
    return images, labels


pipe = area_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# An ops decoder's random crop given an empty random_area and three aspect ratios.
RANDOM_WINDOW_OPS = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class P(Pipeline):
    def __init__(self):
        super().__init__(3, 1, None, seed=1)
        self.input = ops.FileReader(file_root={root!r})
        self.decode = ops.ImageDecoderRandomCrop(device="cpu", random_area=[],
                                                 random_aspect_ratio=[0.75, 1.0, 1.33])

    def define_graph(self):
        jpegs, labels = self.input()
        return self.decode(jpegs), labels


pipe = P()
"""

# An angle drawn from a range written high end first: DALI refuses it when it runs.
REVERSED_UNIFORM = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(seed=1)
def rotate_pipe(root, max_angle=30.0):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, size=[24, 24])
    images = fn.rotate(images, angle=fn.random.uniform(range=[max_angle, -max_angle]))
    return images, labels


pipe = rotate_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""

# A misspelled argument inside a conditional branch: DALI's conditionals wrap the error it raises
# ("in user code:") while the file makes the pipeline.
CONDITIONAL_TYPO = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(enable_conditionals=True, seed=1)
def typo_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu")
    if fn.random.coin_flip():
        images = fn.rotate(images, angel=10.0)
    return images, labels


pipe = typo_pipe({root!r}, batch_size=2, num_threads=1, device_id=None)
"""

# The same `if` on a coin without enable_conditionals, a newcomer's first try.
IF_WITHOUT_CONDITIONALS = CONDITIONAL_TYPO.replace("enable_conditionals=True, ", "").replace(
    "angel=", "angle="
)

# A per-sample callable fed in parallel workers (batch=False, parallel=True), as DALI's
# parallel external source example writes it: refused, named as written.
EXTERNAL_CALLABLE = """
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


class ExternalInputCallable:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def __call__(self, sample_info):
        return np.zeros((8, 8, 3), dtype=np.uint8), np.array([sample_info.idx_in_epoch])


@pipeline_def(py_num_workers=2, py_start_method="spawn")
def ext_pipe():
    jpegs, labels = fn.external_source(source=ExternalInputCallable(3), num_outputs=2,
                                       batch=False, parallel=True,
                                       dtype=[types.UINT8, types.INT32])
    images = fn.resize(jpegs, size=[4, 4])
    return images, labels


pipe = ext_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# An iterator class reading the files itself (__iter__/__next__), as DALI's external source
# example writes it: refused, named as written.
EXTERNAL_ITERATOR = """
import os
import numpy as np
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

image_dir = {root!r}


class ExternalInputIterator(object):
    def __init__(self, batch_size):
        self.files = [os.path.join(dp, f) for dp, _, fs in os.walk(image_dir) for f in fs]
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        self.n = len(self.files)
        return self

    def __next__(self):
        batch, labels = [], []
        for _ in range(self.batch_size):
            with open(self.files[self.i], "rb") as f:
                batch.append(np.frombuffer(f.read(), dtype=np.uint8))
            labels.append(np.array([self.i], dtype=np.uint8))
            self.i = (self.i + 1) % self.n
        return (batch, labels)


@pipeline_def
def ext_pipe():
    jpegs, labels = fn.external_source(source=ExternalInputIterator(3), num_outputs=2,
                                       dtype=types.UINT8)
    images = fn.decoders.image(jpegs, device="cpu")
    return fn.resize(images, size=[32, 32]), labels


pipe = ext_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# The numpy reader: refused, named as written.
NUMPY_READER = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def
def np_pipe():
    data = fn.readers.numpy(device="cpu", file_root="/data/npy", file_filter="*.npy",
                            name="Reader")
    return fn.flip(data, horizontal=1)


pipe = np_pipe(batch_size=3, num_threads=1, device_id=None)
"""

# Each runs here and must come back, in a Session and from its exported module, as it ran.
ROUND_TRIPS = {
    "conditionals": CONDITIONALS,
    "conditions_on_data": CONDITIONS_ON_DATA,
    "conditional_helpers": CONDITIONAL_HELPERS,
    "warp_transforms": WARP_TRANSFORMS,
    "noise_and_occlusion": NOISE_AND_OCCLUSION,
    "ops_decoder_random_crop": OPS_DECODER_RANDOM_CROP,
    "decoder_slice_files": DECODER_SLICE_FILES,
    "file_list": FILE_LIST,
    "generic_iterator": GENERIC_ITERATOR,
    "ops_odd_names": OPS_ODD_NAMES,
    "choice_and_normal": CHOICE_AND_NORMAL,
    "squeezed_labels": SQUEEZED_LABELS,
    "ops_decoder_roi": OPS_DECODER_ROI,
}
