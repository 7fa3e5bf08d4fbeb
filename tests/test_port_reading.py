"""Reading torchvision and albumentations pipelines from files, notebooks and live objects,
without running anything of them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from live_walk_run import walked

from augexplorer.port.door import port_file
from augexplorer.port.live import call_from_tree
from augexplorer.port.model import Symbol, TransformCall, Unknown
from augexplorer.port.reading import ReadRefused, read_file, read_source

REPO = Path(__file__).resolve().parents[1]

IMAGENET = """
import argparse
import torchvision.transforms as transforms
import torchvision.datasets as datasets
from torchvision.transforms import InterpolationMode

SIZE = 224
args = argparse.ArgumentParser().parse_args()

def main_worker(args):
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406],
                                     std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(
        args.data,
        transforms.Compose([
            transforms.RandomResizedCrop(SIZE, interpolation=InterpolationMode.BICUBIC),
            transforms.RandomHorizontalFlip(),
            transforms.RandomApply([transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
            transforms.ToTensor(),
            normalize,
        ]))
    val_transform = transforms.Compose([
        transforms.Resize(int(SIZE * 256 / 224)),
        transforms.CenterCrop(args.crop),
        transforms.ToTensor(),
        normalize,
    ])
"""


def _names(call: TransformCall) -> list[str]:
    return [child.name for child in call.children]


def test_a_training_script_gives_each_compose_by_name_with_values_resolved() -> None:
    found = read_source(IMAGENET)
    assert [p.name for p in found] == ["train_dataset", "val_transform"]
    train, val = (p.compose for p in found)
    assert train.library == "torchvision"
    assert _names(train) == [
        "RandomResizedCrop",
        "RandomHorizontalFlip",
        "RandomApply",
        "ToTensor",
        "Normalize",
    ]
    crop = train.children[0]
    assert crop.args == (224,) and crop.line == 16
    assert crop.kwargs["interpolation"] == Symbol(
        "torchvision.transforms.InterpolationMode.BICUBIC"
    )
    assert crop.kwargs["interpolation"].last == "BICUBIC"
    apply = train.children[2]
    assert apply.kwargs == {"p": 0.8}
    assert apply.children[0].args == (0.4, 0.4, 0.4, 0.1)
    assert train.children[4].kwargs["std"] == [0.229, 0.224, 0.225]
    assert val.children[0].args == (256,)  # int(SIZE * 256 / 224), computed, not run
    assert val.children[1].args == (Unknown("args.crop", 24),)
    assert "line 24: args.crop (its first argument) is known only when the file runs" in (
        val.children[1].unknowns()["#0"].explain("#0")
    )


def test_a_pipeline_is_chosen_by_name_and_several_are_listed(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(IMAGENET)
    with pytest.raises(ReadRefused, match=r"2 pipelines \(train_dataset, val_transform\)"):
        read_file(path)
    assert read_file(path, pipeline="val_transform").compose.children[0].name == "Resize"
    with pytest.raises(ReadRefused, match=r"no pipeline 'test'.*train_dataset, val_transform"):
        read_file(path, pipeline="test")
    assert read_file(path, pipeline="val_transform", params={"args": 1}).name == "val_transform"


TUTORIAL = """
from torchvision import transforms

data_transforms = {
    'train': transforms.Compose([
        transforms.RandomResizedCrop(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
    ]),
    "val": transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224)]),
}
"""


def test_pipelines_kept_in_a_dict_are_named_by_their_keys(tmp_path: Path) -> None:
    # PyTorch's transfer-learning tutorial keeps its two Composes in one dict: they were
    # "data_transforms (line 4)" and "(line 10)", and the key named neither
    path = tmp_path / "tutorial.py"
    path.write_text(TUTORIAL)
    with pytest.raises(
        ReadRefused, match=r"\(data_transforms\['train'\], data_transforms\['val'\]\)"
    ):
        read_file(path)
    for asked in ("data_transforms['train']", 'data_transforms["train"]', "train"):
        assert read_file(path, pipeline=asked).compose.children[0].name == "RandomResizedCrop"
    assert read_file(path, pipeline="val").name == "data_transforms['val']"
    assert port_file(path, pipeline="val").spec.name == "data_transforms_val"


TIMM = """
import timm
from timm.data import create_transform as build
from torchvision import transforms as T

train_tf = build(224, is_training=True, auto_augment="rand-m9-mstd0.5-inc1", re_prob=0.25)
eval_tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor()])
"""


def test_a_pipeline_timm_builds_at_run_time_is_listed_and_says_what_to_do(
    tmp_path: Path,
) -> None:
    # the file's evaluation Compose was ported in place of the training one, unmentioned
    path = tmp_path / "train.py"
    path.write_text(TIMM)
    with pytest.raises(ReadRefused, match=r"2 pipelines \(train_tf, eval_tf\)"):
        read_file(path)
    with pytest.raises(ReadRefused) as refused:
        read_file(path, pipeline="train_tf")
    text = str(refused.value)
    assert "train_tf is made by timm's create_transform when the code runs (line 6: " in text
    assert "build(224, is_training=True" in text and "fix: print(train_tf)" in text
    assert read_file(path, pipeline="eval_tf").compose.children[1].name == "CenterCrop"
    path.write_text("import timm\ntf = timm.data.transforms_factory.transforms_imagenet_eval()\n")
    with pytest.raises(ReadRefused, match="tf is made by timm's transforms_imagenet_eval"):
        read_file(path)


EVAL = "eval_tf = T.Compose([T.Resize(256), T.CenterCrop(224)])"


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (
            "def build(train):\n    if train:\n        return create_transform(224)\n"
            "    return T.Compose([T.Resize(256), T.CenterCrop(224)])\n",
            "build",
        ),
        (
            f"tfs = {{'train': create_transform(224), 'val': {EVAL.split(' = ')[1]}}}\n",
            "tfs['train']",
        ),
        (f"train_tf: T.Compose = create_transform(224)\n{EVAL}\n", "train_tf"),
        (f"train_set = ImageFolder('x', transform=create_transform(224))\n{EVAL}\n", "train_set"),
    ],
    ids=["returned", "in-a-dict", "annotated", "a-keyword"],
)
def test_a_timm_pipeline_is_listed_however_the_file_keeps_it(code: str, name: str) -> None:
    # each of these ported the file's other Compose in its place, without a word
    for imports in ("from timm.data import create_transform", "from timm.data import *"):
        text = f"{imports}\nfrom torchvision import transforms as T\n{code}"
        found = read_source(text)
        assert len(found) == 2, (imports, [p.name for p in found])
        (timm,) = [p for p in found if p.unreadable]
        assert timm.name.startswith(name) and "made by timm's create_transform" in timm.unreadable


@pytest.mark.parametrize(
    "imports, prefix",
    [
        ("from torchvision.transforms import v2", "v2."),
        ("from torchvision.transforms import v2 as T", "T."),
        ("import torchvision.transforms.v2 as T", "T."),
        ("import torchvision", "torchvision.transforms."),
        ("from torchvision import transforms", "transforms."),
        ("from torchvision.transforms import *", ""),
    ],
)
def test_import_aliases_are_followed(imports: str, prefix: str) -> None:
    source = (
        f"{imports}\npipe = {prefix}Compose([{prefix}RandomSizedCrop(224), {prefix}Scale(256)])\n"
    )
    (found,) = read_source(source)
    assert found.name == "pipe"
    assert _names(found.compose) == ["RandomSizedCrop", "Scale"]


def test_albumentations_composes_and_their_nested_groups() -> None:
    source = textwrap.dedent(
        """
        import albumentations as A
        from albumentations import HorizontalFlip
        import cv2

        def get_train_transforms(size=256):
            return A.ReplayCompose([
                A.OneOf([A.Blur(blur_limit=3), A.MotionBlur()], p=0.3),
                A.SomeOf([HorizontalFlip(), A.VerticalFlip()], n=1),
                A.Sequential([A.Rotate(limit=30, border_mode=cv2.BORDER_REFLECT)], p=0.5),
                A.Resize(size, size),
            ])
        """
    )
    (found,) = read_source(source)
    assert found.name == "get_train_transforms" and found.library == "albumentations"
    one_of, some_of, sequential, resize = found.compose.children
    assert (one_of.name, one_of.kwargs, _names(one_of)) == (
        "OneOf",
        {"p": 0.3},
        ["Blur", "MotionBlur"],
    )
    assert _names(some_of) == ["HorizontalFlip", "VerticalFlip"] and some_of.kwargs == {"n": 1}
    assert sequential.children[0].kwargs["border_mode"] == Symbol("cv2.BORDER_REFLECT")
    assert resize.args == (256, 256)  # the parameter's default, said (below)
    assert found.defaults == (
        "size=256, the default of get_train_transforms' parameter size; --param size=VALUE "
        "to use another",
    )


def test_a_custom_transform_and_a_lambda_are_kept_by_name() -> None:
    source = textwrap.dedent(
        """
        import torchvision.transforms as T
        from mylib import Cutout
        t = T.Compose([T.Lambda(lambda x: x * 2), Cutout(16), T.ToTensor()])
        """
    )
    (found,) = read_source(source)
    lam, cutout, _ = found.compose.children
    assert lam.name == "Lambda" and isinstance(lam.args[0], Unknown)
    assert (cutout.library, cutout.name, cutout.args) == ("custom", "Cutout", (16,))


def test_a_notebook_is_read_from_its_code_cells(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "markdown", "source": ["# Training"]},
        {
            "cell_type": "code",
            "source": ["%matplotlib inline\n", "import torchvision.transforms as T"],
        },
        {"cell_type": "code", "source": "aug = T.Compose([\n    T.RandomCrop(32, padding=4),\n])"},
    ]
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}))
    found = read_file(path)
    assert found.name == "aug"
    assert found.compose.children[0].kwargs == {"padding": 4}
    assert found.compose.children[0].line == 5  # cell lines in order, magics kept as lines


def test_nothing_of_the_file_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "train.py"
    path.write_text(
        f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit(3)\n"
        "import torchvision.transforms as T\nt = T.Compose([T.CenterCrop(open('x').read())])\n"
    )
    found = read_file(path)
    assert isinstance(found.compose.children[0].args[0], Unknown)
    assert not marker.exists()


def test_a_file_without_a_pipeline_says_what_to_give(tmp_path: Path) -> None:
    path = tmp_path / "plain.py"
    path.write_text("import torch\nx = torch.zeros(3)\n")
    with pytest.raises(ReadRefused, match="no torchvision or albumentations Compose"):
        read_file(path)


LIVE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("live_walk", sys.argv[1])
walk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(walk)
import torchvision.transforms as T
t = T.Compose([
    T.RandomResizedCrop(224, interpolation=T.InterpolationMode.BICUBIC),
    T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
    T.RandomRotation(15),
    T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
])
print(json.dumps(walk.describe(t)))
"""


def test_a_live_torchvision_compose_is_read_from_its_attributes(reference_python: str) -> None:
    compose = call_from_tree(walked(reference_python, LIVE))
    assert (compose.library, compose.name) == ("torchvision", "Compose")
    crop, apply, rotation, normalize = compose.children
    assert crop.kwargs["size"] == (224, 224) and crop.kwargs["scale"] == (0.08, 1.0)
    assert crop.kwargs["interpolation"] == Symbol("InterpolationMode.BICUBIC")
    assert apply.kwargs == {"p": 0.8}
    assert apply.children[0].kwargs["hue"] == (-0.1, 0.1)
    assert rotation.kwargs["degrees"] == [-15.0, 15.0]
    assert normalize.kwargs["mean"] == [0.485, 0.456, 0.406]


def test_constants_written_as_people_write_configs_are_read() -> None:
    """A config class, an annotated constant, a dict entry, names unpacked from a tuple: each
    was "known only when the file runs" (the script lost its Normalize, and its sizes)."""
    text = textwrap.dedent(
        """
        import torchvision.transforms as T

        class CFG:
            img_size = 320
            mean = (0.485, 0.456, 0.406)
            std: tuple = (0.229, 0.224, 0.225)

        SIZE: int = 288
        cfg = {"crop": 256, "sizes": [64, 96]}
        H, W = 256, 192
        mean, std = [0.5, 0.5, 0.5], [0.25, 0.25, 0.25]

        train = T.Compose([
            T.RandomResizedCrop(CFG.img_size),
            T.Resize(SIZE),
            T.CenterCrop(cfg["crop"]),
            T.CenterCrop(cfg["sizes"][1]),
            T.Resize((H, W)),
            T.Normalize(CFG.mean, CFG.std),
            T.Normalize(mean, std),
        ])
        """
    )
    (found,) = read_source(text)
    args = [call.args for call in found.compose.children]
    assert args == [
        (320,),
        (288,),
        (256,),
        (96,),
        ((256, 192),),
        ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]),  # the module's names, not the class's
    ]


def test_a_config_attribute_can_be_given_on_the_command_line() -> None:
    """--param CFG.img_size=320 was refused as no NAME=VALUE; a class the file imports from
    elsewhere is read through it."""
    from augexplorer.export.code_pipelines import parse_param

    assert parse_param("CFG.img_size=320") == ("CFG.img_size", 320)
    text = "import torchvision.transforms as T\nfrom config import CFG\n"
    text += "t = T.Compose([T.Resize(CFG.img_size)])\n"
    (found,) = read_source(text, params=dict([parse_param("CFG.img_size=320")]))
    assert found.compose.children[0].args == (320,)


def test_an_attribute_known_only_at_run_time_says_the_param_that_gives_it() -> None:
    from augexplorer.port.torchvision import port

    text = "import torchvision.transforms as T\nt = T.Compose([T.Resize(args.size)])\n"
    (found,) = read_source(text)
    (refusal,) = port(found.compose).refusals
    assert refusal.reason.endswith("or give it with --param args.size=VALUE")


FUNCTION_DEFAULTS = """
import torchvision.transforms as T

IMG_SIZE = 384
size = 999  # a module name the parameter hides


def get_train_transforms(size=32, image_size: int = IMG_SIZE, *, p: float = 0.25, fill=0):
    crop = int(size * 0.875)
    return T.Compose([
        T.RandomResizedCrop(size=size),
        T.CenterCrop(crop),
        T.Resize(image_size),
        T.RandomGrayscale(p=p),
    ])
"""


def test_a_functions_parameter_is_read_at_its_default_and_said(tmp_path: Path) -> None:
    """A pipeline built in a function from its parameters was refused value by value as
    "known only when the file runs" though each has a default in the file: a literal, a
    module constant, a keyword-only one, and a local computed from them."""
    from augexplorer.port.door import port_file

    (found,) = read_source(FUNCTION_DEFAULTS)
    args = [(call.args, call.kwargs) for call in found.compose.children]
    assert args == [((), {"size": 32}), ((28,), {}), ((384,), {}), ((), {"p": 0.25})]
    assert found.defaults == (
        "size=32, the default of get_train_transforms' parameter size; --param size=VALUE to "
        "use another",
        "image_size=384, the default of get_train_transforms' parameter image_size; --param "
        "image_size=VALUE to use another",
        "p=0.25, the default of get_train_transforms' parameter p; --param p=VALUE to use another",
    )
    path = tmp_path / "train.py"
    path.write_text(FUNCTION_DEFAULTS, encoding="utf-8")
    result = port_file(path)
    assert not result.refusals, [r.describe() for r in result.refusals]
    said = result.summary().splitlines()
    assert said[1] == f"note: {found.defaults[0]}"  # under the first line, for a caller
    # --param gives another value, which the port then takes without a note
    (given,) = read_source(FUNCTION_DEFAULTS, params={"size": 64})
    assert given.compose.children[0].kwargs == {"size": 64}
    assert given.compose.children[1].args == (56,)
    assert not any(note.startswith("size=") for note in given.defaults)


def test_a_parameter_without_a_default_or_bound_again_is_not_read_at_a_default() -> None:
    text = textwrap.dedent(
        """
        import torchvision.transforms as T

        def get(size, crop=224, flip=0.5):
            for flip in (0.1, 0.9):
                pass
            crop = crop + 32
            return T.Compose([T.Resize(size), T.CenterCrop(crop), T.RandomHorizontalFlip(flip)])
        """
    )
    (found,) = read_source(text)
    resize, crop, flip = found.compose.children
    assert resize.args == (Unknown("size", 8),)
    assert crop.args == (256,)  # the local assignment, from the parameter's default
    assert isinstance(flip.args[0], Unknown)  # the loop binds it: not the default
    assert [note.split(",")[0] for note in found.defaults] == ["crop=224"]


def test_a_functions_two_pipelines_are_each_named_with_their_line(tmp_path: Path) -> None:
    """The first pipeline the reader met took the function's bare name, the file's last
    return (the validation one) here: `--pipeline build_transforms` picked it without a word."""
    path = tmp_path / "transforms.py"
    path.write_text(
        textwrap.dedent(
            """
            import torchvision.transforms as T

            def build_transforms(is_train=True):
                if is_train:
                    return T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip()])
                return T.Compose([T.Resize(256), T.CenterCrop(224)])
            """
        ),
        encoding="utf-8",
    )
    names = [found.name for found in read_source(path.read_text(encoding="utf-8"))]
    # named by the call reaching each branch, the line still picking it
    assert names == ["build_transforms(is_train=True)", "build_transforms(is_train=False)"]
    with pytest.raises(ReadRefused, match="'build_transforms' names 2 pipelines"):
        read_file(path, pipeline="build_transforms")
    chosen = read_file(path, pipeline="build_transforms (line 6)")
    assert chosen.compose.children[0].name == "RandomResizedCrop"


def test_a_wrappers_call_names_what_it_holds() -> None:
    """``OneOf([Blur, MotionBlur], p=0.3)``: the graph's frame and the port's listing say what
    the wrapper holds ("[2 transforms]" said only how many)."""

    def held(*names: str) -> tuple[TransformCall, ...]:
        return tuple(TransformCall("albumentations", name) for name in names)

    one_of = TransformCall(
        "albumentations", "OneOf", kwargs={"p": 0.3}, children=held("Blur", "MotionBlur")
    )
    assert one_of.text() == "OneOf([Blur, MotionBlur], p=0.3)"
    many = TransformCall("albumentations", "SomeOf", args=(2,), children=held(*"ABCDEF"))
    assert many.text() == "SomeOf([A, B, C, D, 2 more], 2)"


def test_a_mapping_spread_into_a_call_gives_its_arguments() -> None:
    """``Resize(**size)``: the mapping was dropped, and the port refused the call for the
    arguments it lacked ("height=None is not a number"); a trial's config file did this."""
    from augexplorer.port.albumentations import port

    (found,) = read_source(
        "import albumentations as A\nIMG = 300\nsize = dict(height=384, width=IMG)\n"
        'crop = {"height": 256, "width": IMG}\n'
        "t = A.Compose([A.Resize(**size, interpolation=1), A.CenterCrop(**crop), "
        "A.Resize(**cfg.size)])\n"
    )
    resize, crop, unread = found.compose.children
    assert resize.kwargs == {"height": 384, "width": 300, "interpolation": 1}
    assert crop.kwargs == {"height": 256, "width": 300}
    (refusal,) = port(found.compose).refusals
    assert refusal.call is unread
    assert "**cfg.size is known only when the file runs" in refusal.reason
    assert "write them in the call" in refusal.reason


def test_a_group_spread_from_an_unknown_mapping_is_refused() -> None:
    """``OneOf([...], **kw)`` with kw read at run time may give its p: it ported with the
    default p, without a word."""
    from augexplorer.port.albumentations import port

    (found,) = read_source(
        "import albumentations as A\nimport json\nkw = json.load(open('k.json'))\n"
        "t = A.Compose([A.OneOf([A.HorizontalFlip(), A.VerticalFlip()], **kw), "
        "A.SomeOf([A.Blur(), A.Sharpen()], n=1, **kw)])\n"
    )
    refusals = port(found.compose).refusals
    assert [r.call.name for r in refusals] == ["OneOf", "SomeOf"]
    assert all("**kw is known only when the file runs" in r.reason for r in refusals)


def test_a_parameter_without_a_default_shadows_a_global_of_its_name() -> None:
    """``def get(size): ... Resize(size, size)`` with a module's ``size = 224``: the value is
    the call's, known at run time; the global was read."""
    from augexplorer.port.albumentations import port

    (found,) = read_source(
        "import albumentations as A\nsize = 224\n\n\ndef get(size):\n"
        "    return A.Compose([A.Resize(size, size)])\n"
    )
    (refusal,) = port(found.compose).refusals
    assert "height=size (its first argument) is known only when the file runs" in refusal.reason
    assert "--param size=VALUE" in refusal.reason


@pytest.mark.parametrize(
    ("compose", "names"),
    [
        ("T.Compose(augs[:2])", ["Resize", "CenterCrop"]),
        ("T.Compose(augs[1:])", ["CenterCrop", "RandomHorizontalFlip"]),
        ("T.Compose([augs[0], augs[-1]])", ["Resize", "RandomHorizontalFlip"]),
        ("T.Compose(augs[:LAST])", ["Resize", "CenterCrop"]),
    ],
)
def test_part_of_a_list_the_file_writes_is_read(compose: str, names: list[str]) -> None:
    """A Compose over a slice or an item of a list was refused as one unknown transform
    ("augs[:2]() is not one of torchvision's transforms"): the whole pipeline was lost."""
    found = read_source(
        "import torchvision.transforms as T\n"
        "LAST = 2\n"
        "augs = [T.Resize(150), T.CenterCrop(100), T.RandomHorizontalFlip()]\n"
        f"transform = {compose}\n"
    )
    (pipeline,) = found
    assert [child.name for child in pipeline.compose.children] == names
