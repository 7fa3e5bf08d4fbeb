"""Insertion that cannot go wrong: every image operator of the catalog, added at every node of
every preset, either runs there or is refused with a reason, and a new operator shows its
controls and changes the images."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.state import Controller, PanelState
from PIL import Image

from augexplorer import Session
from augexplorer.annotations.wiring import BOX_CROP, placement, with_ratio
from augexplorer.catalog import Catalog
from augexplorer.catalog.auto_aug import is_auto_aug
from augexplorer.catalog.flow import flow, input_problems, place
from augexplorer.catalog.inputs import Data, is_image_step, refusal
from augexplorer.errors import GraphInvalid
from augexplorer.presets import PRESETS, preset
from augexplorer.spec import GraphSpec, Node, Ref, Source
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


@pytest.fixture(scope="module")
def tiny_coco(tiny_folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A COCO file over the two small JPEGs (a box and its polygon on each block): the
    annotated presets read it, as cheap as the folder."""
    images, annotations = [], []
    for image_id, name in enumerate(("a/0.jpg", "b/1.jpg"), start=1):
        images.append({"id": image_id, "file_name": name, "width": 160, "height": 120})
        x, y, w, h = 40.0, 30.0, 80.0, 60.0  # the block tiny_folder paints
        annotations.append(
            {
                "id": image_id,
                "image_id": image_id,
                "category_id": image_id,
                "bbox": [x, y, w, h],
                "area": w * h,
                "iscrowd": 0,
                "segmentation": [[x + w / 2, y, x + w, y + h / 2, x + w / 2, y + h, x, y + h / 2]],
            }
        )
    categories = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]
    path = tmp_path_factory.mktemp("coco") / "annotations.json"
    path.write_text(
        json.dumps({"images": images, "annotations": annotations, "categories": categories})
    )
    return path


def _preset_spec(name: str, folder: Path, coco: Path) -> GraphSpec:
    """Preset `name` reading the small images: the annotated presets through `coco`."""
    spec = preset(name)
    if spec.sources()[0].reads_coco:
        return spec.with_data(Source("source", "coco", str(coco), file_root=str(folder)))
    return spec.with_data(Source("source", "folder", str(folder)))


def _preset_session(name: str, folder: Path, coco: Path, catalog: Catalog) -> Session:
    return Session(_preset_spec(name, folder, coco), batch_size=2, catalog=catalog)


def test_random_bbox_crop_on_boxes_in_pixels_is_refused_with_the_fix(
    catalog: Catalog, tiny_folder: Path, tiny_coco: Path
) -> None:
    # The segmentation preset reads boxes in pixels, and DALI's random_bbox_crop fails on boxes
    # outside [0, 1]: the picker offered it there, and the graph failed on every run.
    spec = _preset_spec("segmentation", tiny_folder, tiny_coco)
    where = placement(spec, catalog, "random_bbox_crop", "crop")
    assert not where.ok and "set ratio=True on it (with_ratio)" in str(where.reason)
    fixed = with_ratio(spec)
    controller = Controller(Session(fixed, batch_size=2, catalog=catalog), rng_seed=1)
    assert controller.placement("random_bbox_crop", "crop").ok
    state = controller.add_op("random_bbox_crop", "crop")
    assert state.ok, state.failure


def _split_at_policy(spec: GraphSpec) -> tuple[list[str], list[str]]:
    """The positions before the first of DALI's auto_aug policies, and the rest. An edit before
    a policy builds its pipeline anew (its draws start over; 1-3 s on a CPU) on every run."""
    ids = spec.ids()
    policies = [index for index, node in enumerate(spec.nodes) if is_auto_aug(node.op)]
    first = policies[0] if policies else 0
    return ids[:first], ids[first:]


class _NamingController(Controller):
    """A Controller whose `add_op` can record the new graph without running it (`defer`), so the
    sweep gives each new node one fixed name before it runs."""

    defer = False

    def edit(
        self,
        spec: GraphSpec,
        *,
        merge_key: str | None = None,
        run: bool = True,
        label: str = "edit",
    ) -> PanelState:
        return super().edit(spec, merge_key=merge_key, run=run and not self.defer, label=label)


# The name every swept operator runs under. A step's built pipeline is keyed by the names of the
# nodes it reads: under the operator's own name (`brightness`, `hsv`, ...) an auto_aug policy
# fed by the new node was traced anew for every operator (1-3 s each on a CPU, most of the
# sweep); under one name, its built copy is loaded (its draws start over all the same).
SWEPT = "swept"


def _add_and_run(controller: _NamingController, op: str) -> PanelState:
    """`op` added by the picker's own `add_op` at the selected node, renamed SWEPT, then run."""
    controller.defer = True
    try:
        added = controller.add_op(op)
    finally:
        controller.defer = False
    assert added.selected is not None
    return controller.rename(added.selected, SWEPT)


def _sweep(controller: _NamingController, positions: list[str], ops: list[str]) -> tuple[int, int]:
    """Adds each of `ops` at each of `positions`: each placement the picker allows must run, each
    it refuses must say why. Returns (allowed, run): a placement whose operator lands after the
    same node as one already run (at the source, after its decoder) is that graph, not run twice.

    Position by position, every operator: the session keeps one built copy of each random step
    (an auto_aug policy builds in 1-3 s), so while the operators go in before the node that
    feeds a policy, that policy's inputs stay as they were and its copy is loaded, not rebuilt
    (operator by operator, each position undid the last one's build: ~25% slower). Where the
    new node feeds the policy, its one name (SWEPT) keeps the policy's inputs the same too."""
    base = controller.state.spec
    ran: set[tuple[str, str | None]] = set()
    allowed = 0
    for position in positions:
        for op in ops:
            controller.select(position)
            where = controller.placement(op)
            if not where.ok:
                assert where.reason, (op, position)
                continue
            allowed += 1
            if (op, where.anchor) in ran:
                continue
            ran.add((op, where.anchor))
            state = _add_and_run(controller, op)
            assert state.ok, f"{op} after {where.anchor} was allowed but fails: {state.failure}"
            assert state.selected == SWEPT and state.result is not None
            # run now, not from a cache: the new node and every policy it feeds
            policies = {
                n for n in state.spec.downstream(SWEPT) if is_auto_aug(state.spec.node(n).op)
            }
            assert {SWEPT, *policies} <= set(state.result.ran()), (op, where.anchor)
            # back to the preset without running it: the next add_op runs what differs (an undo
            # would run everything after the anchor once more, a policy's rebuild included)
            controller.edit(base, run=False, label="back to the preset")
    return allowed, len(ran)


def _picked_ops(catalog: Catalog) -> list[str]:
    # random_bbox_crop is picked like an image operator where there are boxes (refused with the
    # reason elsewhere)
    return [*image_ops(catalog), BOX_CROP]


@pytest.mark.parametrize("preset_name", list(PRESETS))
def test_every_placement_the_picker_allows_runs(
    catalog: Catalog, tiny_folder: Path, tiny_coco: Path, preset_name: str
) -> None:
    session = _preset_session(preset_name, tiny_folder, tiny_coco, catalog)
    _, positions = _split_at_policy(session.spec)  # the rest: the test below
    allowed, _ = _sweep(_NamingController(session, rng_seed=1), positions, _picked_ops(catalog))
    assert allowed >= len(image_ops(catalog))  # most operators fit somewhere in every preset


@pytest.mark.slow
@pytest.mark.parametrize(
    "preset_name", [name for name in PRESETS if _split_at_policy(preset(name))[0]]
)
def test_every_placement_before_an_auto_aug_policy_runs(
    catalog: Catalog, tiny_folder: Path, tiny_coco: Path, preset_name: str
) -> None:
    session = _preset_session(preset_name, tiny_folder, tiny_coco, catalog)
    before_policy, _ = _split_at_policy(session.spec)
    allowed, run = _sweep(
        _NamingController(session, rng_seed=1), before_policy, _picked_ops(catalog)
    )
    assert allowed >= len(image_ops(catalog)) and run > 0


def test_new_image_operators_start_with_controls_and_a_visible_effect(
    catalog: Catalog, tiny_folder: Path
) -> None:
    explorer = Explorer("basic", str(tiny_folder), batch_size=2, autosave=None, catalog=catalog)
    without_effect = []
    for op in image_ops(catalog):
        info = catalog[op]
        state = explorer.add(op, after="flip")
        assert state.ok, (op, state.failure)
        node = state.selected
        assert node is not None and state.result is not None
        before = state.result.arrays(Ref("flip"))[0]
        after = state.result.arrays(Ref(node))[0]
        if not _differs(np.asarray(before), np.asarray(after)):
            without_effect.append(op)
        # What the panel shows for the new node: a control for every value it starts with.
        panel = explorer.node_panel
        assert f"<div class='ax-node-title'>{node} " in panel.title.value, op
        shown = set(panel.controls) | set(panel.code_views)
        assert shown or not info.args, f"{op} starts with no visible argument"
        assert set(state.spec.node(node).args) <= shown, (op, shown)
        explorer.undo()
    assert without_effect == []
