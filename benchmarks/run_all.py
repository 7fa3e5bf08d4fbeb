"""Run every benchmark script in this folder (bench_*.py; the others are their parts), one after
another, and say where results went."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


# Runs beyond each script's default one: (script, its arguments).
MORE_RUNS = [("bench_export.py", ["--schedules"])]


def main() -> int:
    failed = []
    runs = [(script.name, []) for script in sorted(HERE.glob("bench_*.py"))] + MORE_RUNS
    for name, arguments in runs:
        title = " ".join([name, *arguments])
        print(f"\n== {title}", flush=True)
        command = [sys.executable, str(HERE / name), *arguments]
        if subprocess.run(command, check=False).returncode != 0:
            failed.append(title)
    print(f"\nresults: {HERE / 'results'}")
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
