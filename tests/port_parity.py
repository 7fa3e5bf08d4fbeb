"""Parity of ported pipelines with the real libraries: the same images through the library (in
the reference environment, a subprocess) and through the ported DALI graph.

Figures are in grey levels of 0-255: for float tensor outputs (after ToTensor) the difference
is scaled back by 255 before Normalize's std, i.e. compared in the [0, 1] range times 255.
"""

from __future__ import annotations

import json
import math
import subprocess
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from augexplorer.engine import Session
from augexplorer.port.build import DataSource
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.port.torchvision import port

SAMPLES = Path(__file__).resolve().parents[1] / "augexplorer" / "samples" / "images"


def sample_images(count: int = 12) -> list[Path]:
    return sorted(SAMPLES.rglob("*.jpg"))[:count]


REFERENCE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    import torchvision.transforms as T
    import torchvision.transforms.v2 as v2
    import torchvision.transforms.functional as F
    from PIL import Image
    job = json.load(open(sys.argv[1]))
    out = {}
    for name, code in job["cases"].items():
        torch.manual_seed(0)
        transform = eval(code, {"T": T, "v2": v2, "F": F, "torch": torch})
        for index, path in enumerate(job["images"]):
            result = transform(Image.open(path).convert("RGB"))
            if isinstance(result, torch.Tensor):
                result = result.numpy()
            out[f"{name}/{index}"] = np.asarray(result)
    np.savez(sys.argv[2], **out)
    """
)


def reference(
    python: str, cases: Mapping[str, str], images: Sequence[Path], tmp: Path
) -> dict[str, list[np.ndarray]]:
    """Each case's torchvision transform (Python text using ``T``, ``v2``, ``F``) applied to
    every image (PIL, RGB), in the reference environment."""
    job = tmp / "job.json"
    job.write_text(json.dumps({"cases": dict(cases), "images": [str(p) for p in images]}))
    result = tmp / "reference.npz"
    subprocess.run(
        [python, "-c", REFERENCE_SCRIPT, str(job), str(result)],
        check=True,
        timeout=600,
        capture_output=True,
    )
    data = np.load(result)
    return {name: [data[f"{name}/{i}"] for i in range(len(images))] for name in cases}


def file_list(images: Sequence[Path], tmp: Path) -> Path:
    path = tmp / "files.txt"
    path.write_text("".join(f"{p} 0\n" for p in images))
    return path


def ported(code: str, images: Sequence[Path], tmp: Path, *, seed: int = 0) -> PortResult:
    """The ported graph of ``T.Compose([code])`` reading `images` in order."""
    header = (
        "import torch\nimport torchvision.transforms as T\nimport torchvision.transforms.v2 as v2\n"
    )
    (found,) = read_source(f"{header}t = T.Compose([{code}])\n")
    data = DataSource("file_list", str(file_list(images, tmp)), shuffle=False)
    return port(found.compose, data=data, batch_size=len(images), seed=seed)


def run(result: PortResult) -> list[np.ndarray]:
    assert not result.refusals, [r.describe() for r in result.refusals]
    session = Session(result.spec, device_id=None).run()
    return [np.asarray(a) for a in session.arrays(result.spec.outputs["images"])]


@dataclass(frozen=True)
class Difference:
    mean_abs: float
    max_abs: float
    psnr: float
    shapes_agree: bool

    def __str__(self) -> str:
        return (
            f"mean |diff| {self.mean_abs:.3f}, max {self.max_abs:.1f} grey levels, "
            f"PSNR {self.psnr:.1f} dB"
        )


def difference(
    ours: Sequence[np.ndarray], theirs: Sequence[np.ndarray], *, scale: float = 1.0
) -> Difference:
    """Pixel difference over all images, in grey levels (`scale` turns float tensors in
    [0, 1] into them)."""
    ours = [
        a[..., 0] if a.ndim == b.ndim + 1 and a.shape[-1] == 1 else a
        for a, b in zip(ours, theirs, strict=True)
    ]
    agree = all(a.shape == b.shape for a, b in zip(ours, theirs, strict=True))
    if not agree:
        return Difference(math.inf, math.inf, 0.0, False)
    diffs = np.concatenate(
        [
            np.abs(a.astype(np.float64) - b.astype(np.float64)).ravel() * scale
            for a, b in zip(ours, theirs, strict=True)
        ]
    )
    mse = float(np.mean(diffs**2))
    psnr = math.inf if mse == 0 else 10 * math.log10(255.0**2 / mse)
    return Difference(float(diffs.mean()), float(diffs.max()), psnr, True)


def ks_statistic(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Two-sample Kolmogorov-Smirnov statistic and p-value."""
    from scipy.stats import ks_2samp

    found = ks_2samp(np.asarray(a), np.asarray(b))
    return float(found.statistic), float(found.pvalue)
