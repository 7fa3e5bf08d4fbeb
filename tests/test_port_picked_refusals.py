"""A refused transform inside a group that picks one (albumentations' OneOf and SomeOf(n=1),
torchvision's RandomChoice): its refusal says how often the ported group then does nothing
where the library would apply it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from port_parity import ported, sample_images

from augexplorer import Session
from augexplorer.port import TransformCall, port_file
from augexplorer.port.albumentations import port as port_albumentations
from augexplorer.port.torchvision import boxes_left_out, masks_left_out


def _refusals(tmp_path: Path, source: str) -> list[str]:
    path = tmp_path / "train.py"
    path.write_text(source, encoding="utf-8")
    return [refusal.reason for refusal in port_file(path).refusals]


SOME_OF = """
import albumentations as A
from mine import MyOwn

pipe = A.Compose([A.SomeOf([A.Blur(p=1), MyOwn(p=1), A.ToGray(p=1)], n=1)])
"""


def test_a_refused_transform_in_a_some_of_one_says_its_picks_do_nothing(tmp_path: Path) -> None:
    (reason,) = _refusals(tmp_path, SOME_OF)
    assert reason.endswith(
        "; in 1 of 3 picks the SomeOf does nothing where albumentations would apply MyOwn "
        "with its own p"
    )


def test_a_some_of_picking_two_says_no_pick_does_nothing(tmp_path: Path) -> None:
    """Two picked of three: the other picked one still applies, so nothing is said of picks."""
    (reason,) = _refusals(tmp_path, SOME_OF.replace("n=1", "n=2"))
    assert "does nothing" not in reason


RANDOM_CHOICE = """
import torchvision.transforms as T
from mine import MyOwn

pipe = T.Compose([T.RandomChoice([T.RandomHorizontalFlip(), MyOwn(), T.Grayscale(3)])])
"""


def test_a_refused_transform_in_a_random_choice_says_its_picks_do_nothing(
    tmp_path: Path,
) -> None:
    (reason,) = _refusals(tmp_path, RANDOM_CHOICE)
    assert reason.endswith(
        "; in 1 of 3 picks the RandomChoice does nothing where torchvision would apply MyOwn"
    )
    weighted = RANDOM_CHOICE.replace("T.Grayscale(3)]", "T.Grayscale(3)], p=[2, 1, 1]")
    (reason,) = _refusals(tmp_path, weighted)
    assert reason.endswith(
        "; in 25% of the picks the RandomChoice does nothing where torchvision would apply MyOwn"
    )


def test_a_transform_refused_outside_the_pick_says_nothing_of_picks(tmp_path: Path) -> None:
    source = RANDOM_CHOICE.replace("MyOwn(), ", "").replace("])])", "]), MyOwn()])")
    (reason,) = _refusals(tmp_path, source)
    assert "picks" not in reason


def test_the_walk_visits_every_call_in_the_written_order() -> None:
    inner = TransformCall("torchvision", "RandomApply", children=(TransformCall("t", "B"),))
    compose = TransformCall("torchvision", "Compose", children=(TransformCall("t", "A"), inner))
    assert [call.name for call in compose.walk()] == ["Compose", "A", "RandomApply", "B"]


def test_torchvision_boxes_and_masks_left_out_are_one_refusal_or_none() -> None:
    crop = TransformCall("torchvision", "RandomIoUCrop", line=3)
    detection = TransformCall("torchvision", "Compose", children=(crop,), line=2)
    boxes = boxes_left_out(detection)
    assert boxes is not None and boxes.part == "boxes" and "RandomIoUCrop" in boxes.reason
    assert masks_left_out(detection) is None
    plain = TransformCall(
        "torchvision", "Compose", children=(TransformCall("torchvision", "Resize"),)
    )
    assert boxes_left_out(plain) is None


def test_the_ported_random_choice_leaves_the_refused_picks_unchanged(tmp_path: Path) -> None:
    """What the note says, run: about 1 in 3 images passes through untouched (the refused pick);
    the other picks (a vertical flip, grey) change every image."""
    images = sample_images(12) * 4
    code = "T.RandomChoice([T.RandomVerticalFlip(p=1), MyOwn(), T.Grayscale(3)])"
    result = ported(code, images, tmp_path)
    (refusal,) = result.refusals
    assert "in 1 of 3 picks the RandomChoice does nothing" in refusal.reason
    session = Session(result.spec, device_id=None).run()
    decoded = [np.asarray(a) for a in session.arrays("decode")]
    out = [np.asarray(a) for a in session.arrays(result.spec.outputs["images"])]
    unchanged = sum(
        a.shape == b.shape and np.array_equal(a, b) for a, b in zip(decoded, out, strict=True)
    )
    # binomial(48, 1/3): mean 16, standard deviation 3.3
    assert 6 <= unchanged <= 26, unchanged


def test_a_some_of_one_of_albumentations_1x_says_its_weighted_picks_do_nothing() -> None:
    """1.x picks by the children's p and applies the pick whatever its p: a share by weight."""
    children = (
        TransformCall("albumentations", "Blur", kwargs={"p": 0.75}),
        TransformCall("albumentations", "MyOwn", kwargs={"p": 0.25}),
    )
    some_of = TransformCall("albumentations", "SomeOf", kwargs={"n": 1}, children=children)
    compose = TransformCall("albumentations", "Compose", children=(some_of,))
    (refusal,) = port_albumentations(compose, version=1).refusals
    assert refusal.reason.endswith(
        "; in 25% of the picks the SomeOf does nothing where albumentations would apply MyOwn"
    )
