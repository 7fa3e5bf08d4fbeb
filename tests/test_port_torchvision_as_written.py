"""Self-supervised, timm-style, detection and segmentation pipelines as people write them:
v2's values per type (a fill for the image and another for the masks, a ToDtype per type),
ToPureTensor, argparse defaults, an ``if`` on a parameter with a default, a
pipeline wrapped in a two-views class, a class of the file's own named as torchvision's."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from augexplorer.port.compare import run_port
from augexplorer.port.model import PortResult, Unknown
from augexplorer.port.reading import FoundPipeline, ReadRefused, read_file, read_source
from augexplorer.port.torchvision import port
from augexplorer.spec import Node

HEADER = (
    "import argparse\nimport torch\nimport torchvision.transforms as T\n"
    "import torchvision.transforms.v2 as v2\nfrom torchvision import tv_tensors\n"
)
REFERENCE = os.environ.get("AUGEXPLORER_REFERENCE_PYTHON")
ZOOM_FILL = "{tv_tensors.Image: (123, 117, 104), 'others': 0}"


def _read(body: str) -> FoundPipeline:
    (found,) = read_source(HEADER + textwrap.dedent(body))
    return found


def _ported(compose: str) -> PortResult:
    return port(_read(f"t = {compose}\n").compose, batch_size=2)


def _node_args(result: PortResult, op: str) -> dict[str, object]:
    (node,) = [n for n in result.spec.nodes if isinstance(n, Node) and n.op == op]
    return dict(node.args)


# ---- v2's values per type ------------------------------------------------------------------


def test_a_fill_per_type_fills_the_image_with_the_images_entry_after_to_image() -> None:
    """torchvision's detection recipe, RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104),
    "others": 0}), was refused; torchvision fills the image with its type's entry."""
    result = _ported(f"v2.Compose([v2.ToImage(), v2.RandomZoomOut(fill={ZOOM_FILL})])")
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert _node_args(result, "slice")["fill_values"] == [123.0, 117.0, 104.0]


def test_before_to_image_the_image_is_a_pil_image_and_takes_the_others_entry() -> None:
    result = _ported(f"v2.Compose([v2.RandomZoomOut(fill={ZOOM_FILL}), v2.ToImage()])")
    assert _node_args(result, "slice")["fill_values"] == [0.0]


@pytest.mark.parametrize(
    ("transform", "op", "argument", "expected"),
    [
        (
            "v2.RandomRotation(10, fill={tv_tensors.Image: 127, 'others': 0})",
            "rotate",
            "fill_value",
            127.0,
        ),
        ("v2.Pad(4, fill={tv_tensors.Mask: 255, 'others': 7})", "slice", "fill_values", [7.0]),
        # neither the image's type nor 'others': torchvision 0.29.1 fills with 0 (measured)
        ("v2.RandomZoomOut(fill={tv_tensors.Mask: 255})", "slice", "fill_values", [0.0]),
    ],
)
def test_every_fill_reads_the_images_entry(
    transform: str, op: str, argument: str, expected: object
) -> None:
    result = _ported(f"v2.Compose([v2.ToImage(), {transform}])")
    whole = [r.describe() for r in result.refusals if not r.part]  # masks: said apart
    assert not whole, whole
    assert _node_args(result, op)[argument] == expected


def test_a_segmentation_pipeline_ports_its_images_and_says_its_masks_are_left_out() -> None:
    """torchvision's segmentation reference: the image's fill and dtype are ported; the masks
    the dicts name are said to be left out, as a detection pipeline's boxes are."""
    result = _ported(
        "v2.Compose([v2.ToImage(), v2.RandomHorizontalFlip(), "
        "v2.RandomCrop(64, pad_if_needed=True, fill={tv_tensors.Image: 0, tv_tensors.Mask: 255}), "
        "v2.ToDtype({tv_tensors.Image: torch.float32, tv_tensors.Mask: torch.int64, "
        "'others': None}, scale=True), v2.Normalize(mean=(0.5, 0.5, 0.5), std=(0.2, 0.2, 0.2)), "
        "v2.ToPureTensor()])"
    )
    (masks,) = result.refusals
    assert masks.part == "masks"
    assert "RandomCrop (line 6), ToDtype (line 6) name tv_tensors.Mask" in masks.reason
    assert "Unknown(" not in masks.describe() and "Symbol(" not in masks.describe()
    cmn = _node_args(result, "crop_mirror_normalize")
    assert cmn["dtype"] == "FLOAT" and cmn["mean"] == pytest.approx([127.5] * 3)


def test_to_dtype_per_type_without_the_images_entry_is_refused_as_torchvision_fails() -> None:
    result = _ported("v2.Compose([v2.ToImage(), v2.ToDtype({tv_tensors.Mask: torch.int64})])")
    (refusal,) = [r for r in result.refusals if not r.part]
    assert "names no dtype for the image" in refusal.reason and "ValueError" in refusal.reason
    assert "{tv_tensors.Mask: torch.int64}" in refusal.reason


def test_to_dtype_of_others_none_leaves_the_image_as_it_is() -> None:
    result = _ported("v2.Compose([v2.ToImage(), v2.ToDtype({'others': None}), v2.Grayscale(3)])")
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert not [n for n in result.spec.nodes if getattr(n, "op", "") == "crop_mirror_normalize"]


def test_to_pure_tensor_is_nothing_to_do() -> None:
    """v2.ToPureTensor() ends torchvision's detection and segmentation references: it was 'not
    ported yet', with a fix to add an operator by hand."""
    result = _ported(
        "v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True), v2.ToPureTensor()])"
    )
    assert not result.refusals
    (pure,) = [s for s in result.steps if s.call.name == "ToPureTensor"]
    assert pure.nodes == () and pure.origin.fidelity == "exact"


ZOOM_REFERENCE = textwrap.dedent(
    """
    import sys, numpy as np, torch
    from PIL import Image
    from torchvision import tv_tensors
    from torchvision.transforms import v2
    fill = {tv_tensors.Image: (123, 117, 104), "others": 0}
    for first in (True, False):
        zoom = v2.RandomZoomOut(fill=fill, side_range=(2.0, 2.0), p=1.0)
        steps = [v2.ToImage(), zoom] if first else [zoom, v2.ToImage()]
        torch.manual_seed(0)
        out = v2.Compose(steps)(Image.open(sys.argv[1]).convert("RGB")).permute(1, 2, 0).numpy()
        print(",".join(str(int(v)) for v in out[0, 0]) if (out[0, 0] == out[-1, -1]).all() else "?")
    """
)


@pytest.mark.skipif(not REFERENCE, reason="AUGEXPLORER_REFERENCE_PYTHON not set")
def test_the_fill_per_type_is_the_one_torchvision_gives_the_image(tmp_path: Path) -> None:
    """Measured on torchvision 0.29.1: after ToImage the canvas is the Image entry's colour,
    before it (a PIL image) the 'others' one; the port's canvas, run in DALI, likewise."""
    from tests.port_parity import sample_images

    image = sample_images(1)[0]
    assert REFERENCE is not None
    out = subprocess.run(
        [REFERENCE, "-c", ZOOM_REFERENCE, str(image)], capture_output=True, text=True, timeout=300
    )
    assert out.stdout.split() == ["123,117,104", "0,0,0"], out.stderr
    pixels = np.asarray(Image.open(image).convert("RGB"))
    for order, colour in (
        ("v2.ToImage(), {zoom}", [123, 117, 104]),
        ("{zoom}, v2.ToImage()", [0] * 3),
    ):
        zoom = f"v2.RandomZoomOut(fill={ZOOM_FILL}, side_range=(2.0, 2.0), p=1.0)"
        result = _ported("v2.Compose([" + order.format(zoom=zoom) + "])")
        (canvas,) = run_port(result.spec, [pixels]) or []
        assert canvas.shape[:2] == (2 * pixels.shape[0], 2 * pixels.shape[1])
        filled = np.all(canvas == colour, axis=-1).mean()
        assert filled >= 0.75, (order, filled)  # the image covers a quarter of the canvas


# ---- names the file settles --------------------------------------------------------------


def test_argparse_defaults_are_read_as_the_script_runs_with_no_options() -> None:
    found = _read(
        """
        parser = argparse.ArgumentParser()
        parser.add_argument('--size', default=224, type=int)
        parser.add_argument('--resize', type=int, default='256')
        parser.add_argument('--no-flip', action='store_true')
        parser.add_argument('--crop', type=int)
        args = parser.parse_args()
        t = T.Compose([T.Resize(args.resize), T.CenterCrop(args.size),
                       T.RandomHorizontalFlip(0.0 if args.no_flip else 0.5), T.RandomCrop(args.crop)])
        """
    )
    resize, crop, flip, random_crop = found.compose.children
    assert resize.args == (256,) and crop.args == (224,)  # '256' converted by type=int
    assert flip.args == (0.5,)  # store_true: False
    assert any(
        n.startswith("args.size=224, the default of --size (line 8)") for n in found.defaults
    )
    assert any("--param args.resize=VALUE" in note for note in found.defaults)
    (refusal,) = port(found.compose).refusals  # no default: known only when it runs
    assert refusal.call is random_crop and "--param args.crop=VALUE" in refusal.reason


def test_argparse_defaults_reach_a_function_given_the_parsed_options() -> None:
    found = _read(
        """
        def get_args():
            p = argparse.ArgumentParser()
            p.add_argument('--img-size', default=160, type=int)
            p.add_argument('--crop_pct', default=0.8, type=float)
            return p.parse_args()

        def build(args):
            return T.Compose([T.Resize(int(args.img_size / args.crop_pct)), T.CenterCrop(args.img_size)])

        if __name__ == '__main__':
            args = get_args()
            tf = build(args)
        """
    )
    resize, crop = found.compose.children
    assert resize.args == (200,) and crop.args == (160,)


def test_an_if_on_a_parameter_with_a_default_is_read_at_the_default_and_said() -> None:
    """torchvision's segmentation preset: `if hflip_prob > 0:` refused the whole pipeline."""
    found = _read(
        """
        class Preset:
            def __init__(self, *, crop_size, hflip_prob=0.5):
                transforms = [v2.ToImage()]
                if hflip_prob > 0:
                    transforms += [v2.RandomHorizontalFlip(hflip_prob)]
                transforms += [v2.RandomCrop(crop_size)]
                self.transforms = v2.Compose(transforms)
        """.replace("crop_size)]", "224)]")
    )
    assert [c.name for c in found.compose.children] == [
        "ToImage",
        "RandomHorizontalFlip",
        "RandomCrop",
    ]
    assert any(note.startswith("hflip_prob=0.5, the default") for note in found.defaults)


def test_an_if_on_a_parameter_without_a_default_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "tv.py"
    path.write_text(
        HEADER + "def get_transform(train):\n    t = []\n    if train:\n"
        "        t.append(v2.RandomHorizontalFlip(0.5))\n    t.append(v2.ToPureTensor())\n"
        "    return v2.Compose(t)\n"
    )
    with pytest.raises(ReadRefused, match="known only when the file runs") as refused:
        read_file(path)
    assert "--param train=VALUE" in str(refused.value)  # the name the test reads, not NAME
    found = read_file(path, params={"train": True})
    assert [c.name for c in found.compose.children] == ["RandomHorizontalFlip", "ToPureTensor"]


# ---- what the port is of ------------------------------------------------------------------


def test_a_pipeline_wrapped_in_a_two_views_class_says_the_port_is_one_view() -> None:
    """MoCo's TwoCropsTransform(Compose(...)) was ported as the Compose without a word."""
    found = _read(
        "from moco.loader import TwoCropsTransform\n"
        "train = TwoCropsTransform(T.Compose([T.RandomResizedCrop(224)]))\n"
    )
    (note,) = found.defaults
    assert note.startswith("train is TwoCropsTransform(Compose(...)) (line 7)")
    assert "the transforms of one image" in note and "not ported" in note


def test_a_dataset_given_the_pipeline_is_no_wrapper() -> None:
    found = _read(
        "from torchvision import datasets\n"
        "ds = datasets.ImageFolder('x', transform=T.Compose([T.RandomHorizontalFlip()]))\n"
    )
    assert found.defaults == ()


def test_a_class_of_the_files_own_named_as_torchvisions_says_so() -> None:
    """MoCo v2 and DINO define their own GaussianBlur: 'not one of torchvision's transforms'
    read as if torchvision had none."""
    found = _read(
        "class GaussianBlur:\n    def __init__(self, sigma):\n        self.sigma = sigma\n"
        "t = T.Compose([T.RandomApply([GaussianBlur([.1, 2.])], p=0.5)])\n"
    )
    reasons = [r.reason for r in port(found.compose).refusals]
    assert any(
        "a class of your own, not torchvision's GaussianBlur" in r and "use that" in r
        for r in reasons
    ), reasons


def test_resize_given_two_sides_as_two_arguments_says_how_to_give_a_size() -> None:
    result = _ported("T.Compose([T.Resize(224, 224)])")
    (refusal,) = result.refusals
    assert "torchvision fails on it (KeyError)" in refusal.reason
    assert "Resize((h, w))" in refusal.reason


# ---- RandomErasing's noise -----------------------------------------------------------------

ERASE_NOISE = (
    "T.Compose([T.ToTensor(), T.Normalize([0.5] * 3, [0.25] * 3), "
    "T.RandomErasing(p={p}, value='random')])"
)


def test_random_erasing_with_noise_fills_one_window_with_standard_normal_draws() -> None:
    """value='random' (DeiT's recipe written with torchvision) was refused. torchvision fills
    the window with torch.empty(...).normal_(): N(0, 1), a draw per value."""
    from scipy import stats

    from tests.port_parity import sample_images

    images = [np.asarray(Image.open(p).convert("RGB")) for p in sample_images(6)]
    result = _ported(ERASE_NOISE.format(p=1.0))
    assert not result.refusals
    (erasing,) = [s for s in result.steps if s.call.name == "RandomErasing"]
    assert erasing.origin.fidelity == "distribution"
    assert any("standard normal noise" in d for d in erasing.origin.differences)
    plain = run_port(_ported(ERASE_NOISE.format(p=0.0)).spec, images) or []
    erased = run_port(result.spec, images) or []
    drawn = []
    for before, after in zip(plain, erased, strict=True):
        changed = np.any(before != after, axis=-1)
        rows, columns = np.nonzero(changed)
        window = (slice(rows.min(), rows.max() + 1), slice(columns.min(), columns.max() + 1))
        assert changed[window].all()  # one rectangle, the rest the image's
        assert changed.sum() == changed[window].size
        drawn.append(after[window].ravel())
    values = np.concatenate(drawn)[:20000]
    assert abs(values.mean()) < 0.05 and abs(values.std() - 1) < 0.05
    assert stats.kstest(values, "norm").pvalue > 0.01


def test_random_erasing_with_noise_applies_with_its_probability() -> None:
    from tests.port_parity import sample_images

    images = [np.asarray(Image.open(p).convert("RGB")) for p in sample_images(12)]
    plain = run_port(_ported(ERASE_NOISE.format(p=0.0)).spec, images) or []
    erased = run_port(_ported(ERASE_NOISE.format(p=0.5)).spec, images) or []
    touched = [not np.array_equal(a, b) for a, b in zip(plain, erased, strict=True)]
    assert 0 < sum(touched) < len(touched)


def test_random_erasing_with_noise_on_8_bit_pixels_is_refused_with_where_it_ports() -> None:
    result = _ported("v2.Compose([v2.ToImage(), v2.RandomErasing(value='random')])")
    (refusal,) = result.refusals
    assert "on 8-bit pixels" in refusal.reason and "after ToTensor or ToDtype" in refusal.reason


# ---- Lambda(lambda img: img.convert('RGB')) -------------------------------------------------


def test_a_lambda_converting_to_rgb_is_nothing_to_do_as_the_graph_decodes_rgb(
    tmp_path: Path,
) -> None:
    """The wild's guard against grey and RGBA files was refused as Python DALI cannot run:
    the graph decodes every file to RGB, as PIL's convert('RGB') makes it (measured here on a
    grey JPEG and an RGBA PNG)."""
    from augexplorer.engine import Session
    from augexplorer.port.build import DataSource

    rng = np.random.default_rng(0)
    grey = Image.fromarray(rng.integers(0, 256, (40, 60), dtype=np.uint8), "L")
    rgba = Image.fromarray(rng.integers(0, 256, (30, 50, 4), dtype=np.uint8), "RGBA")
    grey.save(tmp_path / "grey.png")
    rgba.save(tmp_path / "rgba.png")
    files = [tmp_path / "grey.png", tmp_path / "rgba.png"]
    listed = tmp_path / "files.txt"
    listed.write_text("".join(f"{p} 0\n" for p in files))
    found = _read("t = T.Compose([T.Lambda(lambda img: img.convert('RGB'))])\n")
    result = port(
        found.compose, data=DataSource("file_list", str(listed), shuffle=False), batch_size=2
    )
    assert not result.refusals, [r.describe() for r in result.refusals]
    (step,) = result.steps
    assert step.nodes == () and step.origin.fidelity == "exact"
    run = Session(result.spec, device_id=None).run()
    decoded = [np.asarray(a) for a in run.arrays(result.spec.outputs["images"])]
    for array, path in zip(decoded, files, strict=True):
        np.testing.assert_array_equal(array, np.asarray(Image.open(path).convert("RGB")))


@pytest.mark.parametrize(
    ("compose", "said"),
    [
        ("T.Compose([T.Lambda(lambda x: x * 2)])", "nearest operator is python_function"),
        (
            "T.Compose([T.ToTensor(), T.Lambda(lambda x: x.convert('RGB'))])",
            "a tensor has no convert",
        ),
    ],
)
def test_any_other_lambda_is_refused(compose: str, said: str) -> None:
    (refusal,) = _ported(compose).refusals
    assert said in refusal.reason


@pytest.mark.skipif(not REFERENCE, reason="AUGEXPLORER_REFERENCE_PYTHON not set")
def test_compare_says_a_lambda_is_not_run_alone_and_compares_the_rest(tmp_path: Path) -> None:
    """Compare rebuilt each transform alone from its arguments, and failed on the lambda."""
    from augexplorer.port.compare import compare_file
    from tests.port_parity import sample_images

    path = tmp_path / "tv.py"
    path.write_text(
        "import torchvision.transforms as T\n"
        "t = T.Compose([T.Lambda(lambda img: img.convert('RGB')), T.CenterCrop(64)])\n"
    )
    images = [np.asarray(Image.open(p).convert("RGB")) for p in sample_images(2)]
    compared = compare_file(path, images, run_file=True, python=REFERENCE, draws=0)
    assert "not run alone: its argument is code" in compared.step("Lambda").note
    crop = compared.step("CenterCrop").pixels
    assert crop is not None and crop.max_abs == 0
    assert [a.shape for a in compared.original] == [a.shape for a in compared.ported]


# ---- a parameter the file's one call gives --------------------------------------------------


def test_a_parameter_without_a_default_is_read_from_the_files_one_call() -> None:
    """torchvision's segmentation preset, built in the same file with base_size=520: every
    transform that read base_size or crop_size was refused as known only when it runs."""
    found = _read(
        """
        class Preset:
            def __init__(self, *, base_size, crop_size, hflip_prob=0.5):
                t = [v2.ToImage(), v2.RandomResize(int(0.5 * base_size), int(2.0 * base_size))]
                if hflip_prob > 0:
                    t += [v2.RandomHorizontalFlip(hflip_prob)]
                t += [v2.RandomCrop(crop_size, pad_if_needed=True)]
                self.transforms = v2.Compose(t)

        def get_transform(train):
            return Preset(base_size=520, crop_size=480)
        """
    )
    _, resize, _, crop = found.compose.children
    assert resize.args == (260, 1040) and crop.args == (480,)
    assert any(
        note.startswith(
            "base_size=520, as the file's one call Preset(base_size=520, crop_size=480)"
        )
        for note in found.defaults
    ), found.defaults


def test_a_function_given_a_config_dict_by_its_one_call_reads_it() -> None:
    found = _read(
        """
        def build(cfg):
            return {'train': T.Compose([T.RandomResizedCrop(cfg['size']), T.ToTensor(),
                                        T.Normalize(cfg['mean'], cfg['std'])])}

        CFG = {'size': 192, 'mean': [0.5] * 3, 'std': [0.25] * 3}
        tfs = build(CFG)
        """
    )
    crop, _, normalize = found.compose.children
    assert crop.args == (192,) and normalize.args == ([0.5] * 3, [0.25] * 3)


@pytest.mark.parametrize(
    "calls",
    ["", "a = build(160)\nb = build(224)\n"],  # none, or two: which one runs is not known
)
def test_a_parameter_is_left_unknown_without_exactly_one_call(calls: str) -> None:
    found = _read(f"def build(size):\n    return T.Compose([T.CenterCrop(size)])\n{calls}")
    (crop,) = found.compose.children
    assert crop.args == (Unknown("size", 7),)


def test_a_pipeline_a_class_keeps_beside_others_is_noted_as_one_of_them() -> None:
    """BYOL's two views, DINO's global and local crops: the port of self.t2 said nothing of
    the view it leaves out."""
    found = read_source(
        HEADER
        + textwrap.dedent(
            """
            class TwoViews:
                def __init__(self):
                    self.t1 = T.Compose([T.RandomResizedCrop(224)])
                    self.t2 = T.Compose([T.RandomResizedCrop(224), T.RandomSolarize(128)])

                def __call__(self, x):
                    return self.t1(x), self.t2(x)
            """
        )
    )
    assert [f.name for f in found] == ["self.t1", "self.t2"]
    for pipeline in found:
        (note,) = pipeline.defaults
        assert note.startswith(f"{pipeline.name} is one of the 2 pipelines TwoViews keeps")
        assert "(self.t1, self.t2): the port is it alone" in note


# ---- values torchvision fails on ------------------------------------------------------------

FAILING_VALUES = {
    # SimCLR's kernel_size=int(0.1 * size): 22 at 224, even
    "T.GaussianBlur(kernel_size=22)": "Kernel size value should be an odd and positive number",
    "T.GaussianBlur(3, sigma=0)": "sigma must be positive",
    "T.GaussianBlur(3, sigma=(2.0, 0.1))": "sigma must be positive",
    # clipped to (-0.5, 0.5) and ported, where torchvision fails
    "T.ColorJitter(0.4, 0.4, 0.4, 0.6)": "hue values should be between (-0.5, 0.5)",
    "T.ColorJitter(brightness=(-0.5, 1.5))": "brightness values should be between (0, inf)",
}


@pytest.mark.parametrize(("call", "said"), FAILING_VALUES.items())
def test_a_value_torchvision_fails_on_is_refused_not_ported(call: str, said: str) -> None:
    (refusal,) = _ported(f"T.Compose([{call}])").refusals
    assert "torchvision fails on it (ValueError" in refusal.reason and said in refusal.reason
    assert "fix:" in refusal.reason


@pytest.mark.skipif(not REFERENCE, reason="AUGEXPLORER_REFERENCE_PYTHON not set")
def test_torchvision_fails_on_each_of_those_values() -> None:
    code = (
        "import torchvision.transforms as T\n"
        f"for call in {list(FAILING_VALUES)!r}:\n"
        "    try:\n        eval(call)\n    except ValueError:\n        print('fails')\n"
        "    else:\n        print('takes', call)\n"
    )
    assert REFERENCE is not None
    out = subprocess.run([REFERENCE, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["fails"] * len(FAILING_VALUES), out.stdout + out.stderr


def test_timms_normalization_constants_are_read_by_name() -> None:
    """DeiT-style files import IMAGENET_DEFAULT_MEAN from timm: Normalize was refused as known
    only when the file runs (the values are timm's own, timm/data/constants.py)."""
    found = _read(
        "import timm.data\nfrom timm.data import IMAGENET_DEFAULT_MEAN, IMAGENET_DEFAULT_STD\n"
        "from timm.data.constants import OPENAI_CLIP_MEAN as CLIP_MEAN, OPENAI_CLIP_STD\n"
        "t = T.Compose([T.ToTensor(), T.Normalize(IMAGENET_DEFAULT_MEAN, IMAGENET_DEFAULT_STD),"
        " T.Normalize(CLIP_MEAN, OPENAI_CLIP_STD),"
        " T.Resize(int(224 / timm.data.DEFAULT_CROP_PCT))])\n"
    )
    _, imagenet, clip, resize = found.compose.children
    assert imagenet.args == ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    assert clip.args == ((0.48145466, 0.4578275, 0.40821073), (0.26862954, 0.26130258, 0.27577711))
    assert resize.args == (256,)


def test_a_constant_of_the_files_own_named_as_timms_is_the_files() -> None:
    found = _read(
        "from timm.data import IMAGENET_DEFAULT_MEAN\nIMAGENET_DEFAULT_MEAN = (0.5, 0.5, 0.5)\n"
        "t = T.Compose([T.ToTensor(), T.Normalize(IMAGENET_DEFAULT_MEAN, 0.5)])\n"
    )
    assert found.compose.children[1].args == ((0.5, 0.5, 0.5), 0.5)


LIVE_FILL = textwrap.dedent(
    """
    import importlib.util, json, sys
    spec = importlib.util.spec_from_file_location("live_walk", sys.argv[1])
    walk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk)
    import torch
    from torchvision import tv_tensors
    from torchvision.transforms import v2
    t = v2.Compose([
        v2.ToImage(),
        v2.RandomZoomOut(fill={tv_tensors.Image: (123, 117, 104), "others": 0}),
        v2.ToDtype({tv_tensors.Image: torch.float32, tv_tensors.Mask: torch.int64}, scale=True),
    ])
    print(json.dumps(walk.describe(t)))
    """
)


@pytest.mark.skipif(not REFERENCE, reason="AUGEXPLORER_REFERENCE_PYTHON not set")
def test_a_live_pipelines_values_per_type_are_read_by_their_types() -> None:
    """Explorer(port=t) on a live v2 Compose: a dict keyed by types became an unknown value."""
    import json

    from augexplorer.port import live_walk
    from augexplorer.port.live import call_from_tree

    assert REFERENCE is not None
    out = subprocess.run(
        [REFERENCE, "-c", LIVE_FILL, live_walk.__file__],
        capture_output=True,
        text=True,
        timeout=300,
    )
    result = port(call_from_tree(json.loads(out.stdout)), batch_size=2)
    assert _node_args(result, "slice")["fill_values"] == [123.0, 117.0, 104.0]
    assert _node_args(result, "crop_mirror_normalize")["dtype"] == "FLOAT"
    (masks,) = result.refusals
    assert masks.part == "masks" and "(ToDtype names tv_tensors.Mask)" in masks.reason


def test_sizes_unpacked_and_spread_from_the_files_constants() -> None:
    """The known gaps: `H, W = IMG_SIZE` then Resize((H, W)); Normalize(*STATS); a crop from
    another constant."""
    found = _read(
        "IMG_SIZE = (256, 320)\nH, W = IMG_SIZE\nSIZE = 256\nCROP = int(SIZE * 0.875)\n"
        "STATS = ([0.5] * 3, [0.25] * 3)\n"
        "t = T.Compose([T.Resize((H, W)), T.CenterCrop(CROP), T.ToTensor(), T.Normalize(*STATS)])\n"
    )
    resize, crop, _, normalize = found.compose.children
    assert resize.args == ((256, 320),) and crop.args == (224,)
    assert normalize.args == ([0.5] * 3, [0.25] * 3)
    assert not port(found.compose).refusals
