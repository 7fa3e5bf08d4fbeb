"""torchvision's AutoAugment against the port, operation by operation: every distinct
(operation, magnitude bin) of torchvision's three policies (ImageNet, CIFAR10, SVHN; 25
sub-policies each), torchvision's ``_apply_op`` on PIL images at torchvision's magnitude for the
bin (sign positive, nearest sampling, fill 0) against the port's augmentation of that name at the
same bin (:func:`augexplorer.auto_aug_torchvision.torchvision_operations`, which the port's
``auto_aug.torchvision_auto_augment`` node draws from).

The node holds torchvision's own sub-policies on torchvision's 10-bin scale, so the draws (a
sub-policy per image, a coin per stage, a sign) follow torchvision's distribution by another
generator; these figures say how each drawn operation's pixels compare. DALI's own
``auto_augment(policy_name="image_net")`` is a different list (TensorFlow's ImageNet policy, 11
bins): :func:`shared_subpolicies` counts what it shares with torchvision's.

The figures are measured by :func:`measure` (torchvision runs in the reference environment)
and kept in :data:`MEASURED`, which ``docs/porting.md`` shows;
``tests/test_port_auto_augment_ops.py`` measures again and holds each operation to its figure.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...auto_aug_torchvision import TORCHVISION_POLICIES
from .auto_aug_ops import sample_images
from .op_by_op import DALI_AUGMENTATIONS, pixel_difference, run_dali_augmentations, torchvision_run

BINS = 10  # torchvision's AutoAugment: magnitudes over 10 bins
Stage = tuple[str, float, int | None]  # (operation, probability, magnitude bin or None)
# torchvision's AutoAugmentPolicy.IMAGENET (torchvision 0.29.1), checked by the test against
# the installed torchvision with the other two
IMAGENET_POLICY: tuple[tuple[Stage, ...], ...] = TORCHVISION_POLICIES["imagenet"]
# torchvision's operation -> DALI's augmentation (nvidia.dali.auto_aug.augmentations)
DALI_NAMES = DALI_AUGMENTATIONS
# What changes with the image's size: the translations' magnitudes (a fraction of it)
RELATIVE = frozenset({"TranslateX", "TranslateY"})


def distinct_ops() -> tuple[tuple[str, int | None], ...]:
    """Every (operation, magnitude bin) the three policies apply, in the policies' order."""
    found: list[tuple[str, int | None]] = []
    for policy in TORCHVISION_POLICIES.values():
        for subpolicy in policy:
            for op, _p, b in subpolicy:
                if (op, b) not in found:
                    found.append((op, b))
    return tuple(found)


@dataclass(frozen=True)
class PolicyOpFigures:
    """One operation at its bin: torchvision's magnitude (None for the operations without one;
    for the translations, the fraction of the image's size) and the pixel difference at it
    (grey levels)."""

    op: str
    bin: int | None
    magnitude: float | None
    mean_abs: float
    max_abs: int


# Measured on the four bundled sample photos shrunk to 160 px (torchvision 0.29.1, DALI 2.4).
MEASURED: tuple[PolicyOpFigures, ...] = (
    PolicyOpFigures(op="Posterize", bin=8, magnitude=4.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Rotate", bin=9, magnitude=30.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Solarize", bin=5, magnitude=113.3333, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="AutoContrast", bin=None, magnitude=None, mean_abs=0.5, max_abs=1),
    PolicyOpFigures(op="Equalize", bin=None, magnitude=None, mean_abs=1.75, max_abs=5),
    PolicyOpFigures(op="Posterize", bin=7, magnitude=5.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Posterize", bin=6, magnitude=5.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Solarize", bin=4, magnitude=141.6667, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Rotate", bin=8, magnitude=26.6667, mean_abs=0.01, max_abs=34),
    PolicyOpFigures(op="Solarize", bin=3, magnitude=170.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Posterize", bin=5, magnitude=6.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Rotate", bin=3, magnitude=10.0, mean_abs=0.01, max_abs=166),
    PolicyOpFigures(op="Solarize", bin=8, magnitude=28.3333, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Color", bin=0, magnitude=0.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Invert", bin=None, magnitude=None, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Color", bin=4, magnitude=0.4, mean_abs=0.38, max_abs=1),
    PolicyOpFigures(op="Contrast", bin=8, magnitude=0.8, mean_abs=0.09, max_abs=1),
    PolicyOpFigures(op="Color", bin=2, magnitude=0.2, mean_abs=0.37, max_abs=1),
    PolicyOpFigures(op="Color", bin=8, magnitude=0.8, mean_abs=0.35, max_abs=1),
    PolicyOpFigures(op="Solarize", bin=7, magnitude=56.6667, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Sharpness", bin=7, magnitude=0.7, mean_abs=0.45, max_abs=22),
    PolicyOpFigures(op="ShearX", bin=5, magnitude=0.1667, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Contrast", bin=6, magnitude=0.6, mean_abs=0.28, max_abs=1),
    PolicyOpFigures(op="Rotate", bin=2, magnitude=6.6667, mean_abs=0.01, max_abs=183),
    PolicyOpFigures(op="TranslateX", bin=9, magnitude=0.4532, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Sharpness", bin=1, magnitude=0.1, mean_abs=0.38, max_abs=3),
    PolicyOpFigures(op="Sharpness", bin=3, magnitude=0.3, mean_abs=0.41, max_abs=9),
    PolicyOpFigures(op="ShearY", bin=8, magnitude=0.2667, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="TranslateY", bin=9, magnitude=0.4532, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearY", bin=7, magnitude=0.2333, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Color", bin=3, magnitude=0.3, mean_abs=0.4, max_abs=1),
    PolicyOpFigures(op="Brightness", bin=7, magnitude=0.7, mean_abs=0.38, max_abs=1),
    PolicyOpFigures(op="Sharpness", bin=9, magnitude=0.9, mean_abs=0.47, max_abs=28),
    PolicyOpFigures(op="Brightness", bin=9, magnitude=0.9, mean_abs=0.33, max_abs=1),
    PolicyOpFigures(op="Contrast", bin=7, magnitude=0.7, mean_abs=0.18, max_abs=1),
    PolicyOpFigures(op="Sharpness", bin=5, magnitude=0.5, mean_abs=0.27, max_abs=16),
    PolicyOpFigures(op="Color", bin=7, magnitude=0.7, mean_abs=0.41, max_abs=1),
    PolicyOpFigures(op="TranslateX", bin=8, magnitude=0.4028, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="TranslateY", bin=3, magnitude=0.1511, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Sharpness", bin=6, magnitude=0.6, mean_abs=0.41, max_abs=19),
    PolicyOpFigures(op="Brightness", bin=6, magnitude=0.6, mean_abs=0.34, max_abs=1),
    PolicyOpFigures(op="Solarize", bin=2, magnitude=198.3333, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Color", bin=9, magnitude=0.9, mean_abs=0.43, max_abs=1),
    PolicyOpFigures(op="Brightness", bin=3, magnitude=0.3, mean_abs=0.48, max_abs=1),
    PolicyOpFigures(op="ShearX", bin=4, magnitude=0.1333, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Solarize", bin=6, magnitude=85.0, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearY", bin=5, magnitude=0.1667, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="TranslateY", bin=6, magnitude=0.3021, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="Contrast", bin=3, magnitude=0.3, mean_abs=0.34, max_abs=1),
    PolicyOpFigures(op="Rotate", bin=4, magnitude=13.3333, mean_abs=0.01, max_abs=37),
    PolicyOpFigures(op="TranslateY", bin=2, magnitude=0.1007, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearY", bin=6, magnitude=0.2, mean_abs=0.65, max_abs=162),
    PolicyOpFigures(op="TranslateX", bin=3, magnitude=0.1511, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearX", bin=6, magnitude=0.2, mean_abs=1.44, max_abs=200),
    PolicyOpFigures(op="TranslateY", bin=7, magnitude=0.3525, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearY", bin=4, magnitude=0.1333, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearX", bin=9, magnitude=0.3, mean_abs=0.0, max_abs=0),
    PolicyOpFigures(op="ShearX", bin=2, magnitude=0.0667, mean_abs=0.46, max_abs=193),
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
    "ShearX": "nearest sampling: only pixels whose source falls on a tie differ",
    "ShearY": "nearest sampling: only pixels whose source falls on a tie differ",
    "Brightness": "DALI scales in float and rounds, PIL's blend with black rounds in 8 bits",
}


def dali_outputs(images: Sequence[np.ndarray]) -> dict[str, list[np.ndarray]]:
    """Each of :func:`distinct_ops` by the port's augmentation at its bin (of :data:`BINS`),
    sign positive: one pipeline, keyed ``"Op/bin"``."""
    from ...auto_aug_torchvision import torchvision_operations

    operations = torchvision_operations()
    out: dict[str, list[np.ndarray]] = {}
    for b in sorted({b for _op, b in distinct_ops()}, key=lambda b: -1 if b is None else b):
        names = [op for op, at in distinct_ops() if at == b]
        outputs = run_dali_augmentations(
            images,
            # the sign pinned to the positive one (the policy draws it per stage)
            [operations[op].augmentation(randomly_negate=False) for op in names],
            magnitude_bin=0 if b is None else b,
            num_magnitude_bins=BINS,
            with_shape=any(op in RELATIVE for op in names),
        )
        out |= {key(op, b): images_out for op, images_out in zip(names, outputs, strict=True)}
    return out


def key(op: str, b: int | None) -> str:
    return f"{op}/{b}"


# Runs in the Python where torchvision imports: the three policies as torchvision keeps them,
# and each distinct operation at its bin, sign positive.
_TORCHVISION = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from PIL import Image
    from torchvision.transforms import InterpolationMode, autoaugment

    job = json.load(open(sys.argv[1]))
    policies = {
        name.lower(): autoaugment.AutoAugment(autoaugment.AutoAugmentPolicy[name])
        for name in ("IMAGENET", "CIFAR10", "SVHN")
    }
    out = {
        "policies": {
            name: [[list(op) for op in sub] for sub in policy.policies]
            for name, policy in policies.items()
        },
        "ops": {},
    }
    space_of = policies["imagenet"]._augmentation_space
    for name in job["ops"]:
        op, b = name.split("/")
        for index, path in enumerate(job["images"]):
            image = np.load(path)
            height, width = image.shape[:2]
            magnitudes, _signed = space_of(job["bins"], (height, width))[op]
            magnitude = float(magnitudes[int(b)]) if b != "None" else None
            result = autoaugment._apply_op(
                Image.fromarray(image), op, magnitude or 0.0, InterpolationMode.NEAREST, None
            )
            file = f"{job['out']}/{op}_{b}_{index}.npy"
            np.save(file, np.asarray(result))
            size = {"TranslateX": width, "TranslateY": height}.get(op)
            shown = magnitude / size if size and magnitude is not None else magnitude
            entry = out["ops"].setdefault(name, {"magnitude": shown, "files": []})
            entry["files"].append(file)
    json.dump(out, open(sys.argv[2], "w"))
    """
)


@dataclass(frozen=True)
class TorchvisionSide:
    policies: dict[str, tuple[tuple[Stage, ...], ...]]
    magnitudes: dict[str, float | None]
    outputs: dict[str, list[np.ndarray]]


def torchvision_outputs(python: str, images: Sequence[np.ndarray]) -> TorchvisionSide:
    """torchvision's three policies and each distinct operation's output, run by `python`."""
    names = [key(op, b) for op, b in distinct_ops()]
    job = {"ops": names, "bins": BINS}
    prefix = "augexplorer-auto-augment-"
    with torchvision_run(python, images, _TORCHVISION, job, prefix=prefix) as found:
        policies = {
            name: tuple(tuple((op, p, b) for op, p, b in sub) for sub in table)
            for name, table in found["policies"].items()
        }
        ops = found["ops"]
        return TorchvisionSide(
            policies,
            {name: ops[name]["magnitude"] for name in names},
            {name: [np.load(f) for f in ops[name]["files"]] for name in names},
        )


@dataclass(frozen=True)
class Measurement:
    policies: dict[str, tuple[tuple[Stage, ...], ...]]  # torchvision's, as installed
    rows: tuple[PolicyOpFigures, ...]


def measure(python: str, images: Sequence[np.ndarray] | None = None) -> Measurement:
    """Every distinct operation of the policies, torchvision (run by `python`) against the
    port's augmentations."""
    images = list(images) if images is not None else sample_images()
    theirs = torchvision_outputs(python, images)
    ours = dali_outputs(images)
    rows = []
    for op, b in distinct_ops():
        name = key(op, b)
        mean, largest = pixel_difference(ours[name], theirs.outputs[name])
        magnitude = theirs.magnitudes[name]
        value = None if magnitude is None else round(magnitude, 4)
        rows.append(PolicyOpFigures(op, b, value, mean, largest))
    return Measurement(theirs.policies, tuple(rows))


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
    total = sum(len(policy) for policy in TORCHVISION_POLICIES.values())
    lines = [
        "## torchvision's AutoAugment, operation by operation",
        "",
        "The port's `auto_aug.torchvision_auto_augment` node holds torchvision's own "
        f"sub-policies ({', '.join(TORCHVISION_POLICIES)}: {total} in all, two stages each, "
        f"each stage's probability and magnitude bin of {BINS}), checked against the installed "
        "torchvision, and draws a sub-policy per image, a coin per stage and a sign as "
        "torchvision does, by DALI's generator. Below, every distinct operation of the three "
        "policies at its bin, sign positive, nearest sampling, fill 0, on the four bundled "
        "sample photos shrunk to 160 px: torchvision's `_apply_op` on PIL images against the "
        "node's augmentation of that name "
        "(`augexplorer.port.torchvision.auto_augment_ops`). Grey levels of 0-255; a "
        "translation's magnitude is a fraction of the image's width or height. "
        "DALI's own `auto_augment(policy_name=\"image_net\")` is another list (TensorFlow's "
        f"ImageNet policy, 11 bins): {shared_subpolicies()} of torchvision's "
        f"{len(IMAGENET_POLICY)} ImageNet sub-policies hold the same operations there.",
        "",
        "| operation | bin | torchvision's magnitude | mean | max | why it differs |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        bin_cell = "-" if row.bin is None else str(row.bin)
        magnitude = "-" if row.magnitude is None else f"{row.magnitude:g}"
        why = WHY.get(row.op, "") if row.max_abs else ""
        lines.append(
            f"| {row.op} | {bin_cell} | {magnitude} | {row.mean_abs:g} | {row.max_abs} | {why} |"
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
