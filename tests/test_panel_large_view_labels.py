"""The large view's label row names the objects its sample holds at the node shown, as its tile
does: after ssd_detection's box-keeping crop, a tile read "galaxy" (one galaxy left) while its
large view said "galaxy (6, 6, 6)", the three the file holds. Real DALI on the CPU; messages as
the page sends them."""

from __future__ import annotations

from typing import Any

from augexplorer_widgets import Explorer

from augexplorer.catalog import Catalog


def page_update(widget: Any, **state: Any) -> None:
    """Exactly what the front end sends when the user changes a widget's trait."""
    widget._handle_msg(
        {
            "content": {"data": {"method": "update", "state": state, "buffer_paths": []}},
            "buffers": [],
        }
    )


def test_the_large_view_names_the_objects_the_crop_kept(catalog: Catalog) -> None:
    panel = Explorer("ssd_detection", batch_size=8, autosave=None, catalog=catalog)
    result = panel.result
    assert result is not None
    node = result.final.node
    read, kept = result.labels(), result.labels(node_id=node)
    cropped = [i for i in range(len(read)) if len(kept[i]) < len(read[i])]
    assert cropped, "the crop kept every object of every sample: no sample to check"
    captions = result.captions(node_id=node)
    for index in cropped:
        page_update(panel.grid.tiles, opened=index)
        large = panel.grid.tiles.large
        tile = next(t for t in panel.grid.tiles.tiles if t["index"] == index)
        assert large["labels"] == kept[index] != read[index]
        assert large["label"] == tile["label"] == captions[index]
