"""A torchvision call torchvision 0.29.1 fails on (an argument its class does not take, too many
by position) is refused, naming the argument and the fix, rather than ported with its defaults;
the accepted names are 0.29.1's own signatures (:mod:`augexplorer.port.torchvision.signatures`)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from augexplorer.port.door import port_call
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.port.torchvision import EXAMPLES, MAPPING
from augexplorer.port.torchvision.signatures import REPLACED, SIGNATURES_V1, SIGNATURES_V2

V1 = "import torchvision.transforms as T\nfrom PIL import Image\n"
V2 = "import torch\nfrom torchvision.transforms import v2 as T\n"


def _ported(imports: str, transforms: str) -> PortResult:
    (found,) = read_source(f"{imports}t = T.Compose([{transforms}])\n")
    return port_call(found.compose)


@pytest.mark.parametrize("imports", [V1, V2], ids=["v1", "v2"])
@pytest.mark.parametrize(
    ("transform", "said"),
    [
        (
            "T.RandomRotation(15, resample=Image.BILINEAR)",
            "resample is not an argument of torchvision 0.29.1's RandomRotation, which fails on "
            "it (TypeError) (fix: interpolation=, its current name)",
        ),
        (
            "T.RandomAffine(degrees=10, fillcolor=0)",
            "fillcolor is not an argument of torchvision 0.29.1's RandomAffine, which fails on "
            "it (TypeError) (fix: fill=, its current name)",
        ),
        (
            "T.RandomAffine(10, resample=2)",
            "resample is not an argument of torchvision 0.29.1's RandomAffine",
        ),
        (
            "T.RandomResizedCrop(224, interpolaton=2)",
            "interpolaton is not an argument of torchvision 0.29.1's RandomResizedCrop, which "
            "fails on it (TypeError) (fix: interpolation=, the closest name it takes)",
        ),
        ("T.RandomHorizontalFlip(prob=0.3)", "(fix: leave it out, or give a name it takes: p)"),
        ("T.ToTensor(scale=True)", "(fix: leave it out; it takes no argument)"),
        (
            "T.RandomHorizontalFlip(0.5, 0.3)",
            "torchvision 0.29.1's RandomHorizontalFlip takes at most 1 arguments by position "
            "(p); 2 were given",
        ),
        ("T.ColorJitter(0.1, 0.1, 0.1, 0.1, 0.1)", "takes at most 4 arguments by position"),
        ("T.Resize(256, size=224)", "size is given twice to torchvision 0.29.1's Resize"),
        ("T.CenterCrop()", "torchvision 0.29.1's CenterCrop needs size"),
        (
            "T.RandomApply([T.ColorJitter(0.4)], prob=0.8)",
            "prob is not an argument of torchvision 0.29.1's RandomApply, which fails on it "
            "(TypeError) (fix: leave it out, or give a name it takes: p)",
        ),
    ],
)
def test_an_argument_torchvision_rejects_refuses_the_transform(
    imports: str, transform: str, said: str
) -> None:
    result = _ported(imports, f"T.Resize(150), {transform}")
    assert [step.call.name for step in result.steps] == ["Resize"]
    (refused,) = result.refusals
    assert said in refused.reason
    assert refused.call.line == 3


def test_a_v2_only_argument_is_taken_by_v2() -> None:
    result = _ported(V2, "T.ToImage(), T.ToDtype(torch.float32, scale=True)")
    assert not result.refusals
    # v1's ConvertImageDtype needs its dtype, v2's has a default
    assert "needs dtype" in _ported(V1, "T.PILToTensor(), T.ConvertImageDtype()").refusals[0].reason


@pytest.mark.parametrize("imports", [V1, V2], ids=["v1", "v2"])
def test_every_example_is_taken(imports: str) -> None:
    """The table refuses none of the calls the coverage table ports (v1: those v1 has)."""
    table = SIGNATURES_V2 if imports == V2 else SIGNATURES_V1
    for name, example in EXAMPLES.items():
        named = [name, *re.findall(r"T\.(\w+)\(", example)]
        if any(REPLACED.get(n, n) not in table for n in named):
            continue
        result = _ported(imports, f"T.{example}")
        reasons = [r.reason for r in result.refusals]
        assert not any("TypeError" in reason for reason in reasons), (name, reasons)


def test_every_ported_class_has_its_signature() -> None:
    ported = {REPLACED.get(name, name) for name in (*MAPPING.handlers, *MAPPING.groups)}
    assert ported <= set(SIGNATURES_V1) | set(SIGNATURES_V2)


GENERATE = """
import inspect, json, sys
import torchvision, torchvision.transforms as T, torchvision.transforms.v2 as V
names = json.loads(sys.argv[1])
def table(module):
    found = {}
    for n in names:
        c = getattr(module, n, None)
        if c is not None:
            ps = inspect.signature(c).parameters.values()
            found[n] = [[p.name, p.default is p.empty] for p in ps]
    return found
print(json.dumps([torchvision.__version__, table(T), table(V)]))
"""


def test_the_tables_are_torchvision_own(reference_python: str) -> None:
    """The tables against torchvision 0.29.1's signatures, where its environment is here."""
    names = sorted({*SIGNATURES_V1, *SIGNATURES_V2})
    done = subprocess.run(
        [reference_python, "-c", GENERATE, json.dumps(names)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    version, v1, v2 = json.loads(done.stdout)
    assert version.startswith("0.29.1")
    as_lists = [
        {k: [list(p) for p in v] for k, v in t.items()} for t in (SIGNATURES_V1, SIGNATURES_V2)
    ]
    assert [v1, v2] == as_lists
