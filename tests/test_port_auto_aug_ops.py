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


def test_randaugment_translates_relative_to_each_images_size() -> None:
    from augexplorer import Node, Ref, Session
    from augexplorer.port.door import port_found
    from augexplorer.port.reading import read_source
    from augexplorer.port.torchvision.auto_aug import TRANSLATE_REL

    source = (
        "import torchvision.transforms as T\n"
        "t = T.Compose([T.RandomResizedCrop(64), T.RandAugment(), T.ToTensor()])\n"
    )
    (found,) = read_source(source)
    spec = port_found(found).spec
    policy = spec.node("rand_augment")
    assert isinstance(policy, Node)
    assert policy.args["shape"] == Ref("rand_augment_shape")
    assert policy.args["max_translate_rel"] == pytest.approx(150 / 331) == TRANSLATE_REL
    shape = spec.node("rand_augment_shape")
    assert isinstance(shape, Node) and shape.args["expression"].endswith(".shape()[0:2]")
    result = Session(spec, device_id=None).run()
    assert [a.shape for a in result.arrays(result.final)] == [(3, 64, 64)] * spec.batch_size
