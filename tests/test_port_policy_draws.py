"""What a ported TrivialAugmentWide draws, against what torchvision's draws: the operation per
image, its sign and its magnitude bin, over many images on both sides (torchvision in the
reference environment, the node's draws read from its recorded random operators). With DALI's
one seed for every draw these were tied (augexplorer.policy_seeds); the node draws them apart,
as torchvision does."""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from port_parity import ported, sample_images

from augexplorer import Node, Session
from augexplorer.engine import policy_draws
from augexplorer.port.torchvision.op_by_op import DALI_AUGMENTATIONS

DRAWS = 1000
NAMES = {**DALI_AUGMENTATIONS, "Identity": "identity"}  # torchvision's -> DALI's

# torchvision's own draws: its _apply_op recorded instead of run, on one small image
TORCHVISION_DRAWS = textwrap.dedent(
    """
    import json, sys, torch
    from PIL import Image
    from torchvision.transforms import autoaugment

    torch.manual_seed(0)
    transform = autoaugment.TrivialAugmentWide()
    drawn = []

    def record(image, op_name, magnitude, interpolation, fill):
        drawn.append([op_name, magnitude])
        return image

    autoaugment._apply_op = record
    image = Image.new("RGB", (32, 32))
    for _ in range(int(sys.argv[1])):
        transform(image)
    print(json.dumps(drawn))
    """
)


def theirs(python: str) -> list[tuple[str, float]]:
    printed = subprocess.run(
        [python, "-c", TORCHVISION_DRAWS, str(DRAWS)], capture_output=True, text=True, check=True
    ).stdout
    return [(NAMES[op], float(magnitude)) for op, magnitude in json.loads(printed)]


def ours(tmp: Path) -> list[tuple[str, float]]:
    result = ported("T.TrivialAugmentWide()", sample_images(2), tmp)
    (node,) = [n for n in result.spec.nodes if isinstance(n, Node) and n.op.startswith("auto_")]
    step = Session(result.spec, device_id=None).plan.node_step(node.id)
    probe = policy_draws.PolicyProbe(step, DRAWS)
    _pixels, calls = probe.run([np.zeros((32, 32, 3), np.uint8)] * DRAWS)
    drawn = []
    for said in probe.describe(calls):
        name, *magnitude = said.split(" ")
        drawn.append((name, float(magnitude[0]) if magnitude else 0.0))
    return drawn


@pytest.mark.slow  # torch in the reference environment; a 1,000-image policy probe
def test_trivial_augment_wide_draws_as_torchvision_draws(
    reference_python: str, tmp_path: Path
) -> None:
    from scipy.stats import chi2_contingency

    mine, other = ours(tmp_path), theirs(reference_python)
    operations = sorted({op for op, _ in other})
    assert len(operations) == 14 and {op for op, _ in mine} == set(operations)

    def counts(draws: list[tuple[str, float]]) -> list[int]:
        found = Counter(op for op, _ in draws)
        return [found[op] for op in operations]

    # the operation: one of 14, evenly, on both sides
    assert chi2_contingency([counts(mine), counts(other)]).pvalue > 0.01

    # the sign of the signed operations: half each way on both sides
    def signs(draws: list[tuple[str, float]]) -> list[int]:
        signed = [m for op, m in draws if op in ("rotate", "shear_x", "shear_y") and m != 0]
        return [sum(m < 0 for m in signed), sum(m > 0 for m in signed)]

    assert chi2_contingency([signs(mine), signs(other)]).pvalue > 0.01

    # the rotation's magnitude bin: one of 31 (0 to 135 degrees), evenly, on both sides
    def angles(draws: list[tuple[str, float]]) -> list[int]:
        found = Counter(round(abs(m) / 4.5) for op, m in draws if op == "rotate")
        return [found[b] for b in range(31)]

    assert sum(angles(mine)) > 40 and sum(angles(other)) > 40
    # few draws per bin: the bins compared in four groups of about eight
    grouped = [[sum(a[i : i + 8]) for i in range(0, 31, 8)] for a in (angles(mine), angles(other))]
    assert chi2_contingency(grouped).pvalue > 0.01
