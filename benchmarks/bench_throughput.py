"""Throughput (images/s) of the ImageNet presets: DALI on the CPU (and GPU where there is one)
against the same augmentation in PyTorch DataLoaders (torchvision-style Pillow, albumentations).

    python benchmarks/bench_throughput.py [--images 256] [--rounds 3] [--out DIR]

Writes <graph>.json and <graph>.png per graph under --out (default: benchmarks/results).
A default run takes about two minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from augexplorer import preset
from augexplorer.bench import run_bench


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["imagenet_train", "imagenet_val"])
    parser.add_argument("--images", type=int, default=256, help="images per loader and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per loader (median kept)")
    parser.add_argument("--data", help="a folder or file list (default: the bundled samples)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = parser.parse_args()
    out = Path(args.out)
    for name in args.graphs:
        result = run_bench(
            preset(name),
            args.data,
            images=args.images,
            rounds=args.rounds,
            progress=lambda message: print(message, file=sys.stderr, flush=True),
        )
        print(result.table())
        for path in result.save(out / f"{name}.json", out / f"{name}.png", overwrite=True):
            print(f"wrote {path}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
