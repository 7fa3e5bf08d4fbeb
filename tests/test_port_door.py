"""The way in: `augexplorer import` and import_graph port a torchvision pipeline file or
notebook without running it; a live Compose is ported from its attributes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from live_walk_run import walked

from augexplorer.export.importer import import_graph
from augexplorer.port.door import is_port_file, port_call, port_file
from augexplorer.port.live import call_from_tree
from augexplorer.port.reading import ReadRefused
from augexplorer.spec import Node, load

REPO = Path(__file__).resolve().parents[1]

TRAIN = textwrap.dedent(
    """
    import sys
    import torchvision.transforms as T
    open(sys.argv[0] + ".ran", "w").write("ran")  # never runs: the file is read

    CROP = 224
    train_transform = T.Compose([
        T.RandomResizedCrop(CROP),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    val_transform = T.Compose([T.Resize(256), T.CenterCrop(crop_size), T.ToTensor()])
    """
)


@pytest.fixture
def train_file(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "augexplorer", "import", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


def test_the_cli_ports_a_pipeline_file_without_running_it(train_file: Path) -> None:
    out = train_file.with_suffix(".json")
    done = _cli(str(train_file), "-o", str(out), "--pipeline", "train_transform")
    assert done.returncode == 0, done.stderr
    assert "4 transforms ported (3 exact, 1 distribution), 0 not ported" in done.stdout
    assert "torchvision RandomResizedCrop(224) (line 8): distribution -> random_resized_crop" in (
        done.stdout
    )
    assert "(folded into to_tensor)" in done.stdout
    spec = load(out)
    crop = spec.node("random_resized_crop")
    assert isinstance(crop, Node) and crop.origin is not None and crop.origin.line == 8
    assert not Path(str(train_file) + ".ran").exists()


def test_several_pipelines_are_listed_and_unknown_values_named(train_file: Path) -> None:
    out = train_file.with_suffix(".json")
    done = _cli(str(train_file), "-o", str(out))
    assert done.returncode != 0
    assert "2 pipelines (train_transform, val_transform)" in done.stderr
    done = _cli(str(train_file), "-o", str(out), "--pipeline", "val_transform")
    assert done.returncode == 0, done.stderr
    assert (
        "line 13: CenterCrop(crop_size) not ported: size=crop_size (its first argument) is known "
        "only when the file runs; write the value in the call, or give it with --param "
        "crop_size=VALUE"
    ) in done.stdout
    done = _cli(
        str(train_file),
        "-o",
        str(out),
        "--pipeline",
        "val_transform",
        "--param",
        "crop_size=200",
        "--overwrite",
    )
    assert "3 transforms ported" in done.stdout and "0 not ported" in done.stdout


def test_import_graph_ports_a_notebook(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "code", "source": "import torchvision.transforms.v2 as v2\n"},
        {"cell_type": "code", "source": "aug = v2.Compose([v2.RandomCrop(32, padding=4)])"},
    ]
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}))
    spec = import_graph(path)
    assert [n.op for n in spec.operators()][-1] == "slice"
    assert spec.name == "aug"


def test_dali_code_and_exported_modules_are_not_ported(tmp_path: Path) -> None:
    dali = tmp_path / "dali_pipe.py"
    dali.write_text(
        "from nvidia.dali import fn\nimport torchvision.transforms as T\n"
        "t = T.Compose([T.ToTensor()])\n"
    )
    assert not is_port_file(dali, dali.read_text())
    exported = tmp_path / "exported.py"
    exported.write_text("GRAPH = {}\nimport torchvision.transforms as T\nt = T.Compose([])\n")
    assert not is_port_file(exported, exported.read_text())


def test_a_live_compose_is_ported_as_its_source_is(reference_python: str, tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import importlib.util, json, sys
        spec = importlib.util.spec_from_file_location("live_walk", sys.argv[1])
        walk = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(walk)
        import torchvision.transforms as T
        t = T.Compose([T.RandomResizedCrop(224), T.RandomApply([T.ColorJitter(0.4)], p=0.8),
                       T.ToTensor(), T.Normalize([0.5] * 3, [0.25] * 3)])
        print(json.dumps(walk.describe(t)))
        """
    )
    live = port_call(call_from_tree(walked(reference_python, script)))
    source = tmp_path / "same.py"
    source.write_text(
        "import torchvision.transforms as T\n"
        "t = T.Compose([T.RandomResizedCrop(224), T.RandomApply([T.ColorJitter(0.4)], p=0.8),\n"
        "               T.ToTensor(), T.Normalize([0.5] * 3, [0.25] * 3)])\n"
    )
    read = port_file(source)

    def calls(result: object) -> list[tuple[str, dict[str, object]]]:
        nodes = result.spec.unseeded().nodes  # type: ignore[attr-defined]
        return [(n.id, dict(n.args)) for n in nodes if isinstance(n, Node)]

    assert calls(live) == calls(read)
    assert not live.refusals and not read.refusals


def test_a_custom_object_is_refused_with_the_fix() -> None:
    from augexplorer.port.door import port_object

    with pytest.raises(ReadRefused, match="not a torchvision or albumentations transform"):
        port_object(object())


def test_import_warns_where_a_transform_left_out_was_the_one_fixing_the_size(
    tmp_path: Path,
) -> None:
    """albumentations 1.x's RandomResizedCrop(224, 224) is refused under 2.x: the graph ports,
    and training's loader would fail on its first batch of several sizes."""
    from augexplorer.port.door import port_file
    from augexplorer.port.uneven_sizes import uneven_sizes

    path = tmp_path / "train.py"
    crop = "A.RandomResizedCrop(224, 224)"
    path.write_text(f"import albumentations as A\nt = A.Compose([{crop}, A.HorizontalFlip()])\n")
    done = subprocess.run(
        [sys.executable, "-m", "augexplorer", "import", str(path), "-o", str(tmp_path / "g.json")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    warning = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warning) == 1, done.stderr
    assert "with RandomResizedCrop(224, 224) left out" in warning[0]
    assert "shapes in a batch of the bundled photos" in warning[0]
    assert "fix: end the graph with a node that gives every image one size" in warning[0]
    # the size fixed as 2.x takes it: nothing left out, nothing to warn of
    path.write_text(
        "import albumentations as A\nt = A.Compose([A.RandomResizedCrop((224, 224))])\n"
    )
    assert uneven_sizes(port_file(path)) is None
    # something else left out while a later crop fixes the size: nothing to warn of either
    path.write_text(
        "import albumentations as A\n"
        "t = A.Compose([A.RandomResizedCrop(224, 224), A.CenterCrop(100, 120)])\n"
    )
    fixed = port_file(path)
    assert fixed.refusals and uneven_sizes(fixed) is None
    # a transform left out that sets no size (FancyPCA): the pipeline as written gives images
    # of several sizes too, and the warning had blamed the transform for it
    path.write_text(
        "import albumentations as A\nt = A.Compose([A.FancyPCA(), A.HorizontalFlip()])\n"
    )
    colour = port_file(path)
    assert colour.refusals and uneven_sizes(colour) is None


def test_fixed_affine_values_are_constants_not_draws(tmp_path: Path) -> None:
    """Affine(rotate=15, scale=1.2): nothing random, and the graph drew U(1.2, 1.2) and a
    shift of U(0, 0) per image, nodes the panel showed as draws."""
    from augexplorer.port.door import port_file

    path = tmp_path / "fixed.py"
    path.write_text("import albumentations as A\nt = A.Compose([A.Affine(rotate=15, scale=1.2)])\n")
    ops = {node.id: node.op for node in port_file(path).spec.nodes}
    assert not [op for op in ops.values() if op.startswith("random.")], ops
    assert ops["scale_xy"] == ops["shift_share"] == "constant"
    path.write_text("import albumentations as A\nt = A.Compose([A.Affine(scale=(0.9, 1.1))])\n")
    assert any(node.op == "random.uniform" for node in port_file(path).spec.nodes)
