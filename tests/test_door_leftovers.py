"""Reading leftovers: one Compose per branch named by its call, comprehensions over
constants, near equivalents of a project's own classes, refusals inside a OneOf."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from augexplorer.bench import original_runner
from augexplorer.port import port_file
from augexplorer.port.original_builder import builder_of
from augexplorer.port.own_classes import near_transform
from augexplorer.port.reading import SeveralPipelines, choose, read_source

BRANCHES = """
import albumentations as A


def get_transforms(train=True):
    if train:
        return A.Compose([A.HorizontalFlip(p=0.5), A.Resize(24, 24)])
    return A.Compose([A.Resize(32, 32)])


def by_mode(mode="train"):
    if mode == "train":
        return A.Compose([A.VerticalFlip(p=0.5)])
    elif mode == "val":
        return A.Compose([A.Resize(16, 16)])
    else:
        return A.Compose([A.Resize(8, 8)])


train_tf = get_transforms(True)
val_tf = by_mode(mode="val")
"""


def _children(pipeline: Any) -> list[str]:
    return [child.name for child in pipeline.compose.children]


def test_each_branch_is_named_by_the_call_that_returns_it() -> None:
    """It said 'holds 2 pipelines (get_transforms (line 7), get_transforms (line 8))'."""
    found = read_source(BRANCHES)
    names = [p.name for p in found if not p.alias_of]
    assert names[:4] == [
        "get_transforms(train=True)",
        "get_transforms(train=False)",
        "by_mode(mode='train')",
        "by_mode(mode='val')",
    ]
    # an else no literal settles keeps its name by line
    assert names[4] == "by_mode (line 17)"
    with pytest.raises(SeveralPipelines, match=r"get_transforms\(train=True\)"):
        choose(found, None, where="f.py")


def test_the_call_and_the_line_both_pick_a_branch() -> None:
    found = read_source(BRANCHES)
    by_call = choose(found, "get_transforms(train = False)", where="f.py")
    assert by_call.name == "get_transforms(train=False)" and _children(by_call) == ["Resize"]
    assert choose(found, "get_transforms (line 8)", where="f.py") == by_call
    val = choose(found, 'by_mode(mode="val")', where="f.py")
    assert val.compose.children[0].args == (16, 16)


def test_a_module_level_call_with_arguments_names_its_branchs_pipeline() -> None:
    """`train_tf = get_transforms(True)` was skipped: a call with arguments was not read."""
    found = read_source(BRANCHES)
    train = choose(found, "train_tf", where="f.py")
    assert train.alias_of == "get_transforms(train=True)"
    assert _children(train) == ["HorizontalFlip", "Resize"]
    val = choose(found, "val_tf", where="f.py")
    assert val.alias_of == "by_mode(mode='val')" and val.compose.children[0].args == (16, 16)


def test_a_fall_through_return_and_a_negated_test_are_settled() -> None:
    source = """
import torchvision.transforms as T

def build(split="train"):
    if split != "train":
        return T.Compose([T.CenterCrop(8)])
    return T.Compose([T.RandomCrop(8)])
"""
    # the fall-through is reached only where the test failed; no literal reaches the first
    names = [p.name for p in read_source(source)]
    assert names == ["build (line 6)", "build(split='train')"]


def _original(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pipeline: str) -> Any:
    """The original compare builds for `pipeline`, as compare_file's job asks for it."""
    path = tmp_path / "train.py"
    path.write_text(BRANCHES, encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, original_runner.RUN_NAME, raising=False)
    found = choose(read_source(BRANCHES), pipeline, where=str(path))
    job = {
        "source": BRANCHES,
        "where": str(path),
        "pipeline": found.name,
        "params": {},
        "builder": builder_of(BRANCHES, found.compose.line),
    }
    return original_runner._pipeline(job, "albumentations")


def test_compare_builds_the_original_with_the_branchs_arguments(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The fall-through return (train=False) was called with the default train=True and
    refused as not the return ported."""
    validation = _original(monkeypatch, tmp_path, "get_transforms(train=False)")
    assert [type(t).__name__ for t in validation.transforms] == ["Resize"]
    assert validation.transforms[0].height == 32
    val = _original(monkeypatch, tmp_path, "by_mode (line 15)")
    assert val.transforms[0].height == 16


CROPS = """
import torchvision.transforms as T

SIZE = (224, 256)
CROP = tuple(int(s * 0.875) for s in SIZE)
LARGE = [int(s * 0.875) for s in SIZE if s > 230]
pipe = T.Compose([T.CenterCrop(CROP), T.RandomCrop(LARGE), T.Resize(list(SIZE))])
"""


def test_comprehensions_over_settled_constants_are_read() -> None:
    """`tuple(int(s * 0.875) for s in SIZE)` left the crop unknown."""
    (pipe,) = read_source(CROPS)
    center, crop, resize = pipe.compose.children
    assert center.args == ((196, 224),)
    assert crop.args == ([224],)
    assert resize.args == ([224, 256],)


def test_a_comprehension_calling_anything_else_stays_unknown() -> None:
    source = CROPS.replace("int(s * 0.875) for s in SIZE)", "scale(s) for s in SIZE)")
    (pipe,) = read_source(source, params={})
    assert "CROP" in repr(pipe.compose.children[0].args)


def _refusals(tmp_path: Path, source: str) -> list[str]:
    path = tmp_path / "train.py"
    path.write_text(source, encoding="utf-8")
    return [refusal.reason for refusal in port_file(path).refusals]


def test_a_project_class_near_a_transform_names_it(tmp_path: Path) -> None:
    """DINO's utils.Solarization got only the generic 'a custom class' refusal."""
    source = """
import torchvision.transforms as T
import utils

pipe = T.Compose([T.RandomHorizontalFlip(), utils.Solarization(0.2), utils.Mystery()])
"""
    solarization, mystery = _refusals(tmp_path, source)
    assert "near torchvision's RandomSolarize" in solarization
    assert "RandomSolarize(threshold=128, p=P)" in solarization
    assert "near" not in mystery and "a custom class or function" in mystery


def test_names_near_one_another_only_where_one_transform_is_near() -> None:
    transforms = ["RandomSolarize", "RandomCrop", "CenterCrop", "GaussianBlur"]
    assert near_transform("utils.Solarization", transforms) == "RandomSolarize"
    assert near_transform("Crop", transforms) is None  # too short a stem to tell
    assert near_transform("Sharpen", transforms) is None


def test_a_refused_transform_in_a_one_of_says_its_picks_do_nothing(tmp_path: Path) -> None:
    """The refusal listed only MyOwn: that the OneOf then does nothing in its picks was unsaid."""
    source = """
import albumentations as A
from mine import MyOwn

pipe = A.Compose([A.OneOf([A.Blur(p=1), MyOwn(p=1), A.ToGray(p=1)], p=0.5)])
"""
    (reason,) = _refusals(tmp_path, source)
    assert reason.endswith(
        "; in 1 of 3 picks the OneOf does nothing where albumentations would apply MyOwn"
    )
    uneven = source.replace("A.Blur(p=1)", "A.Blur(p=0.5)").replace("MyOwn(p=1)", "MyOwn(p=0.5)")
    (reason,) = _refusals(tmp_path, uneven)
    assert "in 25% of the picks the OneOf does nothing" in reason
