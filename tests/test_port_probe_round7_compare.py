"""Probe findings, round 7 (Compare): draws a port makes that Compare did not test.

- torchvision's ``RandomChoice`` had no row: which transform it picked, and how often, was never
  counted against torchvision's own picks (with p weights or without). Now its pick is counted
  in torchvision (its class given stand-ins that say when they run) against the port's pick
  node, a rate per transform with its interval and verdict, as albumentations' OneOf is.
- ``RandomCrop``'s window was pinned for its pixels, but where it starts was never compared:
  now its top and left (in the image's own pixels, negative inside the padding) are tested
  against torchvision's (v1 and v2, padded or not, pad_if_needed) by a two-sample KS test.

RandomApply's p and albumentations' transforms' own p were compared already (round 5b and
round 6's tests): nothing new for them here.

Sample counts: 480 picks a side (RandomChoice), 400 window starts a side (RandomCrop); each
verdict is judged at 99.9% (a rate's intervals and two-proportion test, a KS p), so two right
sides read "differ" about once in a thousand rows, and the ports edited below are far off
(a pick at 0.9 against 0.2; windows in the first half of the room): they differ at any seed.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from test_port_compare import _images

from augexplorer.port.compare import Comparison, StepComparison, compare_file
from augexplorer.port.compare_figures import DrawFigures
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source

PICKS = 480
STARTS = 400


def _write(folder: Path, text: str) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _drawn(step: StepComparison) -> dict[str, DrawFigures]:
    return {figure.quantity: figure for figure in step.draws}


def _steps(comparison: Comparison, name: str) -> list[StepComparison]:
    return [step for step in comparison.steps if step.transform.startswith(f"{name}(")]


# ---- RandomChoice: each pick against torchvision's own --------------------------------------

CHOICES = """
import torchvision.transforms as T
from torchvision.transforms import v2

train_tf = T.Compose([
    T.RandomChoice([T.RandomRotation(10), T.Grayscale(3), T.RandomGrayscale(p=0.2)],
                   p=[0.5, 0.3, 0.2]),
    T.RandomChoice([T.RandomHorizontalFlip(p=1.0), T.RandomVerticalFlip(p=1.0)]),
    v2.RandomChoice([v2.Grayscale(3), v2.RandomInvert(p=1.0)], p=[1, 3]),
])
"""
# each RandomChoice's transforms and their shares of p, normalized as torchvision normalizes
SHARES = [
    {"RandomRotation": 0.5, "Grayscale": 0.3, "RandomGrayscale": 0.2},
    {"RandomHorizontalFlip": 0.5, "RandomVerticalFlip": 0.5},
    {"Grayscale": 0.25, "RandomInvert": 0.75},
]


@pytest.fixture(scope="module")
def choices(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    path = _write(tmp_path_factory.mktemp("choices"), CHOICES)
    return compare_file(
        path, _images(4, 48), run_file=True, python=reference_python, draws=PICKS, seed=2
    )


def test_random_choice_counts_each_pick_against_torchvision(choices: Comparison) -> None:
    groups = _steps(choices, "RandomChoice")
    assert len(groups) == 3, choices.table()
    for step, shares in zip(groups, SHARES, strict=True):
        rates = _drawn(step)
        labels = [f"{name} picked (#{i + 1})" for i, name in enumerate(shares)]
        assert list(rates) == labels, step.describe()
        for label, share in zip(labels, shares.values(), strict=True):
            figure = rates[label]
            assert figure.expected == pytest.approx(share)
            assert figure.ours_n == figure.theirs_n == PICKS, step.describe()
            assert figure.ours_interval is not None and figure.theirs_interval is not None
            assert figure.verdict() == "agree", step.describe()
        # torchvision's own count: exactly one transform runs a sample
        assert sum(f.theirs_mean for f in rates.values()) == pytest.approx(1.0)
        assert "how often it picks each transform it holds" in step.note
    # the rows stand where the pipeline has the group: before the transforms it holds
    names = [step.transform.split("(", 1)[0] for step in choices.steps[:4]]
    assert names == ["RandomChoice", "RandomRotation", "Grayscale", "RandomGrayscale"]
    # a held transform's p is its own coin, drawn when picked (torchvision does not weigh the
    # pick by it, as albumentations' OneOf does): its rate, alone, is still compared
    (grayscale,) = _steps(choices, "RandomGrayscale")
    applied = _drawn(grayscale)["applied"]
    assert applied.expected == pytest.approx(0.2)
    assert applied.verdict() == "agree", grayscale.describe()


def test_a_port_picking_otherwise_reads_differ(reference_python: str, tmp_path: Path) -> None:
    """The port's pick node edited to weights 0.9, 0.05, 0.05 where the file says 0.2, 0.4,
    0.4: the first transform's rate differs on both counts (the sides, and the user's p)."""
    path = _write(
        tmp_path,
        """
        import torchvision.transforms as T

        train_tf = T.Compose([
            T.RandomChoice([T.RandomRotation(10), T.Grayscale(3), T.RandomInvert(p=1.0)],
                           p=[0.2, 0.4, 0.4]),
        ])
        """,
    )
    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec.set_arg("random_choice", "p", [0.9, 0.05, 0.05])
    comparison = compare_file(
        path, _images(4, 48), run_file=True, python=reference_python, graph=graph, draws=240
    )
    first = _drawn(comparison.step("RandomChoice"))["RandomRotation picked (#1)"]
    assert first.ours_mean > 0.8 and first.theirs_mean < 0.3, comparison.table()
    assert first.verdict().startswith("differ: the two sides' rates"), comparison.table()


# ---- RandomCrop: where the window starts, against torchvision's draw ---------------------------

CROPS = """
import torchvision.transforms{v2} as T

train_tf = T.Compose([
    T.RandomCrop(48),
    T.RandomCrop(64, padding=8),
    T.RandomCrop(56, padding=(4, 6), padding_mode="reflect"),
    T.RandomCrop(120, pad_if_needed=True, fill=(10, 20, 30)),
    T.RandomCrop(70, padding=(1, 2, 3, 4), pad_if_needed=True),
])
"""


@pytest.fixture(scope="module", params=["", ".v2"], ids=["v1", "v2"])
def crops(
    request: pytest.FixtureRequest, reference_python: str, tmp_path_factory: pytest.TempPathFactory
) -> Comparison:
    path = _write(tmp_path_factory.mktemp("crops"), CROPS.replace("{v2}", request.param))
    return compare_file(path, _images(3, 96), run_file=True, python=reference_python, draws=STARTS)


def test_random_crops_window_start_is_tested_against_torchvision(crops: Comparison) -> None:
    steps = _steps(crops, "RandomCrop")
    assert len(steps) == 5, crops.table()
    for step in steps:
        figures = _drawn(step)
        assert set(figures) == {"top", "left"}, step.describe()
        for figure in figures.values():
            assert figure.ks is not None and figure.ours_n == figure.theirs_n == STARTS
            assert figure.verdict() == "agree", step.describe()
        # the pixels stay compared at the pinned corner
        assert step.pixels is not None and step.pixels.max_abs == 0, step.describe()
    # in the image's own pixels on both sides: pad_if_needed's window reaches up to the
    # shortfall into the padding (120 from 96 and 64 px sides: 24 and 56), never past 0
    padded = _drawn(steps[3])
    for figure in padded.values():
        assert -56 <= figure.ours_mean < 0 and -56 <= figure.theirs_mean < 0


def test_a_window_drawn_otherwise_reads_differ(reference_python: str, tmp_path: Path) -> None:
    """The port's corner draw edited to the first half of the room: both starts differ."""
    path = _write(
        tmp_path,
        "import torchvision.transforms as T\n\ntrain_tf = T.Compose([T.RandomCrop(64, padding=8)])\n",
    )
    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec.set_arg("crop_draw", "range", [0.0, 0.5])
    comparison = compare_file(
        path, _images(3, 96), run_file=True, python=reference_python, graph=graph, draws=STARTS
    )
    step = comparison.step("RandomCrop")
    figures = _drawn(step)
    assert set(figures) == {"top", "left"}, step.describe()
    for figure in figures.values():
        assert figure.verdict().startswith("differ: KS"), step.describe()
