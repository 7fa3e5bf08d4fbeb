"""torchvision's AutoAugment (ImageNet policy) against DALI, operation by operation: each
distinct (operation, magnitude bin) of torchvision's sub-policies, its magnitude pinned on both
sides, measured again against the real torchvision in the reference environment and held to the
figures docs/porting.md shows (augexplorer.port.torchvision.auto_augment_ops.MEASURED)."""

from __future__ import annotations

import pytest

from augexplorer.port.coverage import table
from augexplorer.port.torchvision.auto_augment_ops import (
    IMAGENET_POLICY,
    MEASURED,
    distinct_ops,
    measure,
    shared_subpolicies,
    table_lines,
)
from augexplorer.port.torchvision.grades import GRADES

# The measurement is deterministic (operation, magnitude and sign pinned, the same four images),
# so a figure moves only where a kernel rounds differently on another CPU or library build. The
# kept mean is rounded to 0.01 (up to 0.005 off); 0.02 more lets about 1.5% of the pixels round
# one grey level the other way, and one grey level on the max lets a pixel do so. A real change
# (a magnitude mapped wrong, a bit of posterize, an operator's formula) moves the mean by whole
# grey levels.
MEAN_MARGIN = 0.02
MAX_MARGIN = 1


def test_every_distinct_operation_of_the_policy_has_its_figures_in_the_docs() -> None:
    assert [(row.op, row.bin) for row in MEASURED] == list(distinct_ops())
    assert len(MEASURED) == 22  # 25 sub-policies, 50 operations, 22 distinct
    lines = table_lines()
    assert all(line in table() for line in lines)
    shear = next(line for line in lines if line.startswith("| ShearX |"))
    assert "(sign opposite)" in shear and "other way" in shear
    # an operation that differs says why; one that does not, nothing
    for row, line in zip(MEASURED, lines[-len(MEASURED) - 1 : -1], strict=True):
        why = line.rstrip("|").rsplit("|", 1)[-1].strip()
        assert bool(why) == (row.max_abs > 0 or row.sign == "opposite"), line


def test_the_grade_says_how_few_sub_policies_dalis_policy_shares() -> None:
    shared = shared_subpolicies()
    assert 0 < shared < len(IMAGENET_POLICY)
    (sentence,) = GRADES["AutoAugment"].differences
    assert f"{shared} of torchvision's {len(IMAGENET_POLICY)} sub-policies" in sentence


@pytest.mark.slow  # imports torch in the reference environment; DALI builds one pipeline
def test_each_operation_stays_within_its_measured_difference(reference_python: str) -> None:
    measured = measure(reference_python)
    assert measured.policy == IMAGENET_POLICY, "torchvision's ImageNet policy changed"
    for kept, now in zip(MEASURED, measured.rows, strict=True):
        what = f"{kept.op} bin {kept.bin}: kept {kept}, measured {now}"
        assert (now.op, now.bin, now.magnitude, now.sign) == (
            kept.op,
            kept.bin,
            kept.magnitude,
            kept.sign,
        ), what
        assert now.mean_abs <= kept.mean_abs + MEAN_MARGIN, what
        assert now.max_abs <= kept.max_abs + MAX_MARGIN, what
    # what the grade says, as measured: these are exact
    exact = {"Posterize", "Solarize", "Invert", "ShearX"}
    assert all(row.max_abs == 0 for row in measured.rows if row.op in exact)
