"""Compare runs the original pipeline the port read, as a whole: one a class builds in its
``__init__`` (BYOL's two views, torchvision's ``SegmentationPresetTrain(base_size=...,
crop_size=...)``), one a function builds from the file's one call (``build_transforms(CFG)``) or
from the parsed command line (``build(args)``), with the values the port read. Each once said
"the original pipeline did not run". Where it truly cannot run, it says why and the fix. The
table names a positional argument by the transform's own parameter, and a detection pipeline's
boxes as its boxes."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from test_port_compare import _images

from augexplorer.bench import original_runner
from augexplorer.bench.original_runner import Refused
from augexplorer.port.compare import compare_file
from augexplorer.port.compare_random import OWN_DRAWS, port_draws_note
from augexplorer.port.door import port_call
from augexplorer.port.model import PortedStep, TransformCall, Unknown
from augexplorer.port.original_builder import builder_of
from augexplorer.port.reading import read_source

A = pytest.importorskip("albumentations")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

TWO_VIEWS = """
import albumentations as A


class Aug:
    def __init__(self, size=40):
        self.t1 = A.Compose([A.Resize(size, size), A.HorizontalFlip(p=0.5)])
        self.t2 = A.Compose([A.Resize(size, size), A.VerticalFlip(p=0.5)])

    def __call__(self, image):
        return self.t1(image=image), self.t2(image=image)
"""

PRESET = """
import albumentations as A


class SegmentationPresetTrain:
    def __init__(self, *, base_size, crop_size, hflip_prob=0.5):
        trans = [A.SmallestMaxSize(max_size=int(0.5 * base_size))]
        if hflip_prob > 0:
            trans.append(A.HorizontalFlip(p=hflip_prob))
        trans.append(A.CenterCrop(crop_size, crop_size))
        self.transforms = A.Compose(trans)


preset = SegmentationPresetTrain(base_size=100, crop_size=36)
"""

CONFIG_CLASS = """
import albumentations as A


class CFG:
    img_size = 44


def build_transforms(cfg):
    return A.Compose([A.Resize(cfg.img_size, cfg.img_size), A.HorizontalFlip(p=0.5)])


train_tf = build_transforms(CFG)
"""

PARSED_IN_MAIN = """
import argparse
import albumentations as A


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=52)
    parser.add_argument("--epochs", type=int, default=90)
    return parser.parse_args()


def build(args):
    return A.Compose([A.Resize(args.size, args.size), A.HorizontalFlip()])


if __name__ == "__main__":
    args = get_args()
    t = build(args)
"""

NEEDS_A_VALUE = """
import albumentations as A


def build(crop_size):
    return A.Compose([A.CenterCrop(crop_size, crop_size)])
"""


def _original(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    source: str,
    pipeline: str,
    params: dict[str, Any] | None = None,
) -> Any:
    """The pipeline the runner builds from the file, in this process (albumentations imports
    here), told how by what the port read (the job compare_file sends)."""
    path = tmp_path / "train.py"
    path.write_text(source, encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, original_runner.RUN_NAME, raising=False)
    (found,) = [p for p in read_source(source, params=params) if p.name == pipeline]
    job = {
        "source": source,
        "where": str(path),
        "pipeline": pipeline,
        "params": dict(params or {}),
        "builder": builder_of(source, found.compose.line),
    }
    return original_runner._pipeline(job, "albumentations")


def _names(compose: Any) -> list[str]:
    return [type(t).__name__ for t in compose.transforms]


def _resize(compose: Any) -> tuple[int, int]:
    (resize,) = [t for t in compose.transforms if type(t).__name__ == "Resize"]
    return resize.height, resize.width


def test_a_class_keeping_two_views_builds_the_one_ported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """It said 'Compare does not construct your classes': now built with __init__'s defaults."""
    first = _original(monkeypatch, tmp_path, TWO_VIEWS, "self.t1")
    assert _names(first) == ["Resize", "HorizontalFlip"] and _resize(first) == (40, 40)
    second = _original(monkeypatch, tmp_path, TWO_VIEWS, "self.t2")
    assert _names(second) == ["Resize", "VerticalFlip"]
    given = _original(monkeypatch, tmp_path, TWO_VIEWS, "self.t1", {"size": 24})
    assert _resize(given) == (24, 24)


def test_a_preset_class_is_built_with_its_one_calls_arguments(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    builder = builder_of(PRESET, 11)
    assert builder is not None and builder["kind"] == "class"
    assert builder["arguments"]["crop_size"]["expression"] == "36"
    built = _original(monkeypatch, tmp_path, PRESET, "self.transforms")
    assert _names(built) == ["SmallestMaxSize", "HorizontalFlip", "CenterCrop"]
    assert built.transforms[0].max_size in (50, [50]) and built.transforms[2].height == 36


def test_a_function_is_called_with_the_files_one_calls_settings_object(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (found,) = [p for p in read_source(CONFIG_CLASS) if p.name == "build_transforms"]
    # the port reads cfg.img_size through the one call build_transforms(CFG), and says so
    assert "Resize(44, 44)" in [c.text() for c in found.compose.children]
    assert any("build_transforms(CFG) (line 13)" in d for d in found.defaults)
    built = _original(monkeypatch, tmp_path, CONFIG_CLASS, "build_transforms")
    assert _resize(built) == (44, 44)
    # a setting given another value: the port and the original both take it, the file's
    # own class left as it is
    changed = _original(
        monkeypatch, tmp_path, CONFIG_CLASS, "build_transforms", {"cfg.img_size": 30}
    )
    assert _resize(changed) == (30, 30)


def test_parsed_options_made_under_main_are_the_parsers_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`args` exists only under `if __name__ == '__main__':`, which the runner does not run."""
    assert _resize(_original(monkeypatch, tmp_path, PARSED_IN_MAIN, "build")) == (52, 52)
    given = _original(monkeypatch, tmp_path, PARSED_IN_MAIN, "build", {"args.size": 28})
    assert _resize(given) == (28, 28)


def test_a_value_no_call_gives_is_asked_for_by_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(Refused) as refused:
        _original(monkeypatch, tmp_path, NEEDS_A_VALUE, "build")
    said = str(refused.value)
    assert "build() needs crop_size, which has no default" in said
    assert "params={'crop_size': VALUE}" in said and "needs arguments" not in said
    built = _original(monkeypatch, tmp_path, NEEDS_A_VALUE, "build", {"crop_size": 32})
    assert built.transforms[0].height == 32


def test_an_argument_made_inside_main_is_made_again_or_refused_with_why(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The runner does not run `if __name__ == '__main__':`; a settings object or a literal
    assigned there once is made again, a call of another function is not (it may train)."""
    main = "\nif __name__ == '__main__':\n    size = {}\n    t = build(size)\n"
    built = _original(monkeypatch, tmp_path, NEEDS_A_VALUE + main.format("48"), "build")
    assert built.transforms[0].height == 48
    source = CONFIG_CLASS.replace("train_tf = build_transforms(CFG)", "")
    source += "\nif __name__ == '__main__':\n    cfg = CFG()\n    build_transforms(cfg)\n"
    assert _resize(_original(monkeypatch, tmp_path, source, "build_transforms")) == (44, 44)
    picked = "\n\ndef pick():\n    return 48\n" + main.format("pick()")
    with pytest.raises(Refused) as refused:
        _original(monkeypatch, tmp_path, NEEDS_A_VALUE + picked, "build")
    said = str(refused.value)
    assert "build's parameter crop_size is given size by the file's one call" in said
    assert "NameError" in said and "params={'crop_size': VALUE}" in said


def test_a_positional_argument_is_named_by_the_transforms_parameter() -> None:
    """It read '#0=crop_size is known only when the file runs'."""
    crop = TransformCall("albumentations", "CenterCrop", args=(Unknown("crop_size", 5), 32))
    (refusal,) = port_call(TransformCall("albumentations", "Compose", children=(crop,))).refusals
    assert refusal.reason.startswith(
        "height=crop_size (its first argument) is known only when the file runs"
    )
    assert "#0" not in refusal.reason and "--param crop_size=VALUE" in refusal.reason
    # a class outside the tables: the argument said by its place
    assert Unknown("n", None).explain("#1").startswith("n (its second argument) is known only")


def test_a_transform_with_nothing_to_draw_names_the_node_that_draws() -> None:
    """ToImage read 'the port draws its parameters at random' where another node drew."""
    flip = TransformCall("albumentations", "HorizontalFlip", kwargs={"p": 0.5})
    drawn = port_call(TransformCall("albumentations", "Compose", children=(flip,)))
    plain = PortedStep(TransformCall("albumentations", "ToGray"), (), drawn.steps[0].origin)
    from augexplorer.port.compare import _on_arrays

    spec = _on_arrays(drawn.spec, 8)
    said = port_draws_note(plain, spec, _images(4) * 2)
    assert said.startswith("no pixel figure: ToGray has nothing to draw, but its port alone")
    assert drawn.steps[0].nodes[0].id in said
    assert port_draws_note(drawn.steps[0], spec, _images(4) * 2) == OWN_DRAWS


TORCHVISION_CLASS = """
import torchvision.transforms as T


class Aug:
    def __init__(self, size=48):
        self.t1 = T.Compose([T.Resize((size, size)), T.RandomHorizontalFlip(p=0.5)])
        self.t2 = T.Compose([T.Resize((size, size)), T.ColorJitter(0.4, 0.4)])
"""

DETECTION = """
import torch
from torchvision.transforms import v2 as T

train = T.Compose([
    T.ToImage(),
    T.RandomHorizontalFlip(p=0.5),
    T.ToDtype(torch.float32, scale=True),
    T.SanitizeBoundingBoxes(),
])
"""


@pytest.mark.slow
def test_whole_pipelines_run_in_the_reference_python(reference_python: str, tmp_path: Path) -> None:
    path = tmp_path / "aug.py"
    path.write_text(textwrap.dedent(TORCHVISION_CLASS), encoding="utf-8")
    comparison = compare_file(
        path, _images(2), run_file=True, python=reference_python, pipeline="self.t1", draws=0
    )
    assert not comparison.original_error, comparison.original_error
    assert [o.shape for o in comparison.original] == [(48, 48, 3)] * 2
    assert [o.shape for o in comparison.ported] == [(48, 48, 3)] * 2
    path = tmp_path / "parsed.py"
    path.write_text(PARSED_IN_MAIN, encoding="utf-8")
    comparison = compare_file(
        path, _images(2), run_file=True, python=reference_python, pipeline="build", draws=0
    )
    assert not comparison.original_error, comparison.original_error
    assert [o.shape for o in comparison.original] == [(52, 52, 3)] * 2


@pytest.mark.slow
def test_a_detection_pipelines_rows_read_for_a_person(
    reference_python: str, tmp_path: Path
) -> None:
    path = tmp_path / "detection.py"
    path.write_text(DETECTION, encoding="utf-8")
    comparison = compare_file(path, _images(2), run_file=True, python=reference_python, draws=0)
    boxes = comparison.step("the whole pipeline's boxes")
    assert boxes.line == 5 and "not their boxes" in boxes.note
    assert not any(s.transform == "Compose()" for s in comparison.steps)
    to_image = comparison.step("ToImage")
    assert "at random" not in to_image.note and to_image.pixels is not None
    assert comparison.original_error.startswith("it is a detection pipeline, which torchvision")
    assert "docs/annotations.md" in comparison.original_error
    assert len(comparison.original_error) < 420  # not the tensor's whole repr
