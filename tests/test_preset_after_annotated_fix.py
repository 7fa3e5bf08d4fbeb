"""Picking a preset on the bundled COCO photos read with pixel masks (the segmentation preset's
fix) loads it: the masks are carried through its geometry, a flip's masks cast for the resize
after it, where the tracks lost them at the cast and the pick failed ("cannot carry masks through
'resize'") with the drop-down showing the preset that did not load. A pick that is refused puts
the drop-down back on the graph on screen."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from test_widgets_panel import choose

from augexplorer import Session
from augexplorer.annotations.tracks import tracks_at
from augexplorer.presets import preset_on
from augexplorer.spec import Source


def masks_source() -> Source:
    return Source(
        "source", kind="coco", reader_args={"ltrb": True, "ratio": True, "pixelwise_masks": True}
    )


@pytest.mark.parametrize("name", ["ssd_detection", "random_affine"])
def test_a_preset_on_pixel_masks_carries_them_to_its_output(name: str) -> None:
    spec = preset_on(name, masks_source())
    output = next(iter(spec.outputs.values())).node
    tracks = tracks_at(spec, output)
    assert tracks is not None and not tracks.left, tracks.left
    result = Session(spec).run()
    images, masks = result.arrays(output), result.arrays(tracks.refs["masks"])
    for image, mask in zip(images, masks, strict=True):
        hw = image.shape[1:3] if image.shape[0] == 3 else image.shape[:2]
        assert mask.shape[:2] == hw  # the masks resized with the images
    # and still hold objects (some bundled photos have none, or lose them to a crop)
    assert sum(np.unique(mask).size > 1 for mask in masks) >= len(masks) // 2


def test_the_panel_loads_a_preset_picked_after_the_masks_fix(catalog, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "a.json", catalog=catalog)
    choose(explorer.toolbar.preset, "segmentation")  # reads the bundled COCO annotations
    assert explorer.spec.name == "segmentation"
    assert explorer.spec.sources()[0].reader_args.get("pixelwise_masks")
    choose(explorer.toolbar.preset, "ssd_detection")
    assert explorer.spec.name == "ssd_detection" and explorer.state.ok
    assert explorer.toolbar.preset.value == "ssd_detection"


def test_a_refused_pick_puts_the_drop_down_back(
    catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "a.json", catalog=catalog)

    def refused(name: str) -> None:
        raise ValueError(f"cannot carry masks through {name!r}")

    monkeypatch.setattr(explorer.controller, "pick_preset", refused)
    choose(explorer.toolbar.preset, "ssd_detection")
    assert explorer.spec.name == "basic"
    assert explorer.toolbar.preset.value == "basic"  # not the preset that did not load
    assert "cannot carry masks" in explorer.toolbar.status.value
