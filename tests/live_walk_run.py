"""A script run in the reference Python (real torchvision, albumentations) that prints, as JSON,
what augexplorer/port/live_walk.py's `describe` makes of live transform objects; the script
finds that file's path as its first argument."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

LIVE_WALK = Path(__file__).resolve().parents[1] / "augexplorer" / "port" / "live_walk.py"


def walked(reference_python: str, script: str) -> Any:
    """What `script` printed, read as JSON."""
    out = subprocess.run(
        [reference_python, "-c", script, str(LIVE_WALK)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    return json.loads(out)
