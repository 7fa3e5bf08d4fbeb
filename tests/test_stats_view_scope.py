"""The Statistics tab over a sample of the dataset drawn evenly over its classes, or over all of
it; and the sample itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
from augexplorer_widgets.stats_view import StatsView

from augexplorer import Session
from augexplorer.data import samples_dir
from augexplorer.spec import Source, chain
from augexplorer.stats.sample import even_sample


def three_classes(root: Path) -> Path:
    """12 bundled photos in 3 class folders of 6, 4 and 2."""
    photos = sorted(samples_dir().rglob("*.jpg"))[:12]
    for index, photo in enumerate(photos):
        name = "a" if index < 6 else "b" if index < 10 else "c"
        (root / name).mkdir(parents=True, exist_ok=True)
        shutil.copy(photo, root / name / f"{index:02d}.jpg")
    return root


def test_even_sample_gives_each_class_alike_until_one_runs_out() -> None:
    labels = np.array([0] * 10 + [1] * 3 + [2] * 7)
    picked = even_sample(labels, 9, seed=1)
    assert list(np.bincount(labels[picked])) == [3, 3, 3]
    assert list(np.bincount(labels[even_sample(labels, 13, seed=1)])) == [5, 3, 5]
    assert len(set(picked)) == 9 and list(picked) == sorted(picked)
    assert list(even_sample(labels, 9, seed=1)) == list(picked)  # a seed gives one sample
    assert list(even_sample(labels, 50)) == list(range(20))  # more than there are: all


def test_the_tab_counts_a_sample_even_over_the_classes_or_everything(tmp_path: Path) -> None:
    folder = three_classes(tmp_path / "images")
    spec = chain(
        Source("source", "folder", path=str(folder)),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_x": 32.0, "resize_y": 32.0}),
        batch_size=4,
    )
    session = Session(spec, device_id=None)
    view = StatsView(lambda: session)
    assert view.scope.value == "batches" and view.images.box.layout.display == "none"

    view.scope.value = "sample"
    assert view.images.box.layout.display == "" and view.batches.box.layout.display == "none"
    view.images.value = 6
    view.start()
    view.wait(120)
    assert view.stats is not None and view.stats.samples == 6, view.status.value
    assert view.stats.to_json()["labels"][0]["columns"] == [{"a": 2, "b": 2, "c": 2}]
    assert view.progress.value == view.progress.max == 2  # a batch of 4, then one of 2

    view.scope.value = "all"
    assert view.images.box.layout.display == view.batches.box.layout.display == "none"
    view.start()
    view.wait(120)
    assert view.stats is not None and view.stats.samples == 12
    assert view.stats.to_json()["labels"][0]["columns"] == [{"a": 6, "b": 4, "c": 2}]
    assert "every image once" in view.report.value
