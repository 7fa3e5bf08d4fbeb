"""Overlays are drawn only where their data is: each kind of annotation at a node only where the
graph carried it through every geometric step from the source; elsewhere the engine says why
and what carries it, and the presets carry every kind their source reads."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from PIL import ImageChops

from augexplorer.annotations.carry import carry, carry_through, why_not_carried
from augexplorer.annotations.drawable import overlay_states
from augexplorer.annotations.tracks import image_chain
from augexplorer.catalog import Catalog
from augexplorer.engine import Session
from augexplorer.presets import PRESETS, preset, preset_on
from augexplorer.render import render_node
from augexplorer.render.grid import grid
from augexplorer.spec import GraphSpec, Node, Ref, Source

READS_ALL = ("boxes", "names", "polygons", "keypoints")  # the panel's COCO source, no masks


def panel_coco() -> Source:
    """The source the panel's "COCO annotations" gives: the bundled photos' boxes, polygons and
    keypoints, in corner ratio coordinates."""
    return Source(
        "source",
        "coco",
        seed=12,
        reader_args={"ltrb": True, "ratio": True, "polygon_masks": True},
        keypoints=True,
    )


def uncarried_ssd() -> GraphSpec:
    """The SSD preset on the panel's COCO source, as it was picked before: only the boxes are
    wired through its crop and flip."""
    return preset("ssd_detection").with_source(panel_coco())


def drawable(spec: GraphSpec, node: str) -> set[str]:
    states = overlay_states(spec, node)
    assert states is not None
    return {kind for kind, state in states.items() if state.drawable}


def test_kinds_left_behind_by_the_crop_are_not_drawable_from_there_on() -> None:
    spec = uncarried_ssd()
    assert drawable(spec, "decode") == set(READS_ALL)
    for node in ("crop", "flip", "resize", "twist", "normalize"):
        assert drawable(spec, node) == {"boxes", "names"}, node
    states = overlay_states(spec, "crop")
    assert states is not None
    assert states["polygons"].reason == "polygons are not cropped by 'crop': add them"
    assert states["keypoints"].reason == "keypoints are not cropped by 'crop': add them"
    assert states["masks"].reason is not None and "pixelwise_masks=True" in states["masks"].reason
    assert not states["masks"].left_behind and not states["masks"].carry_kinds
    at_end = overlay_states(spec, "normalize")
    assert at_end is not None
    assert at_end["polygons"].fix == "Carry polygons through 'crop' and 'flip'"
    assert at_end["keypoints"].carry_kinds == ("keypoints",)


def test_the_fix_carries_the_kind_through_every_step_and_draws_where_it_is() -> None:
    spec = uncarried_ssd()
    states = overlay_states(spec, "normalize")
    assert states is not None
    fixed = carry(spec, "normalize", states["keypoints"].carry_kinds)
    assert drawable(fixed, "normalize") == {"boxes", "names", "keypoints"}
    fixed = carry(fixed, "normalize", states["polygons"].carry_kinds)
    assert drawable(fixed, "normalize") == set(READS_ALL)
    # the polygons' vertices move by the window the keypoints were moved by: one window node
    assert [n.op for n in fixed.operators()].count("transforms.crop") == 1
    _keypoints_follow_crop_and_flip(fixed)


def test_ssd_detection_on_the_panels_coco_source_carries_every_kind_it_reads() -> None:
    spec = preset_on("ssd_detection", panel_coco())
    source = spec.sources()[0]
    assert source.keypoints and source.reader_args["polygon_masks"]
    assert source.reader_args["skip_empty"]  # the preset's own reading stays
    for node in image_chain(spec, "normalize")[1:]:
        assert drawable(spec, node) == set(READS_ALL), node
    _keypoints_follow_crop_and_flip(spec)


def _keypoints_follow_crop_and_flip(spec: GraphSpec) -> None:
    """At the end of the SSD graph, each labelled keypoint is where the crop window and the
    coin put the point the decoder's image had."""
    result = Session(spec, batch_size=4).run()
    before, after = result.annotations("decode"), result.drawn_annotations("normalize")
    assert before is not None and after is not None
    anchors, shapes = result.arrays(Ref("box_crop", 0)), result.arrays(Ref("box_crop", 1))
    coins = result.arrays(Ref("coin"))
    decoded = result.arrays(Ref("decode"))
    checked = 0
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        assert old.keypoints is not None and new.keypoints is not None
        height, width = decoded[i].shape[:2]
        ratio = old.keypoints[..., :2] / np.array([width, height], np.float32)
        moved = (ratio - anchors[i]) / shapes[i]
        if int(np.asarray(coins[i]).reshape(-1)[0]):
            moved[..., 0] = 1.0 - moved[..., 0]
        seen = old.keypoints[..., 2] > 0
        np.testing.assert_allclose(new.keypoints[..., :2][seen], moved[seen] * 300.0, atol=0.05)
        checked += int(seen.sum())
        assert len(new.polygons) <= len(old.polygons)  # the polygons of the boxes kept
    assert checked > 0  # the person's keypoints were in the batch


def test_render_node_draws_only_what_the_graph_carried_there() -> None:
    result = Session(uncarried_ssd(), batch_size=4).run()
    everything, drawn = result.annotations("normalize"), result.drawn_annotations("normalize")
    assert everything is not None and drawn is not None
    assert any(s.keypoints is not None for s in everything)  # read, and left behind
    assert all(s.keypoints is None and not s.polygons for s in drawn)
    assert [len(s.boxes) for s in drawn] == [len(s.boxes) for s in everything]
    picture = render_node(result, "normalize", captions=False)
    from augexplorer.render.result_view import normalization_for

    expected = grid(
        result.arrays(Ref("normalize")),
        layout=result.layout(Ref("normalize")),
        normalization=normalization_for(result.plan, "normalize"),
        annotations=drawn,
    )
    assert ImageChops.difference(picture, expected).getbbox() is None
    unfiltered = grid(
        result.arrays(Ref("normalize")),
        layout=result.layout(Ref("normalize")),
        normalization=normalization_for(result.plan, "normalize"),
        annotations=everything,
    )
    assert ImageChops.difference(picture, unfiltered).getbbox() is not None  # the skeleton


def test_a_step_with_no_companion_says_why_and_offers_no_fix(catalog: Catalog) -> None:
    spec = preset_on("ssd_detection", panel_coco())
    waved = GraphSpec(
        (*spec.nodes, Node("wave", "water", (Ref("normalize"),))),
        {**spec.outputs, "images": Ref("wave")},
        batch_size=spec.batch_size,
    )
    states = overlay_states(waved, "wave")
    assert states is not None
    for kind in READS_ALL:
        reason = states[kind].reason or ""
        assert "not moved by 'wave'" in reason and "water's waves" in reason, kind
        assert not states[kind].carry_kinds
    with pytest.raises(ValueError, match="cannot carry keypoints through 'wave'"):
        carry_through(waved, "wave", ["keypoints"])


def test_a_step_that_runs_on_some_samples_is_not_carried() -> None:
    spec = preset_on("randaugment", panel_coco())
    assert drawable(spec, "resize") == set(READS_ALL)
    reason = why_not_carried(spec, "rotate", ["boxes"])
    assert reason is not None and "probability" in reason
    assert drawable(spec, "rotate") == set()


# What each preset draws at its last node on the panel's COCO source: every kind it reads that
# its geometry can carry; the others say why.
EXPECTED = {
    "basic": set(),  # a fixed crop: no box operator follows it
    "reference": set(),
    "imagenet_train": set(),  # decoders.image_random_crop: its window is no output
    "imagenet_val": set(),  # crop_mirror_normalize's crop
    "auto_augment_imagenet": set(),
    "trivial_augment_wide": set(),
    "dali_rand_augment": set(),
    "randaugment": set(),  # its steps run with a probability
    "random_affine": set(READS_ALL),  # warp_affine forward: coord_transform follows it
    "ssd_detection": set(READS_ALL),
    "segmentation": {"masks"},  # its masks follow; a fixed crop leaves boxes and points behind
}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_draws_each_kind_only_where_it_is(name: str) -> None:
    assert set(EXPECTED) == set(PRESETS)
    spec = preset_on(name, panel_coco())
    final = next(iter(spec.outputs.values())).node
    assert drawable(spec, final) == EXPECTED[name]
    states = overlay_states(spec, final)
    assert states is not None
    for kind, state in states.items():
        assert state.drawable or state.reason, kind
        assert not state.carry_kinds  # the preset carried all it could
    chain = image_chain(spec, final)
    # what is drawable at a node stays drawable before it
    for earlier, later in itertools.pairwise(chain[1:]):
        assert drawable(spec, later) <= drawable(spec, earlier), (earlier, later)


@pytest.mark.parametrize("name", ["ssd_detection", "segmentation"])
def test_annotated_presets_on_their_own_source_draw_what_they_read(name: str) -> None:
    spec = preset(name)
    final = next(iter(spec.outputs.values())).node
    source = spec.sources()[0]
    assert preset_on(name, source) == spec  # nothing to carry: the preset wires what it reads
    expected = {"boxes", "names"} if name == "ssd_detection" else {"masks"}
    assert drawable(spec, final) == expected
    result = Session(spec, batch_size=2).run()
    assert result.overlay_states(final) == overlay_states(spec, final)
    assert dataclasses.replace(source).reads_coco
