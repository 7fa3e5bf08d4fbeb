"""Overlays are drawn only where their data is: each kind of annotation at a node only where the
graph carried it through every geometric step from the source; elsewhere the engine says why
and what carries it, and the presets carry every kind their source reads."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import numpy as np
import pytest
from PIL import ImageChops

from augexplorer.annotations.carry import carry, carry_through, why_not_carried
from augexplorer.annotations.drawable import carry_all, overlay_states
from augexplorer.annotations.tracks import image_chain
from augexplorer.catalog import Catalog
from augexplorer.engine import Session
from augexplorer.port.door import port_file
from augexplorer.presets import PRESETS, preset, preset_on
from augexplorer.render import render_node
from augexplorer.render.grid import grid
from augexplorer.spec import GraphSpec, Node, Probability, Ref, Source

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


def test_a_step_that_runs_on_some_samples_carries_under_its_condition_what_it_can() -> None:
    """RandAugment's rotate runs with a probability and keeps its canvas size, so bbox_rotate
    would drop boxes and their labels: two outputs, which no node under a condition gives. The
    points and polygons (one coord_transform each) come along under the rotate's coin."""
    spec = preset_on("randaugment", panel_coco())
    assert drawable(spec, "resize") == set(READS_ALL)
    reason = why_not_carried(spec, "rotate", ["boxes"])
    assert reason is not None and "probability" in reason and "several outputs" in reason
    assert drawable(spec, "rotate") == {"polygons", "keypoints"}
    rotate = spec.node("rotate")
    assert isinstance(rotate, Node) and rotate.probability is None
    (clause,) = rotate.when
    moved = [n for n in spec.operators() if n.op == "coord_transform" and n.when]
    assert moved and all(n.when == rotate.when for n in moved)
    coin = spec.node(clause.ref.node)
    assert isinstance(coin, Node) and coin.op == "random.coin_flip"


def test_an_apply_probability_given_after_the_wiring_leaves_the_boxes_behind() -> None:
    """bb_flip was wired to run on every sample; a flip given probability 0.5 then runs on some:
    the boxes flipped where the image did not are no longer its, and are not drawn."""
    spec = uncarried_ssd()
    flip = spec.node("flip")
    assert isinstance(flip, Node)
    halved = spec.replace_node(dataclasses.replace(flip, probability=Probability(0.5)))
    assert drawable(spec, "normalize") == {"boxes", "names"}
    assert drawable(halved, "normalize") == set()
    states = overlay_states(halved, "normalize")
    assert states is not None
    reason = states["boxes"].reason or ""
    assert "not flipped by 'flip'" in reason, reason


def test_carrying_through_a_step_with_a_probability_shares_its_coin() -> None:
    """The carry gives the flip's apply probability a coin node of the same probability and
    seed (the images are those of the graph before) and runs bb_flip, which the flip had, and
    the new companions under it: every sample's boxes are flipped where its image is."""
    spec = uncarried_ssd()
    flip = spec.node("flip")
    assert isinstance(flip, Node)
    halved = spec.replace_node(dataclasses.replace(flip, probability=Probability(0.5)))
    carried = carry_all(halved)
    assert drawable(carried, "normalize") == set(READS_ALL)
    assert [n.op for n in carried.operators()].count("bb_flip") == 1  # the one it had
    before = Session(halved, batch_size=8).run()
    after = Session(carried, batch_size=8).run()
    for old, new in zip(before.arrays("flip"), after.arrays("flip"), strict=True):
        np.testing.assert_array_equal(old, new)  # the same draws
    images, unflipped = after.arrays("flip"), after.arrays("crop")
    boxes, unmoved = after.arrays("bb_flip"), after.arrays(Ref("box_crop", 2))
    flipped = 0
    for image, plain, moved, kept in zip(images, unflipped, boxes, unmoved, strict=True):
        mirrored = not np.array_equal(image, plain)
        if mirrored:
            np.testing.assert_array_equal(image, plain[:, ::-1])
            mirror = np.stack([1 - kept[:, 2], kept[:, 1], 1 - kept[:, 0], kept[:, 3]], axis=1)
            np.testing.assert_allclose(moved, mirror, atol=1e-6)
        else:
            np.testing.assert_array_equal(moved, kept)
        flipped += mirrored
    assert 0 < flipped < 8  # some samples of each


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
    # boxes stay behind its rotate (keep_size: bbox_rotate would give boxes and labels)
    "randaugment": {"polygons", "keypoints"},
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


def test_a_ported_detection_pipeline_carries_its_boxes_through_steps_with_a_probability(
    tmp_path: Path,
) -> None:
    """The albumentations route to boxes: a Compose with bbox_params is ported (its boxes said
    not ported) and opened on COCO data; the overlay's carry moves the boxes through its
    Affine(p=0.5) and HorizontalFlip(p=0.5) under their own coins, where it refused before."""
    path = tmp_path / "detection.py"
    path.write_text(
        "import albumentations as A\n"
        "train = A.Compose([\n"
        "    A.Affine(scale=(0.9, 1.1), rotate=(-10, 10), p=0.5),\n"
        "    A.HorizontalFlip(p=0.5),\n"
        "], bbox_params=A.BboxParams(format='coco', label_fields=['labels']))\n"
    )
    spec = port_file(path).spec.with_source(panel_coco())
    final = next(iter(spec.outputs.values())).node
    assert drawable(spec, "decode") == set(READS_ALL)
    assert drawable(spec, final) == set()
    # the port names its affine "matrix", the name the boxes' wiring gave its own input
    assert "matrix" in spec.ids()
    carried = carry_all(spec)
    assert drawable(carried, final) == set(READS_ALL)
    before = Session(spec, batch_size=8).run()
    result = Session(carried, batch_size=8).run()
    for old, new in zip(before.arrays(final), result.arrays(final), strict=True):
        np.testing.assert_array_equal(old, new)  # the same draws
    warp = carried.node("warp")
    assert isinstance(warp, Node)
    (clause,) = warp.when
    coins = [bool(np.asarray(c).reshape(-1)[0]) for c in result.arrays(clause.ref)]
    assert 0 < sum(coins) < 8
    moved_boxes = carried.node("warp_boxes")
    assert isinstance(moved_boxes, Node)
    boxes, read = result.arrays("warp_boxes"), result.arrays(moved_boxes.inputs[0])
    images, decoded = result.arrays("warp"), result.arrays("decode")
    for coin, moved, kept, image, plain in zip(coins, boxes, read, images, decoded, strict=True):
        assert np.array_equal(moved, kept) == (not coin)
        assert (image.shape == plain.shape and np.array_equal(image, plain)) == (not coin)
