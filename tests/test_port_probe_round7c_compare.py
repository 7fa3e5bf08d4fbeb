"""Probe findings, round 7c (Compare): how often a project's own class applies.

A class of the project's own under a coin of its own (DINO's ``GaussianBlur(p=0.1)``, whose
``__call__`` returns the image as it is unless ``random.random() <= self.prob``, and DINO's
``Solarization(0.2)``) is ported with that coin, and its pixels were compared at a pinned radius,
but how often it applies was not: Compare showed no "applied" rate row for it, as it does for
RandomApply and torchvision's transforms with p. Now the port's coin is counted against the
file's class run alone, which is counted as applied where it returns another image than the one
it was given (its reading found ``return img`` the only way to leave it as it is): not by its
pixels, which half the images here (flat and dark) keep under a blur or a solarize alike.

Sample counts: 400 draws a side (4 images, 100 batches on the DALI side), seeded; each verdict
is judged at 99.9% (each side's interval around the file's p, and the two-proportion test), and
the port edited below is far off (0.6 against 0.2): it differs at any seed.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_port_compare import _images

from augexplorer.port.compare import Comparison, StepComparison, compare_file
from augexplorer.port.compare_figures import DrawFigures
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source
from augexplorer.spec import Probability

DRAWS = 400

DINO = """
import random

import torchvision.transforms as transforms
from PIL import ImageFilter, ImageOps


class GaussianBlur(object):
    def __init__(self, p=0.5, radius_min=0.1, radius_max=2.):
        self.prob = p
        self.radius_min = radius_min
        self.radius_max = radius_max

    def __call__(self, img):
        do_it = random.random() <= self.prob
        if not do_it:
            return img
        return img.filter(
            ImageFilter.GaussianBlur(radius=random.uniform(self.radius_min, self.radius_max))
        )


class Solarization(object):
    def __init__(self, p):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            return ImageOps.solarize(img)
        else:
            return img


train_tf = transforms.Compose([
    GaussianBlur(0.1),
    Solarization(0.2),
    GaussianBlur(1.0),
])
"""


def _inputs() -> list[np.ndarray]:
    """Two photos and two flat dark images, which a blur and a solarize (under 128) leave as
    they are: counted by pixels, the original would apply about half as often as it does."""
    flat = np.full((48, 48, 3), 40, dtype=np.uint8)
    return [*_images(2, 48), flat, flat.copy()]


def _write(folder: Path) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(DINO), encoding="utf-8")
    return path


def _applied(comparison: Comparison, written: str) -> DrawFigures | None:
    (step,) = [s for s in comparison.steps if s.transform.startswith(written)]
    return next((d for d in step.draws if d.quantity == "applied"), None)


def _step(comparison: Comparison, written: str) -> StepComparison:
    (step,) = [s for s in comparison.steps if s.transform.startswith(written)]
    return step


@pytest.fixture(scope="module")
def dino(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    path = _write(tmp_path_factory.mktemp("dino"))
    return compare_file(
        path, _inputs(), run_file=True, python=reference_python, draws=DRAWS, seed=3
    )


@pytest.mark.parametrize(("written", "p"), [("GaussianBlur(0.1)", 0.1), ("Solarization(", 0.2)])
def test_an_own_class_under_its_coin_has_a_rate_row(
    dino: Comparison, written: str, p: float
) -> None:
    applied = _applied(dino, written)
    assert applied is not None, dino.table()
    assert applied.expected == pytest.approx(p)
    assert applied.ours_n == applied.theirs_n == DRAWS, dino.table()
    assert applied.ours_interval is not None and applied.theirs_interval is not None
    assert applied.verdict() == "agree", dino.table()
    # its pixels stay compared, pinned always applied
    assert _step(dino, written).pixels is not None, dino.table()


def test_an_own_class_always_applied_has_no_rate_row(dino: Comparison) -> None:
    """MoCo's way, p of 1: nothing to count."""
    assert _applied(dino, "GaussianBlur(1.0)") is None, dino.table()


def test_an_own_class_coin_ported_otherwise_reads_differ(
    reference_python: str, tmp_path: Path
) -> None:
    """The port's solarize coin edited to 0.6 where the file says 0.2: its row differs."""
    path = _write(tmp_path)
    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec.set_arg("solarize_int_apply", "probability", 0.6)
    comparison = compare_file(
        path, _inputs(), run_file=True, python=reference_python, graph=graph, draws=DRAWS
    )
    applied = _applied(comparison, "Solarization(")
    assert applied is not None, comparison.table()
    assert applied.ours_mean > 0.5 and applied.theirs_mean < 0.3, comparison.table()
    assert applied.verdict().startswith("differ: the two sides' rates"), comparison.table()


def test_an_own_blurs_probability_edited_in_the_graph_reaches_its_row(
    reference_python: str, tmp_path: Path
) -> None:
    """The blur is one node with a probability of its own: an edit of it (the panel's apply
    box) is what the port alone is compared with, not the file's p."""
    path = _write(tmp_path)
    (found,) = read_source(path.read_text(encoding="utf-8"))
    ported = port_call(found.compose).spec
    (blur,) = [
        n for n in ported.operators() if n.probability is not None and n.op == "gaussian_blur"
    ]
    assert blur.probability is not None and blur.probability.p == pytest.approx(0.1)
    graph = ported.set_probability(blur.id, Probability(0.7, seed=blur.probability.seed))
    comparison = compare_file(
        path, _inputs(), run_file=True, python=reference_python, graph=graph, draws=DRAWS
    )
    applied = _applied(comparison, "GaussianBlur(0.1)")
    assert applied is not None, comparison.table()
    assert applied.ours_mean > 0.5 and applied.theirs_mean < 0.3, comparison.table()
    assert applied.verdict().startswith("differ: the two sides' rates"), comparison.table()
