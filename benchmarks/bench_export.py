"""Images/s of the exported imagenet_train pipeline vs the same graph written by hand in DALI.

Both run on the bundled samples on the CPU with synchronous executors, alternating batch by batch
within one run so machine noise hits both alike (the figures are compute cost, not the overlap a
prefetching loader adds on top). Target: exported >= 0.98x hand-written. Writes benchmarks/results/export.json.

    python benchmarks/bench_export.py [--batches 38] [--rounds 6]

With ``--schedules``: the exported loader (make_loader, prefetching as in training) of
imagenet_train with its mirror probability ramped over the epochs (fed per iteration) against the
loader of the same graph without schedules, whole epochs in turn in one run; also what a
set_epoch costs and what a rebuild of the pipeline from its checkpoint (the other way to give an
epoch its values) costs. Target: with schedules >= 0.98x without. Writes
benchmarks/results/export_schedules.json.

    python benchmarks/bench_export.py --schedules [--repeats 16] [--rounds 6]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from nvidia.dali import fn, pipeline_def, types

from augexplorer import preset, validate
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.presets import IMAGENET_MEAN, IMAGENET_STD

BATCH = 8
THREADS = 2
# Synchronous: a run's time is that batch's own work, not overlap with the other pipeline.
SYNC = {"prefetch_queue_depth": 1, "exec_async": False, "exec_pipelined": False}


@pipeline_def(batch_size=BATCH, num_threads=THREADS, device_id=None, **SYNC)
def hand_written(files: list[str], labels: list[int], seeds: dict[str, int]) -> Any:
    """DALI's ImageNet training pipeline as one would write it by hand (same seeds as the graph,
    so both read the same images and crop the same windows: the same work)."""
    jpegs, label = fn.readers.file(
        files=files, labels=labels, random_shuffle=True, seed=seeds["source"]
    )
    images = fn.decoders.image_random_crop(
        jpegs,
        output_type=types.RGB,
        random_area=[0.08, 1.0],
        random_aspect_ratio=[0.75, 4 / 3],
        seed=seeds["decode"],
    )
    images = fn.resize(images, resize_x=224, resize_y=224)
    images = fn.crop_mirror_normalize(
        images,
        crop=[224, 224],
        mean=IMAGENET_MEAN,
        std=IMAGENET_STD,
        dtype=types.FLOAT,
        output_layout="CHW",
        mirror=fn.random.coin_flip(probability=0.5, seed=seeds["normalize_mirror"]),
    )
    return images, label


def time_in_turn(pipes: dict[str, Any], batches: int) -> dict[str, float]:
    """Seconds each pipeline spends on `batches` batches, running them in turn, one batch at a
    time, in the order given."""
    spent = dict.fromkeys(pipes, 0.0)
    for _ in range(batches):
        for name, pipe in pipes.items():
            start = time.perf_counter()
            pipe.run()
            spent[name] += time.perf_counter() - start
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--batches", type=int, default=38, help="per round; 38 = 16 passes over the 19 samples"
    )
    parser.add_argument("--rounds", type=int, default=6, help="an even number: orders balance")
    parser.add_argument("--schedules", action="store_true", help="the loader with schedules")
    parser.add_argument(
        "--repeats", type=int, default=16, help="--schedules: the samples listed this many times"
    )
    args = parser.parse_args()
    if args.schedules:
        from export_schedules import compare_loaders

        compare_loaders(args.rounds, args.repeats)
        return

    with tempfile.TemporaryDirectory() as tmp:
        path = export(preset("imagenet_train"), Path(tmp) / "imagenet_train_aug.py")
        loaded = importlib.util.spec_from_file_location("imagenet_train_aug", path)
        assert loaded is not None and loaded.loader is not None
        module = importlib.util.module_from_spec(loaded)
        loaded.loader.exec_module(module)
    files, labels, _ = module.read_data(str(samples_dir()))
    exported = module.imagenet_train_pipeline(
        files,
        labels,
        device="cpu",
        batch_size=BATCH,
        num_threads=THREADS,
        device_id=None,
        **SYNC,
    )
    plan = validate(preset("imagenet_train"))
    seeds = {step.id: int(step.seed) for step in plan.steps if step.seed is not None}
    manual = hand_written(files, labels, seeds)
    exported.build()
    manual.build()

    pipes = {"exported": exported, "hand_written": manual}
    for pipe in pipes.values():
        for _ in range(3):  # warm-up
            pipe.run()
    # The second run of the same images is faster (warm caches), so the order flips every
    # round; a round is whole passes over the samples, so each round sees the same batches.
    rates: dict[str, list[float]] = {name: [] for name in pipes}
    totals = dict.fromkeys(pipes, 0.0)
    for round_index in range(args.rounds):
        order = list(pipes) if round_index % 2 == 0 else list(reversed(pipes))
        spent = time_in_turn({name: pipes[name] for name in order}, args.batches)
        for name, seconds in spent.items():
            rates[name].append(args.batches * BATCH / seconds)
            totals[name] += seconds
    overall = {name: args.rounds * args.batches * BATCH / s for name, s in totals.items()}
    ratio = overall["exported"] / overall["hand_written"]
    for name, value in overall.items():
        spread = f"{min(rates[name]):.0f}-{max(rates[name]):.0f}"
        print(f"{name:>13}: {value:8.1f} images/s (rounds: {spread})")
    print(f"exported / hand-written: {ratio:.3f} (target >= 0.98)")

    results = Path(__file__).parent / "results"
    results.mkdir(exist_ok=True)
    record = {
        "benchmark": "export_vs_hand_written",
        "graph": "imagenet_train",
        "device": "cpu",
        "executor": "synchronous, alternating batch by batch",
        "batch_size": BATCH,
        "num_threads": THREADS,
        "batches_per_round": args.batches,
        "rounds": rates,
        "images_per_second": overall,
        "ratio": ratio,
        "target": 0.98,
    }
    (results / "export.json").write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
