"""albumentations 2.x ignores the arguments its transforms do not take (1.x's names among them):
a Python file is ported as 2.x runs it, checked against albumentations 2.0.8 itself; a live
object and a saved file are read with the names of the version that made them."""

from __future__ import annotations

import inspect
import sys
import types
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import difference, file_list, run, sample_images

from augexplorer.port.albumentations import port
from augexplorer.port.albumentations.names_2x import PAIRS_ONLY_2X, PARAMETERS_2X, REMOVED_IN_2X
from augexplorer.port.albumentations.registry import MAPPINGS
from augexplorer.port.build import DataSource
from augexplorer.port.door import port_object
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source

A = pytest.importorskip("albumentations")
cv2 = pytest.importorskip("cv2")

# 2.x's own warning for each name it ignores, which these cases provoke on purpose
pytestmark = pytest.mark.filterwarnings("ignore:Argument\\(s\\) .* are not valid:UserWarning")


def test_the_table_is_albumentations_own() -> None:
    """Every mapped transform's entry is its __init__'s parameters in the installed 2.x, which
    is what its validation keeps (regenerate the table from this test's `found` if it fails)."""
    assert A.__version__.startswith("2."), A.__version__
    found = {
        name: frozenset(inspect.signature(getattr(A, name).__init__).parameters)
        - {"self", "strict", "args", "kwargs"}
        for name in MAPPINGS
    }
    assert found == PARAMETERS_2X


def _pair_only(annotation: Any) -> bool:
    if typing.get_origin(annotation) is tuple:
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        return bool(parts) and all(typing.get_origin(a) is tuple for a in parts)
    return False


def test_the_pairs_table_is_albumentations_own() -> None:
    """The arguments 2.x's schemas type as a tuple and nothing else (regenerate from `found`)."""
    found = {}
    for name, parameters in PARAMETERS_2X.items():
        fields = getattr(A, name).InitSchema.model_fields
        pairs = {f for f, info in fields.items() if f in parameters and _pair_only(info.annotation)}
        if pairs:
            found[name] = frozenset(pairs)
    assert found == PAIRS_ONLY_2X


@pytest.mark.parametrize(
    ("code", "said"),
    [
        # 1.x's height and width, which 2.x reads as size and scale
        (
            "A.RandomResizedCrop(224, 192)",
            "size=224, scale=192: albumentations 2.x's RandomResizedCrop takes them as pairs"
            " (height, width) and (low, high), and fails on single numbers (written for 1.x,"
            " whose RandomResizedCrop took height and width there? fix:"
            " RandomResizedCrop(size=(224, 192)))",
        ),
        (
            "A.RandomSizedCrop((100, 200), 224, 224)",
            "fix: RandomSizedCrop((100, 200), size=(224, 224))",
        ),
        # 1.x's quality_lower and quality_upper, which 2.x reads as compression_type and the range
        (
            "A.ImageCompression(70, 95)",
            "whose ImageCompression took quality_lower and quality_upper there? fix:"
            " ImageCompression(quality_range=(70, 95)))",
        ),
        ("A.Emboss(alpha=0.5)", "alpha=0.5: albumentations 2.x's Emboss takes it as a pair"),
        ("A.RandomResizedCrop((224, 224), 0.5)", "scale=0.5"),
    ],
)
def test_a_single_number_where_2x_takes_a_pair_is_refused_as_2x_fails(code: str, said: str) -> None:
    """Ported, RandomResizedCrop(224, 224) drew windows of 224 times the image's area (every
    try failing) and was graded a distribution match; 2.x fails on it."""
    with pytest.raises(ValueError):
        eval(code, {"A": A})
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose)
    assert not result.steps
    (refusal,) = result.refusals
    assert said in refusal.reason


def _ported(code: str, tmp_path: Path, images: list[Path]) -> PortResult:
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    data = DataSource("file_list", str(file_list(images, tmp_path)), shuffle=False)
    return port(found.compose, data=data, batch_size=len(images))


def _albumentations(code: str, images: list[Path]) -> list[np.ndarray]:
    transform = eval(f"A.Compose([{code}])", {"A": A, "cv2": cv2})  # the test's own text
    return [
        transform(image=cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB))["image"]
        for path in images
    ]


@pytest.mark.parametrize(
    ("code", "ignored"),
    [
        # 1.x's fill under its old name: 2.x fills with 0
        ("A.Rotate(limit=(30, 30), value=128, border_mode=0, p=1)", "value"),
        ("A.PadIfNeeded(300, 400, border_mode=0, value=90)", "value"),
        # a 1.x size under 1.x's names beside 2.x's: 2.x crops 100x100 with its default fill
        ("A.CenterCrop(100, 100, always_apply=True, fill_value=3)", "fill_value"),
    ],
)
def test_a_name_2x_ignores_is_left_out_as_2x_leaves_it(
    code: str, ignored: str, tmp_path: Path
) -> None:
    images = sample_images(4)
    result = _ported(code, tmp_path, images)
    found = difference(run(result), _albumentations(code, images))
    assert found.shapes_agree and found.max_abs <= 1, f"{code}: {found}"
    (step,) = result.steps
    assert any(
        f"{ignored} is not an argument of albumentations 2.x's" in d
        for d in step.origin.differences
    ), step.origin.differences
    assert step.call.kwargs[ignored] is not None  # the origin is the call as written


def test_a_required_size_under_1x_names_fails_as_in_2x() -> None:
    """2.x's RandomResizedCrop requires size=; given height= and width= it ignores them and
    fails, and the port says why rather than porting what 2.x never runs."""
    code = "A.RandomResizedCrop(height=224, width=224)"
    with pytest.raises(ValueError, match="size"):
        eval(code, {"A": A})
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose)
    (refusal,) = result.refusals
    assert "height, width are not arguments of albumentations 2.x's RandomResizedCrop" in (
        refusal.reason
    )
    assert "size" in refusal.reason


def test_gauss_noise_var_limit_takes_2x_defaults() -> None:
    """2.x draws GaussNoise(var_limit=...)'s deviation from its default std_range."""
    assert A.GaussNoise(var_limit=(10, 50)).std_range == A.GaussNoise().std_range

    def nodes(code: str) -> list[tuple[str, dict[str, Any]]]:
        (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
        (step,) = port(found.compose).steps
        return [(node.op, node.args) for node in step.nodes]

    assert nodes("A.GaussNoise(var_limit=(10, 50), p=1)") == nodes("A.GaussNoise(p=1)")
    assert nodes("A.GaussNoise(var_limit=(10, 50), p=1)") != nodes(
        "A.GaussNoise(std_range=(0.1, 0.2), p=1)"
    )


@pytest.mark.parametrize("name", sorted(REMOVED_IN_2X))
def test_a_class_2x_removed_is_refused_naming_its_replacement(name: str) -> None:
    """Cutout, Flip, the IAA family...: a 2.x file naming one fails there (no such class);
    refused as "not ported yet (fix: add the DALI operator by hand...)", they read as a gap of
    the port rather than a name to change."""
    pytorch = pytest.importorskip("albumentations.pytorch")
    assert not hasattr(A, name) and not hasattr(pytorch, name)
    version, replacement = REMOVED_IN_2X[name]
    for each in replacement.split(" (")[0].split(" or "):
        assert hasattr(A, each) or hasattr(pytorch, each), each
    source = "import albumentations as A\nfrom albumentations.pytorch import ToTensor\n"
    written = "ToTensor()" if name == "ToTensor" else f"A.{name}()"
    (found,) = read_source(f"{source}t = A.Compose([A.HorizontalFlip(), {written}])\n")
    result = port(found.compose)
    (refusal,) = result.refusals
    assert refusal.reason.startswith(
        f"{name} does not exist in albumentations 2.x (its last version was {version}); its "
        f"replacement is {replacement.split(' (')[0]}"
    ), refusal.reason
    assert "not ported yet" not in refusal.reason
    assert [step.call.name for step in result.steps] == ["HorizontalFlip"]


def test_the_removed_classes_version_and_flips_replacement() -> None:
    assert REMOVED_IN_2X["Flip"] == (
        "1.4.24",
        "HorizontalFlip or VerticalFlip (Flip drew one of the two or both)",
    )
    assert REMOVED_IN_2X["Cutout"][1].startswith("CoarseDropout")
    assert REMOVED_IN_2X["JpegCompression"][1].startswith("ImageCompression")
    assert REMOVED_IN_2X["IAAAffine"] == ("1.4.0", "Affine")


def test_a_1x_saved_files_class_is_not_said_removed() -> None:
    """A file albumentations 1.x saved holds its version's classes: none is "removed"."""
    from augexplorer.port.albumentations.library import MAPPING_1X

    assert not MAPPING_1X.removed


def test_the_first_line_counts_the_transforms_whose_arguments_2x_ignores() -> None:
    """A pipeline with 1.x's argument names gave "2 transforms ported (...), 0 not ported": a
    clean port to the eye, though 2.x runs each with its defaults in their place."""
    code = (
        "A.CoarseDropout(max_holes=8, max_height=16, max_width=16, fill_value=0, p=0.5), "
        "A.GaussNoise(var_limit=(10, 50)), A.HorizontalFlip(), A.Rotate(limit=10, p=1)"
    )
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose)
    first = result.summary().splitlines()[0]
    assert first == (
        "4 transforms ported (2 exact, 2 distribution; 2 with arguments albumentations 2.x "
        "ignores), 0 not ported"
    )
    ignored = {step.call.name: step.ignored for step in result.steps}
    assert ignored == {
        "CoarseDropout": ("max_holes", "max_height", "max_width", "fill_value"),
        "GaussNoise": ("var_limit",),
        "HorizontalFlip": (),
        "Rotate": (),
    }
    said = {step.call.name: " ".join(step.origin.differences) for step in result.steps}
    assert (
        "which ignores them (with a warning), its defaults applying (fix: give them by 2.x's "
        "names, max_holes -> num_holes_range, max_height -> hole_height_range, max_width -> "
        "hole_width_range, fill_value -> fill);"
    ) in said["CoarseDropout"]
    assert (
        "(fix: give it by 2.x's name, var_limit -> std_range (std = sqrt(var)/255))"
        in (said["GaussNoise"])
    )
    # said, never applied: 2.x runs GaussNoise(var_limit=...) with its default std_range
    # (test_gauss_noise_var_limit_takes_2x_defaults)
    assert result.steps[1].nodes[0].args["stddev"].low == A.GaussNoise().std_range[0] * 255


def test_a_clean_port_says_no_ignored_arguments() -> None:
    (found,) = read_source("import albumentations as A\nt = A.Compose([A.HorizontalFlip()])\n")
    first = port(found.compose).summary().splitlines()[0]
    assert first == "1 transform ported (1 exact), 0 not ported"


class _OldPipeline:
    """A stand-in for a live albumentations 1.x Compose: 1.x describes itself with its names."""

    __module__ = "albumentations.core.composition"

    def to_dict_private(self) -> dict[str, Any]:
        flip = {"__class_fullname__": "HorizontalFlip", "p": 1.0}
        return {
            "__class_fullname__": "Compose",
            "p": 1.0,
            "transforms": [
                {"__class_fullname__": "GaussNoise", "var_limit": (10.0, 50.0), "p": 1.0},
                {"__class_fullname__": "SomeOf", "n": 1, "p": 1.0, "transforms": [flip, flip]},
            ],
        }


@pytest.mark.parametrize(("version", "old"), [("1.4.24", True), ("2.0.8", False)])
def test_a_live_object_is_read_with_its_versions_names_and_semantics(
    version: str, old: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "albumentations", types.SimpleNamespace(__version__=version))
    said = {
        step.call.name: " ".join(step.origin.differences)
        for step in port_object(_OldPipeline()).steps
    }
    # the names a live object holds are its version's: read whatever the version
    assert "variance drawn uniformly in var_limit" in said["GaussNoise"]
    assert ("SomeOf(n=1) of 1.x" in said["SomeOf"]) is old
