"""albumentations' UnsharpMask draws what albumentations draws: a kernel size among the same odd
sizes with equal chances, sigma and alpha over the same ranges, for every way its arguments
are written (albumentations' own reading of them is the reference). Its pixels:
tests/test_port_albumentations_parity.py."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from augexplorer.port.albumentations import port
from augexplorer.port.reading import read_source

A = pytest.importorskip("albumentations")


def drawn(code: str) -> dict[str, Any]:
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose)
    assert not result.refusals, result.refusals
    nodes = {node.id: node for node in result.spec.operators()}
    sigma = nodes["unsharp_sigma_drawn"]
    return {
        "sizes": [int(v) for v in nodes["unsharp_size"].args["values"]],
        "alpha": tuple(nodes["unsharp_alpha"].args.get("range", ())),
        "sigma": tuple(sigma.args.get("range", ())) or "constant",
    }


@pytest.mark.parametrize(
    "arguments",
    ["", "blur_limit=5", "blur_limit=(4, 8)", "alpha=0.3", "sigma_limit=0.5, alpha=(0.1, 0.9)"],
)
def test_the_draws_are_albumentations_own(arguments: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = eval(f"A.UnsharpMask({arguments})", {"A": A})  # the test's own text
    ours = drawn(f"A.UnsharpMask({arguments})")
    low, high = theirs.blur_limit
    assert ours["sizes"] == list(range(low, high + 1, 2))  # randrange(low, high + 1, 2)
    assert ours["alpha"] == tuple(float(v) for v in theirs.alpha)
    if theirs.sigma_limit[0] == theirs.sigma_limit[1]:
        assert ours["sigma"] == "constant"
    else:
        assert ours["sigma"] == tuple(float(v) for v in theirs.sigma_limit)
