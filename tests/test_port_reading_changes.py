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


def _read(text: str) -> list[str]:
    (found,) = [p for p in read_source(HEAD + textwrap.dedent(text)) if not p.alias_of][:1]
    return [child.name for child in found.compose.children]


def test_a_pipeline_a_function_returns_is_one_pipeline_by_either_name(tmp_path: Path) -> None:
    text = """
    def get_transform():
        return T.Compose([T.RandomResizedCrop(224), T.ToTensor()])
    train_transform = get_transform()
    """
    assert names(text, tmp_path=tmp_path) == ["RandomResizedCrop", "ToTensor"]  # no name needed
    assert names(text, "train_transform", tmp_path) == names(text, "get_transform", tmp_path)
    # edited after the call, the name holds a pipeline of its own: two, and the choice is asked
    edited = text + "train_transform.transforms.append(T.Normalize((0.5,), (0.5,)))\n"
    with pytest.raises(ReadRefused, match="holds 2 pipelines"):
        names(edited, tmp_path=tmp_path)
    assert names(edited, "train_transform", tmp_path)[-1] == "Normalize"


def test_a_wrapped_pipeline_still_counts_and_is_found_by_its_name(tmp_path: Path) -> None:
    text = """
    class TwoCrops:
        def __init__(self, t):
            self.t = t
    train_transform = T.Compose([T.RandomResizedCrop(224), T.ToTensor()])
    train_transform = TwoCrops(train_transform)
    val_transform = T.Compose([T.Resize(256), T.CenterCrop(224)])
    """
    with pytest.raises(ReadRefused, match="holds 2 pipelines"):
        names(text, tmp_path=tmp_path)
    assert names(text, "train_transform", tmp_path) == ["RandomResizedCrop", "ToTensor"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (  # the list changed by a function of its own, whenever that is called
            "augs = [T.RandomResizedCrop(224)]\ndef more():\n    augs.append(T.ToTensor())\n"
            "more()\nt = T.Compose(augs)\n",
            "in another function",
        ),
        (  # the list changed under another name
            "augs = [T.RandomResizedCrop(224)]\nmine = augs\nmine.append(T.ToTensor())\n"
            "t = T.Compose(augs)\n",
            "under another name, mine",
        ),
        (  # a test on a parameter of the function that builds the list
            "strong = False\ndef build(strong):\n    augs = [T.RandomResizedCrop(224)]\n"
            "    if strong:\n        augs.append(T.RandAugment())\n    return T.Compose(augs)\n",
            "`if strong:`, known only",
        ),
        (  # a flag the file sets twice: which value holds when the function runs?
            "STRONG = False\ndef build():\n    augs = [T.RandomResizedCrop(224)]\n"
            "    if STRONG:\n        augs.append(T.RandAugment())\n    return T.Compose(augs)\n"
            "STRONG = True\nt = build()\n",
            "`if STRONG:`, known only",
        ),
    ],
)
def test_a_change_the_reading_cannot_place_refuses_rather_than_guess(text: str, said: str) -> None:
    found = [p for p in read_source(HEAD + text) if p.unreadable]
    assert found and said in found[0].unreadable, [p.unreadable for p in found]


def test_what_the_file_settles_itself_is_followed() -> None:
    main = (
        'if __name__ == "__main__":\n    augs = [T.RandomResizedCrop(224)]\n'
        "    augs.append(T.ToTensor())\n    t = T.Compose(augs)\n"
    )
    assert _read(main) == ["RandomResizedCrop", "ToTensor"]
    mode = (
        'MODE = "b"\naugs = [T.RandomResizedCrop(224)]\nif MODE == "a":\n'
        '    augs.append(T.RandAugment())\nelif MODE != "c":\n    augs.append(T.ToTensor())\n'
        "t = T.Compose(augs)\n"
    )
    assert _read(mode) == ["RandomResizedCrop", "ToTensor"]
    one_line = "augs = [T.RandomResizedCrop(224)]; augs.append(T.ToTensor()); t = T.Compose(augs)\n"
    assert _read(one_line) == ["RandomResizedCrop", "ToTensor"]
    looped = (
        "pipes = {}\nfor name in ['a']:\n    augs = [T.Resize(256)]\n"
        "    augs.append(T.CenterCrop(224))\n    pipes[name] = T.Compose(augs)\n"
    )
    assert _read(looped) == ["Resize", "CenterCrop"]


@pytest.mark.parametrize(
    ("text", "said", "fix"),
    [
        (
            "flip = T.RandomHorizontalFlip()\nflip.p = 0.0\n"
            "transform = T.Compose([T.Resize(150), flip])\n",
            "line 3: flip.p = 0.0 sets an attribute of RandomHorizontalFlip (line 2), a "
            "transform the pipeline holds, after building it",
            "fix: pass the value to the constructor, RandomHorizontalFlip(..., p=0.0), and "
            "leave out the line that sets it; or port the object",
        ),
        (  # after the pipeline takes it: the same object, so what runs too
            "flip = T.RandomHorizontalFlip()\ntransform = T.Compose([T.Resize(150), flip])\n"
            "flip.p = 0.0\n",
            "line 4: flip.p = 0.0 sets an attribute of RandomHorizontalFlip (line 2)",
            "RandomHorizontalFlip(..., p=0.0)",
        ),
        (
            "flip = T.RandomHorizontalFlip()\nsetattr(flip, 'p', 0.0)\n"
            "transform = T.Compose([T.Resize(150), flip])\n",
            "line 3: setattr(flip, 'p', 0.0) sets an attribute of RandomHorizontalFlip",
            "fix: pass the value to the transform's constructor",
        ),
        (
            "transform = T.Compose([T.Resize(150), T.RandomHorizontalFlip()])\n"
            "transform.transforms[1].p = 0.0\n",
            "line 3: transform.transforms[1].p = 0.0 sets an attribute of "
            "RandomHorizontalFlip, an item of transform.transforms",
            "RandomHorizontalFlip(..., p=0.0)",
        ),
        (
            "augs = [T.Resize(150), T.RandomHorizontalFlip()]\naugs[1].p = 0.0\n"
            "transform = T.Compose(augs)\n",
            "line 3: augs[1].p = 0.0 sets an attribute of RandomHorizontalFlip, an item of augs",
            "RandomHorizontalFlip(..., p=0.0)",
        ),
        (
            "flip = T.RandomHorizontalFlip()\ndef off():\n    flip.p = 0.0\n"
            "transform = T.Compose([T.Resize(150), flip])\n",
            "after building it, in another function",
            "RandomHorizontalFlip(..., p=0.0)",
        ),
    ],
)
def test_an_attribute_set_on_a_held_transform_refuses_the_pipeline(
    text: str, said: str, fix: str, tmp_path: Path
) -> None:
    """The pipeline holds the object the file changes: ported from the call alone, the flip's
    p=0.0 read as 0.5, in silence."""
    with pytest.raises(ReadRefused, match="cannot follow") as refused:
        names(text, tmp_path=tmp_path)
    assert said in str(refused.value)
    assert fix in str(refused.value)


@pytest.mark.parametrize(
    "text",
    [
        # the branch the file settles never runs
        "flip = T.RandomHorizontalFlip()\nif False:\n    flip.p = 0.0\n"
        "transform = T.Compose([flip])\n",
        # another object of the name, made after the pipeline took the first one
        "flip = T.RandomHorizontalFlip()\ntransform = T.Compose([flip])\n"
        "flip = T.RandomVerticalFlip()\nflip.p = 1.0\n",
    ],
)
def test_an_attribute_set_on_what_the_pipeline_does_not_hold_is_no_change(
    text: str, tmp_path: Path
) -> None:
    assert names(text, tmp_path=tmp_path) == ["RandomHorizontalFlip"]
