"""An operator that refuses its input's type (resize on int32 masks, as a COCO reader gives
pixelwise masks) is explained as that: the type the input has and the cast to write, not a
``dtype`` argument the node does not have."""

from __future__ import annotations

import numpy as np
import pytest

from augexplorer.errors import RunError
from augexplorer.spec import GraphSpec, Node, Ref, Source
from augexplorer.stats import collect_stats


def test_resize_of_int32_data_names_the_input_type_and_the_cast() -> None:
    masks = [np.zeros((32, 32, 1), np.uint8)] * 2
    nodes = (
        Source("source", "arrays"),
        Node("ids", "cast", (Ref("source"),), {"dtype": "INT32"}),
        Node("resize", "resize", (Ref("ids"),), {"size": [16.0, 16.0]}),
    )
    with pytest.raises(RunError) as raised:
        collect_stats(GraphSpec(nodes, batch_size=2), masks, batches=1, device_id=None)
    error = raised.value
    assert error.node == "resize" and error.argument is None
    said = str(error)
    assert "does not take int32 data" in said and "uint8" in said
    assert "types.UINT8" in said and "INTERP_NN" in said
    assert "leave dtype out" not in said
