"""torchvision's AutoAugment (ImageNet policy) against DALI, operation by operation: every
distinct (operation, magnitude bin) of torchvision's 25 sub-policies, its magnitude pinned to
torchvision's value on both sides (sign positive, nearest sampling, fill 0), torchvision's
``_apply_op`` on PIL images against DALI's augmentation of the same name.

The port becomes DALI's ``auto_augment(policy_name="image_net")``, which is a different list:
TensorFlow's ImageNet policy (the one EfficientNet trains with) on an 11-bin scale, not the
paper's table that torchvision keeps on a 10-bin scale. So these figures say how each operation
torchvision's policy applies is reproduced by DALI's operator, not that DALI's policy draws the
same sub-policies: :func:`shared_subpolicies` counts those.

The figures are measured by :func:`measure` (torchvision runs in the reference environment)
and kept in :data:`MEASURED`, which ``docs/porting.md`` shows;
``tests/test_port_auto_augment_ops.py`` measures again and holds each operation to its figure.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .auto_aug_ops import sample_images
from .op_by_op import DALI_AUGMENTATIONS, pixel_difference, run_dali_augmentations, torchvision_run

BINS = 10  # torchvision's AutoAugment: magnitudes over 10 bins
# torchvision's AutoAugmentPolicy.IMAGENET (torchvision 0.29.1), checked by the test against
# the installed torchvision: ((operation, probability, magnitude bin or None), ...) per
# sub-policy
IMAGENET_POLICY: tuple[tuple[tuple[str, float, int | None], ...], ...] = (
    (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)),
    (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
    (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
    (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
    (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
    (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
    (("Solarize", 0.6, 3), ("Equalize", 0.6, None)),
    (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
    (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)),
    (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
    (("Rotate", 0.8, 8), ("Color", 0.4, 0)),
    (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
    (("Equalize", 0.0, None), ("Equalize", 0.8, None)),
    (("Invert", 0.6, None), ("Equalize", 1.0, None)),
    (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
    (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
    (("Color", 0.8, 8), ("Solarize", 0.8, 7)),
    (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
    (("ShearX", 0.6, 5), ("Equalize", 1.0, None)),
    (("Color", 0.4, 0), ("Equalize", 0.6, None)),
    (("Equalize", 0.4, None), ("Solarize", 0.2, 4)),
    (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
    (("Invert", 0.6, None), ("Equalize", 1.0, None)),
    (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
    (("Equalize", 0.8, None), ("Equalize", 0.6, None)),
)
# torchvision's operation -> DALI's augmentation (nvidia.dali.auto_aug.augmentations)
DALI_NAMES = DALI_AUGMENTATIONS
# torchvision negates these at random; DALI's augmentations too (its shears the other way)
SIGNED = frozenset({"ShearX", "Rotate", "Color", "Contrast", "Sharpness"})


def distinct_ops() -> tuple[tuple[str, int | None], ...]:
    """Every (operation, magnitude bin) the policy applies, in the policy's order."""
    found: list[tuple[str, int | None]] = []
    for subpolicy in IMAGENET_POLICY:
        for op, _p, b in subpolicy:
            if (op, b) not in found:
                found.append((op, b))
    return tuple(found)


@dataclass(frozen=True)
class PolicyOpFigures:
    """One operation of the policy at its bin: torchvision's magnitude (None for the operations
    without one) and the pixel difference at it (grey levels)."""

    op: str
    bin: int | None
    magnitude: float | None
    mean_abs: float
    max_abs: int
    # DALI's sign that matches torchvision's positive one ("opposite" for DALI's shears)
    sign: str = "same"


# Measured on the four bundled sample photos shrunk to 160 px (torchvision 0.29.1, DALI 2.4).
MEASURED: tuple[PolicyOpFigures, ...] = (
    PolicyOpFigures(op="Posterize", bin=8, magnitude=4.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Rotate", bin=9, magnitude=30.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Solarize", bin=5, magnitude=113.3333, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(
        op="AutoContrast", bin=None, magnitude=None, mean_abs=0.5, max_abs=1, sign="same"
    ),
    PolicyOpFigures(op="Equalize", bin=None, magnitude=None, mean_abs=1.75, max_abs=5, sign="same"),
    PolicyOpFigures(op="Posterize", bin=7, magnitude=5.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Posterize", bin=6, magnitude=5.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Solarize", bin=4, magnitude=141.6667, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Rotate", bin=8, magnitude=26.6667, mean_abs=0.01, max_abs=34, sign="same"),
    PolicyOpFigures(op="Solarize", bin=3, magnitude=170.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Posterize", bin=5, magnitude=6.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Rotate", bin=3, magnitude=10.0, mean_abs=0.01, max_abs=166, sign="same"),
    PolicyOpFigures(op="Solarize", bin=8, magnitude=28.3333, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Color", bin=0, magnitude=0.0, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Invert", bin=None, magnitude=None, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Color", bin=4, magnitude=0.4, mean_abs=0.38, max_abs=1, sign="same"),
    PolicyOpFigures(op="Contrast", bin=8, magnitude=0.8, mean_abs=0.09, max_abs=1, sign="same"),
    PolicyOpFigures(op="Color", bin=2, magnitude=0.2, mean_abs=0.37, max_abs=1, sign="same"),
    PolicyOpFigures(op="Color", bin=8, magnitude=0.8, mean_abs=0.35, max_abs=1, sign="same"),
    PolicyOpFigures(op="Solarize", bin=7, magnitude=56.6667, mean_abs=0.0, max_abs=0, sign="same"),
    PolicyOpFigures(op="Sharpness", bin=7, magnitude=0.7, mean_abs=0.45, max_abs=22, sign="same"),
    PolicyOpFigures(op="ShearX", bin=5, magnitude=0.1667, mean_abs=0.0, max_abs=0, sign="opposite"),
)

# Why an operation differs, where it does by design (shown beside its figures)
WHY = {
    "Rotate": "nearest sampling: only pixels whose source falls on a tie differ",
    "Sharpness": "DALI filters the 1 px border that PIL leaves as it was",
    "Solarize": "a pixel equal to a fractional threshold: PIL inverts from the rounded-up level",
    "Equalize": "DALI's equalize follows OpenCV's lookup table, PIL's another formula",
    "Color": "DALI's saturation in float, PIL's blend with 8-bit grey",
    "AutoContrast": "DALI rounds its float scaling to the nearest level, PIL's table truncates",
    "Contrast": "both centre on PIL's grey mean; PIL rounds the mean to a whole level",
}


def dali_outputs(
    images: Sequence[np.ndarray], magnitudes: dict[str, float | None]
) -> dict[str, dict[str, list[np.ndarray]]]:
    """Each of :func:`distinct_ops` by DALI's augmentation, its magnitude pinned to
    `magnitudes` (keyed ``"Op/bin"``), both signs for the signed operations: one pipeline."""
    from nvidia.dali.auto_aug import augmentations

    runs: list[tuple[str, str]] = []  # (key, sign) per output
    for op, b in distinct_ops():
        runs += [
            (key(op, b), sign) for sign in (("same", "opposite") if op in SIGNED else ("same",))
        ]
    pinned = []
    for name, sign in runs:
        aug = getattr(augmentations, DALI_NAMES[name.split("/")[0]])
        value = magnitudes[name]
        if value is not None:
            value = -value if sign == "opposite" else value
            # a range of one value: bin 0 of 2 is `value` whatever DALI's own scale
            aug = aug.augmentation(mag_range=(value, value), randomly_negate=False)
        pinned.append(aug)
    outputs = run_dali_augmentations(images, pinned, magnitude_bin=0, num_magnitude_bins=2)
    out: dict[str, dict[str, list[np.ndarray]]] = {}
    for (name, sign), images_out in zip(runs, outputs, strict=True):
        out.setdefault(name, {})[sign] = images_out
    return out


def key(op: str, b: int | None) -> str:
    return f"{op}/{b}"


# Runs in the Python where torchvision imports: the policy as torchvision keeps it, and each
# distinct operation at its bin, sign positive.
_TORCHVISION = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from PIL import Image
    from torchvision.transforms import InterpolationMode, autoaugment

    job = json.load(open(sys.argv[1]))
    policy = autoaugment.AutoAugment(autoaugment.AutoAugmentPolicy.IMAGENET)
    out = {"policy": [[list(op) for op in sub] for sub in policy.policies], "ops": {}}
    for name in job["ops"]:
        op, b = name.split("/")
        for index, path in enumerate(job["images"]):
            image = np.load(path)
            space = policy._augmentation_space(job["bins"], image.shape[:2])
            magnitudes, _signed = space[op]
            magnitude = float(magnitudes[int(b)]) if b != "None" else None
            result = autoaugment._apply_op(
                Image.fromarray(image), op, magnitude or 0.0, InterpolationMode.NEAREST, None
            )
            file = f"{job['out']}/{op}_{b}_{index}.npy"
            np.save(file, np.asarray(result))
            entry = out["ops"].setdefault(name, {"magnitude": magnitude, "files": []})
            entry["files"].append(file)
    json.dump(out, open(sys.argv[2], "w"))
    """
)


@dataclass(frozen=True)
class TorchvisionSide:
    policy: tuple[tuple[tuple[str, float, int | None], ...], ...]
    magnitudes: dict[str, float | None]
    outputs: dict[str, list[np.ndarray]]


def torchvision_outputs(python: str, images: Sequence[np.ndarray]) -> TorchvisionSide:
    """torchvision's ImageNet policy and each distinct operation's output, run by `python`."""
    names = [key(op, b) for op, b in distinct_ops()]
    job = {"ops": names, "bins": BINS}
    prefix = "augexplorer-auto-augment-"
    with torchvision_run(python, images, _TORCHVISION, job, prefix=prefix) as found:
        policy = tuple(tuple((op, p, b) for op, p, b in sub) for sub in found["policy"])
        ops = found["ops"]
        return TorchvisionSide(
            policy,
            {name: ops[name]["magnitude"] for name in names},
            {name: [np.load(f) for f in ops[name]["files"]] for name in names},
        )


@dataclass(frozen=True)
class Measurement:
    policy: tuple[tuple[tuple[str, float, int | None], ...], ...]  # torchvision's, as installed
    rows: tuple[PolicyOpFigures, ...]


def measure(python: str, images: Sequence[np.ndarray] | None = None) -> Measurement:
    """Every distinct operation of the policy, torchvision (run by `python`) against DALI."""
    images = list(images) if images is not None else sample_images()
    theirs = torchvision_outputs(python, images)
    ours = dali_outputs(images, theirs.magnitudes)
    rows = []
    for op, b in distinct_ops():
        name = key(op, b)
        found = [
            _figures(op, b, theirs.magnitudes[name], outputs, theirs.outputs[name], sign)
            for sign, outputs in ours[name].items()
        ]
        rows.append(min(found, key=lambda row: (row.mean_abs, row.sign != "same")))
    return Measurement(theirs.policy, tuple(rows))


def _figures(
    op: str,
    b: int | None,
    magnitude: float | None,
    ours: list[np.ndarray],
    theirs: list[np.ndarray],
    sign: str,
) -> PolicyOpFigures:
    mean, largest = pixel_difference(ours, theirs)
    value = None if magnitude is None else round(magnitude, 4)
    return PolicyOpFigures(op, b, value, mean, largest, sign)


def shared_subpolicies() -> int:
    """How many of torchvision's sub-policies DALI's image_net policy also holds, by their
    operations alone (their magnitudes are on different scales)."""
    from nvidia.dali.auto_aug import auto_augment

    dali = {
        tuple(aug.name for aug, _p, _b in sub)
        for sub in auto_augment.get_image_net_policy().sub_policies
    }
    return sum(tuple(DALI_NAMES[op] for op, _p, _b in sub) in dali for sub in IMAGENET_POLICY)


def table_lines(rows: Sequence[PolicyOpFigures] = MEASURED) -> list[str]:
    """The section of ``docs/porting.md`` that shows `rows`."""
    if not rows:
        return []
    lines = [
        "## torchvision's AutoAugment (ImageNet policy), operation by operation",
        "",
        f"Every distinct operation of torchvision's {len(IMAGENET_POLICY)} ImageNet "
        f"sub-policies at its magnitude bin (of {BINS}), the magnitude pinned to torchvision's "
        "value on both sides, sign positive, nearest sampling, fill 0, on the four bundled "
        "sample photos shrunk to 160 px: torchvision's `_apply_op` on PIL images against "
        "DALI's augmentation of the same name "
        "(`augexplorer.port.torchvision.auto_augment_ops`). Grey levels of 0-255. "
        'The port runs DALI\'s `auto_augment(policy_name="image_net")`, which by design is '
        "another list: TensorFlow's ImageNet policy (EfficientNet's), 11 magnitude bins, "
        "with shear Y, translate Y and solarize-add that torchvision's lacks and without its "
        f"sharpness and contrast; {shared_subpolicies()} of torchvision's "
        f"{len(IMAGENET_POLICY)} sub-policies hold the same operations there. These figures "
        "are how each operation torchvision's policy applies comes out of DALI's operator; "
        "the sub-policies drawn differ.",
        "",
        "| operation | bin | torchvision's magnitude | mean | max | why it differs |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        sign = " (sign opposite)" if row.sign == "opposite" else ""
        bin_cell = "-" if row.bin is None else str(row.bin)
        magnitude = "-" if row.magnitude is None else f"{row.magnitude:g}"
        why = WHY.get(row.op, "") if row.max_abs else ""
        if row.sign == "opposite":
            why = "; ".join(
                filter(None, ["DALI's shear turns the other way for the same sign", why])
            )
        lines.append(
            f"| {row.op} | {bin_cell} | {magnitude} | {row.mean_abs:g}{sign} | {row.max_abs} "
            f"| {why} |"
        )
    return [*lines, ""]


def main(argv: list[str]) -> int:
    """``python -m augexplorer.port.torchvision.auto_augment_ops REFERENCE_PYTHON``: the rows."""
    for row in measure(argv[0]).rows:
        print(f"    {row!r},")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
