"""DALI code as it is written in the wild, a seventh set: what a newcomer brings along with their
own pipeline. ``functools.partial`` of fn calls, a dict of settings read by key, a loop over
(operator, arguments) pairs, helper functions building sub-graphs, the batch size read from an
environment variable and the crop from ``sys.argv``, a ``Pipeline`` subclass given its seed by
position, old ``ops`` objects made in ``__init__`` with every Pipeline argument a default,
``set_outputs`` with a single output, blur with a drawn sigma beside a Laplacian normalized over
the batch, a forward affine warp (``inverse_map=False``), flips on both axes and right-angle
rotations, a file list the script writes and one written as ``files=``/``labels=``, colour-space
conversions, CIFAR-style padding and crops, a relative region of interest, a beta-drawn mix,
torchrun's rank read from the environment, augmentations as methods of a class; and
what DALI refuses as written: a ``@pipeline_def`` that returns a list or a dict, a pipeline made without
``num_threads``, a GPU-only operator (``fn.jitter``) given CPU data. Each template writes ``pipe``, the pipeline the file builds, for
the CPU; ``{root}`` is the samples folder.
"""

from __future__ import annotations

# functools.partial of fn calls: the normalization and the resize written once, called with
# the rest of their arguments in the pipeline.
PARTIAL = """
import functools
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
normalize = functools.partial(fn.crop_mirror_normalize, dtype=types.FLOAT, output_layout="CHW",
                              mean=MEAN, std=STD)
resize = functools.partial(fn.resize, interp_type=types.INTERP_LINEAR, antialias=False)


@pipeline_def(seed=3)
def partial_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = resize(images, resize_shorter=40)
    images = normalize(images, crop=(32, 32), mirror=fn.random.coin_flip())
    return images, labels


pipe = partial_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A dict of augmentation settings read by key, the dict a parameter's default.
PARAM_DICT = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

AUG = {{
    "size": 40,
    "angle": 15.0,
    "brightness": (0.8, 1.2),
    "contrast": (0.8, 1.2),
    "flip_p": 0.5,
}}


@pipeline_def(seed=7)
def dict_pipe(root, cfg=AUG):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[cfg["size"], cfg["size"]])
    images = fn.rotate(images, angle=fn.random.uniform(range=(-cfg["angle"], cfg["angle"])),
                       keep_size=True, fill_value=0)
    images = fn.brightness_contrast(images,
                                    brightness=fn.random.uniform(range=cfg["brightness"]),
                                    contrast=fn.random.uniform(range=cfg["contrast"]))
    images = fn.flip(images, horizontal=fn.random.coin_flip(probability=cfg["flip_p"]))
    return images, labels


pipe = dict_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A loop over a list of (operator, arguments) pairs, and a flip per axis given by **{axis: coin}.
OP_LOOP = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

COLOUR_OPS = [
    (fn.brightness, {{"brightness": 1.1}}),
    (fn.contrast, {{"contrast": 0.9}}),
    (fn.saturation, {{"saturation": 1.2}}),
    (fn.hue, {{"hue": 10.0}}),
]


@pipeline_def(seed=11)
def loop_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    for op, kwargs in COLOUR_OPS:
        images = op(images, **kwargs)
    for axis in ("horizontal", "vertical"):
        images = fn.flip(images, **{{axis: fn.random.coin_flip()}})
    return images, labels


pipe = loop_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# Helper functions that build sub-graphs (augment(images, size, train=True), to_tensor), the
# pipeline returning their nested calls.
HELPER_SUBGRAPH = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


def augment(images, size, train=True):
    if train:
        images = fn.random_resized_crop(images, size=[size, size], random_area=[0.25, 1.0])
        images = fn.flip(images, horizontal=fn.random.coin_flip())
    else:
        images = fn.resize(images, resize_shorter=size)
        images = fn.crop(images, crop=[size, size])
    return images


def to_tensor(images):
    return fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                    mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0])


@pipeline_def(seed=59)
def helper_pipe(root, size=32):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    return to_tensor(augment(images, size)), labels


pipe = helper_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# The batch size read from an environment variable, the crop from sys.argv, each with a default
# (the import runs the file as `python file.py` runs it: no arguments).
ENV_BATCH = """
import os
import sys
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

BATCH_SIZE = int(os.environ.get("BATCH_SIZE", 3))
CROP = int(sys.argv[1]) if len(sys.argv) > 1 else 32


@pipeline_def(batch_size=BATCH_SIZE, num_threads=1, device_id=None, seed=17)
def env_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.random_resized_crop(images, size=[CROP, CROP])
    return images, labels


pipe = env_pipe({root!r})
"""


# A Pipeline subclass with extra constructor arguments and defaults, the seed passed to
# super().__init__ by position; ops.GaussianBlur with a drawn sigma, one CoinFlip object called
# twice (a flip per axis), ops.random.Normal made and never used.
SEED_POSITIONAL = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class TrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop=32, seed=23,
                 dali_cpu=True):
        super(TrainPipe, self).__init__(batch_size, num_threads, device_id, seed)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.rrc = ops.RandomResizedCrop(device="cpu" if dali_cpu else "gpu", size=crop,
                                         random_area=[0.3, 1.0])
        self.blur = ops.GaussianBlur(device="cpu", window_size=5)
        self.sigma = ops.random.Uniform(range=[0.1, 2.0])
        self.noise = ops.random.Normal(mean=0.0, stddev=5.0)
        self.coin = ops.CoinFlip(probability=0.5)
        self.flip = ops.Flip(device="cpu")
        self.cast = ops.Cast(dtype=types.UINT8)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        images = self.rrc(images)
        images = self.blur(images, sigma=self.sigma())
        images = self.flip(images, horizontal=self.coin(), vertical=self.coin())
        return images, labels


pipe = TrainPipe(3, 1, None, {root!r})
"""


# Old ops made as attributes in __init__ (FileReader, ImageDecoder, Uniform, random.Normal,
# CoinFlip), every Pipeline argument a default of the subclass, types.NHWC, a tuple in parentheses
# returned.
OPS_SUBCLASS_HSV = """
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class ColorPipe(Pipeline):
    def __init__(self, data_dir, batch_size=3, num_threads=1, device_id=None, seed=71,
                 size=32):
        super().__init__(batch_size=batch_size, num_threads=num_threads, device_id=device_id,
                         seed=seed)
        self.reader = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=size, resize_y=size)
        self.hsv = ops.Hsv(device="cpu")
        self.hue = ops.Uniform(range=[-30.0, 30.0])
        self.sat = ops.Uniform(range=[0.5, 1.5])
        self.bc = ops.BrightnessContrast(device="cpu")
        self.brightness = ops.random.Normal(mean=1.0, stddev=0.1)
        self.cmn = ops.CropMirrorNormalize(device="cpu", dtype=types.FLOAT, output_layout=types.NHWC,
                                           mean=[128.0, 128.0, 128.0], std=[64.0, 64.0, 64.0])
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = self.reader()
        images = self.resize(self.decode(jpegs))
        images = self.hsv(images, hue=self.hue(), saturation=self.sat())
        images = self.bc(images, brightness=self.brightness())
        images = self.cmn(images, mirror=self.coin())
        return (images, labels)


pipe = ColorPipe({root!r})
"""


# A `with pipe:` block giving set_outputs a single output (grey images; the labels dropped).
SET_OUTPUTS_SINGLE = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline

pipe = Pipeline(batch_size=3, num_threads=1, device_id=None, seed=5)
with pipe:
    jpegs, _ = fn.readers.file(file_root={root!r}, random_shuffle=True)
    images = fn.decoders.image(jpegs, output_type=types.GRAY)
    images = fn.resize(images, size=[32, 32])
    pipe.set_outputs(images)
"""


# gaussian_blur with a drawn sigma, laplacian to float, normalize over the whole batch per
# channel (batch=True, axes=[0, 1]): three outputs.
BLUR_LAPLACIAN = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=29)
def edge_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, size=[32, 32])
    blurred = fn.gaussian_blur(images, window_size=5, sigma=fn.random.uniform(range=[0.5, 1.5]))
    edges = fn.laplacian(images, window_size=3, dtype=types.FLOAT)
    edges = fn.normalize(edges, batch=True, axes=[0, 1])
    return blurred, edges, labels


pipe = edge_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# transforms.rotation/scale/translation chained into warp_affine with inverse_map=False (the
# matrix maps the source to the output), scale and offset drawn as vectors.
WARP_FORWARD = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

SIZE = 48


@pipeline_def(seed=31)
def affine_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[SIZE, SIZE])
    mt = fn.transforms.rotation(angle=fn.random.uniform(range=[-20.0, 20.0]),
                                center=[SIZE / 2, SIZE / 2])
    mt = fn.transforms.scale(mt, scale=fn.random.uniform(range=[0.9, 1.1], shape=[2]),
                             center=[SIZE / 2, SIZE / 2])
    mt = fn.transforms.translation(mt, offset=fn.random.uniform(range=[-4.0, 4.0], shape=[2]))
    images = fn.warp_affine(images, matrix=mt, inverse_map=False, fill_value=0,
                            interp_type=types.INTERP_LINEAR)
    return images, labels


pipe = affine_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A flip on both axes (one constant, one drawn), rotations by a right angle drawn from values=
# with keep_size, a transpose of H and W, a reshape that only sets the layout.
FLIP_ROTATE_TRANSPOSE = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=37)
def geom_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[40, 32])
    images = fn.flip(images, horizontal=1, vertical=fn.random.coin_flip(probability=0.3))
    images = fn.rotate(images, angle=fn.random.uniform(values=[0.0, 90.0, 180.0, 270.0]),
                       keep_size=True, interp_type=types.INTERP_NN)
    images = fn.transpose(images, perm=[1, 0, 2])
    images = fn.reshape(images, layout="HWC")
    return images, labels


pipe = geom_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A file list the script writes itself (class folders numbered in sorted order), one_hot with
# the class count from len(), label smoothing as arithmetic, labels + 1 cast to INT64.
FILE_LIST_ONEHOT = """
import os
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

ROOT = {root!r}
CLASSES = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d)))
LIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_list.txt")
with open(LIST, "w") as out:
    for index, name in enumerate(CLASSES):
        for image in sorted(os.listdir(os.path.join(ROOT, name))):
            out.write(f"{{name}}/{{image}} {{index}}\\n")


@pipeline_def(seed=41)
def list_pipe():
    jpegs, labels = fn.readers.file(file_root=ROOT, file_list=LIST, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[24, 24])
    onehot = fn.one_hot(labels, num_classes=len(CLASSES))
    smooth = onehot * 0.9 + 0.1 / len(CLASSES)
    labels = fn.cast(labels + 1, dtype=types.INT64)
    return images, labels, smooth


pipe = list_pipe(batch_size=3, num_threads=1, device_id=None)
"""


# files= and labels= lists built with glob and a dict of class ids, initial_fill, arithmetic on
# the labels (labels * 2 + 1).
FILES_LABELS = """
import glob
import os
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def

ROOT = {root!r}
FILES = sorted(glob.glob(os.path.join(ROOT, "*", "*.jpg")))
CLASS_IDS = {{name: i for i, name in enumerate(sorted({{os.path.basename(os.path.dirname(f)) for f in FILES}}))}}
LABELS = [CLASS_IDS[os.path.basename(os.path.dirname(f))] for f in FILES]


@pipeline_def(seed=61)
def files_pipe():
    jpegs, labels = fn.readers.file(files=FILES, labels=LABELS, random_shuffle=True,
                                    initial_fill=8)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_x=28, resize_y=28)
    labels = labels * 2 + 1
    return images, labels


pipe = files_pipe(batch_size=3, num_threads=1, device_id=None)
"""


# hsv and color_twist on draws, the result converted to grey (repeated into three channels with
# cat) and to YCbCr: four outputs.
COLOUR_SPACES = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=43)
def colour_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, size=[32, 32])
    images = fn.hsv(images, hue=fn.random.uniform(range=[-20.0, 20.0]),
                    saturation=fn.random.uniform(range=[0.7, 1.3]), value=1.0)
    images = fn.color_twist(images, brightness=fn.random.uniform(range=[0.8, 1.2]),
                            contrast=1.1, saturation=0.9, hue=5.0)
    grey = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)
    grey = fn.cat(grey, grey, grey, axis=2)
    ycbcr = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.YCbCr)
    return images, grey, ycbcr, labels


pipe = colour_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# CIFAR-style: pad to 40x40, a random 32x32 crop, a crop larger than the image padded
# (out_of_bounds_policy="pad"), erase of a fixed window.
PAD_CROP = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=53)
def cifar_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    images = fn.pad(images, axes=(0, 1), shape=(40, 40), fill_value=0)
    images = fn.crop(images, crop=(32, 32), crop_pos_x=fn.random.uniform(range=[0.0, 1.0]),
                     crop_pos_y=fn.random.uniform(range=[0.0, 1.0]))
    images = fn.crop(images, crop=(36, 36), out_of_bounds_policy="pad", fill_values=128)
    images = fn.erase(images, anchor=[4, 4], shape=[8, 8], axis_names="HW", fill_value=0)
    return images, labels


pipe = cifar_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A relative region of interest resized (roi_relative=True), JPEG compression at a drawn
# INT32 quality, equalize.
IMAGENET_VAL_ROI = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=67)
def roi_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32], roi_start=[0.1, 0.1], roi_end=[0.9, 0.9],
                       roi_relative=True)
    images = fn.jpeg_compression_distortion(images, quality=fn.random.uniform(range=[30, 90],
                                            dtype=types.INT32))
    images = fn.equalize(images)
    return images, labels


pipe = roi_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A mix of each image with its mirror at a beta-drawn weight (fn.random.beta), the weight
# returned beside the image.
BETA_MIX = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


@pipeline_def(seed=73)
def beta_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    images = fn.cast(images, dtype=types.FLOAT)
    lam = fn.random.beta(alpha=0.4, beta=0.4)
    flipped = fn.flip(images, horizontal=1)
    mixed = lam * images + (1.0 - lam) * flipped
    return mixed, lam, labels


pipe = beta_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# A @pipeline_def returning a list: DALI takes it as one output holding two, and refuses it when
# it builds the pipeline.
RETURNS_A_LIST = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def
def simple_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, size=[24, 24])
    return [images, labels]


pipe = simple_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# The outputs returned in a dict, named as the training loop reads them: DALI takes no dict.
RETURNS_A_DICT = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, num_threads=1, device_id=None)
def dict_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return {{"images": fn.resize(images, size=[24, 24]), "labels": labels}}


pipe = dict_pipe({root!r})
"""


# num_threads left out where the pipeline is made, then built and run at the top level: DALI 2.4
# fails in build() with a TypeError that does not say why.
NO_NUM_THREADS = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(batch_size=3, seed=2)
def simple_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs)
    return fn.resize(images, size=[24, 24]), labels


pipe = simple_pipe({root!r}, device_id=None)
pipe.build()
images, labels = pipe.run()
"""


# The same mistake in a `with pipe:` block: set_outputs given one list.
SET_OUTPUTS_LIST = SET_OUTPUTS_SINGLE.replace(
    "pipe.set_outputs(images)", "pipe.set_outputs([images, _])"
)


# fn.jitter, which DALI has only for the GPU, given the CPU decoder's images.
JITTER_ON_CPU = """
import nvidia.dali.fn as fn
from nvidia.dali import pipeline_def


@pipeline_def(seed=47)
def jitter_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, size=[32, 32])
    images = fn.jitter(images, nDegree=2)
    return images, labels


pipe = jitter_pipe({root!r}, batch_size=3, num_threads=1, device_id=None)
"""


# The same jitter given images moved to the GPU, as DALI takes it.
JITTER_ON_GPU = JITTER_ON_CPU.replace("fn.jitter(images,", "fn.jitter(images.gpu(),")


# The rank and world size torchrun sets read from the environment into the reader's shard, the
# decorator's options from a dict (its seed offset by the rank), a drawn size of two values,
# crop_mirror_normalize at drawn positions to float16 NCHW (types.NCHW), a decoder option of
# the GPU decoder (hw_decoder_load) the CPU one takes, a conditional expression returned.
TORCHRUN_ENV = """
import os
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def

LOCAL_RANK = int(os.environ.get("LOCAL_RANK", 0))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", 1))
PIPE_OPTS = dict(batch_size=3, num_threads=2, device_id=None, seed=1234 + LOCAL_RANK)


@pipeline_def(**PIPE_OPTS)
def rank_pipe(data_dir, crop=32):
    jpegs, labels = fn.readers.file(file_root=data_dir, shard_id=LOCAL_RANK,
                                    num_shards=WORLD_SIZE, random_shuffle=True,
                                    pad_last_batch=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB,
                               hw_decoder_load=0.65)
    size = fn.random.uniform(range=[36, 48], shape=[2])
    images = fn.resize(images, size=size)
    images = fn.crop_mirror_normalize(images, crop=(crop, crop),
                                      crop_pos_x=fn.random.uniform(range=[0.0, 1.0]),
                                      crop_pos_y=fn.random.uniform(range=[0.0, 1.0]),
                                      mirror=fn.random.coin_flip(), dtype=types.FLOAT16,
                                      output_layout=types.NCHW,
                                      mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])
    return images, labels.gpu() if LOCAL_RANK < 0 else labels


pipe = rank_pipe({root!r})
"""


# Augmentations kept as a static method and a class method of a class of the file, reading its
# class attributes.
CLASS_METHODS = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import pipeline_def


class Augs:
    MEAN = [0.5 * 255] * 3
    STD = [0.5 * 255] * 3

    @staticmethod
    def colour(images):
        return fn.color_twist(images, brightness=fn.random.uniform(range=[0.6, 1.4]),
                              contrast=fn.random.uniform(range=[0.6, 1.4]),
                              saturation=fn.random.uniform(range=[0.6, 1.4]),
                              hue=fn.random.uniform(range=[-18.0, 18.0]))

    @classmethod
    def normalize(cls, images):
        return fn.normalize(fn.cast(images, dtype=types.FLOAT), mean=cls.MEAN[0],
                            stddev=cls.STD[0])


@pipeline_def(batch_size=3, num_threads=1, device_id=None, seed=88)
def class_pipe(root):
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True)
    images = fn.decoders.image(jpegs)
    images = fn.resize(images, size=[28, 28])
    images = Augs.normalize(Augs.colour(images))
    return images, labels


pipe = class_pipe({root!r})
"""


# Each runs here and must come back, in a Session and from its exported module, as it ran.
ROUND_TRIPS = {
    "partial": PARTIAL,
    "param_dict": PARAM_DICT,
    "op_loop": OP_LOOP,
    "helper_subgraph": HELPER_SUBGRAPH,
    "env_batch": ENV_BATCH,
    "seed_positional": SEED_POSITIONAL,
    "ops_subclass_hsv": OPS_SUBCLASS_HSV,
    "set_outputs_single": SET_OUTPUTS_SINGLE,
    "blur_laplacian": BLUR_LAPLACIAN,
    "warp_forward": WARP_FORWARD,
    "flip_rotate_transpose": FLIP_ROTATE_TRANSPOSE,
    "file_list_onehot": FILE_LIST_ONEHOT,
    "files_labels": FILES_LABELS,
    "colour_spaces": COLOUR_SPACES,
    "pad_crop": PAD_CROP,
    "imagenet_val_roi": IMAGENET_VAL_ROI,
    "beta_mix": BETA_MIX,
    "torchrun_env": TORCHRUN_ENV,
    "class_methods": CLASS_METHODS,
}
