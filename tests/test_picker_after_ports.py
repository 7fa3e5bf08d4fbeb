"""The operator picker after a ported transform: the ports build images with arithmetic
(``expression``), channel joins (``cat``, ``stack``), kernels (``filter``) and tables
(``lookup_table``), none of them image steps in DALI's schemas. What they write is images, so a
colour operator is offered after them (it was refused: "here there are data that is not
images"), and the graph with it added runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.catalog import Catalog
from augexplorer.catalog.flow import flow, input_problems, place
from augexplorer.catalog.inputs import Data, passed_on
from augexplorer.port.build import DataSource
from augexplorer.port.door import port_call
from augexplorer.port.reading import read_source
from augexplorer.spec import GraphSpec, Node

SAMPLES = Path(__file__).resolve().parents[1] / "augexplorer" / "samples" / "images"
IMPORTS = {
    "albumentations": "import albumentations as T\n",
    "torchvision": "import torchvision.transforms as T\n",
}
# a transform of each kind of node the ports end their images with
PORTED = [
    ("albumentations", "RGBShift(p=1)"),  # expression, then cast
    ("albumentations", "ChannelShuffle(p=1)"),  # expressions taking channels, then stack
    ("albumentations", "InvertImg(p=1)"),  # lookup_table
    ("albumentations", "Blur(p=1)"),  # filter with a kernel made in the graph
    ("albumentations", "ToSepia(p=1)"),  # cat
    ("torchvision", "ColorJitter(0.4, 0.4, 0.4, 0.1)"),
    ("torchvision", "RandomInvert(p=1)"),
]


def _ported(library: str, code: str, tmp_path: Path) -> GraphSpec:
    (found,) = read_source(f"{IMPORTS[library]}t = T.Compose([T.{code}])\n")
    listing = tmp_path / "files.txt"
    listing.write_text("".join(f"{p} 0\n" for p in sorted(SAMPLES.rglob("*.jpg"))[:2]))
    data = DataSource("file_list", str(listing), shuffle=False)
    return dataclasses.replace(port_call(found.compose, data=data).spec, batch_size=2)


@pytest.mark.parametrize(("library", "code"), PORTED)
def test_a_colour_operator_is_offered_after_a_port_and_runs_there(
    library: str, code: str, catalog: Catalog, tmp_path: Path
) -> None:
    spec = _ported(library, code, tmp_path)
    end = spec.outputs["images"].node
    data = flow(spec, catalog)[end]
    assert (data.kind, data.layout) == ("image", "HWC"), data
    placement = place(spec, catalog, "hsv", None)
    assert placement.reason is None and placement.anchor == end, placement
    added = spec.insert_after(end, Node(spec.unique_id("hsv"), "hsv", args={"saturation": 0.0}))
    (image, *_) = Session(added, device_id=None).run().arrays(added.outputs["images"])
    assert image.ndim == 3 and image.shape[-1] == 3
    assert np.abs(image.astype(int) - image[..., :1]).max() <= 1  # no saturation: grey


def test_what_is_worked_out_from_the_inputs_never_refuses_a_graph(
    catalog: Catalog, tmp_path: Path
) -> None:
    """A check must never refuse a working graph: data worked out from what an expression
    does is the picker's guess, which validation does not hold against the graph."""
    hwc = [Data("image", "HWC")]
    channel = passed_on("expression", {"expression": "img[:, :, 0]"}, hwc)
    assert channel == Data("image", "HW", "", inferred=True)  # an index takes the axis out
    assert passed_on("expression", {"expression": "img[:, :, 0:1] * 2"}, hwc).layout == "HWC"
    assert passed_on("expression", {"expression": "img[0]"}, hwc).layout == ""  # unknown
    hw = Data("image", "HW", "UINT8")
    stacked = passed_on("stack", {"axis": 2, "axis_name": "C"}, [hw, hw, hw])
    assert (stacked.layout, stacked.inferred) == ("HWC", True)
    assert passed_on("cat", {}, [Data("any")]) == Data("any")
    assert passed_on("filter", {}, [Data("number")]) == Data("other")
    spec = _ported("albumentations", "RGBShift(p=1)", tmp_path)
    assert input_problems(spec, catalog, certain_only=True) == {}


def test_an_operator_taking_uint8_is_not_offered_where_the_type_is_unknown(
    catalog: Catalog, tmp_path: Path
) -> None:
    """albumentations' ToFloat ends in an expression whose type the flow cannot tell: a
    UINT8-only operator placed there failed at run time ('got float data')."""
    spec = _ported("albumentations", "ToFloat()", tmp_path)
    placement = place(spec, catalog, "jpeg_compression_distortion", None)
    assert placement.reason is not None and "type here is not known" in placement.reason
    assert place(spec, catalog, "flip", None).reason is None  # any type: still offered
