"""The same augmentation as a recipe, written the way PyTorch users do it on the CPU, read
through a `torch.utils.data.DataLoader` with one worker per core.

- "torchvision-style": Pillow decoding and resizing, numpy/torch for the tensor, following
  torchvision's RandomResizedCrop / RandomHorizontalFlip / Resize / CenterCrop / ToTensor /
  Normalize (torchvision itself is not a dependency).
- "albumentations": OpenCV decoding and albumentations' transforms (its ToTensorV2).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from .recipe import Recipe


def random_resized_crop_box(
    width: int, height: int, scale: Sequence[float], ratio: Sequence[float], rng: random.Random
) -> tuple[int, int, int, int]:
    """torchvision's RandomResizedCrop.get_params: (left, top, width, height) of the crop."""
    area = width * height
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(10):
        target_area = area * rng.uniform(scale[0], scale[1])
        aspect = math.exp(rng.uniform(*log_ratio))
        w = round(math.sqrt(target_area * aspect))
        h = round(math.sqrt(target_area / aspect))
        if 0 < w <= width and 0 < h <= height:
            return rng.randint(0, width - w), rng.randint(0, height - h), w, h
    # fallback: the whole image, clamped to the ratio range, centred
    in_ratio = width / height
    if in_ratio < min(ratio):
        w, h = width, round(width / min(ratio))
    elif in_ratio > max(ratio):
        w, h = round(height * max(ratio)), height
    else:
        w, h = width, height
    return (width - w) // 2, (height - h) // 2, w, h


class PillowDataset:
    """torchvision's CPU path: PIL decode, PIL bilinear resize, flip, ToTensor, Normalize."""

    def __init__(self, files: Sequence[str], recipe: Recipe, seed: int = 0) -> None:
        self.files = list(files)
        self.recipe = recipe
        self.seed = seed
        self.mean = np.array(recipe.mean, dtype=np.float32).reshape(3, 1, 1) / 255.0
        self.std = np.array(recipe.std, dtype=np.float32).reshape(3, 1, 1) / 255.0

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, index: int) -> Any:
        import torch
        from PIL import Image

        recipe = self.recipe
        rng = random.Random(self.seed * 1_000_003 + index)
        with Image.open(self.files[index]) as opened:
            image = opened.convert("RGB")
        size = (recipe.size, recipe.size)
        if recipe.kind == "train":
            left, top, w, h = random_resized_crop_box(
                image.width, image.height, recipe.scale, recipe.ratio, rng
            )
            image = image.resize(
                size, Image.Resampling.BILINEAR, box=(left, top, left + w, top + h)
            )
            if rng.random() < recipe.flip_probability:
                image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        else:
            scale = recipe.resize_shorter / min(image.width, image.height)
            resized = (round(image.width * scale), round(image.height * scale))
            image = image.resize(resized, Image.Resampling.BILINEAR)
            left = (image.width - recipe.size) // 2
            top = (image.height - recipe.size) // 2
            image = image.crop((left, top, left + recipe.size, top + recipe.size))
        # np.array copies (as ToTensor does): the image's buffer is read-only
        tensor = torch.from_numpy(np.array(image)).permute(2, 0, 1).float().div_(255.0)
        return (tensor - torch.from_numpy(self.mean)) / torch.from_numpy(self.std)


class AlbumentationsDataset:
    """OpenCV decode and albumentations' transforms, ending in a CHW float tensor."""

    def __init__(self, files: Sequence[str], recipe: Recipe) -> None:
        self.files = list(files)
        self.recipe = recipe
        self._transform: Any = None

    def __len__(self) -> int:
        return len(self.files)

    def transform(self) -> Any:
        import albumentations as A
        from albumentations.pytorch import ToTensorV2

        recipe = self.recipe
        normalize = A.Normalize(
            mean=[m / 255 for m in recipe.mean],
            std=[s / 255 for s in recipe.std],
            max_pixel_value=255.0,
        )
        if recipe.kind == "train":
            steps = [
                A.RandomResizedCrop(
                    size=(recipe.size, recipe.size), scale=recipe.scale, ratio=recipe.ratio
                ),
                A.HorizontalFlip(p=recipe.flip_probability),
            ]
        else:
            steps = [
                A.SmallestMaxSize(max_size=recipe.resize_shorter),
                A.CenterCrop(height=recipe.size, width=recipe.size),
            ]
        return A.Compose([*steps, normalize, ToTensorV2()])

    def __getitem__(self, index: int) -> Any:
        import cv2

        if self._transform is None:  # built in the worker, after the fork
            self._transform = self.transform()
        encoded = cv2.imread(self.files[index])
        if encoded is None:
            raise OSError(f"{self.files[index]}: OpenCV cannot read this image")
        image = cv2.cvtColor(encoded, cv2.COLOR_BGR2RGB)
        return self._transform(image=image)["image"]


def _single_threaded_opencv(_: int) -> None:
    # each worker is one process per core; OpenCV's own threads would oversubscribe the cores
    import cv2

    cv2.setNumThreads(1)


def data_loader(dataset: Any, *, batch_size: int, workers: int) -> Any:
    from torch.utils.data import DataLoader

    return DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=workers,
        shuffle=False,
        worker_init_fn=_single_threaded_opencv if workers > 0 else None,
        # Workers forked from a process that runs DALI's threads can crash (a forked child gets
        # locks held by threads that do not exist in it); forkserver forks them from a clean
        # process. Its start-up happens before the first batch, which is not timed.
        multiprocessing_context="forkserver" if workers > 0 else None,
        persistent_workers=False,
    )
