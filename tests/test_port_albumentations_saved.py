"""albumentations' saved form (A.save as JSON or YAML, A.to_dict) read without albumentations,
ported, and imported through the one door. The fixtures under tests/fixtures/albumentations
were written by albumentations 1.4.0, 1.4.24 and 2.0.8 themselves (the same pipeline each)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from augexplorer.engine import Session
from augexplorer.errors import SpecFormatError
from augexplorer.export.importer import import_graph
from augexplorer.port.albumentations import (
    SavedFormError,
    is_saved_file,
    port,
    port_saved_file,
    read_saved,
    read_saved_file,
)
from augexplorer.port.model import TransformCall

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "albumentations"
VERSIONS = ("1.4.0", "1.4.24", "2.0.8")
TOP = [
    "SmallestMaxSize",
    "RandomResizedCrop",
    "HorizontalFlip",
    "ShiftScaleRotate",
    "OneOf",
    "SomeOf",
    "Sequential",
    "ColorJitter",
    "GaussNoise",
    "ImageCompression",
    "CoarseDropout",
    "Normalize",
]


def _names(call: TransformCall) -> list[str]:
    return [child.name for child in call.children]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_reads_into_the_same_tree(version: str) -> None:
    saved = read_saved_file(FIXTURES / f"albumentations_{version}.json")
    assert saved.version == version
    assert saved.major == int(version[0])
    assert saved.root.name == "Compose" and saved.root.library == "albumentations"
    assert _names(saved.root) == TOP
    one_of = saved.root.children[4]
    assert _names(one_of) == ["GaussianBlur", "MotionBlur", "MedianBlur"]
    assert one_of.kwargs["p"] == 0.3
    assert "bbox_params" not in saved.root.kwargs  # none given: nothing to say


@pytest.mark.parametrize("version", ("1.4.0", "2.0.8"))
def test_yaml_reads_as_json_does(version: str) -> None:
    from_json = read_saved_file(FIXTURES / f"albumentations_{version}.json")
    from_yaml = read_saved_file(FIXTURES / f"albumentations_{version}.yaml")
    assert from_yaml == from_json


@pytest.mark.parametrize("version", VERSIONS)
def test_every_version_ports_to_a_graph_that_runs(version: str) -> None:
    result = port_saved_file(FIXTURES / f"albumentations_{version}.json")
    ported = [step.call.name for step in result.steps]
    for name in ("RandomResizedCrop", "ShiftScaleRotate", "CoarseDropout", "GaussNoise"):
        assert name in ported, (version, name)
    refused = {refusal.call.name for refusal in result.refusals}
    assert refused == {"MedianBlur"}, refused  # DALI 2.4's median blur runs on a GPU only
    motion = next(s for s in result.steps if s.call.name == "MotionBlur")
    assert motion.origin.fidelity == ("exact" if version == "2.0.8" else "approximate")
    images = Session(result.spec, device_id=None).run().arrays(result.spec.outputs["images"])
    assert images[0].shape == (224, 224, 3) and images[0].dtype.name == "float32"


def test_the_names_of_1_4_map_to_the_same_nodes_as_2_x() -> None:
    old = port_saved_file(FIXTURES / "albumentations_1.4.0.json")
    new = port_saved_file(FIXTURES / "albumentations_2.0.8.json")

    def step(result, name):  # type: ignore[no-untyped-def]
        return next(s for s in result.steps if s.call.name == name)

    # RandomResizedCrop(height=, width=) -> size
    for result in (old, new):
        crop = step(result, "RandomResizedCrop").nodes[0]
        assert crop.op == "random_resized_crop" and crop.args["size"] == [224.0, 224.0]
    # CoarseDropout(max_holes=, max_height=) -> holes of 16-32 pixels, 1-4 of them
    holes = {n.id: n for n in step(old, "CoarseDropout").nodes}
    assert holes["hole_low"].args["values"][:2] == [16.0, 16.0]
    assert holes["hole_high"].args["values"][:2] == [32.0, 32.0]
    assert holes["hole_count"].args["values"] == [1.0, 2.0, 3.0, 4.0]
    assert "math.min" in holes["hole_size"].args["expression"]  # whole pixels, as 1.x gave
    fractions = {n.id: n for n in step(new, "CoarseDropout").nodes}
    assert "hole_room *" in fractions["hole_size"].args["expression"]  # fractions of the image
    # GaussNoise(var_limit=) -> the square root of a uniform variance
    noise_ops = [n.op for n in step(old, "GaussNoise").nodes]
    assert noise_ops[:2] == ["random.uniform", "expression"]
    # ImageCompression(quality_lower=, quality_upper=) -> qualities 60..90
    jpeg = step(old, "ImageCompression").nodes[0]
    assert jpeg.args["quality"].values == tuple(float(q) for q in range(60, 91))
    # 1.4's always_apply=False beside p: p stands
    assert step(old, "HorizontalFlip").nodes[0].probability.p == 0.5


def test_replay_compose_ports_as_a_compose() -> None:
    result = port_saved_file(FIXTURES / "albumentations_2.0.8_replay.json")
    assert [s.call.name for s in result.steps] == ["Resize", "VerticalFlip"]
    images = Session(result.spec, device_id=None).run().arrays(result.spec.outputs["images"])
    assert images[0].shape == (200, 240, 3)


def test_albumentations_x_argument_names_are_read() -> None:
    saved = read_saved(
        {
            "__version__": "2.0.9",
            "transform": {
                "__class_fullname__": "Compose",
                "p": 1.0,
                "transforms": [
                    {
                        "__class_fullname__": "ColorJitter",
                        "p": 1.0,
                        "brightness_range": [0.7, 1.3],
                        "contrast_range": [0.9, 1.1],
                        "saturation_range": [1.0, 1.0],
                        "hue_range": [-0.1, 0.1],
                    }
                ],
            },
        }
    )
    (step,) = port(saved.root).steps
    args = step.nodes[0].args
    assert (args["brightness"].low, args["brightness"].high) == (0.7, 1.3)
    assert args["saturation"] == 1.0
    assert (args["hue"].low, args["hue"].high) == pytest.approx((-36.0, 36.0))


def test_full_class_names_and_other_packages() -> None:
    saved = read_saved(
        {
            "__version__": "0.5.2",
            "transform": {
                "__class_fullname__": "albumentations.core.composition.Compose",
                "transforms": [
                    {
                        "__class_fullname__": "albumentations.augmentations.transforms.Blur",
                        "always_apply": True,
                        "p": 0.5,
                        "blur_limit": [3, 3],
                    },
                    {"__class_fullname__": "mypackage.augment.MyTransform", "p": 1.0},
                ],
            },
        }
    )
    assert _names(saved.root) == ["Blur", "mypackage.augment.MyTransform"]
    assert saved.root.children[0].kwargs["p"] == 1.0  # always_apply wins over p
    result = port(saved.root)
    (refusal,) = [r for r in result.refusals if "." in r.call.name]
    assert "not ported" in refusal.describe()


def test_to_dict_of_a_live_pipeline_reads_as_its_file() -> None:
    albumentations = pytest.importorskip("albumentations")
    transform = albumentations.Compose(
        [albumentations.Resize(64, 80), albumentations.HorizontalFlip(p=0.25)]
    )
    saved = read_saved(albumentations.to_dict(transform))
    assert _names(saved.root) == ["Resize", "HorizontalFlip"]
    assert saved.root.children[1].kwargs["p"] == 0.25


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"nodes": []}, "not albumentations' saved form"),
        ([1, 2], "not albumentations' saved form"),
        ({"transform": {"__class_fullname__": "Compose", "transforms": {}}}, "not a list"),
        (
            {"transform": {"__class_fullname__": "Compose", "transforms": [{"p": 1}]}},
            "transform (Compose) > transforms[0] has no '__class_fullname__'",
        ),
    ],
)
def test_what_is_not_the_saved_form_is_refused_saying_where(data: object, words: str) -> None:
    with pytest.raises(SavedFormError, match=re.escape(words)):
        read_saved(data)


def test_the_door_imports_saved_json_and_yaml_and_still_reads_specs(tmp_path: Path) -> None:
    for name in ("albumentations_2.0.8.json", "albumentations_1.4.0.yaml"):
        spec = import_graph(FIXTURES / name)
        assert spec.name == name.rsplit(".", 1)[0].replace(".", "_")
        assert any(node.origin is not None for node in spec.operators())
    assert is_saved_file(FIXTURES / "albumentations_2.0.8.json", "__class_fullname__") is False
    spec_file = tmp_path / "graph.json"
    spec_file.write_text(json.dumps({"format": "augexplorer", "nodes": []}))
    assert not is_saved_file(spec_file, spec_file.read_text())
    with pytest.raises(SpecFormatError, match="parameters"):
        import_graph(FIXTURES / "albumentations_2.0.8.json", params={"size": 3})


def test_a_1_x_file_picks_some_of_as_1_x_did() -> None:
    """1.x's SomeOf picked by the transforms' p and applied the pick whatever its p; 2.x picks
    with equal chances and applies each with its own p."""
    old = port_saved_file(FIXTURES / "albumentations_1.4.0.json")
    new = port_saved_file(FIXTURES / "albumentations_2.0.8.json")

    def some_of(result):  # type: ignore[no-untyped-def]
        return next(s for s in result.steps if s.call.name == "SomeOf")

    assert "1.x" in some_of(old).origin.differences[0]
    assert "2.x does" in some_of(new).origin.differences[0]
    saved = read_saved(
        {
            "__version__": "1.4.0",
            "transform": {
                "__class_fullname__": "Compose",
                "transforms": [
                    {
                        "__class_fullname__": "SomeOf",
                        "n": 2,
                        "replace": False,
                        "p": 1.0,
                        "transforms": [
                            {"__class_fullname__": "HorizontalFlip", "p": 1.0},
                            {"__class_fullname__": "VerticalFlip", "p": 1.0},
                            {"__class_fullname__": "Transpose", "p": 1.0},
                        ],
                    }
                ],
            },
        }
    )
    (refusal,) = port(saved.root, version=1).refusals
    assert "1.x picks n > 1" in refusal.reason
    assert not port(saved.root).refusals
