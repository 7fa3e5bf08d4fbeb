"""The port follows the project's own modules a training script imports: MoCo v2's
``import moco.loader`` (``moco.loader.GaussianBlur``, ``moco.loader.TwoCropsTransform``), DINO's
``import utils`` (``utils.GaussianBlur(p)``, ``utils.Solarization(p)``) and a builder function
of another file (``from data.augment import get_train_transform``, ``from .transforms import
build_transforms``). The repositories are written here, small, in the shape of theirs."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from port_parity import file_list, run, sample_images

from augexplorer.port import local_modules
from augexplorer.port.build import DataSource
from augexplorer.port.door import is_port_file, port_file, port_found
from augexplorer.port.reading import read_file
from augexplorer.port.torchvision import port

# ---- the repositories -------------------------------------------------------------------------

MOCO_LOADER = '''\
"""A MoCo-style loader module: the two-crop wrapper and SimCLR's blur."""
import random

from PIL import ImageFilter


class TwoCropsTransform:
    """A query and a key: two crops of one image."""

    def __init__(self, base_transform):
        self.base_transform = base_transform

    def __call__(self, x):
        return [self.base_transform(x), self.base_transform(x)]


class GaussianBlur(object):
    """Gaussian blur at a sigma drawn per image."""

    def __init__(self, sigma=[0.1, 2.0]):
        self.sigma = sigma

    def __call__(self, x):
        sigma = random.uniform(self.sigma[0], self.sigma[1])
        x = x.filter(ImageFilter.GaussianBlur(radius=sigma))
        return x
'''

MOCO_MAIN = """\
import argparse

import torchvision.datasets as datasets
import torchvision.transforms as transforms

import moco.loader

parser = argparse.ArgumentParser()
parser.add_argument("data")


def main_worker(args):
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    augmentation = [
        transforms.RandomResizedCrop(224, scale=(0.2, 1.0)),
        transforms.RandomApply([transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),
        transforms.RandomGrayscale(p=0.2),
        transforms.RandomApply([moco.loader.GaussianBlur([0.1, 2.0])], p=0.5),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        normalize,
    ]
    return datasets.ImageFolder(
        args.data, moco.loader.TwoCropsTransform(transforms.Compose(augmentation))
    )
"""

DINO_UTILS = '''\
"""A DINO-style utils module: many helpers, two of them augmentations."""
import random

from PIL import ImageFilter, ImageOps


def is_main_process():
    return True


class GaussianBlur(object):
    """Blur with probability p at a radius in radius_min..radius_max."""

    def __init__(self, p=0.5, radius_min=0.1, radius_max=2.0):
        self.prob = p
        self.radius_min = radius_min
        self.radius_max = radius_max

    def __call__(self, img):
        do_it = random.random() <= self.prob
        if not do_it:
            return img
        return img.filter(
            ImageFilter.GaussianBlur(radius=random.uniform(self.radius_min, self.radius_max))
        )


class Solarization(object):
    """Solarize with probability p."""

    def __init__(self, p):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            return ImageOps.solarize(img)
        else:
            return img
'''

DINO_MAIN = """\
from torchvision import transforms

import utils


class DataAugmentationDINO(object):
    def __init__(self, global_crops_scale, local_crops_scale, local_crops_number):
        flip_and_color_jitter = transforms.Compose([
            transforms.RandomHorizontalFlip(p=0.5),
            transforms.RandomGrayscale(p=0.2),
        ])
        normalize = transforms.Compose([
            transforms.ToTensor(),
            transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ])
        self.global_transfo1 = transforms.Compose([
            transforms.RandomResizedCrop(224, scale=global_crops_scale),
            flip_and_color_jitter,
            utils.GaussianBlur(1.0),
            normalize,
        ])
        self.global_transfo2 = transforms.Compose([
            transforms.RandomResizedCrop(224, scale=global_crops_scale),
            flip_and_color_jitter,
            utils.GaussianBlur(0.1),
            utils.Solarization(0.2),
            normalize,
        ])
        self.local_transfo = transforms.Compose([
            transforms.RandomResizedCrop(96, scale=local_crops_scale),
            flip_and_color_jitter,
            utils.GaussianBlur(p=0.5),
            normalize,
        ])

    def __call__(self, image):
        return [self.global_transfo1(image), self.global_transfo2(image)]


transform = DataAugmentationDINO((0.4, 1.0), (0.05, 0.4), 8)
"""

AUGMENT = """\
import torchvision.transforms as T

from .helpers import Mystery


def get_train_transform(size, train=True):
    steps = [T.Resize(size), T.CenterCrop(size)]
    if train:
        steps.append(T.RandomHorizontalFlip())
    return T.Compose(steps)


def get_odd_transform():
    return T.Compose([T.CenterCrop(64), Mystery()])
"""

HELPERS = """\
from . import augment  # imports back: a cycle, as Python allows it


class Mystery:
    def __call__(self, x):
        return x
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _moco(root: Path) -> Path:
    files = {"moco/__init__.py": "", "moco/loader.py": MOCO_LOADER, "main_moco.py": MOCO_MAIN}
    return _write(root, files) / "main_moco.py"


def _dino(root: Path) -> Path:
    return _write(root, {"utils.py": DINO_UTILS, "main_dino.py": DINO_MAIN}) / "main_dino.py"


def _builder(root: Path, train: str) -> Path:
    main = (
        "from data.augment import get_train_transform\n\n"
        f"train_transform = get_train_transform(96, train={train})\n"
    )
    files = {
        "data/__init__.py": "",
        "data/augment.py": AUGMENT,
        "data/helpers.py": HELPERS,
        "train.py": main,
    }
    return _write(root, files) / "train.py"


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---- MoCo v2 ----------------------------------------------------------------------------------


def test_mocos_blur_of_its_loader_module_is_ported(tmp_path: Path) -> None:
    """moco.loader.GaussianBlur was refused as a class of one's own: it is read from
    moco/loader.py and ported as its blur, the note naming that file and line."""
    result = port_file(_moco(tmp_path))
    assert not result.refusals, [r.describe() for r in result.refusals]
    (step,) = [s for s in result.steps if s.call.name == "moco.loader.GaussianBlur"]
    assert step.origin.fidelity == "approximate"
    where = f"moco/loader.py, line {_line(MOCO_LOADER, 'class GaussianBlur')}"
    assert where in step.origin.differences[0]
    (draw,) = [n for n in step.nodes if n.op == "random.uniform"]
    assert draw.args["range"] == [0.1, 2.0]
    (wrapped,) = [n for n in result.notes if "TwoCropsTransform" in n]
    assert f"defined in moco/loader.py, line {_line(MOCO_LOADER, 'class TwoCrops')}" in wrapped


def test_a_class_its_package_re_exports_is_followed(tmp_path: Path) -> None:
    """``from moco import GaussianBlur``, moco/__init__.py importing it from .loader."""
    main = _moco(tmp_path)
    (tmp_path / "moco" / "__init__.py").write_text("from .loader import GaussianBlur\n")
    main.write_text(
        "import torchvision.transforms as T\nfrom moco import GaussianBlur\n"
        "t = T.Compose([GaussianBlur([0.5, 1.5])])\n"
    )
    result = port_file(main)
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert "moco/loader.py, line" in result.steps[0].origin.differences[0]


# ---- DINO -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pipeline", "p"),
    [("self.global_transfo1", 1.0), ("self.global_transfo2", 0.1), ("self.local_transfo", 0.5)],
)
def test_dinos_utils_blur_is_ported_with_its_p(tmp_path: Path, pipeline: str, p: float) -> None:
    result = port_file(_dino(tmp_path), pipeline=pipeline)
    assert not result.refusals, [r.describe() for r in result.refusals]
    (step,) = [s for s in result.steps if s.call.name == "utils.GaussianBlur"]
    assert (
        f"utils.py, line {_line(DINO_UTILS, 'class GaussianBlur')}" in (step.origin.differences[0])
    )
    (blur,) = [n for n in step.nodes if n.op == "gaussian_blur"]
    applied = blur.probability.p if blur.probability is not None else 1.0
    assert applied == pytest.approx(p)


def test_dinos_solarization_is_ported_as_random_solarize(tmp_path: Path) -> None:
    """utils.Solarization(0.2) was refused (near RandomSolarize): ImageOps.solarize under a
    coin of 0.2 is RandomSolarize(threshold=128, p=0.2), exact."""
    result = port_file(_dino(tmp_path), pipeline="self.global_transfo2")
    (step,) = [s for s in result.steps if s.call.name == "utils.Solarization"]
    assert step.origin.fidelity == "exact"
    said = step.origin.differences[0]
    assert f"utils.py, line {_line(DINO_UTILS, 'class Solarization')}" in said
    assert "RandomSolarize(threshold=128, p=0.2)" in said
    coins = [n for n in step.nodes if n.op == "random.coin_flip"]
    assert [n.args["probability"] for n in coins] == [0.2]


def test_a_solarization_in_the_same_file_is_ported_too() -> None:
    """own_blurs reads ImageOps.solarize as it reads the blur (a threshold given too)."""
    from augexplorer.port.reading import read_source

    cls = DINO_UTILS.split("class Solarization", 1)[1].replace(
        "ImageOps.solarize(img)", "ImageOps.solarize(img, threshold=200)"
    )
    text = (
        "import random\nfrom PIL import ImageOps\nimport torchvision.transforms as T\n"
        f"class Solarization{cls}\nt = T.Compose([Solarization(1.0)])\n"
    )
    (found,) = read_source(text)
    result = port(found.compose)
    assert not result.refusals
    assert "threshold 200" in result.steps[0].origin.differences[0]


def test_a_solarization_doing_more_stays_refused(tmp_path: Path) -> None:
    """A coin choosing between two effects is no one transform: refused, the file named."""
    twice = DINO_UTILS.replace(
        "        else:\n            return img\n",
        "        else:\n            return img.filter(ImageFilter.GaussianBlur(1))\n",
    )
    _write(tmp_path, {"utils.py": twice, "main_dino.py": DINO_MAIN})
    result = port_file(tmp_path / "main_dino.py", pipeline="self.global_transfo2")
    (refusal,) = result.refusals
    assert refusal.call.name == "utils.Solarization"
    line = _line(twice, "class Solarization")
    assert f"utils.Solarization is defined in utils.py, line {line}" in refusal.describe()


# ---- builder functions of another file --------------------------------------------------------


def test_a_builder_of_another_file_is_read_with_the_calls_values(tmp_path: Path) -> None:
    """train.py's only pipeline is what data/augment.py's builder returns: read there, with
    the size and the flag the call gives (train=False: no flip)."""
    main = _builder(tmp_path, "False")
    assert is_port_file(main, main.read_text())  # the importer's door takes the file
    found = read_file(main)
    assert found.name == "train_transform"
    compose = found.compose
    assert [c.name for c in compose.children] == ["Resize", "CenterCrop"]
    assert [c.args for c in compose.children] == [(96,), (96,)]
    line = _line(AUGMENT, "def get_train_transform")
    assert found.defaults[0] == (
        f"the pipeline is what get_train_transform (defined in data/augment.py, line {line}) "
        "returns, called at line 3: read from that file"
    )
    flipped = read_file(_builder(tmp_path / "other", "True")).compose
    assert [c.name for c in flipped.children][-1] == "RandomHorizontalFlip"


def test_a_refusal_in_a_builder_of_another_file_names_both_places(tmp_path: Path) -> None:
    main = _builder(tmp_path, "True")
    main.write_text(
        "from data.augment import get_odd_transform\n\nodd = get_odd_transform()\n",
        encoding="utf-8",
    )
    result = port_found(read_file(main))
    (refusal,) = result.refusals
    said = refusal.describe()
    line = _line(AUGMENT, "Mystery()")
    assert said.startswith(
        f"line {line} of data/augment.py (get_odd_transform, called at line 3): Mystery()"
    )
    assert f"Mystery is defined in data/helpers.py, line {_line(HELPERS, 'class Mystery')}" in said


def test_a_package_relative_builder_is_read(tmp_path: Path) -> None:
    """``from ..common.transforms import build_transforms`` in pkg/sub/train.py is
    pkg/common/transforms.py, not the sub-package's own common/transforms.py."""
    builder = (
        "import torchvision.transforms as T\n\n"
        "def build_transforms(crop={crop}):\n    return T.Compose([T.CenterCrop(crop)])\n"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/common/__init__.py": "",
        "pkg/common/transforms.py": builder.format(crop=128),
        "pkg/sub/__init__.py": "",
        "pkg/sub/common/transforms.py": builder.format(crop=7),
        "pkg/sub/train.py": "from ..common.transforms import build_transforms\n\nt = build_transforms()\n",
    }
    found = read_file(_write(tmp_path, files) / "pkg" / "sub" / "train.py")
    assert [(c.name, c.args) for c in found.compose.children] == [("CenterCrop", (128,))]
    assert any("crop=128, the default" in note for note in found.defaults)
    assert "../common/transforms.py, line 3" in found.defaults[0]


def test_a_builders_argument_known_only_at_run_time_stays_unknown(tmp_path: Path) -> None:
    """``build_transforms(int(sys.argv[1]))``: the builder's default (128) is not what runs."""
    from augexplorer.port.model import Unknown

    files = {
        "augs.py": (
            "import torchvision.transforms as T\n\n"
            "def build_transforms(crop=128):\n    return T.Compose([T.CenterCrop(crop)])\n"
        ),
        "train.py": "import sys\nimport augs\n\nt = augs.build_transforms(int(sys.argv[1]))\n",
    }
    found = read_file(_write(tmp_path, files) / "train.py")
    (crop,) = found.compose.children
    assert isinstance(crop.args[0], Unknown) and crop.args[0].text == "int(sys.argv[1])"
    assert not any("the default" in note for note in found.defaults)


# ---- what is not found, cycles, the bound ------------------------------------------------------


def test_a_module_not_found_says_where_it_looked(tmp_path: Path) -> None:
    main = tmp_path / "proj" / "train.py"
    _write(tmp_path, {"proj/train.py": MOCO_MAIN})  # no moco/loader.py beside it
    refusals = port_file(main).refusals
    (refusal,) = [r for r in refusals if r.call.name == "moco.loader.GaussianBlur"]
    said = refusal.describe()
    assert "is a class of your own, not torchvision's GaussianBlur" in said
    assert "its module moco.loader is not among the project's files: looked for " in said
    assert "moco/loader.py, moco/loader/__init__.py, ../moco/loader.py" in said


def test_an_installed_librarys_folder_is_never_read(tmp_path: Path) -> None:
    """A module under site-packages is a library's, not the project's, whatever its name."""
    root = tmp_path / "lib" / "site-packages"
    _write(root, {"utils.py": DINO_UTILS, "main_dino.py": DINO_MAIN})
    result = port_file(root / "main_dino.py", pipeline="self.global_transfo2")
    assert {r.call.name for r in result.refusals} == {"utils.GaussianBlur", "utils.Solarization"}
    assert all("not among the project's files" in r.describe() for r in result.refusals)


def test_an_import_cycle_is_read_once(tmp_path: Path) -> None:
    """data/augment.py and data/helpers.py import each other and each calls the other's
    builder: the reading ends, each file's pipelines read once on the way."""
    main = _builder(tmp_path, "False")
    augment = tmp_path / "data" / "augment.py"
    augment.write_text(AUGMENT + "\nfrom .helpers import small\ntiny = small()\n")
    helpers = tmp_path / "data" / "helpers.py"
    helpers.write_text(
        HELPERS + "import torchvision.transforms as T\n\n\ndef small():\n"
        "    return T.Compose([T.CenterCrop(8)])\n\n\nagain = augment.get_train_transform(32)\n"
    )
    found = read_file(main)
    assert [c.args for c in found.compose.children] == [(96,), (96,)]


def test_the_bound_on_files_read_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_modules, "MAX_FILES", 3)  # the file itself and two modules
    blur = MOCO_LOADER.split("class GaussianBlur", 1)[1]
    files = {
        f"m{i}.py": f"import random\nfrom PIL import ImageFilter\nclass GaussianBlur{blur}"
        for i in range(4)
    }
    calls = ", ".join(f"m{i}.GaussianBlur()" for i in range(4))
    imports = "".join(f"import m{i}\n" for i in range(4))
    main = "import torchvision.transforms as T\n" + imports + f"t = T.Compose([{calls}])\n"
    files["train.py"] = main
    result = port_file(_write(tmp_path, files) / "train.py")
    assert [s.call.name for s in result.steps] == ["m0.GaussianBlur", "m1.GaussianBlur"]
    assert [r.call.name for r in result.refusals] == ["m2.GaussianBlur", "m3.GaussianBlur"]
    assert all("the reading stops after 3 files" in r.describe() for r in result.refusals)


# ---- against the real library, in the reference environment ----------------------------------

REFERENCE = textwrap.dedent(
    """
    import json, random, sys
    import numpy as np
    import torch
    from PIL import Image
    job = json.load(open(sys.argv[1]))
    sys.path[:0] = [job["dino"], job["moco"], job["builder"]]
    import utils, moco.loader
    from data.augment import get_train_transform
    images = [Image.open(p).convert("RGB") for p in job["images"]]
    cases = {
        "solarize": utils.Solarization(1.0),
        "blur": moco.loader.GaussianBlur([1.0, 1.0]),
        "builder": get_train_transform(96, train=False),
    }
    out = {}
    for name, transform in cases.items():
        for index, image in enumerate(images):
            out[f"{name}/{index}"] = np.asarray(transform(image))
    np.savez(sys.argv[2], **out)
    """
)


@pytest.fixture(scope="module")
def theirs(reference_python: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("local_imports")
    roots = {name: folder / name for name in ("dino", "moco", "builder")}
    _dino(roots["dino"])
    _moco(roots["moco"])
    _builder(roots["builder"], "False")
    job = folder / "job.json"
    images = [str(p) for p in sample_images(3)]
    job.write_text(json.dumps({**{k: str(v) for k, v in roots.items()}, "images": images}))
    out = folder / "out.npz"
    subprocess.run(
        [reference_python, "-c", REFERENCE, str(job), str(out)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    data = np.load(out)
    return {"arrays": {k: data[k] for k in data.files}, "roots": roots}


def _ours(path: Path, pipeline: str | None, tmp_path: Path, **params: Any) -> list[np.ndarray]:
    found = read_file(path, pipeline=pipeline, params=params or None)
    data = DataSource("file_list", str(file_list(sample_images(3), tmp_path)), shuffle=False)
    return run(port(found.compose, data=data, batch_size=3))


def _gaps(ours: list[np.ndarray], theirs: dict[str, Any], name: str) -> list[np.ndarray]:
    reference = [theirs["arrays"][f"{name}/{i}"] for i in range(3)]
    assert [a.shape for a in ours] == [b.shape for b in reference]
    return [np.abs(a.astype(int) - b) for a, b in zip(ours, reference, strict=True)]


def test_utils_solarization_gives_pils_pixels(theirs: dict[str, Any], tmp_path: Path) -> None:
    main = theirs["roots"]["dino"] / "main_dino.py"
    main.write_text(DINO_MAIN + "t = transforms.Compose([utils.Solarization(1.0)])\n")
    gaps = _gaps(_ours(main, "t", tmp_path), theirs, "solarize")
    assert max(g.max() for g in gaps) == 0


def test_mocos_loader_blur_against_pils(theirs: dict[str, Any], tmp_path: Path) -> None:
    """At one radius, the grade's figures: PIL's box passes against DALI's Gaussian."""
    main = theirs["roots"]["moco"] / "one_blur.py"
    main.write_text(
        "import torchvision.transforms as T\nimport moco.loader\n"
        "t = T.Compose([moco.loader.GaussianBlur([1.0, 1.0])])\n"
    )
    gaps = _gaps(_ours(main, None, tmp_path), theirs, "blur")
    assert max(g.mean() for g in gaps) < 0.75
    assert max(g.max() for g in gaps) <= 30


def test_a_builders_pipeline_against_torchvision(theirs: dict[str, Any], tmp_path: Path) -> None:
    """The builder's Resize and CenterCrop at the call's size: torchvision's pixels within
    Resize's grade (a fraction of a grey level on average)."""
    gaps = _gaps(_ours(theirs["roots"]["builder"] / "train.py", None, tmp_path), theirs, "builder")
    assert max(g.mean() for g in gaps) < 0.5


def test_compare_runs_the_projects_own_classes(reference_python: str, tmp_path: Path) -> None:
    """Compare runs utils.Solarization and utils.GaussianBlur themselves, imported from beside
    the file (it ran torchvision's class of that name, or failed on the dotted name)."""
    from PIL import Image

    from augexplorer.port.compare import compare_file

    main = _dino(tmp_path)
    main.write_text(
        DINO_MAIN + "t = transforms.Compose([transforms.CenterCrop(96), "
        "utils.Solarization(1.0), utils.GaussianBlur(1.0, 1.0, 1.0)])\n"
    )
    images = []
    for path in sample_images(3):
        with Image.open(path) as opened:
            images.append(np.asarray(opened.convert("RGB").resize((160, 120))))
    comparison = compare_file(
        main, images, run_file=True, python=reference_python, pipeline="t", draws=20
    )
    assert not comparison.original_error
    solarize = comparison.step("utils.Solarization")
    assert solarize.pixels is not None and solarize.pixels.max_abs == 0
    blur = comparison.step("utils.GaussianBlur")
    assert blur.pixels is not None and blur.pixels.mean_abs < 0.75 and blur.pixels.max_abs <= 30


def test_pythons_own_modules_are_not_looked_for(tmp_path: Path) -> None:
    """``copy.deepcopy(flip)`` is Python's, not the project's: refused as before, with no
    search of the project's folders for a copy.py."""
    text = (
        "import copy\nimport torchvision.transforms as T\n"
        "flip = T.RandomHorizontalFlip()\nt = T.Compose([copy.deepcopy(flip)])\n"
    )
    (refusal,) = port_file(_write(tmp_path, {"train.py": text}) / "train.py").refusals
    assert refusal.call.name == "copy.deepcopy" and not refusal.call.defined_at
