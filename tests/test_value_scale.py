"""A grid of normalized floats undoes the normalization to draw a photo, so mean and std meant
for 0-1 values applied to 0-255 pixels (torchvision's ``ToDtype(torch.float32)`` without
``scale=True`` before ``Normalize``: values up to ~1100, which the port reproduces faithfully)
looked exactly right. The grid's caption and ``augexplorer render`` now say it, by the
statistics report's own rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from augexplorer_widgets import Explorer

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.port.door import port_file
from augexplorer.render.value_scale import scale_warning
from augexplorer.spec import GraphSpec, save

UNSCALED = """
import torch
from torchvision.transforms import v2

train = v2.Compose([
    v2.ToImage(),
    v2.Resize((64, 64)),
    v2.ToDtype(torch.float32),
    v2.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
])
"""
SAYS = "look like 0-1 values applied to 0-255 pixels"


def ported(tmp_path: Path, scale: bool) -> GraphSpec:
    source = tmp_path / "train.py"
    code = UNSCALED if not scale else UNSCALED.replace("float32)", "float32, scale=True)")
    source.write_text(code)
    return port_file(source).spec


def test_normalizing_unscaled_pixels_is_said_from_the_batch(tmp_path: Path) -> None:
    result = Session(ported(tmp_path, scale=False)).run()
    warning = scale_warning(result, result.final)
    assert warning is not None and SAYS in warning.message
    assert "multiply `mean` and `std` by 255" in warning.fix
    scaled = Session(ported(tmp_path, scale=True)).run()
    assert scale_warning(scaled, scaled.final) is None


@pytest.mark.parametrize("name", ["imagenet_train", "basic"])
def test_presets_are_on_their_scale(name: str) -> None:
    result = Session(name).run()
    assert scale_warning(result, result.final) is None


def test_the_grid_caption_and_render_say_it(
    tmp_path: Path, catalog, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    spec = ported(tmp_path, scale=False)
    explorer = Explorer(spec, autosave=tmp_path / "a.json", catalog=catalog)
    caption = explorer.grid.caption.value
    assert "ax-scale-warning" in caption and SAYS in caption
    path = tmp_path / "graph.json"
    save(spec, path)
    assert main(["render", str(path), "-o", str(tmp_path / "grid.png")]) == 0
    assert f"warning: `{spec.outputs['images'].node}` output mean" in capsys.readouterr().err
