"""What a port could not express stays with the graph: the refused transforms, their reason and
line survive the spec's JSON (and an edit), `augexplorer import` names them, and the exported
module's header says, before anything else of the port, that it does not run them."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from augexplorer.errors import SpecFormatError
from augexplorer.export import generate
from augexplorer.export.importer import import_graph
from augexplorer.export.port_note import port_note
from augexplorer.port.door import port_file
from augexplorer.spec import NotPorted, dumps, load, loads, to_json

REPO = Path(__file__).resolve().parents[1]

# Normalize after RandomErasing is refused (its mean and std are known only at run time):
# training on the module alone would train on unnormalised tensors.
TRAIN = """\
import torch
from torchvision import transforms

mean, std = dataset_statistics()
train_transform = transforms.Compose([
    transforms.ToTensor(),
    transforms.RandomErasing(value=0.5),
    transforms.Normalize(mean, std),
])
"""

WHOLE = """\
import torchvision.transforms as T
t = T.Compose([T.RandomResizedCrop(96), T.RandomHorizontalFlip(), T.ToTensor()])
"""


@pytest.fixture
def train_file(tmp_path: Path) -> Path:
    path = tmp_path / "train.py"
    path.write_text(TRAIN)
    return path


def _header(module: str) -> str:
    return module.split('"""')[1]


def test_the_graph_keeps_what_was_not_ported_through_save_and_load(
    train_file: Path, tmp_path: Path
) -> None:
    result = port_file(train_file)
    (kept,) = result.spec.not_ported
    assert (kept.library, kept.transform, kept.line) == ("torchvision", "Normalize(mean, std)", 8)
    assert kept.reason == result.refusals[0].reason
    assert "known only when the file runs" in kept.reason
    assert loads(dumps(result.spec)) == result.spec
    assert to_json(result.spec)["not_ported"] == [
        {
            "library": "torchvision",
            "transform": "Normalize(mean, std)",
            "reason": kept.reason,
            "line": 8,
        }
    ]
    # an edit is a new spec: the record stays with it
    edited = result.spec.set_arg("erase", "fill_value", 0.25)
    assert edited.not_ported == result.spec.not_ported


def test_the_import_command_names_them_and_the_export_says_so_first(
    train_file: Path, tmp_path: Path
) -> None:
    graph = tmp_path / "g.json"
    done = subprocess.run(
        [sys.executable, "-m", "augexplorer", "import", str(train_file), "-o", str(graph)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout
    assert "2 transforms ported (1 exact, 1 distribution), 1 not ported" in said
    assert "NOT PORTED (1 transform): left out of the graph and of any module exported" in said
    assert (
        "line 8: Normalize(mean, std) not ported: mean=mean (its first argument) is known" in said
    )
    spec = load(graph)
    assert [item.transform for item in spec.not_ported] == ["Normalize(mean, std)"]

    module = generate(spec, formatted=False)
    header = _header(module)
    warning = header.index("WARNING: NOT PORTED. This module does NOT run 1 transform")
    assert warning < header.index("Ported: these nodes stand for")  # before the ported nodes
    assert "- torchvision Normalize(mean, std) (line 8): mean=mean (its first argument)" in header
    assert "- to_tensor: torchvision ToTensor() (line 6), exact" in header
    # the exported module's GRAPH carries them back into the explorer
    exported = tmp_path / "aug.py"
    exported.write_text(module)
    assert import_graph(exported).not_ported == spec.not_ported
    # once the transform is in the graph by hand, the list is cleared and the warning goes
    assert "spec.with_not_ported(()) clears this list" in " ".join(header.split())
    cleared = spec.with_not_ported(())
    assert "NOT PORTED" not in _header(generate(cleared, formatted=False))


def test_a_graph_with_every_transform_ported_says_nothing_extra(tmp_path: Path) -> None:
    path = tmp_path / "whole.py"
    path.write_text(WHOLE)
    result = port_file(path)
    assert not result.refusals and not result.spec.not_ported
    assert "not_ported" not in to_json(result.spec)  # the JSON it always had
    assert "NOT PORTED" not in result.summary()
    note = port_note(result.spec)
    assert note.startswith("\nPorted: these nodes stand for")
    assert "NOT PORTED" not in _header(generate(result.spec, formatted=False))


def test_several_left_out_are_each_named_and_wrapped(tmp_path: Path) -> None:
    path = tmp_path / "whole.py"
    path.write_text(WHOLE)
    spec = port_file(path).spec
    many = (
        NotPorted("torchvision", "Lambda(f)", "DALI has no equivalent of Lambda", 4),
        NotPorted("torchvision", "ElasticTransform()", 'a reason with """ and ' + "\\" * 2),
    )
    note = port_note(dataclasses.replace(spec, not_ported=many))
    assert "does NOT run 2 transforms" in note
    assert "- torchvision Lambda(f) (line 4): DALI has no equivalent of Lambda" in note
    assert "- torchvision ElasticTransform(): a reason with ' and //" in note  # docstring-safe
    assert all(len(line) <= 96 for line in note.splitlines())


def test_a_malformed_record_is_named_by_its_field() -> None:
    data = {"format": "augexplorer.graph", "version": 1, "not_ported": [{"library": "x"}]}
    with pytest.raises(SpecFormatError, match=r"not_ported\[0\]") as raised:
        loads(json.dumps(data))
    assert "transform" in str(raised.value)
