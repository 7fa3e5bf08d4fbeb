"""torchvision's RandAugment and TrivialAugmentWide against the DALI policies their ports
become, operation by operation at a fixed magnitude: the figures docs/porting.md shows
(augexplorer.port.torchvision.auto_aug_ops.MEASURED) are measured again against the real
torchvision in the reference environment."""

from __future__ import annotations

import pytest

from augexplorer.port.coverage import table
from augexplorer.port.torchvision.auto_aug_ops import MEASURED, OPS, SUITES, measure, table_lines


def test_every_operation_of_both_suites_has_its_figures_in_the_docs() -> None:
    assert {(row.suite, row.op) for row in MEASURED} == {(s, op) for s in SUITES for op in OPS}
    lines = table_lines()
    assert all(line in table() for line in lines)
    shear = next(line for line in lines if line.startswith("| ShearX |"))
    assert "sign opposite" in shear


@pytest.mark.slow
def test_the_measured_figures_are_current(reference_python: str) -> None:
    measured = {(row.suite, row.op): row for row in measure(reference_python)}
    for kept in MEASURED:
        now = measured[kept.suite, kept.op]
        what = f"{kept.suite} {kept.op}: kept {kept}, measured {now}"
        assert now.sign == kept.sign and now.max_abs == kept.max_abs, what
        assert abs(now.mean_abs - kept.mean_abs) <= 0.011, what
    # what the grades say, as measured: the shears and posterize are exact; the colour
    # operations within two grey levels
    for suite in SUITES:
        for op in ("ShearX", "ShearY", "Posterize"):
            assert measured[suite, op].max_abs == 0, (suite, op)
        for op in ("Color", "Contrast", "AutoContrast"):
            assert measured[suite, op].max_abs <= 2, (suite, op)
