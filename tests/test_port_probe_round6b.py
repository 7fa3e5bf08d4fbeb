"""Probe findings, round 6b (torchvision port and Compare).

- ``v2.ConvertImageDtype()`` (v2's dtype defaults to torch.float32, scaled to 0-1) was ported
  as a no-op graded exact: Compare read mean abs 114 against torchvision.
- Each transform run alone on the original side was given a PIL image even where the pipeline
  hands it a uint8 tensor (after PILToTensor or ToImage): torchvision resizes a tensor
  otherwise than a PIL image, so the path the pipeline runs was not the one compared.
- An edit of a second transform of a kind (``hue_draw_2``, ``random_resized_crop_2``) did not
  reach its run alone: edits were carried over by node id, and alone its nodes are unnumbered.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest
from test_port_compare import _images

from augexplorer.port.compare import StepComparison, compare_file, run_port
from augexplorer.port.compare_figures import DrawFigures, pixel_figures
from augexplorer.port.door import port_call
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source

DRAWS = 200


def _write(folder: Path, text: str) -> Path:
    path = folder / "train.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def _port(text: str) -> PortResult:
    (found,) = read_source(textwrap.dedent(text))
    return port_call(found.compose)


# ---- v2's defaults, not v1's -----------------------------------------------------------------

V2_DEFAULT_DTYPE = """
import torch
from torchvision.transforms import v2

train_tf = v2.Compose([v2.ToImage(), v2.ConvertImageDtype()])
"""

V1_NO_DTYPE = """
import torchvision.transforms as T

train_tf = T.Compose([T.PILToTensor(), T.ConvertImageDtype()])
"""


def test_v2_convert_image_dtype_without_a_dtype_is_ported_as_float32_scaled() -> None:
    ported = _port(V2_DEFAULT_DTYPE)
    (convert,) = [s for s in ported.steps if s.call.name == "ConvertImageDtype"]
    (node,) = convert.nodes
    assert node.op == "crop_mirror_normalize", [n.op for n in convert.nodes]
    assert node.args["dtype"] == "FLOAT" and node.args["std"] == [255.0] * 3, node.args
    # v1's class needs its dtype: still refused, with the fix
    refused = _port(V1_NO_DTYPE).refusals
    assert any("ConvertImageDtype needs dtype" in r.reason for r in refused), refused


V2_DTYPES = """
import torch
from torchvision.transforms import v2

train_tf = v2.Compose([v2.ToImage(), v2.ConvertImageDtype()])
plain_tf = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32)])
"""


@pytest.mark.parametrize(
    ("pipeline", "name", "scaled"),
    [("train_tf", "ConvertImageDtype", True), ("plain_tf", "ToDtype", False)],
)
def test_v2_dtype_conversions_match_torchvision_pixel_for_pixel(
    reference_python: str, tmp_path: Path, pipeline: str, name: str, scaled: bool
) -> None:
    comparison = compare_file(
        _write(tmp_path, V2_DTYPES),
        _images(3, 64),
        run_file=True,
        python=reference_python,
        pipeline=pipeline,
        draws=0,
    )
    step = comparison.step(name)
    # ConvertImageDtype() scales to 0-1 as torchvision does; ToDtype without scale keeps 0-255
    # (its figures' peak is then the original's range)
    assert step.pixels is not None and (step.pixels.peak == 1.0) == scaled, step.describe()
    assert step.pixels.max_abs < 1e-6, step.describe()
    whole = pixel_figures(comparison.ported, comparison.original)
    assert whole.max_abs < 1e-6, comparison.table()


# ---- each transform alone given what the pipeline hands it -----------------------------------

TENSOR_RESIZE = """
import torchvision.transforms as T

train_tf = T.Compose([T.PILToTensor(), T.Resize(64)])
"""

# torchvision's Resize(64) on each image as a uint8 tensor and as a PIL image
RESIZED_BOTH_WAYS = """
import json, sys
import numpy as np
import torch
import torchvision.transforms as T
from PIL import Image

images = [np.load(path) for path in json.loads(sys.argv[1])]
for index, image in enumerate(images):
    tensor = T.Resize(64)(torch.from_numpy(image).permute(2, 0, 1)).permute(1, 2, 0).numpy()
    np.save(sys.argv[2] + f"/tensor_{index}.npy", tensor)
    np.save(sys.argv[2] + f"/pil_{index}.npy", np.asarray(T.Resize(64)(Image.fromarray(image))))
"""


def test_a_resize_on_tensors_is_compared_on_tensors(reference_python: str, tmp_path: Path) -> None:
    images = _images(3, 96)
    paths = []
    for index, image in enumerate(images):
        paths.append(str(tmp_path / f"input_{index}.npy"))
        np.save(paths[-1], image)
    subprocess.run(
        [reference_python, "-c", RESIZED_BOTH_WAYS, json.dumps(paths), str(tmp_path)], check=True
    )
    on_tensors = [np.load(tmp_path / f"tensor_{i}.npy") for i in range(len(images))]
    on_pil = [np.load(tmp_path / f"pil_{i}.npy") for i in range(len(images))]
    ours = run_port(
        _port("import torchvision.transforms as T\ntf = T.Compose([T.Resize(64)])").spec, images
    )
    assert ours is not None
    against_tensors = pixel_figures(ours, on_tensors)
    against_pil = pixel_figures(ours, on_pil)
    # the two paths of torchvision differ, so which one is compared shows in the figure
    assert abs(against_tensors.mean_abs - against_pil.mean_abs) > 0.01, (
        against_tensors,
        against_pil,
    )

    comparison = compare_file(
        _write(tmp_path, TENSOR_RESIZE), images, run_file=True, python=reference_python, draws=0
    )
    resize = comparison.step("Resize")
    assert resize.pixels is not None, resize.describe()
    assert resize.pixels.mean_abs == pytest.approx(against_tensors.mean_abs, abs=1e-9), (
        resize.describe(),
        against_tensors,
    )
    assert "a tensor (after PILToTensor)" in resize.note, resize.describe()


# ---- an edit of the second transform of a kind reaches its run alone --------------------------

TWO_JITTERS = """
import torchvision.transforms as T

train_tf = T.Compose([T.ColorJitter(hue=0.1), T.ColorJitter(hue=0.1)])
"""

TWO_CROPS = """
import torchvision.transforms as T

train_tf = T.Compose([T.RandomResizedCrop(64, scale=(0.2, 1.0)), T.RandomResizedCrop(48, scale=(0.2, 1.0))])
"""


def _second(path: Path, reference_python: str, graph: object, quantity: str) -> DrawFigures:
    comparison = compare_file(
        path, _images(2, 64), run_file=True, python=reference_python, graph=graph, draws=DRAWS
    )
    second = comparison.steps[1]
    figures = {figure.quantity: figure for figure in second.draws}
    assert quantity in figures, second.describe()
    return figures[quantity]


@pytest.mark.parametrize(
    ("text", "node", "argument", "edited", "quantity"),
    [
        (TWO_JITTERS, "hue_draw_2", "range", [-0.4, 0.4], "hue"),
        (TWO_CROPS, "random_resized_crop_2", "random_area", [0.9, 1.0], "area"),
    ],
)
def test_an_edit_of_the_second_transform_reaches_its_row(
    reference_python: str,
    tmp_path: Path,
    text: str,
    node: str,
    argument: str,
    edited: list[float],
    quantity: str,
) -> None:
    path = _write(tmp_path, text)
    (found,) = read_source(path.read_text(encoding="utf-8"))
    graph = port_call(found.compose).spec
    assert _second(path, reference_python, graph, quantity).verdict() == "agree"
    figure = _second(path, reference_python, graph.set_arg(node, argument, edited), quantity)
    assert figure.verdict().startswith("differ"), figure.describe()


# ---- the Compare tab says a draw figure's verdict, as a rate's ---------------------------------


def _drawn_row(figure: DrawFigures) -> str:
    from augexplorer_widgets.compare_view import figures_html

    return figures_html(
        [StepComparison("ColorJitter(hue=0.1)", 3, "approximate", (), None, (figure,))]
    )


def test_the_compare_tab_says_whether_two_draw_distributions_agree() -> None:
    from augexplorer.port.compare_figures import sample_figures

    generator = np.random.default_rng(0)
    same = sample_figures(
        "hue", generator.uniform(-0.1, 0.1, 300), generator.uniform(-0.1, 0.1, 300)
    )
    wider = sample_figures(
        "hue", generator.uniform(-0.4, 0.4, 300), generator.uniform(-0.1, 0.1, 300)
    )
    assert same.verdict() == "agree" and wider.verdict().startswith("differ")
    assert f"KS p {same.p:.2g}; agree" in _drawn_row(same)
    assert f"KS p {wider.p:.2g}; differ" in _drawn_row(wider)
