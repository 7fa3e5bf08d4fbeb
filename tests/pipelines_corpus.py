"""DALI pipelines written the way DALI users write them, for the import round trip tests.

Each entry builds a pipeline from `root` (a folder of class sub-folders) and `lists` (a folder
holding ``list.txt``, whose entries are relative to `root`, and ``local.txt``, whose entries are
relative to `lists`). The tests import each one, run it in a Session and export it; every copy
must give the original's arrays.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from nvidia.dali import fn, pipeline_def, types
from pipelines_auto_aug import AUTO_AUG
from pipelines_conditionals import CONDITIONALS
from pipelines_expressions import EXPRESSIONS
from pipelines_seeds import SEEDS

BATCH = 4


def _small(jpegs: Any) -> Any:
    images = fn.decoders.image(jpegs, device="cpu", output_type=types.RGB)
    return fn.resize(images, resize_x=32, resize_y=24)


@pipeline_def
def getting_started(root: str, lists: str) -> Any:
    # DALI's getting-started tutorial reads with a small shuffle buffer (and a seed here: without
    # one DALI shuffles differently on every run)
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, initial_fill=21, seed=42)
    return _small(jpegs), labels


@pipeline_def
def shuffled_after_each_epoch(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(
        file_root=root, shuffle_after_epoch=True, shuffle_after_epoch_seed=123, name="Reader"
    )
    return _small(jpegs), labels


@pipeline_def
def one_shard_of_two(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(
        file_root=root,
        random_shuffle=True,
        initial_fill=5,
        seed=17,
        shard_id=1,
        num_shards=2,
        stick_to_shard=True,
        pad_last_batch=True,
    )
    return _small(jpegs), labels


@pipeline_def
def reader_tuning(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(
        file_root=root,
        random_shuffle=True,
        seed=3,
        read_ahead=True,
        prefetch_queue_depth=2,
        dont_use_mmap=True,
        lazy_init=True,
        tensor_init_bytes=65536,
    )
    return _small(jpegs), labels


@pipeline_def
def list_under_file_root(root: str, lists: str) -> Any:
    # the list lives in another folder; its entries are relative to file_root
    jpegs, labels = fn.readers.file(
        file_root=root, file_list=os.path.join(lists, "list.txt"), random_shuffle=True, seed=9
    )
    return _small(jpegs), labels


@pipeline_def
def list_beside_its_images(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(file_list=os.path.join(lists, "local.txt"), initial_fill=3)
    return _small(jpegs), labels


@pipeline_def
def normalize_scalar(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, seed=1)
    images = _small(jpegs)
    return fn.normalize(images, mean=128.0, stddev=64.0, dtype=types.FLOAT), labels


@pipeline_def
def normalize_per_channel(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(file_root=root)
    images = _small(jpegs)
    images = fn.normalize(images, axes=[0, 1], shift=0.5, scale=0.25)
    return images, labels


@pipeline_def
def multi_output(root: str, lists: str) -> Any:
    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, initial_fill=8, seed=2)
    images = _small(jpegs)
    angle = fn.random.uniform(range=[-30.0, 30.0], seed=4)
    rotated = fn.rotate(images, angle=angle, fill_value=0)
    flipped = fn.flip(images, horizontal=fn.random.coin_flip(seed=6))
    gray = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)
    return rotated, labels, flipped, gray


CORPUS: dict[str, Callable[..., Any]] = {
    "getting_started": getting_started,
    "shuffled_after_each_epoch": shuffled_after_each_epoch,
    "one_shard_of_two": one_shard_of_two,
    "reader_tuning": reader_tuning,
    "list_under_file_root": list_under_file_root,
    "list_beside_its_images": list_beside_its_images,
    "normalize_scalar": normalize_scalar,
    "normalize_per_channel": normalize_per_channel,
    "multi_output": multi_output,
    **EXPRESSIONS,  # constants, arithmetic, comparisons, .shape() and subscripts
    **CONDITIONALS,  # if/elif/else, nested, on coin flips and comparisons
    **AUTO_AUG,  # DALI's auto_aug policies, each call one node
    **SEEDS,  # operators seeded by the pipeline's seed= alone
}


def write_lists(root: str, lists: str) -> None:
    """``list.txt`` (entries relative to `root`) and ``local.txt`` (relative to `lists`, with
    copies of a few images beside it) in the folder `lists`."""
    import shutil

    os.makedirs(lists, exist_ok=True)
    entries = []
    for label, name in enumerate(sorted(os.listdir(root))):
        for file in sorted(os.listdir(os.path.join(root, name))):
            entries.append(f"{name}/{file} {label}")
    with open(os.path.join(lists, "list.txt"), "w", encoding="utf-8") as stream:
        stream.write("\n".join(entries[::2]) + "\n")
    local = []
    for index, entry in enumerate(entries[1::3]):
        path, label = entry.split()
        target = f"copy_{index}{os.path.splitext(path)[1]}"
        shutil.copyfile(os.path.join(root, path), os.path.join(lists, target))
        local.append(f"{target} {label}")
    with open(os.path.join(lists, "local.txt"), "w", encoding="utf-8") as stream:
        stream.write("\n".join(local) + "\n")
