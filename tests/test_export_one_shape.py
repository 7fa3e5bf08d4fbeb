"""A graph whose images differ in size from sample to sample: the explorer shows them, the
exported loader cannot hand them to PyTorch as one tensor. DALI's own error there was an
"IsDenseTensor" assertion naming neither the cause nor a fix; the module's error names both,
and the engine says so before any export (`RunResult.shapes_differ`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from exported_runner import exported_module

from augexplorer import Random, Session, Source, chain
from augexplorer.data import samples_dir
from augexplorer.spec import Node

BATCH = 4
DECODE = ("decode", "decoders.image", {"output_type": "RGB"})


def _shorter_side(size: float) -> Any:
    resize = ("resize", "resize", {"resize_shorter": size})
    return chain(Source("source", "folder", str(samples_dir()), seed=1), DECODE, resize)


def test_the_engine_says_which_node_leaves_images_of_several_shapes() -> None:
    said = Session(_shorter_side(64.0), batch_size=BATCH, device_id=None).run().shapes_differ()
    assert said is not None
    assert said.startswith("the images leave 'resize' in ")
    assert "(fix: end the graph with a node that gives every image one size" in said
    fixed = _shorter_side(64.0).insert_after(
        "resize", Node("crop", "crop", args={"crop": [48.0, 48.0]})
    )
    assert Session(fixed, batch_size=BATCH, device_id=None).run().shapes_differ() is None


@pytest.mark.parametrize("source", ["folder", "arrays"])
def test_the_exported_loader_names_the_cause_and_the_fix(source: str, tmp_path: Path) -> None:
    if source == "folder":
        spec, data = _shorter_side(64.0), samples_dir()
    else:
        rotate = ("rotate", "rotate", {"angle": Random.uniform(10, 40)})
        spec, data = chain(Source("source", "arrays"), rotate, name="arrays"), None
        rng = np.random.default_rng(0)
        images = [rng.integers(0, 255, (48, 64, 3), dtype=np.uint8) for _ in range(BATCH)]
        data = (images, [0, 1, 2, 3])
    module = exported_module(spec, tmp_path, f"aug_{source}")
    with pytest.raises(RuntimeError, match="the graph's images differ in shape") as failed:
        next(iter(module.make_loader(data, batch_size=BATCH, device="cpu", num_threads=1)))
    assert "resize_x and resize_y" in str(failed.value)
    assert "IsDenseTensor" in str(failed.value.__cause__)  # DALI's own words kept beneath
