"""Original DataLoader against ported DALI loader, for the pipelines in benchmarks/pipelines/:
each file's pipeline in a PyTorch DataLoader (the user's own transforms, run by their library)
against the exported module of its port (`augexplorer bench --against FILE`).

    python benchmarks/bench_port.py [--images 256] [--reference-python PATH] [--out DIR]

torchvision pipelines run in the reference environment's Python (--reference-python, default
$AUGEXPLORER_REFERENCE_PYTHON, `make reference` makes it), since torchvision does not import
in the project's own environment; albumentations pipelines run in this Python. A pipeline whose
Python is missing is left out, saying so. Writes port_<file>.json per pipeline under --out
(default: benchmarks/results). One run each: about a minute per pipeline on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from augexplorer.bench import bench_against

PIPELINES = Path(__file__).parent / "pipelines"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=256, help="images per loader")
    parser.add_argument("--data", help="a folder or file list (default: the bundled samples)")
    parser.add_argument(
        "--reference-python",
        default=os.environ.get("AUGEXPLORER_REFERENCE_PYTHON"),
        help="the Python where torchvision imports (default: $AUGEXPLORER_REFERENCE_PYTHON)",
    )
    parser.add_argument("--out", default=str(Path(__file__).parent / "results"))
    parser.add_argument("files", nargs="*", help="pipeline files (default: all in pipelines/)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    files = [Path(f) for f in args.files] or sorted(PIPELINES.glob("*.py"))
    for path in files:
        python = sys.executable
        if path.name.startswith("torchvision"):
            if not args.reference_python:
                print(f"{path.name}: left out, no Python with torchvision (--reference-python)")
                continue
            python = args.reference_python
        result = bench_against(
            path,
            data=args.data,
            images=args.images,
            python=python,
            run_file=True,  # the project's own pipeline files
            progress=lambda message: print(message, file=sys.stderr, flush=True),
        )
        print(result.table())
        print(f"wrote {result.save(out / f'port_{path.stem}.json', overwrite=True)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
