"""A class name the library does not have (a typo, ``T.RandomHorizontalFlp``) fails the file
there: it is refused saying so, with the closest name the library has, not as "not ported
yet"; the names are torchvision 0.29.1's and albumentations 2.0.8's own
(:mod:`augexplorer.port.library_names`)."""

from __future__ import annotations

import json
import subprocess

import pytest

from augexplorer.port.door import port_call
from augexplorer.port.library_names import ALBUMENTATIONS, TORCHVISION_V1, TORCHVISION_V2
from augexplorer.port.reading import read_source


def _reason(imports: str, transform: str) -> str:
    (found,) = read_source(f"{imports}t = T.Compose([{transform}])\n")
    (refused,) = port_call(found.compose).refusals
    return refused.reason


@pytest.mark.parametrize(
    ("imports", "transform", "said"),
    [
        (
            "import torchvision.transforms as T\n",
            "T.RandomHorizontalFlp()",
            "torchvision.transforms has no RandomHorizontalFlp (torchvision 0.29.1): the file "
            "fails on it (fix: RandomHorizontalFlip, the closest name it has)",
        ),
        (
            "from torchvision.transforms import v2 as T\n",
            "T.RandomPhotometricDistrot()",
            "torchvision.transforms.v2 has no RandomPhotometricDistrot (torchvision 0.29.1): "
            "the file fails on it (fix: RandomPhotometricDistort, the closest name it has)",
        ),
        (
            "import albumentations as T\n",
            "T.HorizontalFlipp()",
            "albumentations has no HorizontalFlipp (albumentations 2.0.8): the file fails on it "
            "(fix: HorizontalFlip, the closest name it has)",
        ),
        (
            "import albumentations as T\n",
            "T.Zzzz()",
            "albumentations has no Zzzz (albumentations 2.0.8): the file fails on it (fix: the "
            "name of one of its classes)",
        ),
        (  # a class only v2 has, named from v1's module
            "import torch\nimport torchvision.transforms as T\n",
            "T.ToDtype(torch.float32, scale=True)",
            "torchvision.transforms has no ToDtype, which is in torchvision.transforms.v2 "
            "(torchvision 0.29.1): the file fails on it (fix: from torchvision.transforms import "
            "v2, then v2.ToDtype(...))",
        ),
    ],
)
def test_a_name_the_library_does_not_have_is_said_with_the_closest(
    imports: str, transform: str, said: str
) -> None:
    assert _reason(imports, transform) == said


def test_a_real_name_not_ported_is_still_not_ported_yet() -> None:
    reason = _reason("import albumentations as T\n", "T.TimeMasking()")
    assert reason.startswith("TimeMasking is not ported yet")


@pytest.mark.parametrize(
    ("imports", "transform", "nearest"),
    [
        ("import albumentations as T\n", "T.RandomFog()", "python_function"),
        ("import albumentations as T\n", "T.RandomSizedBBoxSafeCrop(64, 64)", "random_bbox_crop"),
        ("import torchvision.transforms.v2 as T\n", "T.GaussianNoise()", "noise.gaussian"),
        ("import torchvision.transforms.v2 as T\n", "T.MixUp()", "the loader's batch"),
    ],
)
def test_a_transform_dali_has_no_counterpart_for_names_the_nearest(
    imports: str, transform: str, nearest: str
) -> None:
    """Said as refused with the nearest operator, not "not ported yet" with a generic fix."""
    reason = _reason(imports, transform)
    assert "not ported yet" not in reason and "the nearest operator is" in reason
    assert nearest in reason


GENERATE = """
import inspect, json
import torchvision.transforms as T, torchvision.transforms.v2 as V
import albumentations as A, albumentations.pytorch as AP
def classes(m):
    return sorted(n for n in dir(m) if n[:1].isupper() and inspect.isclass(getattr(m, n)))
print(json.dumps([classes(T), classes(V), sorted({*classes(A), *classes(AP)})]))
"""


def test_the_names_are_the_libraries_own(reference_python: str) -> None:
    done = subprocess.run(
        [reference_python, "-c", GENERATE], capture_output=True, text=True, timeout=300, check=True
    )
    v1, v2, albumentations = json.loads(done.stdout)
    assert (set(v1), set(v2), set(albumentations)) == (
        TORCHVISION_V1,
        TORCHVISION_V2,
        ALBUMENTATIONS,
    )
