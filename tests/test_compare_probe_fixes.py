"""Compare with the original, on files as users write them: a top-level argument parser, a
pipeline kept in a dict or built in a class's method, a function with a return per split, and a
colour jitter that sets only its hue. Each once failed, or compared the wrong thing."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from test_port_compare import _images

from augexplorer.bench import original_runner
from augexplorer.bench.original_runner import Refused, _find
from augexplorer.port.compare import compare_file
from augexplorer.port.compare_pins import pin_of
from augexplorer.port.model import TransformCall

A = pytest.importorskip("albumentations")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

PARSED_AT_THE_TOP = """
import argparse
import torchvision.transforms as T

parser = argparse.ArgumentParser()
parser.add_argument('--img-size', type=int, default=48)
args = parser.parse_args()

train_transform = T.Compose([
    T.Resize((args.img_size, args.img_size)),
    T.RandomHorizontalFlip(),
])
"""

RETURN_PER_SPLIT = """
import albumentations as A


def get_transforms(data):
    if data == 'train':
        return A.Compose([A.Resize(64, 64), A.HorizontalFlip()])
    elif data == 'valid':
        return A.Compose([A.Resize(48, 48)])
"""


def _run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, source: str, pipeline: str) -> object:
    """The file's pipeline as the runner finds it, in this process (albumentations imports
    here), with the runner's own command line in sys.argv as it has it."""
    path = tmp_path / "train.py"
    path.write_text(source, encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "argv", ["original_runner.py", "job.json", "result.json"])
    monkeypatch.delitem(sys.modules, original_runner.RUN_NAME, raising=False)
    job = {"source": source, "where": str(path), "pipeline": pipeline, "params": {}}
    return original_runner._pipeline(job, "albumentations")


def _sizes(compose: Any) -> list[tuple[int, int]]:
    return [(t.height, t.width) for t in compose.transforms if type(t).__name__ == "Resize"]


def test_a_top_level_parser_takes_its_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """It read the runner's `job.json result.json` and exited (SystemExit: 2)."""
    source = PARSED_AT_THE_TOP.replace("torchvision.transforms as T", "albumentations as A")
    source = source.replace("T.Compose", "A.Compose").replace(
        "T.RandomHorizontalFlip", "A.HorizontalFlip"
    )
    source = source.replace(
        "T.Resize((args.img_size, args.img_size))", "A.Resize(args.img_size, args.img_size)"
    )
    found = _run(monkeypatch, tmp_path, source, "train_transform")
    assert _sizes(found) == [(48, 48)]
    assert sys.argv == ["original_runner.py", "job.json", "result.json"]  # restored


@pytest.mark.slow
def test_a_top_level_parser_runs_in_the_reference_python(
    reference_python: str, tmp_path: Path
) -> None:
    path = tmp_path / "h01.py"
    path.write_text(PARSED_AT_THE_TOP, encoding="utf-8")
    comparison = compare_file(
        path,
        _images(2),
        run_file=True,
        python=reference_python,
        params={"args.img_size": 48},
        draws=0,
    )
    assert not comparison.original_error, comparison.original_error
    assert [o.shape for o in comparison.original] == [(48, 48, 3)] * 2


def test_a_pipeline_in_a_dict_is_found_by_its_key() -> None:
    train, val = A.Compose([A.Resize(64, 64)]), A.Compose([A.Resize(48, 48)])
    namespace = {"data_transforms": {"train": train, "val": val}}
    found = _find(namespace, "data_transforms['train']", "albumentations", "x.py")
    assert found is train
    assert _find(namespace, "data_transforms['val']", "albumentations", "x.py") is val
    with pytest.raises(Refused, match="no albumentations Compose called"):
        _find(namespace, "data_transforms['test']", "albumentations", "x.py")


def test_a_pipeline_built_in_a_method_is_refused_with_why() -> None:
    """Not the file's other Compose in its place, nor a class built with made-up arguments."""
    other = A.Compose([A.Resize(48, 48)])
    with pytest.raises(Refused, match="inside a method of a class") as refused:
        _find({"other": other}, "self.transform", "albumentations", "x.py")
    assert "assign it at module level" in str(refused.value)


@pytest.mark.parametrize(("line", "size"), [(7, 64), (9, 48)])
def test_a_return_per_split_is_called_with_the_split_that_reaches_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, line: int, size: int
) -> None:
    """It said 'get_transforms is assigned again later in the file'."""
    name = f"get_transforms (line {line})"
    found = _run(monkeypatch, tmp_path, RETURN_PER_SPLIT, name)
    assert _sizes(found) == [(size, size)]


def test_a_return_no_condition_selects_is_refused_with_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    unreadable = RETURN_PER_SPLIT.replace("if data == 'train':", "if data.startswith('tr'):")
    with pytest.raises(Refused, match=r"returns more than one pipeline.*line 7") as refused:
        _run(monkeypatch, tmp_path, unreadable, "get_transforms (line 7)")
    assert "assigned again" not in str(refused.value)
    # a name two functions give their own pipelines: neither is what the name holds
    with pytest.raises(Refused, match="names more than one pipeline"):
        _find({}, "transform (line 4)", "albumentations", "x.py")
    with pytest.raises(Refused, match="assigned again later"):
        _find({}, "transform (line 4, replaced at line 9)", "albumentations", "x.py")


@pytest.mark.parametrize(
    ("call", "label", "pinned"),
    [
        # the factor the call sets, not brightness left at the identity
        (
            TransformCall("torchvision", "ColorJitter", kwargs={"hue": (-0.1, 0.2)}),
            "hue 0.05 alone",
            {"hue": (0.05, 0.05), "brightness": 0.0},
        ),
        # a range ending at the identity is compared at its other end
        (
            TransformCall("torchvision", "ColorJitter", kwargs={"hue": (-0.1, 0.0)}),
            "hue -0.1 alone",
            {"hue": (-0.1, -0.1)},
        ),
        (
            TransformCall("torchvision", "ColorJitter", args=(0.0, 0.4, 0.3)),
            "contrast 1.2 alone (saturation also set: compared by their draws)",
            {},
        ),
        # albumentations draws every factor by default: brightness=0 sets none
        (
            TransformCall("albumentations", "ColorJitter", kwargs={"brightness": 0}),
            "contrast 1.2 alone (saturation, hue also set: compared by their draws)",
            {"brightness": (1.0, 1.0), "contrast": (1.2, 1.2), "hue": (0.0, 0.0)},
        ),
    ],
)
def test_a_colour_jitter_is_pinned_by_a_factor_it_sets(
    call: TransformCall, label: str, pinned: dict[str, Any]
) -> None:
    pin = pin_of(call)
    assert pin is not None
    assert pin.describe(call) == label
    applied = pin.apply(call)
    for name, value in pinned.items():
        assert applied.kwargs[name] == pytest.approx(value), name
    # a jitter setting nothing is the identity: nothing to pin
    assert pin_of(TransformCall("torchvision", "ColorJitter")) is None


@pytest.mark.slow
def test_hue_alone_is_compared_and_an_identity_is_not_called_identical(
    reference_python: str, tmp_path: Path
) -> None:
    """ColorJitter(hue=...) was compared at 'brightness 1 alone': the identity, 'identical'."""
    path = tmp_path / "h05.py"
    path.write_text(
        textwrap.dedent(
            """
            import torchvision.transforms as T

            train_transform = T.Compose([
                T.ColorJitter(hue=(-0.1, 0.2)),
                T.RandomRotation((0, 0)),
            ])
            """
        ),
        encoding="utf-8",
    )
    comparison = compare_file(path, _images(2), run_file=True, python=reference_python, draws=0)
    jitter = comparison.step("ColorJitter")
    assert "pixels with hue 0.05 alone" in jitter.note, jitter.note
    assert jitter.pixels is not None and jitter.pixels.psnr is not None  # not the identity
    rotation = comparison.step("RandomRotation")  # pinned at 0 degrees: does nothing
    assert rotation.pixels is None and "compare the identity" in rotation.note, rotation.note
