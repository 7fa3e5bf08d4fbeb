"""One job for a script run in another Python (the reference one, where torchvision and
albumentations import): the job written as JSON beside its result, the script run as
``python SCRIPT JOB.json RESULT.json``, the result read back."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..bench.against import OriginalFailed


def run_script_job(
    python: str,
    script: Path,
    job: Mapping[str, Any],
    folder: Path,
    *,
    timeout_s: float,
    doing: str,
    failing: str,
    quiet: bool = False,
) -> Any:
    """What `script` wrote for `job`, run in `python` with `folder` for the two files; raises
    OriginalFailed where it did not finish: "PYTHON could not `doing`" where it did not start
    or ran out of time, "`failing` failed in PYTHON" with the script's last line of errors.
    `quiet`: Python's warnings off in the script (a library's own would fill its stderr)."""
    job_file, result_file = folder / "job.json", folder / "result.json"
    job_file.write_text(json.dumps(job), encoding="utf-8")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"} if quiet else None
    try:
        done = subprocess.run(
            [python, str(script), str(job_file), str(result_file)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise OriginalFailed(f"{python} could not {doing}: {error}") from None
    if done.returncode != 0 or not result_file.exists():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise OriginalFailed(f"{failing} failed in {python}: {tail}")
    return json.loads(result_file.read_text(encoding="utf-8"))
