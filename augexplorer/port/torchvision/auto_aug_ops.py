"""What differs, operation by operation, between torchvision's RandAugment and
TrivialAugmentWide and the DALI policies their ports become: each operation alone at one fixed
magnitude bin (positive sign, nearest sampling, fill 0, as the ports set them), on the same
images, torchvision's ``_apply_op`` on PIL images against DALI's augmentation of the same name.

The figures are measured by :func:`measure` (torchvision runs in a Python where it imports,
the reference environment) and kept in :data:`MEASURED`, which ``docs/porting.md`` shows;
``tests/test_port_auto_aug_ops.py`` measures again and checks they are current.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .op_by_op import DALI_AUGMENTATIONS, pixel_difference, run_dali_augmentations, torchvision_run

BIN, BINS = 9, 31  # torchvision's RandAugment defaults: magnitude 9 of 31 bins
SUITES = ("RandAugment", "TrivialAugmentWide")
# torchvision's operation -> DALI's augmentation of the same suite (all but Invert, which
# neither suite holds)
OPS = {op: name for op, name in DALI_AUGMENTATIONS.items() if op != "Invert"}


@dataclass(frozen=True)
class OpFigures:
    """One operation of one suite at bin :data:`BIN`: its pixel difference (grey levels)."""

    suite: str
    op: str
    mean_abs: float
    max_abs: int
    # DALI's sign that matches torchvision's positive one: "opposite" where DALI's policy
    # moves the other way for the same sign (both draw the sign at random, so it is the
    # same distribution)
    sign: str = "same"


# Measured on the four bundled sample photos shrunk to 160 px (torchvision 0.29.1, DALI 2.4).
MEASURED: tuple[OpFigures, ...] = (
    OpFigures("RandAugment", "ShearX", 0.0, 0, "opposite"),
    OpFigures("RandAugment", "ShearY", 0.0, 0, "opposite"),
    OpFigures("RandAugment", "TranslateX", 7.49, 208, "same"),
    OpFigures("RandAugment", "TranslateY", 6.02, 202, "same"),
    OpFigures("RandAugment", "Rotate", 0.0, 44, "same"),
    OpFigures("RandAugment", "Brightness", 0.5, 1, "same"),
    OpFigures("RandAugment", "Color", 0.47, 1, "same"),
    OpFigures("RandAugment", "Contrast", 0.4, 1, "same"),
    OpFigures("RandAugment", "Sharpness", 0.41, 8, "same"),
    OpFigures("RandAugment", "Posterize", 0.0, 0, "same"),
    OpFigures("RandAugment", "Solarize", 0.36, 103, "same"),
    OpFigures("RandAugment", "AutoContrast", 0.5, 1, "same"),
    OpFigures("RandAugment", "Equalize", 1.75, 5, "same"),
    OpFigures("TrivialAugmentWide", "ShearX", 0.0, 0, "opposite"),
    OpFigures("TrivialAugmentWide", "ShearY", 0.0, 0, "opposite"),
    OpFigures("TrivialAugmentWide", "TranslateX", 7.78, 208, "same"),
    OpFigures("TrivialAugmentWide", "TranslateY", 8.49, 202, "same"),
    OpFigures("TrivialAugmentWide", "Rotate", 0.0, 28, "same"),
    OpFigures("TrivialAugmentWide", "Brightness", 1.28, 2, "same"),
    OpFigures("TrivialAugmentWide", "Color", 0.41, 1, "same"),
    OpFigures("TrivialAugmentWide", "Contrast", 0.4, 2, "same"),
    OpFigures("TrivialAugmentWide", "Sharpness", 0.41, 10, "same"),
    OpFigures("TrivialAugmentWide", "Posterize", 0.0, 0, "same"),
    OpFigures("TrivialAugmentWide", "Solarize", 0.36, 103, "same"),
    OpFigures("TrivialAugmentWide", "AutoContrast", 0.5, 1, "same"),
    OpFigures("TrivialAugmentWide", "Equalize", 1.75, 5, "same"),
)


def sample_images(count: int = 4, side: int = 160) -> list[np.ndarray]:
    """The bundled sample photos, shrunk (the images :data:`MEASURED` was measured on)."""
    from PIL import Image

    from ...data import samples_dir

    out = []
    for file in sorted(samples_dir().rglob("*.jpg"))[:count]:
        with Image.open(file) as opened:
            image = opened.convert("RGB")
            image.thumbnail((side, side))
            out.append(np.asarray(image))
    return out


def dali_outputs(
    suite: str, images: Sequence[np.ndarray], *, negated: bool = False
) -> dict[str, list[np.ndarray]]:
    """Each operation of DALI's `suite` alone at bin :data:`BIN` of :data:`BINS`, with nearest
    sampling and fill 0 (what the ports give the policies); its sign positive, or `negated`
    for the operations the policy negates at random."""
    from nvidia.dali.auto_aug import rand_augment, trivial_augment

    from .auto_aug import TRANSLATE_REL

    relative = suite == "RandAugment"  # its port translates relative to each image's size
    augmentations = {
        aug.name: aug
        for aug in (
            rand_augment.get_rand_augment_suite(use_shape=True, max_translate_rel=TRANSLATE_REL)
            if relative
            else trivial_augment.get_trivial_augment_wide_suite()
        )
    }
    names = list(OPS)
    pinned = []
    for name in names:
        aug = augmentations[OPS[name]]
        if aug.randomly_negate:
            low, high = aug.mag_range
            span = (-low, -high) if negated else (low, high)
            aug = aug.augmentation(mag_range=span, randomly_negate=False)
        pinned.append(aug)
    outputs = run_dali_augmentations(
        images, pinned, magnitude_bin=BIN, num_magnitude_bins=BINS, with_shape=relative
    )
    return dict(zip(names, outputs, strict=True))


# Runs in the Python where torchvision imports: each operation at the bin, positive sign.
_TORCHVISION = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from PIL import Image
    from torchvision.transforms import InterpolationMode, autoaugment

    job = json.load(open(sys.argv[1]))
    out = {}
    for suite in job["suites"]:
        policy = getattr(autoaugment, suite)()
        for op in job["ops"]:
            for index, path in enumerate(job["images"]):
                image = np.load(path)
                height, width = image.shape[:2]
                if suite == "RandAugment":
                    space = policy._augmentation_space(job["bins"], (height, width))
                else:
                    space = policy._augmentation_space(job["bins"])
                magnitudes, _signed = space[op]
                magnitude = float(magnitudes[job["bin"]]) if magnitudes.ndim > 0 else 0.0
                result = autoaugment._apply_op(
                    Image.fromarray(image), op, magnitude, InterpolationMode.NEAREST, None
                )
                name = f"{job['out']}/{suite}_{op}_{index}.npy"
                np.save(name, np.asarray(result))
                out.setdefault(suite, {}).setdefault(op, []).append(name)
    json.dump(out, open(sys.argv[2], "w"))
    """
)


def torchvision_outputs(
    python: str, images: Sequence[np.ndarray]
) -> dict[str, dict[str, list[np.ndarray]]]:
    """Each operation of torchvision's suites alone at the bin, run by `python`."""
    job = {"suites": list(SUITES), "ops": list(OPS), "bin": BIN, "bins": BINS}
    with torchvision_run(
        python, images, _TORCHVISION, job, prefix="augexplorer-auto-aug-"
    ) as found:
        return {
            suite: {op: [np.load(p) for p in files] for op, files in ops.items()}
            for suite, ops in found.items()
        }


def measure(python: str, images: Sequence[np.ndarray] | None = None) -> tuple[OpFigures, ...]:
    """Every operation of both suites, torchvision (run by `python`) against DALI."""
    images = list(images) if images is not None else sample_images()
    theirs = torchvision_outputs(python, images)
    rows = []
    for suite in SUITES:
        sides = {"same": dali_outputs(suite, images), "opposite": None}
        sides["opposite"] = dali_outputs(suite, images, negated=True)
        for op in OPS:
            found = [
                _figures(suite, op, ours[op], theirs[suite][op], sign)
                for sign, ours in sides.items()
                if ours is not None
            ]
            rows.append(min(found, key=lambda row: (row.mean_abs, row.sign != "same")))
    return tuple(rows)


def _figures(
    suite: str, op: str, ours: list[np.ndarray], theirs: list[np.ndarray], sign: str
) -> OpFigures:
    mean, largest = pixel_difference(ours, theirs)
    return OpFigures(suite, op, mean, largest, sign)


def table_lines(rows: Sequence[OpFigures] = MEASURED) -> list[str]:
    """The section of ``docs/porting.md`` that shows `rows`."""
    if not rows:
        return []
    lines = [
        "## torchvision's RandAugment and TrivialAugmentWide, operation by operation",
        "",
        f"Each operation alone at magnitude bin {BIN} of {BINS} (torchvision's RandAugment "
        "default), sign positive, nearest sampling, fill 0 (RandAugment's translations "
        "relative to each image's size, as its port gives the policy the images' shape), on "
        "the four bundled sample photos "
        "shrunk to 160 px: torchvision's `_apply_op` on PIL images against DALI's augmentation "
        "of the same suite (`augexplorer.port.torchvision.auto_aug_ops`). Grey levels of 0-255. "
        "\"Sign opposite\": DALI's negative sign gives torchvision's positive one (both draw "
        "the sign at random, so the policies draw alike).",
        "",
        "| operation | " + " | ".join(f"{s} mean | {s} max" for s in SUITES) + " |",
        "|---|" + "---|---|" * len(SUITES),
    ]
    for op in OPS:
        cells = []
        for suite in SUITES:
            row = next(r for r in rows if r.suite == suite and r.op == op)
            sign = " (sign opposite)" if row.sign == "opposite" else ""
            cells += [f"{row.mean_abs:g}{sign}", str(row.max_abs)]
        lines.append(f"| {op} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def main(argv: list[str]) -> int:
    """``python -m augexplorer.port.torchvision.auto_aug_ops REFERENCE_PYTHON``: the rows."""
    for row in measure(argv[0]):
        print(
            f"    OpFigures({row.suite!r}, {row.op!r}, {row.mean_abs!r}, {row.max_abs!r}, {row.sign!r}),"
        )
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
