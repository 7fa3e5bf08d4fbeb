"""Insertion that cannot go wrong: every image operator of the catalog, added at every node of
every preset, either runs there or is refused with a reason, and a new operator shows its
controls and changes the images."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets.state import Controller, starting_args
from PIL import Image

from augexplorer import Session
from augexplorer.catalog import Catalog
from augexplorer.catalog.auto_aug import is_auto_aug
from augexplorer.catalog.flow import flow, input_problems, place
from augexplorer.catalog.hints import tunable_args
from augexplorer.catalog.inputs import Data, is_image_step, refusal
from augexplorer.errors import GraphInvalid
from augexplorer.presets import PRESETS, preset
from augexplorer.spec import GraphSpec, Node, Ref
from augexplorer.validate import validate


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two small JPEGs in two classes: the decoder still runs, every operator stays cheap."""
    root = tmp_path_factory.mktemp("tiny")
    rng = np.random.default_rng(0)
    for index, label in enumerate(("a", "b")):
        (root / label).mkdir()
        pixels = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
        pixels[30:90, 40:120] = (200, 60, 30)  # a block, so geometry and colour show
        Image.fromarray(pixels).save(root / label / f"{index}.jpg", quality=90)
    return root


def image_ops(catalog: Catalog) -> list[str]:
    return [op.name for op in catalog if is_image_step(op) and op.available]


def test_the_catalog_knows_what_image_operators_take(catalog: Catalog) -> None:
    names = image_ops(catalog)
    assert {"hsv", "gaussian_blur", "water", "rotate", "crop_mirror_normalize"} <= set(names)
    assert not {"mfcc", "readers.file", "decoders.image", "debayer"} & set(names)
    chw_float = Data("image", "CHW", "FLOAT")
    assert refusal(catalog["water"], chw_float) == "water takes HWC images; here they are CHW"
    assert refusal(catalog["flip"], chw_float) is None  # DALI's schema lists CHW for flip
    assert "UINT8" in str(
        refusal(catalog["jpeg_compression_distortion"], Data("image", "HWC", "FLOAT"))
    )
    assert "encoded" in str(refusal(catalog["gaussian_blur"], Data("encoded")))
    assert refusal(catalog["decoders.image"], Data("encoded")) is None


def test_flow_follows_layouts_and_types(catalog: Catalog) -> None:
    data = flow(preset("imagenet_train"), catalog)
    assert data["source"] == Data("encoded")
    assert data["decode"] == Data("image", "HWC", "UINT8")
    assert data["normalize"] == Data("image", "CHW", "FLOAT")
    assert flow(preset("random_affine"), catalog)["scale"] == Data("matrix")


def test_an_image_operator_asked_for_after_the_source_goes_after_the_decoder(
    catalog: Catalog,
) -> None:
    spec = preset("basic")
    where = place(spec, catalog, "gaussian_blur", "source")
    assert where.ok and where.anchor == "decode" and "decode" in where.note
    refused = place(spec.remove("decode"), catalog, "gaussian_blur", "source")
    assert not refused.ok and "decoder" in str(refused.reason)


def test_random_bbox_crop_without_boxes_says_so_wherever_it_is_asked_for(
    catalog: Catalog,
) -> None:
    from augexplorer.annotations.wiring import placement

    basic = preset("basic")
    # after resize a slice would be refused for the 224 px crop after it; without boxes, that is
    # not the reason a person needs
    assert not place(basic, catalog, "slice", "resize").ok
    for node in basic.ids():
        where = placement(basic, catalog, "random_bbox_crop", node)
        assert where.reason == (
            "random_bbox_crop crops around boxes: read a COCO source (boxes) first"
        ), node


def test_a_placement_that_breaks_a_later_node_is_refused(catalog: Catalog) -> None:
    # normalize writes CHW float: rotate after it could not read that
    where = place(preset("basic"), catalog, "crop_mirror_normalize", "resize")
    assert not where.ok
    assert "rotate" in str(where.reason) and "CHW" in str(where.reason)


def test_a_misplaced_operator_is_named_and_moved_after_the_decoder(catalog: Catalog) -> None:
    spec = preset("basic").insert_after(
        "source", Node("blur", "gaussian_blur", args={"sigma": 2.0})
    )
    assert "encoded" in input_problems(spec, catalog)["blur"]
    with pytest.raises(GraphInvalid, match="move it after 'decode'"):
        validate(spec, catalog)  # DALI would blur the encoded bytes without a word
    controller = Controller(Session(preset("basic"), batch_size=2, catalog=catalog), rng_seed=1)
    assert not controller.replace(spec).ok
    assert controller.decoder_for("blur") == "decode"
    state = controller.move_after_decoder("blur")
    assert state.ok, state.failure
    assert state.spec.node("blur").inputs == (Ref("decode"),)
    assert state.spec.node("decode").inputs == (Ref("source"),)
    assert not controller.misplaced()
    assert controller.history.steps()[-1].label == "moved blur after decode"


def _differs(before: np.ndarray, after: np.ndarray) -> bool:
    return (
        before.shape != after.shape
        or before.dtype != after.dtype
        or not np.array_equal(before, after)
    )


def _positions(spec: GraphSpec) -> list[str]:
    """Where the test adds each operator: every node, except before one of DALI's auto_aug
    policies, whose pipeline is built anew (1-3 s) on every run an edit upstream of it causes;
    those positions are the same decoder and source the other presets check."""
    ids = spec.ids()
    policies = [index for index, node in enumerate(spec.nodes) if is_auto_aug(node.op)]
    return ids[policies[0] :] if policies else ids


# The annotated presets read a COCO file; this test gives every preset a folder to read.
FOLDER_PRESETS = [name for name in PRESETS if preset(name).sources()[0].kind != "coco"]


@pytest.mark.parametrize("preset_name", FOLDER_PRESETS)
def test_every_placement_the_picker_allows_runs(
    catalog: Catalog, tiny_folder: Path, preset_name: str
) -> None:
    session = Session(preset_name, str(tiny_folder), batch_size=2, catalog=catalog)
    controller = Controller(session, rng_seed=1)
    base = session.spec
    tried: dict[str, str] = {}
    allowed = 0
    for op in image_ops(catalog):
        for position in _positions(base):
            controller.select(position)
            where = controller.placement(op)
            if not where.ok:
                assert where.reason, (op, position)
                continue
            allowed += 1
            state = controller.add_op(op)
            key = f"{op} after {where.anchor}"
            assert state.ok, f"{key} was allowed but fails: {state.failure}"
            node = state.selected
            assert node is not None and state.result is not None
            tried[key] = node
            controller.undo()
    assert allowed >= len(image_ops(catalog))  # most operators fit somewhere in every preset


def test_new_image_operators_start_with_controls_and_a_visible_effect(
    catalog: Catalog, tiny_folder: Path
) -> None:
    session = Session("basic", str(tiny_folder), batch_size=2, catalog=catalog)
    controller = Controller(session, rng_seed=1)
    without_effect = []
    for op in image_ops(catalog):
        info = catalog[op]
        state = controller.add_op(op, after="flip")
        assert state.ok, (op, state.failure)
        node = state.selected
        assert node is not None and state.result is not None
        before = state.result.arrays(Ref("flip"))[0]
        after = state.result.arrays(Ref(node))[0]
        if not _differs(np.asarray(before), np.asarray(after)):
            without_effect.append(op)
        shown = set(starting_args(info)) | set(tunable_args(info))
        assert shown or not info.args, f"{op} starts with no visible argument"
        controller.undo()
    assert without_effect == []
