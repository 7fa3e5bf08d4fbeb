"""A mask's own chain is no image chain, and the notes of what no longer matches read as words.

The segmentation preset moves its masks beside the images: ``mask_resize``, ``mask_crop``,
``mask_flip`` and ``mask_rotate`` read the source's masks, not its images. The annotations'
tracks used to follow them as if they were images: at ``mask_resize`` the panel said "masks are
not resized by 'mask_resize'" (with a button that would resize the masks' resize), at
``mask_crop`` that the boxes were left behind by ``mask_crop``. And the note of an operator
with no annotation-safe form began with track names ("boxes, vertices no longer match ...")."""

from __future__ import annotations

from test_overlay_carry import panel_coco

from augexplorer import Session
from augexplorer.annotations.drawable import overlay_states
from augexplorer.annotations.tracks import tracks_at
from augexplorer.annotations.wiring import add_operator
from augexplorer.catalog import Catalog
from augexplorer.presets import preset_on
from augexplorer.spec import GraphSpec, chain

MASK_NODES = ("mask_cast", "mask_resize", "mask_crop", "mask_flip", "mask_rotate")
IMAGE_NODES = ("resize", "crop", "flip", "rotate")


def segmentation() -> GraphSpec:
    return preset_on("segmentation", panel_coco())


def test_a_mask_node_has_no_tracks_and_its_image_node_keeps_them() -> None:
    spec = segmentation()
    for node in MASK_NODES:
        assert tracks_at(spec, node) is None, node
        assert tracks_at(spec, node, agreeing=False) is None, node
        assert overlay_states(spec, node) is None, node
    # the image nodes still move their masks through the mask chain, and only there
    for image, mask in zip(IMAGE_NODES, MASK_NODES[1:], strict=True):
        tracks = tracks_at(spec, image)
        assert tracks is not None
        assert tracks.companions[image] == (mask,)
        assert "masks" not in tracks.left.get(image, ())
    rotate = tracks_at(spec, "rotate")
    assert rotate is not None
    assert set(rotate.left) == {"crop", "flip", "rotate"}  # boxes and keypoints, left by them
    states = overlay_states(spec, "crop") or {}
    assert states["masks"].drawable and not states["boxes"].drawable


def test_the_engine_says_nothing_of_annotations_at_a_mask_node() -> None:
    spec = segmentation()
    result = Session(spec, batch_size=2, device_id=None).run()
    for node in MASK_NODES:
        assert result.overlay_states(node) is None, node
        assert result.annotations(node) is None, node
        assert result.drawn_annotations(node) is None, node
        assert result.annotation_warnings(node) == [], node
    # the images at the crop: the masks drawn there are the mask chain's crop, at its size
    drawn = result.drawn_annotations("crop")
    assert drawn is not None
    masks = result.arrays("mask_crop")
    for sample, mask, image in zip(drawn, masks, result.arrays("crop"), strict=True):
        assert sample.mask is not None and sample.mask.shape[:2] == image.shape[:2]
        assert mask.shape[:2] == image.shape[:2]
        assert len(sample.boxes) == 0  # left behind by the crop: not drawn
    assert any("after crop" in said for said in result.annotation_warnings("rotate"))


def test_a_note_on_an_operator_with_no_safe_form_names_the_kinds_in_words(
    catalog: Catalog,
) -> None:
    spec = chain(panel_coco(), ("decode", "decoders.image", {"output_type": "RGB"}))
    added = add_operator(spec, catalog, "water", "decode", {})
    assert added.note == (
        "the boxes, polygon outlines and keypoints no longer match the images after water: "
        "no DALI operator moves boxes, polygons and keypoints like water's waves; leave it out "
        "of detection graphs."
    )
    cropped = add_operator(spec, catalog, "crop_mirror_normalize", "decode", {"crop": [100, 100]})
    said = cropped.note
    assert "the boxes, polygon outlines and keypoints no longer match the images after " in said
    assert "its crop has no annotation operator;" in said, said
    assert "vertices" not in said


def test_a_note_names_only_the_kinds_the_source_reads(catalog: Catalog) -> None:
    source = panel_coco()
    points_only = source.__class__(
        source.id, source.kind, seed=source.seed, reader_args={"ratio": True}, keypoints=True
    )
    spec = chain(points_only, ("decode", "decoders.image", {"output_type": "RGB"}))
    cropped = add_operator(spec, catalog, "crop_mirror_normalize", "decode", {"crop": [100, 100]})
    assert "the boxes and keypoints no longer match the images after" in cropped.note
    added = add_operator(spec, catalog, "transpose", "decode", {"perm": [1, 0, 2]})
    assert added.note.startswith("the boxes and keypoints no longer match the images after "), (
        added.note
    )
