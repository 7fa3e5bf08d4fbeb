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
    [
        "",
        "blur_limit=5",
        "blur_limit=(4, 8)",
        "alpha=0.3",
        "sigma_limit=0.5, alpha=(0.1, 0.9)",
        # reversed: albumentations keeps (high, high) for blur_limit and sorts sigma and alpha
        "blur_limit=(7, 3)",
        "blur_limit=(8, 6)",
        "blur_limit=(4, 3)",
        "blur_limit=(4, 4)",
        "sigma_limit=(2.0, 1.0)",
        "alpha=(0.5, 0.2)",
    ],
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


@pytest.mark.parametrize(("limit", "size"), [((7, 3), 3), ((8, 6), 7), ((4, 3), 3)])
def test_a_reversed_blur_limit_draws_its_high_end_as_albumentations(
    limit: tuple[int, int], size: int
) -> None:
    """albumentations makes each end an odd size from 3, then keeps a pair still reversed as
    (high, high), with a warning, sorting nothing: (7, 3) draws 3 alone (the port drew 7)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = A.UnsharpMask(blur_limit=limit, p=1)
    theirs.set_random_seed(7)
    sizes = {theirs.get_params_dependent_on_data({}, {})["ksize"] for _ in range(200)}
    assert sizes == {size}
    assert drawn(f"A.UnsharpMask(blur_limit={limit})")["sizes"] == [size]


@pytest.mark.parametrize("before", ["A.ToFloat()", "A.Normalize()"])
@pytest.mark.parametrize("transform", ["A.UnsharpMask(p=1)", "A.CLAHE(p=1)"])
def test_after_a_float_image_the_8_bit_ports_are_refused(before: str, transform: str) -> None:
    """albumentations runs both on the float image there and gives float; the port gave 8-bit
    pixels of 0..2 (UnsharpMask) or a graph that failed to run (CLAHE: uint8 only)."""
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{before}, {transform}])\n")
    result = port(found.compose)
    (refusal,) = result.refusals
    assert "after Normalize or ToFloat is not ported" in refusal.reason
    assert "fix: put it before" in refusal.reason


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ("alpha=1.5", "0 <= low <= high <= 1"),
        ("threshold=300", "0-255"),
        ("threshold=5.5", "0-255"),
        # a fraction fails albumentations' schema (whole numbers): the port truncated it
        ("blur_limit=(7.5, 9)", "fix: blur_limit=(7, 9)"),
        ("blur_limit=7.5", "fix: blur_limit=7"),
        # a negative sigma fails there too: the port drew uniform(0, -1)
        ("sigma_limit=-1.0", "sigmas of 0 or more"),
        ("sigma_limit=(-1.0, 2.0)", "sigmas of 0 or more"),
    ],
)
def test_what_albumentations_refuses_is_refused(arguments: str, said: str) -> None:
    with pytest.raises(Exception):  # noqa: B017 (albumentations' own schema error)
        eval(f"A.UnsharpMask({arguments})", {"A": A})  # the test's own text
    (found,) = read_source(
        f"import albumentations as A\nt = A.Compose([A.UnsharpMask({arguments})])\n"
    )
    (refusal,) = port(found.compose).refusals
    assert said in refusal.reason
