"""DALI code from training repositories, as files to import: the ops API in class-based pipelines
(after NVIDIA DeepLearningExamples' ResNet-50 and SSD loaders), a base class holding the operators,
mixtures of ops and fn, the fn loaders of DALI's PyTorch examples, a Pipeline used as a context,
and solo-learn's builders (a @pipeline_def method, augmentations as arithmetic on a coin cast to
bool). Each template writes ``pipe``, the pipeline the file builds; ``{root}`` is the samples
folder, ``{annotations}`` their COCO file.
"""

from __future__ import annotations

# DeepLearningExamples' ResNet-50 training pipeline (PyTorch ConvNets, ops API): shards from
# torch.distributed, an ImageDecoder with nvJPEG padding hints on the GPU path, RandomResizedCrop,
# CropMirrorNormalize mirrored by a CoinFlip; its CPU path (dali_cpu=True) here.
DLE_RESNET_OPS = """
import torch
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, dali_cpu=False):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id,
                                              seed=12 + device_id)
        if torch.distributed.is_initialized():
            rank = torch.distributed.get_rank()
            world_size = torch.distributed.get_world_size()
        else:
            rank = 0
            world_size = 1
        self.input = ops.FileReader(file_root=data_dir, shard_id=rank, num_shards=world_size,
                                    random_shuffle=True, pad_last_batch=True)
        if dali_cpu:
            dali_device = "cpu"
            self.decode = ops.ImageDecoder(device=dali_device, output_type=types.RGB)
        else:
            dali_device = "gpu"
            self.decode = ops.ImageDecoder(device="mixed", output_type=types.RGB,
                                           device_memory_padding=211025920,
                                           host_memory_padding=140544512)
        self.res = ops.RandomResizedCrop(device=dali_device, size=[crop, crop],
                                         interp_type=types.INTERP_LINEAR,
                                         random_aspect_ratio=[0.75, 4.0 / 3.0],
                                         random_area=[0.08, 1.0], num_attempts=100)
        self.cmnp = ops.CropMirrorNormalize(device="gpu" if not dali_cpu else "cpu",
                                            dtype=types.FLOAT, output_layout=types.NCHW,
                                            crop=(crop, crop),
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


pipe = HybridTrainPipe(batch_size=4, num_threads=1, device_id=0, data_dir={root!r}, crop=48,
                       dali_cpu=True)
"""


# Its validation pipeline: resize_shorter, a centre crop in CropMirrorNormalize, no shuffle.
DLE_RESNET_VAL = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class HybridValPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir, crop, size):
        super(HybridValPipe, self).__init__(batch_size, num_threads, device_id,
                                            seed=12 + device_id)
        self.input = ops.FileReader(file_root=data_dir, shard_id=0, num_shards=1,
                                    random_shuffle=False, pad_last_batch=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(device="cpu", resize_shorter=size)
        self.cmnp = ops.CropMirrorNormalize(device="cpu", dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
                                            mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                            std=[0.229 * 255, 0.224 * 255, 0.225 * 255])

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        images = self.res(images)
        output = self.cmnp(images)
        return [output, self.labels]


pipe = HybridValPipe(batch_size=4, num_threads=1, device_id=0, data_dir={root!r}, crop=40,
                     size=48)
"""


# Operators made in a base class's __init__ and used by a helper method; the subclass adds the
# reader and define_graph (a resize drawn per sample, crop positions drawn).
COMMON_BASE = """
from abc import ABC

from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class CommonPipeline(Pipeline, ABC):
    def __init__(self, batch_size, num_threads, device_id):
        super(CommonPipeline, self).__init__(batch_size, num_threads, device_id, seed=5)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.resize = ops.Resize(device="cpu", image_type=types.RGB,
                                 interp_type=types.INTERP_LINEAR)
        self.cmn = ops.CropMirrorNormalize(device="cpu", output_dtype=types.FLOAT,
                                           crop=(40, 40), image_type=types.RGB,
                                           mean=[128.0, 128.0, 128.0], std=[1.0, 1.0, 1.0])
        self.uniform = ops.Uniform(range=(0.0, 1.0))
        self.resize_rng = ops.Uniform(range=(48, 64))

    def base_define_graph(self, inputs, labels):
        images = self.decode(inputs)
        images = self.resize(images, resize_shorter=self.resize_rng())
        output = self.cmn(images, crop_pos_x=self.uniform(), crop_pos_y=self.uniform())
        return output, labels


class FileReadPipeline(CommonPipeline):
    def __init__(self, batch_size, num_threads, device_id, file_root):
        super(FileReadPipeline, self).__init__(batch_size, num_threads, device_id)
        self.input = ops.FileReader(file_root=file_root)

    def define_graph(self):
        images, labels = self.input(name="Reader")
        return self.base_define_graph(images, labels)


pipe = FileReadPipeline(4, 1, 0, {root!r})
"""


# A rotate fed by an ops.Uniform, RandomResizedCrop to (h, w), a Flip on a coin, spaces around =.
ROTATE_RRC = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types

class HybridPipelineTrain(Pipeline):
    def __init__(self, batch_size, output_size, num_threads, device_id, images_directory):
        super(HybridPipelineTrain, self).__init__(batch_size, num_threads, device_id, seed = 12)
        self.input = ops.FileReader(file_root = images_directory, random_shuffle = True,
                                    initial_fill = 21)
        self.decode = ops.ImageDecoder(device = "cpu", output_type = types.RGB)
        self.rotate = ops.Rotate(device = "cpu")
        self.RRC = ops.RandomResizedCrop(size = output_size, random_area = [0.4, 1.0],
                                         random_aspect_ratio = [0.5, 1.5], device="cpu")
        self.cmn = ops.CropMirrorNormalize(device = "cpu", dtype = types.FLOAT,
                                           output_layout = types.NCHW, image_type = types.RGB,
                                           mean = [0.485 * 255, 0.456 * 255, 0.406 * 255],
                                           std = [0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.coin = ops.CoinFlip(probability = 0.5)
        self.rotate_range = ops.Uniform(range = (-7, 7))
        self.flip = ops.Flip(device = "cpu")

    def define_graph(self):
        angle = self.rotate_range()
        coin = self.coin()
        self.jpegs, self.labels = self.input(name = "Reader")
        images = self.decode(self.jpegs)
        images = self.rotate(images, angle = angle)
        images = self.RRC(images)
        images = self.flip(images, horizontal = coin)
        images = self.cmn(images)
        return (images, self.labels)

pipe = HybridPipelineTrain(batch_size=4, output_size=(40, 48), num_threads=1, device_id=0,
                           images_directory={root!r})
"""


# files= and labels= as the tuples zip(*samples) gives (an ImageFolder's samples, built here
# without torchvision).
SAMPLES_ZIP = """
import os
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


def folder_samples(root):
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    samples = []
    for index, name in enumerate(classes):
        for file in sorted(os.listdir(os.path.join(root, name))):
            samples.append((os.path.join(root, name, file), index))
    return samples


class HybridTrainPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, samples, crop):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id,
                                              seed=12 + device_id)
        files, labels = zip(*samples)
        self.input = ops.FileReader(files=files, labels=labels, random_shuffle=True)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.res = ops.RandomResizedCrop(device="cpu", size=crop, random_area=[0.1, 1.0])
        self.cmnp = ops.CropMirrorNormalize(device="cpu", output_dtype=types.FLOAT,
                                            output_layout=types.NCHW, crop=(crop, crop),
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


pipe = HybridTrainPipe(4, 1, 0, folder_samples({root!r}), 40)
"""


# ops objects and fn calls mixed in one define_graph, ops.readers.File, draws shared between
# arguments, labels cast to int64.
MIXED_OPS_FN = """
import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline


class MixedPipe(Pipeline):
    def __init__(self, batch_size, num_threads, device_id, data_dir):
        super().__init__(batch_size, num_threads, device_id, seed=2021)
        self.input = ops.readers.File(file_root=data_dir, random_shuffle=True, name="Reader")
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        self.hsv = ops.Hsv(device="cpu")
        self.bc = ops.BrightnessContrast(device="cpu")
        self.sat = ops.random.Uniform(range=[0.7, 1.3])
        self.hue = ops.random.Uniform(range=[-10.0, 10.0])
        self.cast = ops.Cast(dtype=types.INT64)

    def define_graph(self):
        jpegs, labels = self.input()
        images = self.decode(jpegs)
        images = fn.resize(images, resize_shorter=40)
        images = self.hsv(images, hue=self.hue(), saturation=self.sat())
        images = self.bc(images, brightness=fn.random.uniform(range=[0.8, 1.2]),
                         contrast=self.sat())
        images = fn.crop_mirror_normalize(images, crop=(32, 32), dtype=types.FLOAT,
                                          mirror=fn.random.coin_flip(),
                                          mean=[0.0, 0.0, 0.0], std=[255.0, 255.0, 255.0])
        return images, self.cast(labels)


pipe = MixedPipe(batch_size=4, num_threads=1, device_id=0, data_dir={root!r})
"""


# The fn version of the ResNet-50 pipeline (DALI's PyTorch example and DeepLearningExamples'):
# the decoder's nvJPEG hints computed from the device, is_training switching the branch.
FN_DLE = """
from nvidia.dali import pipeline_def, fn, types


@pipeline_def
def create_dali_pipeline(data_dir, crop, size, shard_id, num_shards, dali_cpu=False,
                         is_training=True):
    images, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id,
                                     num_shards=num_shards, random_shuffle=is_training,
                                     pad_last_batch=True, name="Reader")
    dali_device = "cpu" if dali_cpu else "gpu"
    decoder_device = "cpu" if dali_cpu else "mixed"
    device_memory_padding = 211025920 if decoder_device == "mixed" else 0
    host_memory_padding = 140544512 if decoder_device == "mixed" else 0
    preallocate_width_hint = 5980 if decoder_device == "mixed" else 0
    preallocate_height_hint = 6430 if decoder_device == "mixed" else 0
    if is_training:
        images = fn.decoders.image_random_crop(images, device=decoder_device,
                                               output_type=types.RGB,
                                               device_memory_padding=device_memory_padding,
                                               host_memory_padding=host_memory_padding,
                                               preallocate_width_hint=preallocate_width_hint,
                                               preallocate_height_hint=preallocate_height_hint,
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
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      crop=(crop, crop),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      mirror=mirror)
    labels = labels.gpu() if not dali_cpu else labels
    return images, labels


pipe = create_dali_pipeline(batch_size=4, num_threads=1, device_id=0, seed=12,
                            data_dir={root!r}, crop=40, size=48, shard_id=0, num_shards=1,
                            dali_cpu=True, is_training=True)
"""


# A Pipeline object used as a context and given its outputs by set_outputs, with executor
# options; resize_shorter drawn, crop and paste at drawn positions.
WITH_PIPE = """
import nvidia.dali.fn as fn
import nvidia.dali.types as types
from nvidia.dali import Pipeline

pipe = Pipeline(batch_size=4, num_threads=1, device_id=0, seed=99, exec_async=False,
                exec_pipelined=False, prefetch_queue_depth=1)
with pipe:
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_shorter=fn.random.uniform(range=[40, 56]))
    images = fn.crop(images, crop=(36, 36), crop_pos_x=fn.random.uniform(range=[0.0, 1.0]),
                     crop_pos_y=fn.random.uniform(range=[0.0, 1.0]))
    images = fn.paste(images, ratio=1.25, fill_value=(118, 117, 104),
                      paste_x=fn.random.uniform(range=[0, 1]), paste_y=0.5)
    pipe.set_outputs(images, labels)
"""


# DeepLearningExamples' SSD training pipeline (ops.readers.COCO, ops.random.*, Hsv in float,
# BrightnessContrast back to uint8, BoxEncoder with the SSD300 default boxes computed in Python,
# fp16 output), on its CPU operators.
DLE_SSD = """
import itertools
from math import sqrt

import nvidia.dali as dali
from nvidia.dali.pipeline import Pipeline


def default_boxes(fig_size=300, feat_size=(38, 19, 10, 5, 3, 1), steps=(8, 16, 32, 64, 100, 300),
                  scales=(21, 45, 99, 153, 207, 261, 315),
                  aspect_ratios=((2,), (2, 3), (2, 3), (2, 3), (2,), (2,))):
    boxes = []
    for idx, sfeat in enumerate(feat_size):
        sk1 = scales[idx] / fig_size
        sk2 = scales[idx + 1] / fig_size
        sk3 = sqrt(sk1 * sk2)
        all_sizes = [(sk1, sk1), (sk3, sk3)]
        for alpha in aspect_ratios[idx]:
            w, h = sk1 * sqrt(alpha), sk1 / sqrt(alpha)
            all_sizes.append((w, h))
            all_sizes.append((h, w))
        for w, h in all_sizes:
            for i, j in itertools.product(range(sfeat), repeat=2):
                cx, cy = (j + 0.5) / (fig_size / steps[idx]), (i + 0.5) / (fig_size / steps[idx])
                boxes.append((cx, cy, w, h))
    ltrb = []
    for cx, cy, w, h in boxes:
        ltrb += [min(max(cx - 0.5 * w, 0), 1), min(max(cy - 0.5 * h, 0), 1),
                 min(max(cx + 0.5 * w, 0), 1), min(max(cy + 0.5 * h, 0), 1)]
    return ltrb


class COCOPipeline(Pipeline):
    def __init__(self, batch_size, file_root, annotations_file, device_id, num_shards,
                 output_fp16=False, output_nhwc=False, pad_output=False, num_threads=1,
                 seed=15, device="gpu"):
        super(COCOPipeline, self).__init__(batch_size=batch_size, device_id=device_id,
                                           num_threads=num_threads, seed=seed)
        shard_id = 0
        self.input = dali.ops.readers.COCO(file_root=file_root,
                                           annotations_file=annotations_file,
                                           shard_id=shard_id, num_shards=num_shards,
                                           ratio=True, ltrb=True, shuffle_after_epoch=True,
                                           skip_empty=True)
        self.decode_slice = dali.ops.decoders.ImageSlice(device="cpu",
                                                         output_type=dali.types.RGB)
        self.crop = dali.ops.RandomBBoxCrop(device="cpu", aspect_ratio=[0.5, 2.0],
                                            thresholds=[0, 0.1, 0.3, 0.5, 0.7, 0.9],
                                            scaling=[0.3, 1.0], bbox_layout="xyXY",
                                            allow_no_crop=True, num_attempts=1)
        self.hsv = dali.ops.Hsv(device=device, dtype=dali.types.FLOAT)
        self.bc = dali.ops.BrightnessContrast(device=device, contrast_center=128,
                                              dtype=dali.types.UINT8)
        dtype = dali.types.FLOAT16 if output_fp16 else dali.types.FLOAT
        output_layout = dali.types.NHWC if output_nhwc else dali.types.NCHW
        self.normalize = dali.ops.CropMirrorNormalize(device=device, crop=(300, 300),
                                                      mean=[0.0, 0.0, 0.0],
                                                      std=[255.0, 255.0, 255.0], mirror=0,
                                                      dtype=dtype, output_layout=output_layout,
                                                      pad_output=pad_output)
        self.flip = dali.ops.Flip(device="cpu")
        self.bbflip = dali.ops.BbFlip(device="cpu", ltrb=True)
        self.resize = dali.ops.Resize(device="cpu", resize_x=300, resize_y=300)
        self.rng1 = dali.ops.random.Uniform(range=[0.5, 1.5])
        self.rng2 = dali.ops.random.Uniform(range=[0.875, 1.125])
        self.rng3 = dali.ops.random.Uniform(range=[-0.5, 0.5])
        self.flip_coin = dali.ops.random.CoinFlip(probability=0.5)
        self.anchors = default_boxes()
        self.box_encoder = dali.ops.BoxEncoder(device="cpu", criteria=0.5, anchors=self.anchors)
        self.on_gpu = device == "gpu"

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
        if self.on_gpu:
            images = images.gpu()
        images = self.hsv(images, hue=hue, saturation=saturation)
        images = self.bc(images, brightness=brightness, contrast=contrast)
        images = self.normalize(images)
        bboxes, labels = self.box_encoder(bboxes, labels)
        if self.on_gpu:
            return (images, bboxes.gpu(), labels.gpu())
        return (images, bboxes, labels)


pipe = COCOPipeline(batch_size=2, file_root={root!r}, annotations_file={annotations!r},
                    device_id=0, num_shards=1, output_fp16=True, device="cpu")
"""


# solo-learn's linear-evaluation loader: a builder class whose method is the @pipeline_def, the
# files as Path objects, ops.readers.File, labels cast to int64.
SOLO_NORMAL = """
import os
from pathlib import Path

import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import pipeline_def


class NormalPipelineBuilder:
    def __init__(self, data_path, batch_size, device, validation=False, device_id=0,
                 shard_id=0, num_shards=1, num_threads=4, seed=12):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = seed + device_id
        self.device = device
        self.validation = validation
        data_path = Path(data_path)
        labels = sorted(Path(entry.name) for entry in os.scandir(data_path) if entry.is_dir())
        data = [(data_path / label / file, label_idx)
                for label_idx, label in enumerate(labels)
                for file in sorted(os.listdir(data_path / label))]
        files, labels = map(list, zip(*data))
        self.reader = ops.readers.File(files=files, labels=labels, shard_id=shard_id,
                                       num_shards=num_shards,
                                       shuffle_after_epoch=not self.validation)
        self.decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
        if self.validation:
            self.resize = ops.Resize(device=self.device, resize_shorter=48,
                                     interp_type=types.INTERP_CUBIC)
            self.cmn = ops.CropMirrorNormalize(device=self.device, dtype=types.FLOAT,
                                               output_layout=types.NCHW, crop=(40, 40),
                                               mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                               std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        else:
            self.resize = ops.RandomResizedCrop(device=self.device, size=40,
                                                random_area=(0.08, 1.0),
                                                interp_type=types.INTERP_CUBIC)
            self.cmn = ops.CropMirrorNormalize(device=self.device, dtype=types.FLOAT,
                                               output_layout=types.NCHW,
                                               mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                               std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        self.coin05 = ops.random.CoinFlip(probability=0.5)
        self.to_int64 = ops.Cast(dtype=types.INT64, device=device)

    @pipeline_def
    def pipeline(self):
        inputs, labels = self.reader(name="Reader")
        images = self.decode(inputs)
        images = self.resize(images)
        if self.validation:
            images = self.cmn(images)
        else:
            images = self.cmn(images, mirror=self.coin05())
        if self.device == "gpu":
            labels = labels.gpu()
        labels = self.to_int64(labels)
        return (images, labels)


builder = NormalPipelineBuilder({root!r}, batch_size=4, device="cpu", num_threads=1)
pipe = builder.pipeline(batch_size=builder.batch_size, num_threads=builder.num_threads,
                        device_id=builder.device_id, seed=builder.seed)
"""


# solo-learn's pretraining loader, condensed: ops objects wrapped in Python classes, each
# augmentation applied with a probability by an arithmetic mux (`c * a + (c ^ True) * b` on a coin
# cast to bool), grayscale by fn.cat, a blur sigma from arithmetic on a draw, solarize by a
# comparison; two crops of each image and the labels.
SOLO_PRETRAIN = """
import os
from pathlib import Path

import nvidia.dali.fn as fn
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import pipeline_def

MEAN = (0.485, 0.456, 0.406)
STD = (0.228, 0.224, 0.225)


class Mux:
    def __init__(self, prob):
        self.to_bool = ops.Cast(dtype=types.DALIDataType.BOOL)
        self.rng = ops.random.CoinFlip(probability=prob)

    def __call__(self, true_case, false_case):
        condition = self.to_bool(self.rng())
        neg_condition = condition ^ True
        return condition * true_case + neg_condition * false_case


class RandomGrayScaleConversion:
    def __init__(self, prob=0.2, device="gpu"):
        self.mux = Mux(prob=prob)
        self.grayscale = ops.ColorSpaceConversion(device=device, image_type=types.RGB,
                                                  output_type=types.GRAY)

    def __call__(self, images):
        out = self.grayscale(images)
        out = fn.cat(out, out, out, axis=2)
        return self.mux(true_case=out, false_case=images)


class RandomColorJitter:
    def __init__(self, brightness, contrast, saturation, hue, prob=0.8, device="gpu"):
        self.mux = Mux(prob=prob)
        self.color = ops.ColorTwist(device=device)
        self.brightness = ops.random.Uniform(range=[max(0, 1 - brightness), 1 + brightness])
        self.contrast = ops.random.Uniform(range=[max(0, 1 - contrast), 1 + contrast])
        self.saturation = ops.random.Uniform(range=[max(0, 1 - saturation), 1 + saturation])
        self.hue = 0
        if hue:
            hue = 360 * hue
            self.hue = ops.random.Uniform(range=[-hue, hue])

    def __call__(self, images):
        out = self.color(images, brightness=self.brightness(), contrast=self.contrast(),
                         saturation=self.saturation(),
                         hue=self.hue() if callable(self.hue) else self.hue)
        return self.mux(true_case=out, false_case=images)


class RandomGaussianBlur:
    def __init__(self, prob=0.5, window_size=23, device="gpu"):
        self.mux = Mux(prob=prob)
        self.gaussian_blur = ops.GaussianBlur(device=device, window_size=(window_size, window_size))
        self.sigma = ops.random.Uniform(range=[0, 1])

    def __call__(self, images):
        sigma = self.sigma() * 1.9 + 0.1
        out = self.gaussian_blur(images, sigma=sigma)
        return self.mux(true_case=out, false_case=images)


class RandomSolarize:
    def __init__(self, threshold=128, prob=0.0):
        self.mux = Mux(prob=prob)
        self.threshold = threshold

    def __call__(self, images):
        inverted_img = 255 - images
        mask = images >= self.threshold
        out = mask * inverted_img + (True ^ mask) * images
        return self.mux(true_case=out, false_case=images)


class AugWrapper:
    def __init__(self, size, device):
        self.augmentations = [
            ops.RandomResizedCrop(device=device, size=size, random_area=(0.08, 1.0),
                                  interp_type=types.INTERP_CUBIC),
            RandomColorJitter(0.4, 0.4, 0.2, 0.1, prob=0.8, device=device),
            RandomGrayScaleConversion(prob=0.2, device=device),
            RandomGaussianBlur(prob=0.5, window_size=9, device=device),
            RandomSolarize(prob=0.2),
        ]
        self.coin = ops.random.CoinFlip(probability=0.5)
        self.cmn = ops.CropMirrorNormalize(device=device, dtype=types.FLOAT,
                                           output_layout=types.NCHW,
                                           mean=[v * 255 for v in MEAN],
                                           std=[v * 255 for v in STD])

    def __call__(self, images):
        for aug in self.augmentations:
            images = aug(images)
        return self.cmn(images, mirror=self.coin())


class PretrainPipelineBuilder:
    def __init__(self, data_path, batch_size, device, transforms, device_id=0, shard_id=0,
                 num_shards=1, num_threads=4, seed=12):
        self.batch_size = batch_size
        self.num_threads = num_threads
        self.device_id = device_id
        self.seed = seed + device_id
        self.device = device
        data_path = Path(data_path)
        labels = sorted(Path(entry.name) for entry in os.scandir(data_path) if entry.is_dir())
        data = [(data_path / label / file, label_idx)
                for label_idx, label in enumerate(labels)
                for file in sorted(os.listdir(data_path / label))]
        files, labels = map(list, zip(*data))
        self.reader = ops.readers.File(files=files, labels=labels, shard_id=shard_id,
                                       num_shards=num_shards, shuffle_after_epoch=True)
        decoder_device = "mixed" if self.device == "gpu" else "cpu"
        device_memory_padding = 211025920 if decoder_device == "mixed" else 0
        host_memory_padding = 140544512 if decoder_device == "mixed" else 0
        self.decode = ops.decoders.Image(device=decoder_device, output_type=types.RGB,
                                         device_memory_padding=device_memory_padding,
                                         host_memory_padding=host_memory_padding)
        self.to_int64 = ops.Cast(dtype=types.INT64, device=device)
        self.transforms = transforms

    @pipeline_def
    def pipeline(self):
        inputs, labels = self.reader(name="Reader")
        images = self.decode(inputs)
        crops = [t(images) for t in self.transforms]
        if self.device == "gpu":
            labels = labels.gpu()
        labels = self.to_int64(labels)
        return (*crops, labels)


builder = PretrainPipelineBuilder({root!r}, batch_size=4, device="cpu",
                                  transforms=[AugWrapper(40, "cpu"), AugWrapper(24, "cpu")],
                                  num_threads=1)
pipe = builder.pipeline(batch_size=builder.batch_size, num_threads=builder.num_threads,
                        device_id=builder.device_id, seed=builder.seed)
"""


# The ops API's external source fed from iter_setup (feed_input): refused, named as written.
FEED_INPUT = """
import numpy as np
import os
import nvidia.dali.ops as ops
import nvidia.dali.types as types
from nvidia.dali.pipeline import Pipeline

root = {root!r}
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".jpg"))


class ExternalInputIterator(object):
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        batch, labels = [], []
        for _ in range(self.batch_size):
            with open(files[self.i % len(files)], "rb") as f:
                batch.append(np.frombuffer(f.read(), dtype=np.uint8))
            labels.append(np.array([self.i % 3], dtype=np.uint8))
            self.i += 1
        return (batch, labels)


class ExternalSourcePipeline(Pipeline):
    def __init__(self, batch_size, num_threads, device_id):
        super(ExternalSourcePipeline, self).__init__(batch_size, num_threads, device_id, seed=12)
        self.input = ops.ExternalSource()
        self.input_label = ops.ExternalSource()
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.res = ops.Resize(device="cpu", resize_x=40, resize_y=40)
        self.iterator = iter(ExternalInputIterator(batch_size))

    def define_graph(self):
        self.jpegs = self.input()
        self.labels = self.input_label()
        images = self.decode(self.jpegs)
        output = self.res(images)
        return (output, self.labels)

    def iter_setup(self):
        images, labels = next(self.iterator)
        self.feed_input(self.jpegs, images)
        self.feed_input(self.labels, labels)


pipe = ExternalSourcePipeline(batch_size=4, num_threads=1, device_id=0)
"""


# Readers of formats the explorer does not read, through the ops API: refused, named as written.
MXNET = """
from nvidia.dali.pipeline import Pipeline
import nvidia.dali.ops as ops
import nvidia.dali.types as types


class HybridTrainPipe(Pipeline):
    def __init__(self, rec_path, index_path, batch_size, num_gpus, num_threads, device_id):
        super(HybridTrainPipe, self).__init__(batch_size, num_threads, device_id,
                                              seed=12 + device_id)
        self.input = ops.MXNetReader(path=[rec_path], index_path=[index_path],
                                     random_shuffle=True, shard_id=device_id, num_shards=num_gpus)
        self.decode = ops.ImageDecoder(device="cpu", output_type=types.RGB)
        self.res = ops.RandomResizedCrop(device="cpu", size=(32, 32))

    def define_graph(self):
        self.jpegs, self.labels = self.input(name="Reader")
        images = self.decode(self.jpegs)
        return [self.res(images), self.labels]


pipe = HybridTrainPipe("train.rec", "train.idx", 4, 1, 1, 0)
"""


TFRECORD = """
import nvidia.dali as dali
import nvidia.dali.tfrecord as tfrec


class DaliPipeline(dali.pipeline.Pipeline):
    def __init__(self, tfrec_filenames, tfrec_idx_filenames, batch_size, num_threads, device_id):
        super(DaliPipeline, self).__init__(batch_size, num_threads, device_id, seed=7)
        self.input = dali.ops.TFRecordReader(path=tfrec_filenames, index_path=tfrec_idx_filenames,
            random_shuffle=True, initial_fill=10000,
            features={{"image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                      "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1)}})
        self.decode = dali.ops.ImageDecoder(device="cpu", output_type=dali.types.RGB)

    def define_graph(self):
        inputs = self.input(name="Reader")
        images = self.decode(inputs["image/encoded"])
        return images, inputs["image/class/label"]


pipe = DaliPipeline(["train.tfrecord"], ["train.idx"], 4, 1, 0)
"""


# Pipeline options of DALI 2 (exec_dynamic, py_num_workers) and argument hints training
# scripts pass: hw_decoder_load, antialias, a float resize, a padded crop at a drawn
# position, fp16 output with pad_output.
FN_OPTIONS = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4, num_threads=1, device_id=0, seed=77, exec_dynamic=True,
              prefetch_queue_depth=1, py_num_workers=1)
def train_pipe(data_dir):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader",
                                    read_ahead=True, dont_use_mmap=True)
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB, hw_decoder_load=0.65,
                               use_fast_idct=False)
    images = fn.resize(images, resize_shorter=fn.random.uniform(range=(40, 60)), antialias=True,
                       dtype=types.FLOAT)
    flip = fn.random.coin_flip(probability=0.5, dtype=types.INT32)
    position = fn.random.uniform(range=(0, 1))
    images = fn.crop_mirror_normalize(images, crop=(48, 48), crop_pos_x=position, crop_pos_y=0.5,
                                      out_of_bounds_policy="pad", fill_values=0.0, mirror=flip,
                                      pad_output=True,
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255],
                                      dtype=types.FLOAT16)
    return images, labels


pipe = train_pipe({root!r})
"""


# The GPU path of the ResNet-50 pipeline: a mixed decoder with its padding hints, GPU operators.
DLE_RESNET_GPU = DLE_RESNET_OPS.replace("dali_cpu=True)", "dali_cpu=False)")
FN_DLE_VAL = FN_DLE.replace("is_training=True)", "is_training=False)")

# Each runs here and must come back, in a Session and from its exported module, as it ran.
ROUND_TRIPS: dict[str, str] = {
    "dle_resnet_ops": DLE_RESNET_OPS,
    "dle_resnet_val": DLE_RESNET_VAL,
    "operators_in_a_base_class": COMMON_BASE,
    "rotate_and_resized_crop": ROTATE_RRC,
    "files_from_samples": SAMPLES_ZIP,
    "ops_and_fn_mixed": MIXED_OPS_FN,
    "fn_resnet_training": FN_DLE,
    "fn_resnet_validation": FN_DLE_VAL,
    "pipeline_as_context": WITH_PIPE,
    "dle_ssd": DLE_SSD,
    "solo_linear": SOLO_NORMAL,
    "solo_pretrain": SOLO_PRETRAIN,
    "dali2_options": FN_OPTIONS,
}
