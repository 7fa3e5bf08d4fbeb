"""Compare with the original: the same images through the user's own pipeline and its port,
figures computed from the real outputs of both sides (albumentations in this process, a
torchvision file in the reference environment's Python)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from augexplorer.bench.against import OriginalWouldRun
from augexplorer.port.compare import compare_file, compare_object, display
from augexplorer.port.compare_figures import binned_ks, pixel_figures
from augexplorer.port.door import port_object

A = pytest.importorskip("albumentations")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

SAMPLES = Path(__file__).resolve().parents[1] / "augexplorer" / "samples" / "images"


def _images(count: int = 4, side: int = 160) -> list[np.ndarray]:
    """Sample photos, shrunk so that many draws stay quick."""
    files = sorted(SAMPLES.rglob("*.jpg"))[:count]
    out = []
    for file in files:
        with Image.open(file) as opened:
            image = opened.convert("RGB")
            image.thumbnail((side, side))
            out.append(np.asarray(image))
    return out


@pytest.fixture(scope="module")
def albumentations_pipeline() -> object:
    return A.Compose(
        [
            A.RandomResizedCrop(size=(96, 96), p=1),
            A.HorizontalFlip(),
            A.Rotate(limit=20, p=1),
            A.Resize(64, 64),
        ]
    )


@pytest.fixture(scope="module")
def albumentations_comparison(albumentations_pipeline: object) -> object:
    return compare_object(albumentations_pipeline, _images(), draws=160)


def test_exact_transforms_are_within_their_stated_bound(albumentations_comparison: object) -> None:
    comparison = albumentations_comparison
    flip = comparison.step("HorizontalFlip")  # type: ignore[attr-defined]
    assert flip.grade == "exact" and flip.pixels is not None
    assert flip.pixels.max_abs == 0 and flip.pixels.psnr is None  # "the same pixels"
    resize = comparison.step("Resize")  # type: ignore[attr-defined]
    assert resize.pixels is not None and resize.pixels.images == 4
    assert 0 < resize.pixels.max_abs <= 1  # "within 1 grey level of OpenCV's"
    rotate = comparison.step("Rotate")  # type: ignore[attr-defined]
    assert rotate.pixels is not None and rotate.pixels.max_abs <= 1  # pinned at 15 degrees
    assert "angle 15" in rotate.note


def test_random_transforms_are_compared_by_what_each_side_draws(
    albumentations_comparison: object,
) -> None:
    comparison = albumentations_comparison
    crop = comparison.step("RandomResizedCrop")  # type: ignore[attr-defined]
    assert crop.pixels is None and "at random" in crop.note
    figures = {d.quantity: d for d in crop.draws}
    assert set(figures) == {"area", "aspect"}
    area = figures["area"]
    assert area.ours_n == area.theirs_n == 160
    # scale=(0.08, 1) drawn uniformly on both sides: mean area near 0.54 less what the image
    # cannot hold; both sides agree within a few standard errors
    assert 0.2 < area.ours_mean < 0.7 and 0.2 < area.theirs_mean < 0.7
    assert abs(area.ours_mean - area.theirs_mean) < 4 * area.theirs_std / np.sqrt(80)
    (angle,) = comparison.step("Rotate").draws  # type: ignore[attr-defined]
    assert angle.ks is not None and angle.p is not None and angle.p > 0.001
    assert 8 < angle.theirs_std < 15  # uniform on [-20, 20]: 11.5
    # HorizontalFlip's own p=0.5: how often each side flipped (the replay's record, the coin)
    (applied,) = comparison.step("HorizontalFlip").draws  # type: ignore[attr-defined]
    assert applied.quantity == "applied" and applied.ours_n == applied.theirs_n == 160
    assert 0.35 < applied.ours_mean < 0.65 and 0.35 < applied.theirs_mean < 0.65
    assert applied.p is not None and applied.p > 0.001


def test_another_seed_redraws_both_sides() -> None:
    """`seed` draws both sides anew: the library's record of where a transform of its own p
    applied (albumentations' replay) and the port's coins followed one seed whatever was asked,
    so a rate that read as differing by chance could not be drawn again."""
    pipeline = A.Compose([A.Resize(64, 64), A.HorizontalFlip()])
    theirs, ours = set(), set()
    for seed in (0, 1, 2):
        comparison = compare_object(pipeline, _images(2), draws=40, seed=seed)
        (applied,) = comparison.step("HorizontalFlip").draws  # type: ignore[attr-defined]
        assert applied.quantity == "applied"
        theirs.add(applied.theirs_mean)
        ours.add(applied.ours_mean)
    assert len(theirs) > 1 and len(ours) > 1


def test_tiles_hold_both_sides_outputs(albumentations_comparison: object) -> None:
    comparison = albumentations_comparison
    assert len(comparison.original) == len(comparison.ported) == 4  # type: ignore[attr-defined]
    for theirs, ours in zip(comparison.original, comparison.ported, strict=True):  # type: ignore[attr-defined]
        assert theirs.shape == ours.shape == (64, 64, 3)
        assert display(ours).dtype == np.uint8
    assert "albumentations 2" in comparison.table()  # type: ignore[attr-defined]


def test_a_mis_set_port_is_caught(albumentations_pipeline: object) -> None:
    """The graph as edited is what is compared: a port whose resize samples its nearest
    neighbour instead of bilinear is far off where the real one is within a grey level."""
    graph = port_object(albumentations_pipeline).spec
    mis_set = graph.set_arg("resize", "interp_type", "INTERP_NN")
    comparison = compare_object(albumentations_pipeline, _images(2), graph=mis_set, draws=0)
    resize = comparison.step("Resize")
    assert resize.pixels is not None and resize.pixels.max_abs > 20
    assert comparison.step("HorizontalFlip").pixels.max_abs == 0  # type: ignore[union-attr]


def test_pixel_figures_and_the_binned_test() -> None:
    a = np.zeros((4, 4, 3), np.uint8)
    b = a.copy()
    b[0, 0, 0] = 10
    figures = pixel_figures([a], [b])
    assert figures.max_abs == 10 and figures.mean_abs == pytest.approx(10 / 48)
    assert figures.psnr == pytest.approx(10 * np.log10(255**2 / (100 / 48)))
    with pytest.raises(ValueError, match="image 0"):
        pixel_figures([a], [b[:2]])
    same = np.array([10.0, 20, 30, 40])
    assert binned_ks(same, same) == (0.0, 1.0)
    distance, p = binned_ks(np.array([100.0, 0, 0, 0]), np.array([0.0, 0, 0, 100]))
    assert distance == 1.0 and p < 1e-10


TORCHVISION_FILE = textwrap.dedent(
    """
    import torchvision.transforms as T

    train_transform = T.Compose([
        T.RandomResizedCrop(96),
        T.RandomHorizontalFlip(),
        T.RandomRotation(20),
        T.Resize(64),
        T.ToTensor(),
        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    """
)


def test_a_file_runs_only_when_allowed(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(TORCHVISION_FILE, encoding="utf-8")
    with pytest.raises(OriginalWouldRun, match="run_file=True"):
        compare_file(path, _images(1))


@pytest.mark.slow
def test_a_torchvision_file_against_real_torchvision(reference_python: str, tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(TORCHVISION_FILE, encoding="utf-8")
    comparison = compare_file(path, _images(), run_file=True, python=reference_python, draws=120)
    assert "torchvision" in comparison.versions and not comparison.original_error
    assert [o.shape for o in comparison.original] == [(64, 64, 3)] * 4
    assert [o.shape for o in comparison.ported] == [(64, 64, 3)] * 4
    flip = comparison.step("RandomHorizontalFlip")
    assert flip.pixels is not None and flip.pixels.max_abs == 0
    (applied,) = flip.draws  # flipped where the output is not the input / DALI's coin
    assert applied.theirs_n == applied.ours_n == 120 and 0.3 < applied.theirs_mean < 0.7
    to_tensor = comparison.step("ToTensor")
    assert to_tensor.pixels is not None and to_tensor.pixels.peak == 1.0
    assert to_tensor.pixels.max_abs < 1e-3 / 255  # "below 0.001 grey levels"
    normalize = comparison.step("Normalize")  # folded: compared with ToTensor before it
    assert normalize.pixels is not None and normalize.pixels.max_abs < 1e-5
    assert "ToTensor" in normalize.note
    rotation = comparison.step("RandomRotation")
    assert rotation.pixels is not None and rotation.pixels.mean_abs < 0.5
    (angle,) = rotation.draws
    assert angle.theirs_n == angle.ours_n == 120 and angle.p is not None and angle.p > 0.001
    crop = comparison.step("RandomResizedCrop")
    assert {d.quantity for d in crop.draws} == {"area", "aspect"}


def test_a_python_without_the_library_is_named_with_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(TORCHVISION_FILE, encoding="utf-8")
    import importlib.util
    import sys

    from augexplorer.bench.against import OriginalFailed

    if importlib.util.find_spec("torchvision") is not None:
        pytest.skip("torchvision is installed in this Python")
    with pytest.raises(OriginalFailed, match=r"torchvision does not import in .*fix: give the"):
        compare_file(path, _images(1), run_file=True, python=sys.executable, draws=0)


BUILT_BY_A_FUNCTION = """
import torchvision.transforms as T

def build(size=224):
    return T.Compose([T.Resize((size, size)), T.RandomHorizontalFlip()])
"""


def test_the_values_the_port_is_given_build_the_original_too(
    reference_python: str, tmp_path: Path
) -> None:
    """`params` set the port's size: the original is built with them too (it was built with
    the function's defaults, 224 against the port's 48, and compared so)."""
    path = tmp_path / "train.py"
    path.write_text(BUILT_BY_A_FUNCTION, encoding="utf-8")
    comparison = compare_file(
        path, _images(2), run_file=True, python=reference_python, params={"size": 48}, draws=0
    )
    assert not comparison.original_error
    assert [o.shape for o in comparison.original] == [(48, 48, 3)] * 2
    assert [o.shape for o in comparison.ported] == [(48, 48, 3)] * 2


def test_a_value_the_original_cannot_be_given_is_refused_not_compared() -> None:
    import types

    from augexplorer.bench.original_runner import Refused, _find

    seen: list[int] = []

    def build(size: int = 224) -> None:
        seen.append(size)

    with pytest.raises(Refused, match="cannot be given crop"):
        _find({"build": build}, "build", "torchvision", "train.py", {"crop": 200})
    with pytest.raises(Refused, match="cannot be given size"):
        _find({"train": object()}, "train", "torchvision", "train.py", {"size": 200})
    with pytest.raises(Refused):  # built with the value; None is no Compose
        _find({"build": build}, "build", "albumentations", "train.py", {"size": 96})
    assert seen == [96]
    # a value the file settles itself as given (an argparse default) needs nothing
    args = types.SimpleNamespace(size=64)
    with pytest.raises(Refused, match="no albumentations Compose") as refused:
        _find({"t": object(), "args": args}, "t", "albumentations", "x.py", {"args.size": 64})
    assert "cannot be given" not in str(refused.value)
    with pytest.raises(Refused, match="assigned again later"):
        _find({"t": object()}, "t (line 2, replaced at line 5)", "albumentations", "x.py", {})


AFTER_TO_TENSOR = """
import torch
import torchvision.transforms as T
from torchvision.transforms import v2

v1 = T.Compose([T.Resize((64, 64)), T.ToTensor(), T.RandomErasing(p=0.5, value=0)])
v2_pipeline = v2.Compose([
    v2.ToImage(),
    v2.Resize((64, 64)),
    v2.ToDtype(torch.float32, scale=True),
    v2.Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]),
])
"""


@pytest.mark.parametrize(
    ("pipeline", "name"), [("v1", "RandomErasing"), ("v2_pipeline", "Normalize")]
)
def test_a_transform_taking_a_tensor_is_compared_after_the_conversion(
    pipeline: str, name: str, reference_python: str, tmp_path: Path
) -> None:
    """RandomErasing and v2's Normalize refuse the PIL image a transform alone was given ('the
    original does not run this transform alone'): both sides now convert first, as the
    pipeline does."""
    path = tmp_path / "train.py"
    path.write_text(AFTER_TO_TENSOR, encoding="utf-8")
    comparison = compare_file(
        path, _images(2), run_file=True, python=reference_python, pipeline=pipeline, draws=0
    )
    step = comparison.step(name)
    assert "does not run this transform alone" not in step.note, step.note
    assert "on both sides, as the pipeline runs it" in step.note or "folded into" in step.note
    if name == "Normalize":
        assert step.pixels is not None and step.pixels.max_abs < 1e-4
