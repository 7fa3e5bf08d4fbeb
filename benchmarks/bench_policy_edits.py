"""An edit of an auto_aug policy's own argument, timed three ways in turns in one process: as DALI
builds (AutoGraph's source maps copied on every converted call, every operator's origin
recorded); with the maps made when read (`augexplorer/engine/autograph_maps.py`); and as the
engine builds, the origins not recorded either (`augexplorer/engine/dali_builds.py`).

Each policy preset opens a `Session` at `--batch` on the bundled samples, on the CPU; each edit
sets the policy's `fill_value` (or rand_augment's `m`) to a value not used before, so every edit
builds the policy anew, as a person's first visit to a setting does. The ways take turns edit by
edit, after one warm-up edit each.

Writes benchmarks/results/policy_edits.json.

    python benchmarks/bench_policy_edits.py [--edits 6] [--batch 8]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import summary, write_results  # noqa: E402

# the policy node of each preset, and the argument an edit changes with a value per edit
EDITS: dict[str, tuple[str, Any]] = {
    "trivial_augment_wide": ("fill_value", lambda i: 10 + i),
    "auto_augment_imagenet": ("fill_value", lambda i: 10 + i),
    "dali_rand_augment": ("m", lambda i: 3 + i),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=6)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    from augexplorer import Session, preset
    from augexplorer.engine import autograph_maps, dali_builds

    def way(maps_when_read: bool, origins: bool) -> Callable[[], None]:
        def switch() -> None:
            dali_builds.maps_when_read, dali_builds.origins_recorded = maps_when_read, origins
            if not maps_when_read:
                autograph_maps.uninstall()

        return switch

    ways = {
        "as DALI builds": way(maps_when_read=False, origins=True),
        "maps when read": way(maps_when_read=True, origins=True),
        "the engine": way(maps_when_read=True, origins=False),
    }
    load_before = os.getloadavg()
    figures: dict[str, dict[str, Any]] = {}
    for name, (argument, value_of) in EDITS.items():
        session = Session(preset(name), batch_size=args.batch, device_id=None)
        session.run()
        times: dict[str, list[float]] = {label: [] for label in ways}
        for edit in range(-1, args.edits):  # edit -1: a warm-up of each way
            for turn, (label, switch) in enumerate(ways.items()):
                switch()
                # a value per edit and way: each edit is a setting never built before
                value = value_of(len(ways) * (edit + 1) + turn)
                start = time.perf_counter()
                session.set_arg("augment", argument, value)
                if edit >= 0:
                    times[label].append((time.perf_counter() - start) * 1000)
        ways["the engine"]()
        figures[name] = {label: summary(values) for label, values in times.items()}
        p50 = {label: figure["p50"] for label, figure in figures[name].items()}
        print(
            f"{name:22s} edit p50: as DALI builds {p50['as DALI builds']:6.0f} ms, maps when read"
            f" {p50['maps when read']:6.0f} ms, the engine {p50['the engine']:6.0f} ms"
            f" ({p50['as DALI builds'] / p50['the engine']:.1f}x)"
        )
    load_after = os.getloadavg()
    path = write_results(
        "policy_edits",
        {
            "batch": args.batch,
            "edits": args.edits,
            "load": [load_before, load_after],
            "figures": figures,
        },
    )
    print(f"load {load_before[0]:.2f} -> {load_after[0]:.2f}; written to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
