"""More DALI code as its documentation and training repositories write it, as files to import:
the ops API of DALI's ResNet-50 example (``random_area=[0.08, 1.25]``), its augmentation gallery
in one pipeline, ``ops.random`` draws into transforms and warps, grey images normalized,
slices given their window as inputs, discrete and vector draws, per-operator seeds, two views
made by the same ops objects, the multi-GPU idiom of one pipeline per GPU in a list, and a
loader function that builds the pipeline. Each template writes ``pipe`` (or ``pipes``),
the pipeline the file builds, for the CPU; ``{root}`` is the samples folder.
"""

from __future__ import annotations

# DALI's PyTorch ResNet-50 example (ops API, 2019-2022): RandomResizedCrop with its
# random_area=[0.08, 1.25] (DALI redraws an area larger than the image), CropMirrorNormalize
# with the old output_dtype and image_type, mirrored by a CoinFlip; its CPU path.
DALI_RESNET_EXAMPLE = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False,
                 local_rank=0, world_size=1):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id,
                                              seed=12 + local_rank)
        dali_device = "cpu" if dali_cpu else "gpu"
        decoder_device = "cpu" if dali_cpu else "mixed"
        self.input = ops.FileReader(file_root=data_dir, shard_id=local_rank,
                                    num_shards=world_size, random_shuffle=True)
        self.decode = ops.ImageDecoder(device=decoder_device, output_type=types.RGB)
        self.res = ops.RandomResizedCrop(device=dali_device, size=crop,
                                         random_area=[0.08, 1.25])
        self.cmnp = ops.CropMirrorNormalize(device=dali_device,
                                            output_dtype=types.FLOAT,
                                            output_layout=types.NCHW,
                                            crop=(crop, crop),
                                            image_type=types.RGB,
                                            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                            std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.coin = ops.CoinFlip(probability=0.5)

    def define_graph(self):
        rng = self.coin()
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        output = self.cmnp(images, mirror=rng)
        return [output, self.labels]


pipe = HybridTrainPipe(batch_size=4, num_threads=1, device_id=None, data_dir={root!r}, crop=40,
                       dali_cpu=True)
"""

# DALI's augmentation gallery (docs/examples/image_processing/augmentation_gallery), its
# operators in one ops pipeline, each applied to the decoded image, with the gallery's values.
GALLERY = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types

image_dir = {root!r}


class GalleryPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(GalleryPipe, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.FileReader(file_root=image_dir)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", resize_x=64, resize_y=48)
        self.augmentations = [
            ops.Water(device="cpu"),
            ops.Sphere(device="cpu"),
            ops.WarpAffine(device="cpu", matrix=[1.0, 0.8, 0.0, 0.0, 1.2, 0.0], fill_value=0,
                           inverse_map=False),
            ops.Rotate(device="cpu", angle=30.0, fill_value=0, interp_type=types.INTERP_LINEAR),
            ops.Hsv(device="cpu", hue=45.0, saturation=0.5, value=1.2),
            ops.BrightnessContrast(device="cpu", brightness=0.5, contrast=1.5),
            ops.Flip(device="cpu", vertical=1, horizontal=0),
            ops.Erase(device="cpu", anchor=[0.3, 0.2], shape=[0.5, 0.6], normalized_anchor=True,
                      normalized_shape=True, axis_names="HW", fill_value=(118, 185, 0)),
            ops.GridMask(device="cpu", ratio=0.4, angle=0.3, tile=20),
            ops.ColorSpaceConversion(device="cpu", image_type=types.RGB,
                                     output_type=types.BGR),
            ops.JpegCompressionDistortion(device="cpu", quality=20),
            ops.ColorTwist(device="cpu", brightness=1.2, contrast=0.8, hue=20.0, saturation=0.7),
        ]

    def define_graph(self):
        self.jpegs, self.labels = self.input()
        images = self.resize(self.decode(self.jpegs))
        return tuple(augment(images) for augment in self.augmentations) + (self.labels,)


pipe = GalleryPipe(3, 1, None)
"""

# ops.random draws feeding a colour operator, a rotation and a rotation matrix for WarpAffine
# (ops.transforms), CropMirrorNormalize to float16 with the old output_dtype.
RANDOM_TRANSFORMS = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class RandomPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(RandomPipe, self).__init__(batch_size, num_threads, device_id, seed=7)
        self.input = ops.readers.File(file_root={root!r}, random_shuffle=True)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.rotate = ops.Rotate(device="cpu", fill_value=0)
        self.angle = ops.random.Uniform(range=(-30.0, 30.0))
        self.warp = ops.WarpAffine(device="cpu", size=(48, 48))
        self.mt = ops.transforms.Rotation()
        self.coin = ops.random.CoinFlip(probability=0.3)
        self.sat = ops.Uniform(range=[0.5, 1.5])
        self.hsv = ops.Hsv(device="cpu")
        self.cmn = ops.CropMirrorNormalize(device="cpu", output_dtype=types.FLOAT16,
                                           output_layout=types.NCHW, crop=(40, 40),
                                           image_type=types.RGB, mean=[0.0, 0.0, 0.0],
                                           std=[255.0, 255.0, 255.0])

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        images = self.hsv(images, saturation=self.sat())
        images = self.rotate(images, angle=self.angle())
        images = self.warp(images, matrix=self.mt(angle=self.angle()))
        return self.cmn(images, mirror=self.coin()), labels


pipe = RandomPipe(3, 1, None)
"""

# Grey images, resize_shorter with max_size, cast to float and ops.Normalize with scale and shift.
GREY_NORMALIZE = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types

batch_size = 3


class NormalizePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.input = ops.readers.File(file_root={root!r})
        self.decode = ops.decoders.Image(device="cpu", output_type=types.GRAY)
        self.resize = ops.Resize(device="cpu", resize_shorter=32.0, max_size=48)
        self.cast = ops.Cast(dtype=types.FLOAT)
        self.normalize = ops.Normalize(device="cpu", axes=[0, 1], scale=64.0, shift=128.0)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.cast(self.resize(self.decode(jpegs)))
        return self.normalize(images), labels


pipe = NormalizePipe(batch_size, 1, None)
"""

# Slice given its window as constant inputs, ResizeCropMirror at a drawn position, the old
# ops.Shapes with a type.
SLICE_INPUTS = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class SlicePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=3)
        self.input = ops.FileReader(file_root={root!r})
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.pos = ops.Uniform(range=(0.0, 0.5))
        self.slice = ops.Slice(device="cpu", normalized_anchor=True, normalized_shape=True,
                               axis_names="WH")
        self.rcm = ops.ResizeCropMirror(device="cpu", crop=(32, 32), resize_shorter=48)
        self.shapes = ops.Shapes(dtype=types.INT32)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.decode(jpegs)
        images = self.slice(images, types.Constant([0.1, 0.2]), types.Constant([0.5, 0.5]))
        images = self.rcm(images, crop_pos_x=self.pos())
        return images, self.shapes(images), labels


pipe = SlicePipe(3, 1, None)
"""

# A rotation drawn from values=, a slice anchor drawn as a vector (shape=2), one drawn size for
# both axes, a flip on a coin, and the image beside its flip by Cat and by Stack.
DISCRETE_AND_VECTOR_DRAWS = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class DrawPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id, seed=21)
        self.input = ops.readers.File(file_root={root!r}, random_shuffle=True, initial_fill=8)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.angle = ops.random.Uniform(values=[0.0, 90.0, 180.0, 270.0])
        self.rotate = ops.Rotate(device="cpu", keep_size=False)
        self.anchor = ops.random.Uniform(range=[0.0, 0.3], shape=2)
        self.slice = ops.Slice(device="cpu")
        self.size = ops.random.Uniform(range=[40, 64])
        self.res = ops.Resize(device="cpu")
        self.coin = ops.random.CoinFlip(probability=0.5)
        self.flip = ops.Flip(device="cpu")
        self.cat = ops.Cat(axis=2)
        self.stack = ops.Stack(axis=0)
        self.crop = ops.Crop(device="cpu", crop=(32, 32), output_dtype=types.UINT8)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        images = self.rotate(images, angle=self.angle())
        images = self.slice(images, self.anchor(), types.Constant([0.7, 0.7]), axis_names="WH")
        size = self.size()
        images = self.crop(self.res(images, resize_x=size, resize_y=size))
        flipped = self.flip(images, horizontal=self.coin())
        return self.cat(images, flipped), self.stack(images, flipped), labels


pipe = DrawPipe(3, 2, None)
"""

# Seeds given operator by operator (no pipeline seed), the executor options of older scripts,
# BGR decoding converted back, the old NormalDistribution, float16 HWC output.
OPERATOR_SEEDS = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class SeededPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(SeededPipe, self).__init__(batch_size, num_threads, device_id, exec_async=False,
                                         exec_pipelined=False, prefetch_queue_depth=1)
        self.input = ops.FileReader(file_root={root!r}, random_shuffle=True, seed=5)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.BGR)
        self.csc = ops.ColorSpaceConversion(image_type=types.BGR, output_type=types.RGB)
        self.rng = ops.Uniform(range=(0.5, 1.5), seed=42)
        self.noise = ops.NormalDistribution(stddev=5.0, seed=7)
        self.res = ops.Resize(resize_shorter=48.0, interp_type=types.INTERP_TRIANGULAR)
        self.rotate = ops.Rotate(output_dtype=types.FLOAT, fill_value=0.0, keep_size=True)
        self.cmn = ops.CropMirrorNormalize(output_dtype=types.FLOAT16, crop=(40, 40), mirror=1,
                                           mean=[128.0], std=[64.0], output_layout=types.NHWC)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.res(self.csc(self.decode(jpegs)))
        images = self.rotate(images, angle=self.noise())
        return self.cmn(images * self.rng()), labels


pipe = SeededPipe(batch_size=3, num_threads=1, device_id=None)
"""

# Two views of each image (contrastive learning) made by calling the same ops objects twice in a
# helper method; Pipeline.__init__ called directly; DALI's enums by their long names; YCbCr.
TWO_VIEWS = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class TwoViews(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        Pipeline.__init__(self, batch_size, num_threads, device_id, seed=5)
        self.input = ops.FileReader(file_root=data_dir, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.DALIImageType.RGB)
        self.crop = ops.RandomResizedCrop(device="cpu", size=32, random_area=[0.2, 1.0])
        self.flip = ops.Flip(device="cpu")
        self.coin = ops.CoinFlip(probability=0.5)
        self.twist = ops.ColorTwist(device="cpu")
        self.bright = ops.Uniform(range=[0.6, 1.4])
        self.cast = ops.Cast(dtype=types.DALIDataType.INT64)
        self.ycbcr = ops.ColorSpaceConversion(image_type=types.RGB, output_type=types.YCbCr)

    def view(self, images):
        images = self.crop(images)
        images = self.flip(images, horizontal=self.coin())
        return self.twist(images, brightness=self.bright(), contrast=self.bright())

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.decode(jpegs)
        return self.view(images), self.ycbcr(self.view(images)), self.cast(labels)


pipe = TwoViews(3, 1, None, {root!r})
"""

# DALI's framework examples for several GPUs: one pipeline per GPU in a list, each reading its
# shard, the first built, all handed to the iterator (here for no GPU: device_id=None).
_SHARDED_PIPE = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.plugin.pytorch import DALIClassificationIterator


class FileReadPipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, num_gpus, shard_id=0):
        super(FileReadPipeline, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.readers.File(file_root={root!r}, shard_id=shard_id, num_shards=num_gpus,
                                      random_shuffle=True)
        self.decode = ops.decoders.Image(device=DECODER, output_type=types.RGB)
        self.res = ops.RandomResizedCrop(device=DEVICE, size=(32, 32), random_area=[0.08, 1.25])
        self.cmnp = ops.CropMirrorNormalize(device=DEVICE, dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(32, 32),
                                            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                            std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.coin = ops.random.CoinFlip(probability=0.5)

    def define_graph(self):
        jpegs, labels = self.input(name="Reader")
        images = self.res(self.decode(jpegs))
        return self.cmnp(images, mirror=self.coin()), labels
"""

PIPES_PER_GPU = (
    'DECODER, DEVICE = "cpu", "cpu"\n'
    + _SHARDED_PIPE
    + """

N_GPUS = 2
pipes = [FileReadPipeline(batch_size=3, num_threads=1, device_id=None, num_gpus=N_GPUS,
                          shard_id=device_id) for device_id in range(N_GPUS)]
pipes[0].build()
dali_iter = DALIClassificationIterator(pipes, reader_name="Reader")
"""
)

# The same as DALI's examples write it, for GPUs 0 and 1 with the mixed decoder: on a machine
# without a GPU the file stops at pipes[0].build().
PIPES_PER_GPU_AS_WRITTEN = (
    'DECODER, DEVICE = "mixed", "gpu"\n'
    + _SHARDED_PIPE
    + """

N_GPUS = 2
pipes = [FileReadPipeline(batch_size=3, num_threads=2, device_id=device_id, num_gpus=N_GPUS,
                          shard_id=device_id) for device_id in range(N_GPUS)]
pipes[0].build()
dali_iter = DALIClassificationIterator(pipes, size=pipes[0].epoch_size("Reader"))
"""
)

# A loader function that makes, builds and wraps the pipeline, called at the top level (as in a
# notebook), for GPU 0: the file stops inside the function at pipe.build().
LOADER_FUNCTION = (
    'DECODER, DEVICE = "mixed", "gpu"\n'
    + _SHARDED_PIPE
    + """

def get_train_loader(batch_size, num_gpus=1):
    pipe = FileReadPipeline(batch_size=batch_size, num_threads=2, device_id=0,
                            num_gpus=num_gpus)
    pipe.build()
    return DALIClassificationIterator(pipe, reader_name="Reader", auto_reset=True)


train_loader = get_train_loader(batch_size=5)
"""
)

# The ops API's Caffe LMDB reader: refused, named as written.
CAFFE = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class CaffePipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super().__init__(batch_size, num_threads, device_id)
        self.input = ops.CaffeReader(path="/data/ilsvrc12_train_lmdb", random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)

    def define_graph(self):
        jpegs, labels = self.input()
        return self.decode(jpegs), labels


pipe = CaffePipe(3, 1, None)
"""

# DALI's video example (ops API): a VideoReader on the GPU giving sequences of frames, refused
# with a fix that speaks of frames.
VIDEO = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops


class VideoPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data):
        super(VideoPipe, self).__init__(batch_size, num_threads, device_id, seed=16)
        self.input = ops.VideoReader(device="gpu", filenames=data, sequence_length=8,
                                     shard_id=0, num_shards=1, random_shuffle=True,
                                     initial_fill=16)

    def define_graph(self):
        output = self.input(name="Reader")
        return output


pipe = VideoPipe(batch_size=2, num_threads=2, device_id=0, data=["/data/video/clip.mp4"])
pipe.build()
"""

# Each runs here and must come back, in a Session and from its exported module, as it ran.
ROUND_TRIPS = {
    "dali_resnet_example": DALI_RESNET_EXAMPLE,
    "gallery": GALLERY,
    "random_transforms": RANDOM_TRANSFORMS,
    "grey_normalize": GREY_NORMALIZE,
    "slice_inputs": SLICE_INPUTS,
    "discrete_and_vector_draws": DISCRETE_AND_VECTOR_DRAWS,
    "operator_seeds": OPERATOR_SEEDS,
    "two_views": TWO_VIEWS,
    "pipes_per_gpu": PIPES_PER_GPU,
}
