"""What the operation-by-operation comparisons against torchvision share
(:mod:`.auto_aug_ops` for RandAugment and TrivialAugmentWide, :mod:`.auto_augment_ops` for
AutoAugment): DALI's augmentations run on the same images in one pipeline, torchvision's
script run in the reference Python on those images, and the pixel difference of the two.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

# torchvision's operation -> DALI's augmentation of the same name
# (nvidia.dali.auto_aug.augmentations; its suites name theirs alike)
DALI_AUGMENTATIONS = {
    "ShearX": "shear_x",
    "ShearY": "shear_y",
    "TranslateX": "translate_x",
    "TranslateY": "translate_y",
    "Rotate": "rotate",
    "Brightness": "brightness",
    "Color": "color",
    "Contrast": "contrast",
    "Sharpness": "sharpness",
    "Posterize": "posterize",
    "Solarize": "solarize",
    "AutoContrast": "auto_contrast",
    "Equalize": "equalize",
    "Invert": "invert",
}


def run_dali_augmentations(
    images: Sequence[np.ndarray],
    augmentations: Sequence[Any],
    *,
    magnitude_bin: int,
    num_magnitude_bins: int,
    with_shape: bool = False,
) -> list[list[np.ndarray]]:
    """Each of DALI's `augmentations` alone on `images` at `magnitude_bin` of
    `num_magnitude_bins`, with nearest sampling and fill 0 (what the ports give the policies),
    in one CPU pipeline: per augmentation, its output image for each input. `with_shape` gives
    each the images' shape (for translations relative to each image's size)."""
    from nvidia.dali import fn, pipeline_def, types

    # device_id=None (CPU only) is not in DALI's stubs' overloads: passed through a dict
    options: dict[str, Any] = {"batch_size": len(images), "num_threads": 1, "device_id": None}

    @pipeline_def(**options)
    def operations() -> Any:
        data = fn.external_source(
            source=lambda: list(images), batch=True, layout="HWC", dtype=types.DALIDataType.UINT8
        )
        given = {"shape": data.shape()[0:2]} if with_shape else {}
        return tuple(
            aug(
                data,
                magnitude_bin=magnitude_bin,
                num_magnitude_bins=num_magnitude_bins,
                fill_value=0,
                interp_type=types.DALIInterpType.INTERP_NN,
                **given,
            )
            for aug in augmentations
        )

    # DALI's augmentations call two of its operators through deprecated aliases (DALI's code):
    # recording the warnings DALI shows whatever the filters say drops them
    with warnings.catch_warnings(record=True):
        pipe = operations()
    pipe.build()
    batches = pipe.run()
    return [[np.array(batch.at(i)) for i in range(len(images))] for batch in batches]


@contextmanager
def torchvision_run(
    python: str,
    images: Sequence[np.ndarray],
    script: str,
    job: Mapping[str, Any],
    *,
    prefix: str,
) -> Iterator[Any]:
    """Runs `script` with `python` (where torchvision imports) on `images` and yields what it
    wrote as JSON; the files it names stay readable until the block ends.

    The script is called as ``script JOB_JSON OUT_JSON``; the job is `job` with ``images``
    (one ``.npy`` file per image) and ``out`` (the folder to write its outputs in) added."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        folder = Path(tmp)
        paths = []
        for index, image in enumerate(images):
            paths.append(str(folder / f"input_{index}.npy"))
            np.save(paths[-1], image)
        sent = {**job, "images": paths, "out": str(folder)}
        (folder / "job.json").write_text(json.dumps(sent), encoding="utf-8")
        (folder / "run.py").write_text(script, encoding="utf-8")
        subprocess.run(
            [python, str(folder / "run.py"), str(folder / "job.json"), str(folder / "out.json")],
            check=True,
            capture_output=True,
            timeout=600,
        )
        yield json.loads((folder / "out.json").read_text(encoding="utf-8"))


def pixel_difference(ours: Sequence[np.ndarray], theirs: Sequence[np.ndarray]) -> tuple[float, int]:
    """The mean (over the images, rounded to 0.01) and the largest absolute difference of two
    lists of 8-bit images, in grey levels."""
    differences = [
        np.abs(a.astype(np.int16) - t.astype(np.int16)) for a, t in zip(ours, theirs, strict=True)
    ]
    mean = round(float(np.mean([d.mean() for d in differences])), 2)
    return mean, int(max(d.max() for d in differences))
