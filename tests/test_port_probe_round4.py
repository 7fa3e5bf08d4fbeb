"""Probe findings, round 4: torchvision's scriptable pipeline, ``torch.nn.Sequential(T.RandomCrop(
...), ...)`` as its documentation writes it, was not found as a pipeline (the import took the file
for DALI code and asked to run it); and a pipeline written for tensors (``ConvertImageDtype`` or
``Normalize`` with no conversion of a PIL image before it, as after ``read_image``) did not run in
Compare or ``bench --against``, which gave it PIL images."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from live_walk_run import walked
from test_port_compare import _images

from augexplorer.bench.against import bench_against
from augexplorer.port.compare import compare_file
from augexplorer.port.compare_pins import pin_of
from augexplorer.port.door import port_call, port_file
from augexplorer.port.live import call_from_tree
from augexplorer.port.reading import ReadRefused, choose, holds_pipeline, read_source

REPO = Path(__file__).resolve().parents[1]

HEADER = "import torch\nfrom torch import nn\nimport torchvision.transforms as T\n"

SEQUENTIAL = """
import torch
import torchvision.transforms as T

transforms = torch.nn.Sequential(
    T.RandomCrop(48, pad_if_needed=True),
    T.RandomHorizontalFlip(p=0.3),
    T.ConvertImageDtype(torch.float),
    T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
)
"""

# the same transforms, in a Compose a dataset of read_image's tensors is given
COMPOSE_OF_TENSORS = SEQUENTIAL.replace("torch.nn.Sequential(", "T.Compose([").replace(
    "),\n)", "),\n])"
)


def _write(folder: Path, text: str) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(text))
    return path


def test_a_sequential_of_transforms_is_the_pipeline_its_compose_would_be() -> None:
    (sequential,) = read_source(SEQUENTIAL)
    (compose,) = read_source(COMPOSE_OF_TENSORS)
    assert sequential.name == "transforms" and sequential.library == "torchvision"
    assert sequential.compose.children == compose.compose.children
    names = [call.name for call in sequential.compose.children]
    assert names == ["RandomCrop", "RandomHorizontalFlip", "ConvertImageDtype", "Normalize"]


@pytest.mark.parametrize(
    "pipeline",
    [
        "nn.Sequential(T.RandomHorizontalFlip(), nn.Sequential(T.RandomVerticalFlip()))",
        "nn.Sequential(flip, T.RandomVerticalFlip())",
        "nn.Sequential(OrderedDict([('flip', flip), ('vflip', T.RandomVerticalFlip())]))",
    ],
)
def test_a_sequential_nested_named_or_by_name_holds_its_transforms(pipeline: str) -> None:
    text = (
        f"{HEADER}from collections import OrderedDict\nflip = T.RandomHorizontalFlip()\n"
        f"t = {pipeline}\n"
    )
    (found,) = read_source(text)
    flat = [c.name for call in found.compose.children for c in (call, *call.children)]
    assert "RandomHorizontalFlip" in flat and "RandomVerticalFlip" in flat


def test_a_sequential_of_a_models_layers_is_no_pipeline() -> None:
    model = f"{HEADER}net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU())\n"
    assert not holds_pipeline(model)
    (found,) = read_source(model + "t = T.Compose([T.RandomHorizontalFlip()])\n")
    assert found.name == "t"


def test_a_sequential_file_is_ported_not_taken_for_dali_code(tmp_path: Path) -> None:
    """It was refused as DALI code to be run with --run-file."""
    result = port_file(_write(tmp_path, SEQUENTIAL))
    assert not result.refusals
    assert [step.call.name for step in result.steps] == [
        "RandomCrop",
        "RandomHorizontalFlip",
        "ConvertImageDtype",
        "Normalize",
    ]
    assert result.spec.nodes  # a graph, not a request to run the file


@pytest.mark.parametrize("text", [SEQUENTIAL, COMPOSE_OF_TENSORS])
def test_compare_gives_a_pipeline_written_for_tensors_the_tensors_it_takes(
    text: str, reference_python: str, tmp_path: Path
) -> None:
    comparison = compare_file(
        _write(tmp_path, text), _images(2), run_file=True, python=reference_python, draws=0
    )
    assert comparison.original_error == ""
    assert len(comparison.original) == 2 and comparison.original[0].dtype.kind == "f"
    for name in ("ConvertImageDtype", "Normalize"):
        step = comparison.step(name)
        assert step.pixels is not None, step.describe()
        assert step.pixels.max_abs < 1e-5
        assert "given as a uint8 tensor on both sides" in step.note


def test_compare_of_a_pipeline_of_pil_images_adds_no_tensor(
    reference_python: str, tmp_path: Path
) -> None:
    text = COMPOSE_OF_TENSORS.replace("T.ConvertImageDtype(torch.float)", "T.ToTensor()")
    comparison = compare_file(
        _write(tmp_path, text), _images(2), run_file=True, python=reference_python, draws=0
    )
    assert comparison.original_error == ""
    step = comparison.step("Normalize")
    assert step.pixels is not None and step.pixels.max_abs < 1e-5
    assert "uint8 tensor" not in step.note and "compared together with ToTensor" in step.note


@pytest.mark.slow
def test_bench_against_times_a_sequential_written_for_tensors(
    reference_python: str, tmp_path: Path
) -> None:
    result = bench_against(
        _write(tmp_path, SEQUENTIAL),
        python=reference_python,
        run_file=True,
        images=8,
        batch_size=4,
        workers=0,
        threads=1,
    )
    assert result.pipeline == "transforms"
    assert result.original.images == 8 and result.original.images_per_s


TIMM = """
import torch
from torchvision import transforms
from timm.data.transforms import RandomResizedCropAndInterpolation, MaybeToTensor
from timm.data.random_erasing import RandomErasing
from timm.data.constants import IMAGENET_DEFAULT_MEAN, IMAGENET_DEFAULT_STD

train_tf = transforms.Compose([
    RandomResizedCropAndInterpolation(224, interpolation='bicubic'),
    transforms.RandomHorizontalFlip(),
    MaybeToTensor(),
    transforms.Normalize(mean=torch.tensor(IMAGENET_DEFAULT_MEAN), std=torch.tensor(IMAGENET_DEFAULT_STD)),
    RandomErasing(0.25, mode='pixel', device='cpu'),
])
"""


def test_timms_transforms_are_said_to_be_timms_with_torchvisions_nearest(tmp_path: Path) -> None:
    """timm's RandomErasing was called "a class of your own"."""
    result = port_file(_write(tmp_path, TIMM))
    said = {refusal.call.name: refusal.describe() for refusal in result.refusals}
    timms = {"RandomResizedCropAndInterpolation", "MaybeToTensor", "RandomErasing"}
    assert set(said) == {*timms, "Normalize"}
    # its mean and std are read (timm's torch.tensor of its constants): only its input is not
    assert "known only when the file runs" not in said["Normalize"]
    assert "of your own" not in " ".join(said.values())
    assert "timm's (timm.data.random_erasing.RandomErasing)" in said["RandomErasing"]
    assert "RandomErasing(p=P, value='random')" in said["RandomErasing"]
    assert "nearest is RandomResizedCrop(" in said["RandomResizedCropAndInterpolation"]
    assert "nearest is ToTensor()" in said["MaybeToTensor"]


def test_a_class_of_the_projects_own_is_still_said_to_be_its_own(tmp_path: Path) -> None:
    own = TIMM.replace("from timm.data.random_erasing import RandomErasing\n", "").replace(
        "import torch\n", "import torch\n\nclass RandomErasing:\n    pass\n"
    )
    result = port_file(_write(tmp_path, own))
    (erasing,) = [r for r in result.refusals if r.call.name == "RandomErasing"]
    assert "a class of your own" in erasing.describe()


@pytest.mark.parametrize(
    "written", ["torch.tensor(MEAN)", "torch.as_tensor(MEAN)", "np.array(MEAN)", "list(MEAN)"]
)
def test_an_array_made_of_constants_the_file_settles_is_read_as_them(written: str) -> None:
    text = (
        f"{HEADER}import numpy as np\nMEAN = (0.5, 0.4, 0.3)\n"
        f"t = T.Compose([T.ToTensor(), T.Normalize(mean={written}, std=[0.2, 0.2, 0.2])])\n"
    )
    (found,) = read_source(text)
    normalize = found.compose.children[1]
    assert list(normalize.kwargs["mean"]) == [0.5, 0.4, 0.3]


LIVE = textwrap.dedent(
    """
    import importlib.util, json, sys
    spec = importlib.util.spec_from_file_location("live_walk", sys.argv[1])
    walk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk)
    import torch
    from torch import nn
    import torchvision.transforms as T

    pipelines = {
        "transforms": nn.Sequential(
            T.RandomCrop(48), T.RandomHorizontalFlip(p=0.3), T.ConvertImageDtype(torch.float)
        ),
        "layers": nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU()),
    }
    print(json.dumps({name: walk.describe(t) for name, t in pipelines.items()}))
    """
)


def test_a_live_sequential_of_transforms_is_read_as_their_compose(reference_python: str) -> None:
    trees = walked(reference_python, LIVE)
    result = port_call(call_from_tree(trees["transforms"]))
    assert not result.refusals
    assert [step.call.name for step in result.steps] == [
        "RandomCrop",
        "RandomHorizontalFlip",
        "ConvertImageDtype",
    ]
    assert trees["layers"]["name"] == "Sequential"  # a model's layers are no pipeline


@pytest.mark.parametrize(
    "made",
    [
        "weights = ResNet50_Weights.DEFAULT\npreprocess = weights.transforms()",
        "preprocess = models.ResNet50_Weights.IMAGENET1K_V2.transforms()",
        "preprocess = models.get_weight('ResNet50_Weights.DEFAULT').transforms()",
    ],
)
def test_torchvisions_weights_preset_is_named_with_what_it_runs(made: str) -> None:
    """A file of ``weights.transforms()`` was taken for DALI code to run; beside a Compose it went
    unmentioned while the Compose was ported in its place."""
    text = (
        "from torchvision import models\nfrom torchvision.models import ResNet50_Weights\n"
        f"import torchvision.transforms as T\n{made}\n"
        "train_tf = T.Compose([T.RandomResizedCrop(224), T.ToTensor()])\n"
    )
    assert [p.name for p in read_source(text)] == ["preprocess", "train_tf"]
    with pytest.raises(ReadRefused) as refused:
        choose(read_source(text), "preprocess", where="train.py")
    said = str(refused.value)
    assert "torchvision's weights.transforms()" in said
    assert "T.Resize(resize_size, interpolation=interpolation, antialias=True)" in said


def test_a_transforms_attribute_of_anything_else_is_no_preset() -> None:
    text = f"{HEADER}aug = T.Compose([T.RandomHorizontalFlip()])\nother = aug.transforms()\n"
    assert [p.name for p in read_source(text)] == ["aug"]


MIXING = """
import torch
from torchvision.transforms import v2
from timm.data import Mixup

transforms = v2.Compose([v2.ToImage(), v2.RandomResizedCrop(64), v2.ToDtype(torch.float32, scale=True)])
cutmix = v2.CutMix(num_classes=10)
cutmix_or_mixup = v2.RandomChoice([cutmix, v2.MixUp(num_classes=10)])
mixup_fn = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, num_classes=10)
"""


def test_batch_mixing_beside_the_pipeline_is_said_to_stay_in_the_training_loop(
    tmp_path: Path,
) -> None:
    """v2's CutMix and MixUp, and timm's Mixup, built beside the pipeline went unmentioned."""
    result = port_file(_write(tmp_path, MIXING))
    mixing = [note for note in result.notes if "mixes the loader's batches" in note]
    assert [note.split(" mixes", 1)[0] for note in mixing] == [
        "line 7: v2.CutMix(num_classes=10)",
        "line 8: v2.MixUp(num_classes=10)",
        "line 9: Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, num_classes=10)",
    ]
    assert all("keep it in the training loop" in note for note in mixing)


def test_batch_mixing_inside_the_pipeline_is_refused_not_noted(tmp_path: Path) -> None:
    inside = "from torchvision.transforms import v2\nt = v2.Compose([v2.CutMix(num_classes=10)])\n"
    result = port_file(_write(tmp_path, inside))
    assert [r.call.name for r in result.refusals] == ["CutMix"]
    assert not [note for note in result.notes if "mixes the loader's batches" in note]


@pytest.mark.parametrize(
    ("written", "said", "pinned"),
    [
        # was compared at angle 10, scale 1.1, shear 5: a transform the user's never is
        ("T.RandomAffine(0, translate=(0.1, 0.1))", "angle 0, no translation", {}),
        (
            "T.RandomAffine(15, scale=(0.9, 1.05), shear=5)",
            "angle 10, scale 1.05, shear 5, no translation",
            {"scale": (1.05, 1.05), "shear": (5.0, 5.0)},
        ),
    ],
)
def test_compare_pins_random_affine_inside_the_users_ranges(
    written: str, said: str, pinned: dict[str, tuple[float, float]]
) -> None:
    (found,) = read_source(f"{HEADER}t = T.Compose([{written}])\n")
    (affine,) = found.compose.children
    pin = pin_of(affine)
    assert pin is not None and pin.describe(affine) == said
    applied = pin.apply(affine)
    assert {k: v for k, v in applied.kwargs.items() if k in ("scale", "shear")} == pinned
    assert applied.args[0] == (min(10.0, float(affine.args[0])),) * 2
