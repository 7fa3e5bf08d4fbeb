"""Fused decoders in exported modules: exact fusions give the live engine's outputs, inexact ones
only on request and say so, and no fusion changes the GRAPH the module carries."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import black
import numpy as np
import pytest
from exported_runner import run_exported

from augexplorer import GraphSpec, Node, Probability, Random, Ref, Session, Source, chain, preset
from augexplorer.export import ExportError, export, generate
from augexplorer.export.importer import import_graph

IMAGENET_MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
IMAGENET_STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


# Runs in a fresh process: imports each exported module by path and saves one batch of outputs.
def crop_graph() -> GraphSpec:
    """decode -> crop with a random anchor (its draw is defined between the two) -> flip."""
    return chain(
        Source("source", shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        (
            "crop",
            "crop",
            {"crop": [96.0, 120.0], "crop_pos_x": Random.uniform(0, 1), "crop_pos_y": 0.3},
        ),
        ("flip", "flip", {"horizontal": 1}),
        name="crop_fusion",
        batch_size=6,
    )


def slice_graph() -> GraphSpec:
    """decode -> slice whose anchor and shape are inputs from random nodes."""
    nodes = (
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("anchor", "random.uniform", (), {"range": [0.0, 0.4], "shape": [2]}),
        Node("extent", "random.uniform", (), {"range": [0.3, 0.6], "shape": [2]}),
        Node("window", "slice", (Ref("decode"), Ref("anchor"), Ref("extent")), {}),
        Node(
            "relative",
            "slice",
            (Ref("window"),),
            {"rel_start": [0.1, 0.2], "rel_shape": [0.5, 0.6]},
        ),
    )
    return GraphSpec(
        nodes, {"images": Ref("relative"), "labels": Ref("source", 1)}, batch_size=6, name="slice"
    )


def gray_slice_graph() -> GraphSpec:
    """decode (grayscale) -> slice by arguments, in absolute pixels."""
    return chain(
        Source("source", shuffle=False),
        ("decode", "decoders.image", {"output_type": "GRAY"}),
        ("window", "slice", {"start": [13, 27], "shape": [61, 45]}),
        name="gray_slice",
        batch_size=6,
    )


def normalize_graph() -> GraphSpec:
    """decode -> crop_mirror_normalize with a crop and a random mirror."""
    return chain(
        Source("source", shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        (
            "normalize",
            "crop_mirror_normalize",
            {
                "crop": [112.0, 128.0],
                "crop_pos_x": 0.3,
                "mean": IMAGENET_MEAN,
                "std": IMAGENET_STD,
                "dtype": "FLOAT",
                "mirror": Random.coin_flip(0.5),
            },
        ),
        name="normalize_fusion",
        batch_size=6,
    )


def resized_crop_graph() -> GraphSpec:
    return chain(
        Source("source", shuffle=False),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("crop", "random_resized_crop", {"size": [96, 128]}),
        name="resized_crop",
        batch_size=6,
    )


EXACT = {
    "crop": (crop_graph, "fn.decoders.image_crop("),
    "slice": (slice_graph, "fn.decoders.image_slice("),
    "gray_slice": (gray_slice_graph, "fn.decoders.image_slice("),
    "normalize": (normalize_graph, "fn.decoders.image_crop("),
}


def job(name: str, module: Path, spec: GraphSpec, tmp: Path, device: str = "cpu") -> dict:
    return {
        "name": name,
        "module": str(module),
        "out": str(tmp / f"{name}.npz"),
        "batch_size": spec.batch_size,
        "device": device,
    }


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The exact cases (default options) and the inexact one (fuse_decoders="all"), run in one
    fresh process."""
    tmp = tmp_path_factory.mktemp("fusion")
    cases: dict[str, dict] = {}
    jobs = []
    for name, (make, _) in EXACT.items():
        spec = make()
        module = export(spec, tmp / f"{name}_aug.py")
        cases[name] = {"spec": spec, "module": module}
        jobs.append(job(name, module, spec, tmp))
    spec = resized_crop_graph()
    module = export(spec, tmp / "all_aug.py", fuse_decoders="all")
    cases["all"] = {"spec": spec, "module": module}
    jobs.append(job("all", module, spec, tmp))
    for name, outputs in run_exported(jobs, tmp).items():
        cases[name]["outputs"] = outputs
    return cases


def assert_matches_live(spec: GraphSpec, outputs: dict[str, np.ndarray], **session: object) -> None:
    live = Session(spec, **session).run()  # type: ignore[arg-type]
    for index, ref in enumerate(live.plan.outputs.values()):
        arrays = live.arrays(ref)
        assert len(arrays) == spec.batch_size
        for sample, expected in enumerate(arrays):
            got = outputs[f"{index}_{sample}"]
            assert got.dtype == expected.dtype and got.shape == expected.shape, (ref, sample)
            np.testing.assert_array_equal(got, expected, err_msg=f"{spec.name}: {ref} #{sample}")


@pytest.mark.parametrize("name", list(EXACT))
def test_exact_fusion_matches_live_engine(exported: dict[str, dict], name: str) -> None:
    case = exported[name]
    source = case["module"].read_text()
    fused_call = EXACT[name][1]
    assert fused_call in source, "the fusion was not applied"
    assert "fn.decoders.image(" not in source
    header = ast.get_docstring(ast.parse(source)) or ""
    assert "identical outputs" in header and "NOT" not in header
    assert_matches_live(case["spec"], case["outputs"])
    # The module carries the graph as it was drawn, not the fused calls.
    assert import_graph(case["module"]) == case["spec"]


def test_normalize_fusion_keeps_normalizing_without_the_crop(exported: dict[str, dict]) -> None:
    source = exported["normalize"]["module"].read_text()
    call = source[source.index("normalize = fn.crop_mirror_normalize(") :].split(")\n")[0]
    assert (
        "mean=" in call and "mirror=" in call and "crop=" not in call and "crop_pos_x" not in call
    )


def test_all_applies_the_inexact_fusion_and_says_so(exported: dict[str, dict]) -> None:
    case = exported["all"]
    source = case["module"].read_text()
    assert "fn.decoders.image_random_crop(" in source and "fn.resize(" in source
    assert "fn.random_resized_crop(" not in source
    header = ast.get_docstring(ast.parse(source)) or ""
    assert 'fuse_decoders="all"' in header and "DIFFER from augexplorer's" in header
    assert "random_resized_crop" in header
    assert import_graph(case["module"]) == case["spec"]
    # It runs; same shapes as the explorer's, values near the explorer's: the seed carried over,
    # so the crop windows are the same and only resampling at the borders differs.
    live = Session(case["spec"]).run()
    differences = []
    for sample, expected in enumerate(live.arrays(Ref("crop"))):
        got = case["outputs"][f"0_{sample}"]
        assert got.shape == expected.shape == (96, 128, 3) and got.dtype == expected.dtype
        differences.append(np.abs(got.astype(np.float64) - expected).mean())
    assert max(differences) < 1.0, differences


def test_fused_modules_are_formatted_and_lint_clean(exported: dict[str, dict]) -> None:
    paths = [case["module"] for case in exported.values()]
    for path in paths:
        source = path.read_text()
        assert black.format_str(source, mode=black.Mode(line_length=100)) == source, path
    config = str(Path(__file__).parents[1] / "pyproject.toml")
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--config", config, *map(str, paths)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_exact_is_the_default_and_leaves_inexact_pairs_alone() -> None:
    source = generate(resized_crop_graph())
    assert "fn.random_resized_crop(" in source and "fn.decoders.image(" in source
    assert "fused" not in source.lower()
    assert generate(resized_crop_graph(), fuse_decoders="exact") == source


def pipeline_body(source: str) -> str:
    """The pipeline function and everything after it (the header carries a date)."""
    return source[source.index("@pipeline_def") :]


def test_none_keeps_every_node_as_its_own_call() -> None:
    source = generate(crop_graph(), fuse_decoders="none")
    assert "fn.decoders.image(" in source and "fn.crop(" in source
    assert "image_crop" not in source and "fused" not in source.lower()
    # Graphs with nothing to fuse come out the same whatever the option.
    for name in ("basic", "imagenet_val", "randaugment"):
        spec = preset(name)
        texts = {pipeline_body(generate(spec, fuse_decoders=mode)) for mode in ("none", "exact")}
        assert len(texts) == 1, name


def graph_with(**changes: object) -> GraphSpec:
    spec = crop_graph()
    for key, value in changes.items():
        if key == "probability":
            spec = spec.set_probability("crop", Probability(0.5))
        elif key == "device":
            spec = spec.set_device("decode", "cpu")
        elif key == "second_consumer":
            spec = GraphSpec(
                (*spec.nodes, Node("small", "resize", (Ref("decode"),), {"resize_x": 32.0})),
                {**spec.outputs, "small": Ref("small")},
                batch_size=spec.batch_size,
                name=spec.name,
            )
        elif key == "decoded_output":
            spec = GraphSpec(
                spec.nodes,
                {**spec.outputs, "decoded": Ref("decode")},
                batch_size=spec.batch_size,
                name=spec.name,
            )
        else:
            spec = spec.set_arg("crop", key, value)
    return spec


@pytest.mark.parametrize(
    "changes",
    [
        {"probability": True},  # a conditional crop
        {"second_consumer": True},  # the decoded image feeds another node too
        {"decoded_output": True},  # ... or is an output itself
        {"out_of_bounds_policy": "pad"},  # the fused decoder cannot pad
        {"dtype": "FLOAT"},  # crop casts; the decoder would rescale to [0, 1]
    ],
    ids=lambda changes: next(iter(changes)),
)
def test_pairs_that_cannot_be_fused_exactly_stay_apart(changes: dict[str, object]) -> None:
    for mode in ("exact", "all"):
        source = generate(graph_with(**changes), fuse_decoders=mode)
        assert "fn.decoders.image(" in source and "fn.crop(" in source, (changes, mode)
        assert "image_crop" not in source


def test_a_decoder_kept_on_the_cpu_fuses_with_the_crop_that_follows_it_there() -> None:
    """A crop left on auto runs where its data is (DALI's GPU crop cannot read CPU images): with
    the decoder pinned to the CPU both stay there in the module's GPU plan, and fuse."""
    source = generate(graph_with(device="cpu"), fuse_decoders="exact")
    assert "fn.decoders.image_crop(" in source and "fn.crop(" not in source


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ExportError, match=r"fuse_decoders must be one of exact, all, none"):
        generate(crop_graph(), fuse_decoders="some")  # type: ignore[arg-type]


def test_cli_fuse_decoders(tmp_path: Path) -> None:
    from augexplorer.cli import main
    from augexplorer.spec import save

    spec_path = tmp_path / "crop.json"
    save(resized_crop_graph(), spec_path)
    for mode, fused in (("none", False), ("exact", False), ("all", True)):
        target = tmp_path / f"{mode}.py"
        assert main(["export", str(spec_path), "-o", str(target), "--fuse-decoders", mode]) == 0
        assert ("fn.decoders.image_random_crop(" in target.read_text()) is fused, mode


@pytest.mark.gpu
def test_exact_fusions_on_gpu_match_live_engine(tmp_path: Path) -> None:
    jobs, specs = [], {}
    for name, (make, fused_call) in EXACT.items():
        spec = make()
        module = export(spec, tmp_path / f"{name}_aug.py")
        assert fused_call in module.read_text()
        specs[name] = spec
        jobs.append(job(name, module, spec, tmp_path, device="gpu"))
    for name, outputs in run_exported(jobs, tmp_path).items():
        assert_matches_live(specs[name], outputs, device_id=0)
