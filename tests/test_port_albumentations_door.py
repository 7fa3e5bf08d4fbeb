"""An albumentations pipeline through the one door: a Python file (read, never run) and the
saved form become graphs with `augexplorer import` and import_graph, refusals say their line,
and the exported module of a ported graph gives the explorer's pixels bit for bit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from exported_runner import run_exported

from augexplorer.engine import Session
from augexplorer.export import export, generate
from augexplorer.export.importer import import_graph
from augexplorer.port.albumentations import port, read_saved
from augexplorer.port.door import port_file, port_object
from augexplorer.port.reading import read_source

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "albumentations"

# Running this file would leave a mark: the tests check it never does.
TRAIN = textwrap.dedent(
    """
    import argparse
    import pathlib
    import cv2
    import albumentations as A
    from albumentations.pytorch import ToTensorV2

    pathlib.Path(__file__).with_suffix(".ran").write_text("ran")
    args = argparse.ArgumentParser().parse_args()

    train_transform = A.Compose([
        A.SmallestMaxSize(max_size=160),
        A.RandomCrop(height=128, width=128),
        A.ShiftScaleRotate(shift_limit=0.05, scale_limit=0.1, rotate_limit=15,
                           border_mode=cv2.BORDER_REFLECT_101, p=0.5),
        A.OneOf([A.Blur(blur_limit=3), A.GaussianBlur(), A.MotionBlur()], p=0.3),
        A.SomeOf([A.ToGray(p=1), A.Sharpen(p=1), A.InvertImg(p=1)], n=2, p=0.5),
        A.Sequential([A.RandomBrightnessContrast(p=1), A.HueSaturationValue(p=1)], p=0.5),
        A.Lambda(image=lambda x, **kw: x),
        A.OneOf([A.CLAHE(clip_limit=(1, 3)), A.UnsharpMask(threshold=5)], p=0.6),
        A.UnsharpMask(p=0.5),
        A.CoarseDropout(num_holes_range=(1, 3), hole_height_range=(0.1, 0.2),
                        hole_width_range=(0.1, 0.2), p=0.5),
        A.Normalize(),
        ToTensorV2(),
    ])
    val_transform = A.Compose([A.Resize(args.size, args.size), A.Normalize(), ToTensorV2()])
    """
)


@pytest.fixture
def train_file(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    return path


def test_a_python_file_is_ported_without_running(train_file: Path) -> None:
    result = port_file(train_file, pipeline="train_transform")
    assert not train_file.with_suffix(".ran").exists()
    refused = {r.call.name: r for r in result.refusals}
    assert set(refused) == {"Lambda"}
    assert refused["Lambda"].describe().startswith("line 19: Lambda(")
    assert "python_function" in refused["Lambda"].describe()
    grades = {s.call.name: s.origin.fidelity for s in result.steps}
    assert grades["ShiftScaleRotate"] == "exact" and grades["OneOf"] == "distribution"
    images = Session(result.spec, device_id=None).run().arrays(result.spec.outputs["images"])
    assert images[0].shape == (3, 128, 128) and images[0].dtype == np.float32


def test_a_value_known_only_at_run_time_is_named_with_its_line(train_file: Path) -> None:
    result = port_file(train_file, pipeline="val_transform")
    (refusal,) = result.refusals
    assert refusal.call.name == "Resize"
    assert "line 27" in refusal.describe() and "args.size" in refusal.describe()
    result = port_file(train_file, pipeline="val_transform", params={"args.size": 96})
    assert not result.refusals
    assert not train_file.with_suffix(".ran").exists()


def test_augexplorer_import_takes_the_file_and_the_saved_form(
    train_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "graph.json"
    for source in (train_file, FIXTURES / "albumentations_2.0.8.yaml"):
        done = subprocess.run(
            [sys.executable, "-m", "augexplorer", "import", str(source), "-o", str(out)]
            + (["--pipeline", "train_transform"] if source.suffix == ".py" else []),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert out.exists()
        out.unlink()
        # one line per transform with its grade, a refusal with its reason, and the count
        assert "MotionBlur" in done.stdout and "not ported" in done.stdout  # Lambda, MedianBlur
        assert ": exact ->" in done.stdout and "transforms ported" in done.stdout
    assert not train_file.with_suffix(".ran").exists()


@pytest.mark.slow
def test_the_exported_module_of_a_ported_graph_gives_the_explorers_pixels(
    train_file: Path, tmp_path: Path
) -> None:
    spec = import_graph(train_file, pipeline="train_transform")
    session = Session(spec, device_id=None).run()
    module = export(spec, tmp_path / "ported_aug.py")
    job = {
        "name": "p",
        "module": str(module),
        "out": str(tmp_path / "p.npz"),
        "batch_size": spec.batch_size,
        "device": "cpu",
    }
    exported = run_exported([job], tmp_path)["p"]
    ours = session.arrays(spec.outputs["images"])
    for sample, image in enumerate(ours):
        np.testing.assert_array_equal(exported[f"0_{sample}"], image, err_msg=f"sample {sample}")


def test_a_live_compose_is_ported_from_its_attributes() -> None:
    albumentations = pytest.importorskip("albumentations")
    from augexplorer.port.door import port_object

    transform = albumentations.Compose(
        [
            albumentations.Resize(96, 128),
            albumentations.Affine(rotate=(-10, 10), shear=4, p=0.3),
            albumentations.GaussianBlur(),
            albumentations.OneOf([albumentations.Blur(), albumentations.MotionBlur()], p=0.2),
            albumentations.CLAHE(),
            albumentations.FancyPCA(),
        ]
    )
    result = port_object(transform)
    assert [r.call.name for r in result.refusals] == ["FancyPCA"]
    affine = next(s for s in result.steps if s.call.name == "Affine")
    assert affine.origin.fidelity == "exact"
    images = Session(result.spec, device_id=None).run().arrays(result.spec.outputs["images"])
    assert images[0].shape == (96, 128, 3)


def test_a_drawn_rotation_says_its_caption_angle_is_the_negative_of_albumentations(
    tmp_path: Path,
) -> None:
    # found in a newcomer's trial: rotation.angle=17.1 in the caption where albumentations'
    # rotate for the same picture is -17.1
    path = tmp_path / "train.py"
    path.write_text(
        "import albumentations as A\n"
        "t = A.Compose([A.ShiftScaleRotate(rotate_limit=20, p=1), A.Affine(scale=1.1, p=1)])\n"
    )
    result = port_file(str(path), pipeline="t")
    said = {step.call.name: " ".join(step.origin.differences) for step in result.steps}
    assert "albumentations' for the same picture is its negative" in said["ShiftScaleRotate"]
    assert "negative" not in said["Affine"]  # no rotation drawn: nothing to say


def _compose_file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "compose_p.py"
    path.write_text(
        "import albumentations as A\nfrom albumentations.pytorch import ToTensorV2\n"
        f"t = A.Compose({body})\n"
    )
    return path


def test_a_compose_p_is_one_coin_over_its_transforms(tmp_path: Path) -> None:
    result = port_file(_compose_file(tmp_path, "[A.HorizontalFlip(p=1), A.ToGray(p=1)], p=0.4"))
    assert not result.refusals and not result.spec.not_ported
    coin = result.spec.node("compose_apply")
    assert coin.op == "random.coin_flip" and coin.args["probability"] == 0.4
    gated = [n.id for n in result.spec.operators() if any(c.ref.node == coin.id for c in n.when)]
    assert {"flip", "gray"} <= {g.split("_")[0] for g in gated}, gated
    assert result.steps[0].call.name == "Compose"


def test_a_compose_p_over_normalize_is_left_out_and_said(tmp_path: Path) -> None:
    """Where the coin says no, albumentations returns the uint8 array: no batch holds both."""
    body = "[A.HorizontalFlip(p=1), A.Normalize(), ToTensorV2()], p=0.5"
    result = port_file(_compose_file(tmp_path, body))
    (kept,) = result.spec.not_ported
    assert kept.transform.startswith("Compose(") and "its p=0.5 is left out" in kept.reason
    assert "A.Sequential([...], p=0.5)" in kept.reason
    assert not [n for n in result.spec.operators() if n.op == "random.coin_flip"]
    images = Session(result.spec, device_id=None).run().arrays(result.spec.outputs["images"])
    assert images[0].dtype == np.float32 and images[0].shape[0] == 3  # every image normalized


@pytest.mark.filterwarnings("ignore:Using lambda is incompatible:UserWarning")
def test_a_live_lambda_is_refused_and_the_rest_ported() -> None:
    """albumentations' Lambda will not describe itself without a name (to_dict raises): the
    pipeline around it is read from its attributes instead of failing whole."""
    A = pytest.importorskip("albumentations")
    from augexplorer.port import port_object

    transform = A.Compose(
        [A.HorizontalFlip(), A.OneOf([A.Lambda(image=lambda x, **_: x), A.Blur()], p=0.3)]
    )
    result = port_object(transform)
    assert [s.call.name for s in result.steps] == ["HorizontalFlip", "OneOf", "Blur"]
    (refusal,) = result.refusals
    assert refusal.call.name == "Lambda" and "python_function" in refusal.reason
    assert result.steps[1].call.kwargs["p"] == 0.3


def test_box_and_keypoint_settings_are_said_not_ported(tmp_path: Path) -> None:
    """The graph reads images and labels: a Compose's bbox_params would otherwise be dropped
    without a word (the summary said "0 not ported")."""
    path = tmp_path / "detection.py"
    path.write_text(
        "import albumentations as A\n"
        "t = A.Compose([A.HorizontalFlip()], bbox_params=A.BboxParams(format='coco', "
        "label_fields=['labels']), keypoint_params=A.KeypointParams(format='xy'))\n"
    )
    result = port_file(path)
    assert [s.call.name for s in result.steps] == ["HorizontalFlip"]
    said = [item.transform for item in result.spec.not_ported]
    assert said == [
        "Compose(bbox_params=A.BboxParams(format='coco', label_fields=['labels']))'s boxes",
        "Compose(keypoint_params=A.KeypointParams(format='xy'))'s keypoints",
    ]
    # parts of the pipeline, not transforms: said apart from the count of transforms
    assert "(1 exact), 0 not ported, and Compose(bbox_params=" in result.summary()
    reasons = [item.reason for item in result.spec.not_ported]
    assert "not their boxes" in reasons[0] and "not their keypoints" in reasons[1]
    assert "WARNING: NOT PORTED" in generate(result.spec)


def test_a_saved_pipelines_box_settings_are_said_too() -> None:
    saved = read_saved(
        {
            "__version__": "2.0.8",
            "transform": {
                "__class_fullname__": "Compose",
                "p": 1.0,
                "bbox_params": {"format": "pascal_voc", "label_fields": ["labels"]},
                "keypoint_params": None,
                "transforms": [{"__class_fullname__": "HorizontalFlip", "p": 0.5}],
            },
        }
    )
    (kept,) = port(saved.root).spec.not_ported
    assert kept.transform.startswith("Compose(bbox_params=") and "not their boxes" in kept.reason


def test_the_original_runs_on_images_alone_with_box_settings() -> None:
    """Compare and bench hand the original images only; a Compose with bbox_params refuses an
    image without boxes, so it is given empty boxes, keypoints and label fields."""
    A = pytest.importorskip("albumentations")
    from augexplorer.bench.original_outputs import apply

    transform = A.Compose(
        [A.HorizontalFlip(p=1)],
        bbox_params=A.BboxParams(format="coco", label_fields=["labels", "crowd"]),
        keypoint_params=A.KeypointParams(format="xy", label_fields=["names"]),
    )
    image = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    np.testing.assert_array_equal(apply("albumentations", transform, image), image[:, ::-1])


def test_a_clipping_transform_after_normalize_is_said_to_differ(tmp_path: Path) -> None:
    """albumentations clips GaussianBlur's float output to 0-1: after Normalize that undoes the
    normalization, which the port does not do; a flip there keeps the normalized range."""
    A = pytest.importorskip("albumentations")
    path = tmp_path / "normalize_first.py"
    body = "A.Normalize(), A.GaussianBlur(blur_limit=(3, 3), p=1), A.HorizontalFlip(p=1)"
    path.write_text(f"import albumentations as A\nt = A.Compose([{body}])\n")
    steps = {s.call.name: s.origin for s in port_file(path).steps}
    assert steps["GaussianBlur"].fidelity == "approximate"
    assert any(
        "clips this transform's output to 0-1" in d for d in steps["GaussianBlur"].differences
    )
    assert steps["HorizontalFlip"].fidelity == "exact"
    image = np.random.default_rng(0).integers(0, 256, (32, 32, 3), dtype=np.uint8)
    theirs = eval(f"A.Compose([{body}])", {"A": A})(image=image)["image"]  # the test's own text
    assert theirs.min() >= 0.0 and theirs.max() <= 1.0  # what the note says albumentations does


@pytest.mark.filterwarnings("ignore:Using lambda is incompatible:UserWarning")
def test_a_live_compose_read_from_its_attributes_still_says_its_box_settings() -> None:
    A = pytest.importorskip("albumentations")
    from augexplorer.port import port_object

    transform = A.Compose(
        [A.HorizontalFlip(), A.Lambda(image=lambda x, **_: x)],
        bbox_params=A.BboxParams(format="coco", label_fields=["labels"]),
    )
    said = [item.transform for item in port_object(transform).spec.not_ported]
    assert any(text.startswith("Compose(bbox_params=") for text in said), said
    assert any(text.startswith("Lambda(") for text in said), said


def test_a_compose_p_the_file_does_not_give_is_said(tmp_path: Path) -> None:
    path = _compose_file(tmp_path, "[A.HorizontalFlip(p=1)], p=float(sys.argv[1])")
    path.write_text("import sys\n" + path.read_text())
    result = port_file(path)
    (kept,) = result.spec.not_ported
    assert kept.transform == "Compose(p=float(sys.argv[1]))"
    assert "ported as applied to every image" in kept.reason
    assert [s.call.name for s in result.steps] == ["HorizontalFlip"]


@pytest.mark.parametrize(
    ("code", "operator"),
    [
        ("A.Rotate(limit=(30, 30), border_mode=0, fill=(124, 116, 104), p=1)", "rotate"),
        ("A.Affine(rotate=(30, 30), fill=(124, 116, 104), p=1)", "warp_affine"),
        ("A.ShiftScaleRotate(border_mode=0, fill=(124, 116, 104), p=1)", "warp_affine"),
    ],
)
def test_a_fill_per_channel_is_refused_where_dali_fills_one_value(
    code: str, operator: str, tmp_path: Path
) -> None:
    """Ported, the first channel's value filled every channel (corner [124 124 124] where
    albumentations gives [124 116 104]), graded exact; one value for all channels still ports."""
    path = tmp_path / "fill.py"
    path.write_text(f"import albumentations as A\nt = A.Compose([{code}])\n", encoding="utf-8")
    (refusal,) = port_file(path).refusals
    assert refusal.reason == (
        f"fill=(124, 116, 104): DALI's {operator} fills with one value for every channel "
        "(fix: one fill value)"
    )
    path.write_text(path.read_text().replace("(124, 116, 104)", "(9, 9, 9)"), encoding="utf-8")
    (step,) = port_file(path).steps
    assert step.origin.fidelity == "exact"
    assert any(node.args.get("fill_value") == 9.0 for node in step.nodes)


@pytest.mark.parametrize(
    "code",
    [
        "A.Resize(64, 48, area_for_downscale='image')",
        "A.SmallestMaxSize(max_size=64, interpolation=2, area_for_downscale='image_mask')",
        "A.RandomResizedCrop(size=(64, 64), area_for_downscale='image')",
    ],
)
def test_area_for_downscale_is_refused_as_inter_area_is(code: str, tmp_path: Path) -> None:
    """Left unread, the resize ported as INTER_LINEAR graded exact (max 24 grey levels off)."""
    path = tmp_path / "area.py"
    path.write_text(f"import albumentations as A\nt = A.Compose([{code}])\n", encoding="utf-8")
    (refusal,) = port_file(path).refusals
    assert "shrinks with OpenCV's INTER_AREA and enlarges with the interpolation given" in (
        refusal.reason
    )


GROUPS = textwrap.dedent(
    """
    import albumentations as A


    def get_train_transform(p, n):
        return A.Compose([
            A.Resize(64, 64),
            A.OneOf(
                [
                    A.OpticalDistortion(p=0.3),
                    A.GridDistortion(p=0.1),
                ],
                p=0.2,
            ),
            A.SomeOf([A.VerticalFlip(p=1), A.HorizontalFlip(p=1), A.Transpose(p=1)], n=2, p=p),
            A.SomeOf([A.VerticalFlip(p=1), A.HorizontalFlip(p=1)], n=n),
        ])
    """
)


def test_a_groups_value_known_only_at_run_time_is_said_as_any_other(tmp_path: Path) -> None:
    """SomeOf's p=p was refused as "SomeOf: p=Unknown(text='p', line=21) is not a number",
    the reader's own value; its n as a TypeError."""
    path = tmp_path / "groups.py"
    path.write_text(GROUPS)
    said = {r.call.line: r.reason for r in port_file(path).refusals if r.call.name == "SomeOf"}
    assert said == {
        15: "p=p is known only when the file runs; write the value in the call, or give it "
        "with --param p=VALUE",
        16: "n=n is known only when the file runs; write the value in the call, or give it "
        "with --param n=VALUE",
    }


def test_every_transform_is_listed_once_a_group_of_refused_ones_too(tmp_path: Path) -> None:
    """A OneOf whose transforms were all refused showed in neither list: the port's listing
    had a transform less than the file."""
    path = tmp_path / "groups.py"
    path.write_text(GROUPS)
    result = port_file(path, params={"p": 0.5, "n": 1})
    listed = [(s.call.name, s.call.line) for s in result.steps]
    listed += [(r.call.name, r.call.line) for r in result.refusals]
    assert sorted(listed, key=lambda item: (item[1] or 0, item[0])) == [
        ("Resize", 7),
        ("OneOf", 8),
        ("OpticalDistortion", 10),
        ("GridDistortion", 11),
        ("HorizontalFlip", 15),
        ("SomeOf", 15),
        ("Transpose", 15),
        ("VerticalFlip", 15),
        ("HorizontalFlip", 16),
        ("SomeOf", 16),
        ("VerticalFlip", 16),
    ]
    (one_of,) = [r for r in result.refusals if r.call.name == "OneOf"]
    assert one_of.describe().startswith(
        "line 8: OneOf([OpticalDistortion, GridDistortion], p=0.2) not ported: none of the "
        "transforms it holds could be ported"
    )
    assert result.transforms_not_ported == 3
    assert "3 not ported" in result.summary().splitlines()[0]


def test_some_of_reads_its_n_given_by_place(tmp_path: Path) -> None:
    """SomeOf([...], 2) was ported as n=1: n was read from the place after the transforms'
    list, which the reading holds apart."""
    path = _compose_file(tmp_path, "[A.SomeOf([A.HorizontalFlip(p=1), A.ToGray(p=1)], 2)]")
    (some_of, *_) = port_file(path).steps
    assert some_of.origin.differences == ("Every transform is picked (n covers them all).",)


@pytest.mark.parametrize(
    ("group", "p"),
    [
        ("A.OneOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=1)], 0.3)", 0.3),
        ("A.Sequential([A.HorizontalFlip(p=1), A.VerticalFlip(p=1)], 0.4)", 0.4),
        ("A.SomeOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=1)], 1, False, 0.6)", 0.6),
        ("A.OneOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=1)], p=0.2)", 0.2),
    ],
)
def test_a_groups_p_given_by_position_is_read(group: str, p: float) -> None:
    """OneOf([...], 0.3) applied with p 0.3 (the position was not read: it ran with the
    default, 0.5 for OneOf and Sequential, 1 for SomeOf)."""
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{group}])\n")
    result = port(found.compose)
    coins = [n for n in result.spec.nodes if n.id.endswith("_apply") and n.op == "random.coin_flip"]
    assert [c.args["probability"] for c in coins] == [p]


def test_other_images_and_masks_given_beside_the_image_are_said_not_ported(tmp_path: Path) -> None:
    """additional_targets (an image2 and a mask2 transformed alike) went unmentioned: the graph
    transforms one image a sample, and the list of what is left out says so, counted apart from
    the transforms as the first line counts it."""
    path = tmp_path / "pairs.py"
    path.write_text(
        "import albumentations as A\n"
        "t = A.Compose([A.HorizontalFlip()], additional_targets={'image2': 'image', "
        "'mask2': 'mask'})\n"
    )
    result = port_file(path)
    (left,) = result.spec.not_ported
    assert left.transform == (
        "Compose(additional_targets={'image2': 'image', 'mask2': 'mask'})'s extra targets"
    )
    assert "one image per sample" in left.reason
    said = result.summary()
    assert "1 transform ported (1 exact), 0 not ported, and Compose(" in said
    assert "NOT PORTED (1 part of the pipeline):" in said
    A = pytest.importorskip("albumentations")
    live = port_object(A.Compose([A.HorizontalFlip()], additional_targets={"image2": "image"}))
    assert [item.transform for item in live.spec.not_ported] == [
        "Compose(additional_targets={'image2': 'image'})'s extra targets"
    ]
