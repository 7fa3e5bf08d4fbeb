"""The panel's way in for a torchvision pipeline: Explorer(port=...), Load of a pipeline file,
and each ported node's grade in the graph and the node panel."""

from __future__ import annotations

from pathlib import Path

import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.graph_view import describe_nodes

from augexplorer.catalog import Catalog
from augexplorer.spec import Node

PIPELINE = (
    "import torchvision.transforms as T\n"
    "train_transform = T.Compose([\n"
    "    T.RandomResizedCrop(128),\n"
    "    T.RandomApply([T.ColorJitter(0.4, 0.4, 0.4, 0.1)], p=0.8),\n"
    "    T.Lambda(lambda x: x),\n"
    "    T.ToTensor(),\n"
    "])\n"
)


@pytest.fixture
def pipeline_file(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(PIPELINE)
    return path


def test_explorer_opens_on_a_ported_file_and_says_what_became_of_it(
    pipeline_file: Path, tmp_path: Path, catalog: Catalog
) -> None:
    explorer = Explorer(
        port=str(pipeline_file), batch_size=4, autosave=tmp_path / "a.json", catalog=catalog
    )
    explorer.flush()
    state = explorer.state
    assert state.failure is None, state.failure
    said = explorer.toolbar.file_message.value
    assert "4 transforms ported" in said and "1 not ported" in said
    assert "line 5: Lambda(" in said
    crop = state.spec.node("random_resized_crop")
    assert isinstance(crop, Node) and crop.origin is not None
    shown = {d["id"]: d["origin"] for d in describe_nodes(state.spec, state.result, None)}
    assert shown["random_resized_crop"] == "distribution · torchvision"
    assert shown["hue"] == "approximate · torchvision"
    assert shown["decode"] == ""
    explorer.select("hue")
    explorer.flush()
    title = explorer.node_panel.title.value
    assert "approximate</b> port of torchvision ColorJitter(0.4, 0.4, 0.4, 0.1) (line 4)" in title
    assert "fixed order" in title  # what differs, as measured


def test_load_ports_a_pipeline_file(pipeline_file: Path, tmp_path: Path, catalog: Catalog) -> None:
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "b.json", catalog=catalog)
    explorer.toolbar.spec_path.value = str(pipeline_file)
    explorer.toolbar.load.click()
    explorer.flush()
    assert "random_resized_crop" in explorer.state.spec
    assert "4 transforms ported" in explorer.toolbar.file_message.value
    explorer.undo()  # a load is one undoable step, as for any file
    explorer.flush()
    assert "random_resized_crop" not in explorer.state.spec


def test_the_picker_finds_operators_by_the_names_users_know(catalog: Catalog) -> None:
    from augexplorer_widgets.op_picker import OpPicker

    picker = OpPicker(catalog, lambda op: None)
    assert [i["name"] for i in picker.matches("RandomResizedCrop")] == ["random_resized_crop"]
    assert "rotate" in [i["name"] for i in picker.matches("RandomRotation")]
    assert "warp_affine" in [i["name"] for i in picker.matches("randomaffine")]


def test_a_file_with_several_pipelines_is_loaded_by_naming_one(
    tmp_path: Path, catalog: Catalog
) -> None:
    path = tmp_path / "train.py"
    path.write_text(PIPELINE + "val_transform = T.Compose([T.Resize(96), T.CenterCrop(64)])\n")
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "c.json", catalog=catalog)
    explorer.toolbar.spec_path.value = str(path)
    explorer.toolbar.load.click()
    said = explorer.toolbar.file_message.value
    assert "several pipelines (train_transform, val_transform)" in said
    assert f"as {path}:train_transform" in said
    explorer.toolbar.spec_path.value = f"{path}:val_transform"
    explorer.toolbar.load.click()
    explorer.flush()
    assert "center_crop" in explorer.state.spec and "random_resized_crop" not in explorer.state.spec


DALI_CODE = (
    "from nvidia.dali import fn, pipeline_def\n"
    "import pathlib\n"
    "pathlib.Path(__file__).with_suffix('.ran').write_text('ran')\n\n"
    "@pipeline_def(batch_size=2)\n"
    "def pipe():\n"
    "    jpegs, labels = fn.readers.file(file_root='/data')\n"
    "    return fn.decoders.image(jpegs), labels\n"
)


def test_load_of_dali_code_says_how_to_import_it_and_runs_nothing(
    tmp_path: Path, catalog: Catalog
) -> None:
    path = tmp_path / "dali_pipe.py"
    path.write_text(DALI_CODE)
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "d.json", catalog=catalog)
    before = explorer.state.spec
    explorer.toolbar.spec_path.value = str(path)
    explorer.toolbar.load.click()
    explorer.flush()
    said = explorer.toolbar.file_message.value
    assert "not valid JSON" not in said
    assert "importing it means running it" in said and "--run-file" in said
    assert not path.with_suffix(".ran").exists()  # the panel ran none of it
    assert explorer.state.spec == before  # the graph on screen stays


def test_load_of_an_exported_module_reads_its_graph(tmp_path: Path, catalog: Catalog) -> None:
    from augexplorer import preset
    from augexplorer.export import export

    module = export(preset("reference"), tmp_path / "aug.py")
    explorer = Explorer("basic", batch_size=4, autosave=tmp_path / "e.json", catalog=catalog)
    explorer.toolbar.spec_path.value = str(module)
    explorer.toolbar.load.click()
    explorer.flush()
    assert explorer.state.spec.name == "reference"


def test_load_of_an_edited_exported_module_says_the_edits_are_not_read(
    tmp_path: Path, catalog: Catalog
) -> None:
    from augexplorer import preset
    from augexplorer.export import export

    module = export(preset("basic"), tmp_path / "aug.py")
    module.write_text(module.read_text().replace("fill_value=0.0", "fill_value=9.0", 1))
    explorer = Explorer("reference", batch_size=4, autosave=tmp_path / "f.json", catalog=catalog)
    explorer.toolbar.spec_path.value = str(module)
    explorer.toolbar.load.click()
    explorer.flush()
    assert explorer.state.spec.name == "basic"
    said = explorer.toolbar.file_message.value
    assert "loaded" in said and "without the code&#x27;s edits" in said
