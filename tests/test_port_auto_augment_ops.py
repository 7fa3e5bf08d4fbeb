"""torchvision's AutoAugment against the port, operation by operation: each distinct (operation,
magnitude bin) of torchvision's three policies, at torchvision's magnitude on one side and the
port's augmentation at the same bin on the other, measured again against the real torchvision in
the reference environment and held to the figures docs/porting.md shows
(augexplorer.port.torchvision.auto_augment_ops.MEASURED)."""

from __future__ import annotations

import pytest

from augexplorer.auto_aug_torchvision import TORCHVISION_POLICIES
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


def test_every_distinct_operation_of_the_policies_has_its_figures_in_the_docs() -> None:
    assert [(row.op, row.bin) for row in MEASURED] == list(distinct_ops())
    assert len(MEASURED) == 58  # 3 policies of 25 sub-policies: 150 operations, 58 distinct
    lines = table_lines()
    assert all(line in table() for line in lines)
    # an operation that differs says why; one that does not, nothing
    for row, line in zip(MEASURED, lines[-len(MEASURED) - 1 : -1], strict=True):
        why = line.rstrip("|").rsplit("|", 1)[-1].strip()
        assert bool(why) == (row.max_abs > 0), line


def test_the_grade_names_torchvisions_own_sub_policies() -> None:
    shared = shared_subpolicies()
    assert 0 < shared < len(IMAGENET_POLICY)  # why DALI's own image_net policy is not the port
    (sentence,) = GRADES["AutoAugment"].differences
    assert "torchvision's own 25 sub-policies" in sentence
    assert f"{shared} of torchvision's 25 hold the same operations" in sentence


@pytest.mark.slow  # imports torch in the reference environment; DALI builds one pipeline per bin
def test_each_operation_stays_within_its_measured_difference(reference_python: str) -> None:
    measured = measure(reference_python)
    assert measured.policies == TORCHVISION_POLICIES, "torchvision's policies changed"
    for kept, now in zip(MEASURED, measured.rows, strict=True):
        what = f"{kept.op} bin {kept.bin}: kept {kept}, measured {now}"
        assert (now.op, now.bin, now.magnitude) == (kept.op, kept.bin, kept.magnitude), what
        assert now.mean_abs <= kept.mean_abs + MEAN_MARGIN, what
        assert now.max_abs <= kept.max_abs + MAX_MARGIN, what
    # what the grade says, as measured: these are exact at every bin the policies use
    exact = {"Posterize", "Solarize", "Invert", "TranslateX", "TranslateY"}
    assert all(row.max_abs == 0 for row in measured.rows if row.op in exact)
    # the shears and rotations differ only where a source pixel falls on a sampling tie
    ties = [row for row in measured.rows if row.op in ("ShearX", "ShearY", "Rotate")]
    assert all(row.mean_abs <= 1.5 for row in ties)
