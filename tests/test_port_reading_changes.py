"""A file that grows or edits its list of transforms after building it is read as it runs:
the changes the file settles without running are followed, the others refuse the pipeline
with the fix (port the object built). Reading the first assignment alone ported part of the
pipeline, or a pipeline replaced later, in silence."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from augexplorer.port.reading import ReadRefused, read_file, read_source

HEAD = "import torchvision.transforms as T\n"


def names(text: str, pipeline: str | None = None, tmp_path: Path | None = None) -> list[str]:
    assert tmp_path is not None
    path = tmp_path / "train.py"
    path.write_text(HEAD + textwrap.dedent(text))
    found = read_file(path, pipeline=pipeline)
    return [child.name for child in found.compose.children]


def test_a_list_grown_step_by_step_is_read_whole(tmp_path: Path) -> None:
    text = """
    STRONG = False
    normalize = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    augs = [T.RandomResizedCrop(224), T.RandomHorizontalFlip()]
    if STRONG:
        augs.append(T.RandAugment(num_ops=3, magnitude=15))
    else:
        augs.append(T.ColorJitter(0.1, 0.1, 0.1))
    augs += [T.ToTensor(), normalize]
    augs.extend([T.RandomErasing()])
    augs.insert(0, T.Resize(256))
    train_transform = T.Compose(augs)
    """
    assert names(text, tmp_path=tmp_path) == [
        "Resize",
        "RandomResizedCrop",
        "RandomHorizontalFlip",
        "ColorJitter",
        "ToTensor",
        "Normalize",
        "RandomErasing",
    ]
    strong = text.replace("STRONG = False", "STRONG = True")
    assert "RandAugment" in names(strong, tmp_path=tmp_path)


def test_a_built_pipelines_transforms_edited_in_place_are_followed(tmp_path: Path) -> None:
    text = """
    train_transform = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor()])
    train_transform.transforms.insert(2, T.RandomGrayscale(p=0.5))
    train_transform.transforms[1] = T.RandomVerticalFlip(p=1.0)
    """
    assert names(text, tmp_path=tmp_path) == [
        "RandomResizedCrop",
        "RandomVerticalFlip",
        "RandomGrayscale",
        "ToTensor",
    ]


def test_a_list_of_the_same_name_made_again_is_another_list(tmp_path: Path) -> None:
    text = """
    augs = [T.RandomResizedCrop(224)]
    augs.append(T.RandomHorizontalFlip())
    train = T.Compose(augs)
    augs = [T.Resize(256)]
    augs.append(T.CenterCrop(224))
    val = T.Compose(augs)
    """
    assert names(text, "train", tmp_path) == ["RandomResizedCrop", "RandomHorizontalFlip"]
    assert names(text, "val", tmp_path) == ["Resize", "CenterCrop"]


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("for size in (128, 160):\n    augs.append(T.Resize(size))", "runs inside a for"),
        ("if args.strong:\n    augs.append(T.RandAugment())", "`if args.strong:`, known only"),
        ("augs.remove(augs[0])", "changes the list in a way not followed"),
        ("augs.insert(k, T.ToTensor())", "place known only at run time"),
    ],
)
def test_a_change_the_file_decides_when_it_runs_refuses_the_pipeline(
    change: str, said: str, tmp_path: Path
) -> None:
    text = "import argparse\nargs = argparse.ArgumentParser().parse_args()\n"
    text += "augs = [T.RandomResizedCrop(224), T.RandomHorizontalFlip()]\n"
    text += f"{change}\ntrain_transform = T.Compose(augs)\n"
    (found,) = read_source(HEAD + text)
    assert said in found.unreadable
    path = tmp_path / "train.py"
    path.write_text(HEAD + text)
    with pytest.raises(ReadRefused, match="cannot follow") as refused:
        read_file(path)
    assert "Explorer(port=train_transform)" in str(refused.value)


def test_a_list_changed_after_the_pipeline_takes_it_refuses_it(tmp_path: Path) -> None:
    """torchvision's Compose holds the list itself: a later append changes what runs."""
    text = """
    augs = [T.RandomResizedCrop(224)]
    train_transform = T.Compose(augs)
    augs.append(T.ToTensor())
    """
    with pytest.raises(ReadRefused, match="after the pipeline takes it"):
        names(text, tmp_path=tmp_path)


def test_a_pipeline_replaced_later_is_named_so_and_the_name_gives_the_one_that_runs(
    tmp_path: Path,
) -> None:
    text = """
    train_transform = T.Compose([T.RandomResizedCrop(224), T.ToTensor()])
    def get():
        return T.Compose([T.RandomResizedCrop(128), T.RandomHorizontalFlip(p=0.9)])
    train_transform = get()
    """
    (get, alias, dead) = sorted(read_source(HEAD + textwrap.dedent(text)), key=lambda p: p.name)
    assert dead.name == "train_transform (line 3, replaced at line 6)"
    assert (get.name, alias.name) == ("get", "train_transform")
    assert names(text, "train_transform", tmp_path) == [
        "RandomResizedCrop",
        "RandomHorizontalFlip",
    ]
    path = tmp_path / "train.py"
    found = read_file(path, pipeline="train_transform")
    assert found.compose.children[0].args == (128,)
