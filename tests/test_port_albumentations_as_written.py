"""Segmentation and detection pipelines as people write them: the masks a
segmentation pipeline moves are said as left out (its mask_interpolation and fill_mask were
ported in silence, the masks dropped), and sizes held in configuration objects are read as
Python gives them (``A.Resize(*IMG_SIZE)``, ``H, W = IMG_SIZE``, ``cfg.img_size`` of a
SimpleNamespace, a dataclass or a ``cfg=CFG`` default, ``max(IMG_SIZE)``): each was refused as
known only when the file runs, and a pipeline without its resize cannot batch."""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

from augexplorer.port.albumentations import port
from augexplorer.port.door import port_found, port_object
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source

A = pytest.importorskip("albumentations")
cv2 = pytest.importorskip("cv2")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")


def _ported(text: str, pipeline: str | None = None) -> PortResult:
    found = read_source(textwrap.dedent(text))
    (chosen,) = [f for f in found if pipeline is None or f.base_name == pipeline]
    return port(chosen.compose)


def _masks(result: PortResult) -> list[str]:
    return [r.reason for r in result.refusals if r.part == "masks"]


SEGMENTATION = """
    import cv2
    import albumentations as A

    train = A.Compose([
        A.HorizontalFlip(p=0.5),
        A.Affine(scale=(0.9, 1.1), rotate=(-15, 15), mask_interpolation=cv2.INTER_LINEAR, p=0.5),
        A.PadIfNeeded(min_height=256, min_width=256, border_mode=0, fill=0, fill_mask=255),
        A.RandomCrop(height=256, width=256),
    ])
"""


def test_a_segmentation_pipelines_masks_are_said_left_out_with_what_shows_them() -> None:
    """The images were ported and nothing said the masks were not: a training run would pair
    flipped, warped and cropped images with masks as they were."""
    result = _ported(SEGMENTATION)
    assert [step.call.name for step in result.steps] == [
        "HorizontalFlip",
        "Affine",
        "PadIfNeeded",
        "RandomCrop",
    ]
    (reason,) = _masks(result)
    assert "not their masks" in reason
    assert "Affine's mask_interpolation=cv2.INTER_LINEAR, line 7" in reason
    assert "PadIfNeeded's fill_mask=255, line 8" in reason
    # what the panel's masks would not follow: linear interpolation and a fill of 255
    unfollowed = reason.split("; there ", 1)[1]
    assert "mask_interpolation=cv2.INTER_LINEAR" in unfollowed and "fill_mask=255" in unfollowed
    # the graph keeps it, so its export says it too
    assert any(left.transform.endswith("'s masks") for left in result.spec.not_ported)


def test_mask_arguments_the_panel_follows_are_not_said_unfollowed() -> None:
    text = """
        import cv2
        import albumentations as A
        t = A.Compose([A.Rotate(limit=10, mask_interpolation=cv2.INTER_NEAREST, fill_mask=0)])
    """
    (reason,) = _masks(_ported(text))
    assert "Rotate's mask_interpolation=cv2.INTER_NEAREST" in reason
    assert "would not be followed" not in reason


def test_a_mask_argument_inside_a_one_of_is_found() -> None:
    text = """
        import albumentations as A
        t = A.Compose([A.OneOf([A.Rotate(limit=10, fill_mask=255), A.Blur()], p=0.5)])
    """
    (reason,) = _masks(_ported(text))
    assert "Rotate's fill_mask=255" in reason


def test_to_tensor_v2_given_transpose_mask_shows_masks() -> None:
    text = """
        import albumentations as A
        from albumentations.pytorch import ToTensorV2
        t = A.Compose([A.HorizontalFlip(), A.Normalize(), ToTensorV2(transpose_mask=True)])
    """
    (reason,) = _masks(_ported(text))
    assert "ToTensorV2's transpose_mask=True, line 4" in reason
    assert "would not be followed" not in reason


def test_a_pipeline_with_no_mask_argument_says_nothing_of_masks() -> None:
    text = """
        import albumentations as A
        t = A.Compose([A.HorizontalFlip(), A.Affine(rotate=(-10, 10)), A.Normalize()])
    """
    assert _masks(_ported(text)) == []


def test_a_live_pipeline_says_masks_only_where_an_argument_is_not_its_default() -> None:
    """A live object holds every default (mask_interpolation=0 on every Affine): those say
    nothing; a fill_mask set does."""
    plain = A.Compose([A.Affine(rotate=(-10, 10)), A.PadIfNeeded(64, 64)])
    assert _masks(port_object(plain)) == []
    segmenting = A.Compose([A.Affine(rotate=(-10, 10)), A.PadIfNeeded(64, 64, fill_mask=255)])
    (reason,) = _masks(port_object(segmenting))
    assert "PadIfNeeded's fill_mask=255" in reason


# ---- sizes held in configuration objects ----------------------------------------------------

CONFIGURED = """
    import albumentations as A
    from dataclasses import dataclass
    from types import SimpleNamespace

    IMG_SIZE = (384, 320)
    H, W = IMG_SIZE
    cfg = SimpleNamespace(img_size=288, crop=256, model=SimpleNamespace(size=224))

    @dataclass
    class Config:
        image_size: int = 192
        hflip: float = 0.25

    class CFG:
        img_size = 160
        p = 0.4

    config = Config()
    wide = Config(image_size=200)

    starred = A.Compose([A.Resize(*IMG_SIZE)])
    unpacked = A.Compose([A.Resize(H, W)])
    namespace = A.Compose([A.Resize(cfg.img_size, cfg.img_size), A.CenterCrop(cfg.crop, cfg.crop)])
    nested = A.Compose([A.Resize(cfg.model.size, cfg.model.size)])
    dataclass_default = A.Compose([A.Resize(config.image_size, 100), A.HorizontalFlip(p=config.hflip)])
    dataclass_given = A.Compose([A.Resize(wide.image_size, wide.image_size)])
    longest = A.Compose([A.LongestMaxSize(max_size=max(IMG_SIZE)), A.PadIfNeeded(*IMG_SIZE)])

    def get_train_transforms(cfg=CFG):
        return A.Compose([A.Resize(cfg.img_size, cfg.img_size), A.HorizontalFlip(p=cfg.p)])
"""


def _as_python_gives(name: str) -> dict[str, Any]:
    """The pipeline `name` as the file builds it when it runs: each transform's arguments."""
    module = types.ModuleType("configured_probe")
    sys.modules[module.__name__] = module  # a dataclass looks its module up
    try:
        exec(textwrap.dedent(CONFIGURED), module.__dict__)  # the test's own text
    finally:
        del sys.modules[module.__name__]
    held = getattr(module, name)
    built = held() if isinstance(held, types.FunctionType) else held
    found: dict[str, Any] = {}
    for transform in built.transforms:
        held = vars(transform)
        for key in ("height", "width", "max_size", "min_height", "min_width", "p"):
            if key in held:
                found[f"{type(transform).__name__}.{key}"] = held[key]
    return found


def _as_ported(name: str) -> dict[str, Any]:
    found = read_source(textwrap.dedent(CONFIGURED))
    (chosen,) = [f for f in found if f.base_name == name]
    result = port_found(chosen)  # as the door ports a file: the defaults it took are said
    assert not result.refusals, [r.describe() for r in result.refusals]
    text = {step.call.name: step.call.text() for step in result.steps}
    return text | {"notes": result.notes}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("starred", "Resize(384, 320)"),
        ("unpacked", "Resize(384, 320)"),
        ("namespace", "Resize(288, 288)"),
        ("nested", "Resize(224, 224)"),
        ("dataclass_default", "Resize(192, 100)"),
        ("dataclass_given", "Resize(200, 200)"),
        ("get_train_transforms", "Resize(160, 160)"),
    ],
)
def test_a_size_from_a_configuration_object_is_read_as_python_gives_it(
    name: str, expected: str
) -> None:
    python = _as_python_gives(name)
    ported = _as_ported(name)
    assert ported["Resize"] == expected
    height, width = expected.removeprefix("Resize(").rstrip(")").split(", ")
    assert (python["Resize.height"], python["Resize.width"]) == (int(height), int(width))


def test_probabilities_and_crops_from_configuration_objects_are_read() -> None:
    assert _as_ported("namespace")["CenterCrop"] == "CenterCrop(256, 256)"
    assert _as_ported("dataclass_default")["HorizontalFlip"] == "HorizontalFlip(p=0.25)"
    assert _as_python_gives("dataclass_default")["HorizontalFlip.p"] == 0.25
    ported = _as_ported("get_train_transforms")
    assert ported["HorizontalFlip"] == "HorizontalFlip(p=0.4)"
    # the default the reading took is said, with the way to give another
    assert any(
        "cfg=CFG, the default of get_train_transforms' parameter cfg" in n for n in ported["notes"]
    )


def test_max_of_a_size_and_a_starred_size_are_read() -> None:
    ported = _as_ported("longest")
    python = _as_python_gives("longest")
    assert ported["LongestMaxSize"] == "LongestMaxSize(max_size=384)"
    assert python["LongestMaxSize.max_size"] == 384
    assert ported["PadIfNeeded"] == "PadIfNeeded(384, 320)"
    assert (python["PadIfNeeded.min_height"], python["PadIfNeeded.min_width"]) == (384, 320)


@pytest.mark.parametrize(
    "text",
    [
        # the attribute is set again after the object is built
        "cfg = SimpleNamespace(size=100)\ncfg.size = 300\nt = A.Compose([A.Resize(cfg.size, 64)])",
        # a class whose __init__ sets what its body says
        "class S:\n    size = 100\n    def __init__(self):\n        self.size = 300\n"
        "cfg = S()\nt = A.Compose([A.Resize(cfg.size, 64)])",
        # a parameter with no default: the caller gives it
        "def get(cfg):\n    return A.Compose([A.Resize(cfg.size, 64)])",
        # a dataclass built by position
        "from dataclasses import dataclass\n@dataclass\nclass C:\n    size: int = 100\n"
        "cfg = C(300)\nt = A.Compose([A.Resize(cfg.size, 64)])",
    ],
)
def test_a_setting_the_file_does_not_settle_stays_unknown(text: str) -> None:
    """Where the value read could be other than the one that runs, it is refused as known only
    when the file runs, never read as the class's or the namespace's first value."""
    header = "import albumentations as A\nfrom types import SimpleNamespace\n"
    (found,) = read_source(header + text)
    result = port(found.compose)
    (refusal,) = result.refusals
    assert "=cfg.size (its first argument) is known only when the file runs" in refusal.reason


def test_the_exported_loader_of_a_configured_pipeline_runs(tmp_path: Path) -> None:
    """The configured sizes make one shape a batch: the exported module's loader runs on the
    bundled photos of many sizes (it failed on them with the resize left out)."""
    from exported_runner import run_exported
    from port_parity import file_list, sample_images

    from augexplorer.export import export
    from augexplorer.port.build import DataSource

    listed = file_list(sample_images(4), tmp_path)
    (found,) = [f for f in read_source(textwrap.dedent(CONFIGURED)) if f.base_name == "starred"]
    data = DataSource("file_list", str(listed), shuffle=False)
    result = port(found.compose, data=data, batch_size=4)
    module = export(result.spec, tmp_path / "configured_loader.py")
    job = {
        "name": "configured",
        "module": str(module),
        "out": str(tmp_path / "configured.npz"),
        "batch_size": 4,
        "device": "cpu",
        "data": str(listed),
    }
    outputs = run_exported([job], tmp_path)["configured"]
    shapes = {outputs[f"0_{index}"].shape for index in range(4)}
    assert shapes == {(384, 320, 3)}


# ---- colour grades against all the bundled photos --------------------------------------------


def _photos() -> list[Any]:
    from port_parity import sample_images

    return [cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB) for p in sample_images(19)]


def _differences(code: str, images: list[Any]) -> tuple[PortResult, list[Any]]:
    import numpy as np

    from augexplorer.engine import Session
    from augexplorer.spec import Source

    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose, batch_size=len(images))
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    session = Session(spec, data=(images, [0] * len(images)), device_id=None)
    ours = [np.asarray(a) for a in session.run().arrays(spec.outputs["images"])]
    transform = A.Compose([eval(code, {"A": A})])  # the test's own literal
    theirs = [transform(image=image)["image"] for image in images]
    return result, [
        np.abs(a.astype(int) - b.astype(int)) for a, b in zip(ours, theirs, strict=True)
    ]


@pytest.mark.parametrize(
    ("code", "said", "mean", "low", "high", "most"),
    [
        ("A.Equalize(mode='pil', p=1)", "mode='pil'", 3.07, 0.2, 16.7, 34),
    ],
)
def test_a_colour_grades_figures_hold_on_every_bundled_photo(
    code: str, said: str, mean: float, low: float, high: float, most: int
) -> None:
    """The grades quoted figures from the first 6 photos (hue 10: mean 15.6, max 56; Equalize
    pil: mean 1.6, max 10); on all 19, Equalize pil reaches 34 grey levels and one photo 16.7
    on average: the figures said are the 19's, per photo too."""
    import numpy as np

    result, differences = _differences(code, _photos())
    (step,) = result.steps
    text = " ".join(step.origin.differences)
    assert said in text and f"mean {mean:g}" in text and f"max {most}" in text
    overall = float(np.concatenate([d.ravel() for d in differences]).mean())
    per_photo = [float(d.mean()) for d in differences]
    assert abs(overall - mean) <= 0.05
    assert abs(min(per_photo) - low) <= 0.05 and abs(max(per_photo) - high) <= 0.05
    assert max(int(d.max()) for d in differences) == most


# ---- compare: how often each transform applies ------------------------------------------------


def test_compare_draws_each_transforms_coins_apart_in_the_original() -> None:
    """The original's rate of each transform was drawn under the job's one seed, so every
    transform of one p drew the same coins: at 120 draws each p=0.5 transform of the probe's
    pipelines applied 45 times of 120, and an exact port read 'p 0.0066' against it. Each
    transform's coins are its own now."""
    import numpy as np

    from augexplorer.port.compare import compare_object

    pipeline = A.Compose([A.HorizontalFlip(p=0.5), A.VerticalFlip(p=0.5), A.Transpose(p=0.5)])
    image = np.arange(24 * 32 * 3, dtype=np.uint8).reshape(24, 32, 3)
    comparison = compare_object(pipeline, [image], draws=120)
    rates = []
    for step in comparison.steps:
        (applied,) = [d for d in step.draws if d.quantity == "applied"]
        rates.append(applied.theirs_mean)
    assert len(set(rates)) > 1, rates
    assert all(0.35 <= rate <= 0.65 for rate in rates), rates


CALLED_WITH_MASKS = """
    import albumentations as A

    train = A.Compose([A.HorizontalFlip(p=0.5), A.RandomCrop(64, 64)])

    class SegmentationDataset:
        def __init__(self, transform):
            self.transform = transform

        def __getitem__(self, index):
            image, mask = self.read(index)
            out = self.transform(image=image, mask=mask)
            return out["image"], out["mask"]
"""


def _door(text: str) -> PortResult:
    (found,) = read_source(textwrap.dedent(text))
    return port_found(found)


def test_a_pipeline_the_file_calls_with_a_mask_says_its_masks_left_out() -> None:
    """A flip and a crop give no mask argument: the call that hands the pipeline a mask is
    what shows it moves masks; the port dropped them in silence."""
    result = _door(CALLED_WITH_MASKS)
    (reason,) = _masks(result)
    assert "the call at line 12: self.transform(image=image, mask=mask)" in reason
    assert any(left.transform.endswith("'s masks") for left in result.spec.not_ported)
    assert "Compose()'s masks" in result.summary().splitlines()[0]


def test_mask_arguments_and_a_call_with_a_mask_are_said_once() -> None:
    text = CALLED_WITH_MASKS.replace("A.RandomCrop(64, 64)", "A.Rotate(limit=5, fill_mask=255)")
    (reason,) = _masks(_door(text))
    assert "Rotate's fill_mask=255" in reason and "the call at line 12" in reason


def test_a_call_with_the_image_alone_says_nothing_of_masks() -> None:
    text = CALLED_WITH_MASKS.replace("image=image, mask=mask", "image=image")
    assert _masks(_door(text)) == []


# ---- Compose(seed=...) -------------------------------------------------------------------------

SEEDED = "import albumentations as A\nt = A.Compose([A.HorizontalFlip(p=0.5), A.VerticalFlip(p=0.5)], seed=42)\n"


def _flips(image: Any, out: Any) -> tuple[bool, bool]:
    import numpy as np

    return (
        bool(np.array_equal(out, image[:, ::-1]) or np.array_equal(out, image[::-1, ::-1])),
        bool(np.array_equal(out, image[::-1]) or np.array_equal(out, image[::-1, ::-1])),
    )


def test_a_seeded_compose_says_albumentations_draws_its_transforms_alike() -> None:
    """albumentations 2.0.8 under Compose(seed=42) flips both ways or neither, never one: the
    port draws the two coins apart (as albumentations without a seed) and said nothing."""
    import numpy as np

    from augexplorer.engine import Session
    from augexplorer.spec import Source

    image = np.arange(6 * 8 * 3, dtype=np.uint8).reshape(6, 8, 3)
    theirs = A.Compose([A.HorizontalFlip(p=0.5), A.VerticalFlip(p=0.5)], seed=42)
    outcomes = {_flips(image, theirs(image=image)["image"]) for _ in range(1000)}
    assert outcomes == {(True, True), (False, False)}  # the claim the note makes

    (found,) = read_source(SEEDED)
    result = port_found(found)
    (note,) = [n for n in result.notes if "seed=42" in n]
    assert "flip both ways or neither" in note and "draws each transform's coins" in note
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    session = Session(spec, data=([image] * 200, [0] * 200), device_id=None)
    ours = {_flips(image, np.asarray(a)) for a in session.run().arrays(spec.outputs["images"])}
    assert ours == {(True, True), (True, False), (False, True), (False, False)}
    # no seed, no note
    (plain,) = read_source(SEEDED.replace(", seed=42", ""))
    assert not [n for n in port_found(plain).notes if "seed" in n]


# ---- rotate_method='ellipse': a detection pipeline's rotations --------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "A.Rotate(limit=(20, 20), rotate_method='ellipse', p=1)",
        "A.Rotate(limit=(20, 20), rotate_method='ellipse', border_mode=4, p=1)",
        "A.SafeRotate(limit=(20, 20), rotate_method='ellipse', p=1)",
        "A.Affine(rotate=(20, 20), rotate_method='ellipse', p=1)",
        "A.ShiftScaleRotate(0, 0, (20, 20), rotate_method='ellipse', p=1)",
    ],
)
def test_an_ellipse_rotation_ports_with_albumentations_pixels(code: str) -> None:
    """rotate_method='ellipse' turns only boxes, which the port does not carry: the rotation
    was refused and dropped ('only changes boxes; not ported'), the image left unrotated."""
    import numpy as np

    result, differences = _differences(code, _photos()[:6])
    (step,) = result.steps
    assert not result.refusals and step.origin.fidelity == "exact"
    assert "rotate_method='ellipse'" in " ".join(step.origin.differences)
    assert max(int(d.max()) for d in differences) <= 1
    assert float(np.concatenate([d.ravel() for d in differences]).mean()) <= 0.01


def test_a_rotate_method_albumentations_does_not_take_is_refused_naming_it() -> None:
    (found,) = read_source(
        "import albumentations as A\nt = A.Compose([A.Rotate(rotate_method='circle')])\n"
    )
    (refusal,) = port(found.compose).refusals
    assert "rotate_method='circle' is not one albumentations takes" in refusal.reason


def test_compare_gives_a_masked_warps_figures() -> None:
    """A mask argument makes the port say its masks are left out; compare ported each
    transform alone, saw that as a refusal and gave no figure ('its port alone makes no
    node') for the warp, whose images are ported whole."""
    import numpy as np

    from augexplorer.port.compare import compare_object

    pipeline = A.Compose([A.Affine(rotate=(-10, 10), mask_interpolation=cv2.INTER_LINEAR, p=1)])
    image = np.random.default_rng(0).integers(0, 256, (40, 48, 3), dtype=np.uint8)
    (step, *_) = compare_object(pipeline, [image], draws=40).steps
    assert step.transform.startswith("Affine")
    assert step.pixels is not None and step.pixels.max_abs <= 1, step.note


@pytest.mark.parametrize(
    ("code", "named"),
    [
        ("A.Normalize(max_pixel_value=None)", "max_pixel_value=None"),
        ("A.Normalize(mean=None, std=None)", "mean=None, std=None"),
    ],
)
def test_a_normalize_albumentations_fails_on_is_refused_as_it_fails(code: str, named: str) -> None:
    """'max_pixel_value=None is not a number' said nothing of why or what to write: 2.0.8
    fails on the call itself."""
    with pytest.raises(ValueError, match="must be provided for standard normalization"):
        eval(code, {"A": A})  # the test's own literal
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    (refusal,) = port(found.compose).refusals
    assert refusal.reason.startswith(f"{named}: albumentations fails on it too")
    assert "fix: give each a value" in refusal.reason


# ---- transforms chosen by the configuration ----------------------------------------------------

CONDITIONAL = """
    import albumentations as A
    from types import SimpleNamespace

    cfg = SimpleNamespace(hflip=True, strong=False, size=128)

    t = A.Compose([
        A.Resize(cfg.size, cfg.size),
        A.HorizontalFlip(p=0.5) if cfg.hflip else A.NoOp(),
        A.Blur() if cfg.strong else A.VerticalFlip(p=0.25),
        *([A.GaussNoise()] if cfg.strong else []),
        *([A.Transpose(p=0.5)] if cfg.hflip else []),
    ])

    def get(strong):
        return A.Compose([A.Resize(64, 64), A.Blur() if strong else A.NoOp()])
"""


def test_a_transform_the_configuration_chooses_is_read_as_python_takes_it() -> None:
    """An ``if`` expression in the list was refused as 'not one of albumentations's transforms
    (a custom class or function)' and left out, whatever the file settled."""
    module = types.ModuleType("conditional_probe")
    exec(textwrap.dedent(CONDITIONAL), module.__dict__)  # the test's own text
    python = [type(t).__name__ for t in module.t.transforms]
    (found,) = [f for f in read_source(textwrap.dedent(CONDITIONAL)) if f.base_name == "t"]
    result = port(found.compose)
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert [step.call.name for step in result.steps] == python
    assert python == ["Resize", "HorizontalFlip", "VerticalFlip", "Transpose"]


def test_a_choice_the_file_does_not_settle_is_refused_naming_its_test() -> None:
    (found,) = [f for f in read_source(textwrap.dedent(CONDITIONAL)) if f.base_name == "get"]
    (refusal,) = port(found.compose).refusals
    assert "depends on strong, known only when the file runs" in refusal.reason
    assert "--param strong=VALUE" in refusal.reason
    given = read_source(textwrap.dedent(CONDITIONAL), params={"strong": True})
    (chosen,) = [f for f in given if f.base_name == "get"]
    assert [s.call.name for s in port(chosen.compose).steps] == ["Resize", "Blur"]


def test_a_size_unpacked_from_a_parameters_default_is_read() -> None:
    text = """
        import albumentations as A
        def get_train_transforms(img_size=(256, 320)):
            h, w = img_size
            return A.Compose([A.Resize(h, w), A.RandomCrop(*img_size)])
    """
    (found,) = read_source(textwrap.dedent(text))
    result = port_found(found)
    assert not result.refusals, [r.describe() for r in result.refusals]
    assert [s.call.text() for s in result.steps] == ["Resize(256, 320)", "RandomCrop(256, 320)"]
    assert any("img_size=(256, 320), the default" in note for note in result.notes)
