"""Ported torchvision pipelines as graphs: randomness kept as conditions, every draw seeded,
each node's origin, refusals with their line, the export running what the explorer runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from exported_runner import run_exported
from port_parity import run, sample_images

from augexplorer import Session
from augexplorer.export import export
from augexplorer.port.build import DataSource
from augexplorer.port.reading import read_source
from augexplorer.port.torchvision import port
from augexplorer.spec import Node, Random, Ref, dumps, loads
from augexplorer.validate import validate

SIMCLR = textwrap.dedent(
    """
    import torchvision.transforms as T
    from mylib import Solarize

    augment = T.Compose([
        T.RandomResizedCrop(96, scale=(0.2, 1.0)),
        T.RandomHorizontalFlip(),
        T.RandomApply([T.ColorJitter(0.4, 0.4, 0.2, 0.1)], p=0.8),
        T.RandomGrayscale(p=0.2),
        T.RandomChoice([T.GaussianBlur(9), T.RandomRotation(10)], p=[0.3, 0.7]),
        T.Lambda(lambda x: x),
        Solarize(),
        T.ToTensor(),
        T.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25)),
        T.RandomErasing(),
    ])
    """
)


def _ported(data: DataSource | None = None, batch_size: int = 8):  # type: ignore[no-untyped-def]
    (found,) = read_source(SIMCLR)
    return port(found.compose, name=found.name, data=data, batch_size=batch_size)


def _op(result, node_id: str) -> Node:  # type: ignore[no-untyped-def]
    node = result.spec.node(node_id)
    assert isinstance(node, Node)
    return node


def test_randomness_is_kept_as_conditions_and_seeded_draws() -> None:
    result = _ported()
    validate(result.spec)
    apply = _op(result, "random_apply")
    assert (apply.op, apply.args["probability"], apply.seed is not None) == (
        "random.coin_flip",
        0.8,
        True,
    )
    for step in ("brightness", "contrast", "saturation", "hue"):
        assert _op(result, step).when[0].ref == Ref("random_apply"), step
    # a helper reading the image (the grey mean of contrast) runs on every sample
    assert _op(result, "contrast_centre").when == ()
    # RandomGrayscale's two nodes share one coin of p=0.2
    gray, gray_rgb = _op(result, "grayscale"), _op(result, "gray_rgb")
    assert gray.when == gray_rgb.when and len(gray.when) == 1
    assert _op(result, gray.when[0].ref.node).args["probability"] == 0.2
    # RandomChoice: one pick per image, each transform where the pick is its index
    pick = _op(result, "random_choice")
    assert pick.args["p"] == pytest.approx([0.3, 0.7])
    assert _op(result, "gaussian_blur").when[0].ref == Ref("random_choice_is_0")
    assert _op(result, "rotate").when[0].ref == Ref("random_choice_is_1")
    # the flip's coin and the rotation's angle are seeded draws
    flip = _op(result, "horizontal_flip").args["horizontal"]
    assert isinstance(flip, Random) and flip.seed is not None and flip.probability == 0.5
    # ToTensor + Normalize are one crop_mirror_normalize in pixel units
    cmn = _op(result, "to_tensor")
    assert cmn.args["mean"] == [127.5] * 3 and cmn.args["std"] == [63.75] * 3
    assert cmn.origin is not None and "Normalize" in cmn.origin.transform


def test_each_node_carries_its_origin_and_refusals_name_the_line() -> None:
    result = _ported()
    crop = _op(result, "random_resized_crop")
    assert crop.origin is not None
    assert (crop.origin.library, crop.origin.line, crop.origin.fidelity) == (
        "torchvision",
        6,
        "distribution",
    )
    assert all(isinstance(n, Node) and n.origin is not None for n in result.spec.nodes[2:]), (
        "every ported node says where it came from"
    )
    refused = [r.describe() for r in result.refusals]
    assert refused[0].startswith("line 11: Lambda(")
    assert "nearest operator is python_function" in refused[0]
    assert refused[1].startswith("line 12: Solarize() not ported")
    summary = result.summary()
    assert "torchvision ColorJitter(0.4, 0.4, 0.2, 0.1) (line 8): approximate" in summary
    assert "line 11: Lambda(" in summary
    assert loads(dumps(result.spec)) == result.spec  # origins survive the spec's JSON


@pytest.mark.slow
def test_the_export_runs_what_the_explorer_runs(tmp_path: Path) -> None:
    images = sample_images(8)
    listing = tmp_path / "files.txt"
    listing.write_text("".join(f"{p} 0\n" for p in images))
    result = _ported(DataSource("file_list", str(listing), shuffle=False), batch_size=8)
    explorer = run(result.__class__(result.spec, result.steps, ()))
    module = export(result.spec, tmp_path / "ported_aug.py")
    header = module.read_text().split('"""')[1]
    assert (
        "- random_resized_crop: torchvision RandomResizedCrop(96, scale=(0.2, 1.0)) (line 6),"
        in (header)
    )
    assert "- brightness, contrast_gray, contrast_gray_float, contrast_centre, contrast," in header
    job = {"name": "p", "module": str(module), "out": str(tmp_path / "p.npz"), "batch_size": 8}
    exported = run_exported([{**job, "device": "cpu"}], tmp_path)["p"]
    for sample, ours in enumerate(explorer):
        np.testing.assert_array_equal(exported[f"0_{sample}"], ours)
    # the draws did vary (otherwise the comparison shows little)
    session = Session(result.spec, device_id=None).run()
    picks = [int(np.asarray(a)) for a in session.arrays("random_choice")]
    assert len(set(picks)) == 2


def test_a_transform_with_arguments_the_mapping_cannot_take_is_left_out_alone() -> None:
    (found,) = read_source(
        "import torchvision.transforms as T\n"
        "t = T.Compose([T.CenterCrop('wide'), T.RandomRotation('x'), T.RandomHorizontalFlip()])\n"
    )
    result = port(found.compose)
    assert [step.call.name for step in result.steps] == ["RandomHorizontalFlip"]
    reasons = [r.describe() for r in result.refusals]
    assert reasons[0].startswith("line 2: CenterCrop('wide') not ported: ")
    assert reasons[1].startswith("line 2: RandomRotation('x') not ported: ")
    validate(result.spec)
