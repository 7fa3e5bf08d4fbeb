"""How often albumentations itself applies each transform a ``OneOf`` or ``SomeOf`` holds, and
the group as a whole, over many samples: the group built with its transforms, run under a
``ReplayCompose``, whose record says for the group and for each transform it holds whether it
applied (the pick and each transform's own p read as the library draws them, not guessed from
pixels).

    python picks_original.py JOB.json RESULT.json

A standalone script (albumentations and numpy only, and the compare runner beside it in
``augexplorer/bench`` for decoding the calls), so it runs in the Python where albumentations
imports. The job: ``groups`` (each ``{name, args, kwargs, children}``, the children the same
way, arguments encoded as the compare runner decodes them), ``images`` (``.npy`` files),
``count``, ``seed``. The result: per group ``applied`` (1 or 0 a sample) and ``children`` (the
same for each transform it holds), or ``error``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

SCRIPT = Path(__file__).resolve()
# the compare runner, whose decoding of arguments and seeding this script shares
RUNNER_FOLDER = SCRIPT.parents[2] / "bench"
TIMEOUT_S = 300


def main(argv: list[str]) -> int:
    job = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    Path(argv[2]).write_text(json.dumps(count(job)), encoding="utf-8")
    return 0


def count(job: dict[str, Any]) -> dict[str, Any]:
    images = [np.load(path) for path in job["images"]]
    samples, seed = int(job["count"]), int(job.get("seed", 0))
    # each group's draws from a seed of its own, as the compare runner seeds its calls
    seeds = [
        int(np.random.SeedSequence([seed, i]).generate_state(1)[0])
        for i in range(len(job["groups"]))
    ]
    return {
        "groups": [
            _count_group(g, images, samples, s) for g, s in zip(job["groups"], seeds, strict=True)
        ]
    }


def _count_group(
    group: dict[str, Any], images: list[np.ndarray], samples: int, seed: int
) -> dict[str, Any]:
    try:
        import albumentations as A

        runner = _runner()
        recorded = A.ReplayCompose([_build(group)])
        recorded.set_random_seed(seed)
        applied: list[float] = []
        children: list[list[float]] = [[] for _ in group["children"]]
        for n in range(samples):
            image = images[n % len(images)]
            replay = recorded(image=image, **runner.no_targets(recorded))["replay"]
            (record,) = replay["transforms"]
            applied.append(float(bool(record["applied"])))
            for index, child in enumerate(record["transforms"]):
                children[index].append(float(bool(child["applied"])))
    except Exception as error:  # a version that builds or records groups otherwise
        text = str(error).strip().splitlines()
        return {"error": f"{type(error).__name__}: {text[0] if text else ''}"}
    return {"applied": applied, "children": children}


def _build(call: dict[str, Any]) -> Any:
    """The group (or transform) of `call`, its transforms built first, as the user wrote it."""
    import albumentations as A

    runner = _runner()
    args = [runner.decode(v) for v in call.get("args", [])]
    kwargs = {k: runner.decode(v) for k, v in call.get("kwargs", {}).items()}
    children = call.get("children") or []
    if not children:
        return getattr(A, str(call["name"]))(*args, **kwargs)
    return getattr(A, str(call["name"]))([_build(c) for c in children], *args, **kwargs)


def _runner() -> Any:
    if str(RUNNER_FOLDER) not in sys.path:
        sys.path.insert(0, str(RUNNER_FOLDER))
    import original_outputs

    return original_outputs


# ---- run from augexplorer -----------------------------------------------------------------------


if __name__ == "__main__":
    sys.exit(main(sys.argv))
