"""Export: the generated module, imported in a fresh process, gives the live engine's outputs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import black
import numpy as np
import pytest
from exported_runner import run_exported

from augexplorer import (
    GraphSpec,
    Node,
    Probability,
    PythonCode,
    Random,
    Ref,
    Session,
    Source,
    preset,
)
from augexplorer.data import samples_dir
from augexplorer.errors import FileExistsRefused
from augexplorer.export import ExportError, export, generate
from augexplorer.presets import PRESETS

RUNS = 2  # batches compared: the random operators' state carries over from one to the next


# Runs in a fresh process: imports each exported module by path (nothing from augexplorer) and
# saves the outputs of RUNS batches of its pipeline, plus the labels make_loader() yields.
def multi_input_graph() -> GraphSpec:
    """Two branches joined by a multi-input operator, with a random binding on one branch."""
    nodes = (
        Source("source", shuffle=False),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 64.0, "resize_y": 48.0}),
        Node(
            "bright",
            "brightness",
            (Ref("small"),),
            {"brightness": Random.uniform(0.5, 1.5)},
            probability=Probability(0.5),
        ),
        Node("joined", "cat", (Ref("small"), Ref("bright")), {"axis": 1}),
    )
    return GraphSpec(nodes, {"images": Ref("joined"), "labels": Ref("source", 1)}, batch_size=4)


def darken(image):  # type: ignore[no-untyped-def]
    return image // 2


def python_graph() -> GraphSpec:
    """The basic preset with a python_function node, applied with a probability."""
    node = Node(
        "darker",
        "python_function",
        args={"function": PythonCode.from_function(darken), "output_layouts": "HWC"},
        probability=Probability(0.5),
    )
    return preset("basic").insert_after("flip", node)


def write_file_list(tmp_path: Path, *, labels_per_image: int) -> Path:
    files = sorted(samples_dir().rglob("*.jpg"))
    lines = ["# image labels"]
    for index, path in enumerate(files):
        labels = [(index * (k + 3)) % 11 for k in range(labels_per_image)]
        lines.append(f"{path} {' '.join(map(str, labels))}")
    target = tmp_path / f"list_{labels_per_image}.txt"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def sample_arrays() -> tuple[list[np.ndarray], list[int]]:
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 256, (40 + 8 * i, 56, 3), dtype=np.uint8) for i in range(6)]
    return images, [7, 1, 2, 3, 4, 5]  # fewer than a batch: the source cycles


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Every case exported, run in one fresh process, and run by the live engine here."""
    tmp = tmp_path_factory.mktemp("export")
    single = write_file_list(tmp, labels_per_image=1)
    multi = write_file_list(tmp, labels_per_image=3)
    images, labels = sample_arrays()
    np.savez(tmp / "arrays.npz", labels=labels, **{f"image_{i}": im for i, im in enumerate(images)})
    base = preset("basic")
    specs: dict[str, tuple[GraphSpec, object]] = {name: (PRESETS[name](), None) for name in PRESETS}
    specs["multi_input"] = (multi_input_graph(), None)
    specs["python"] = (python_graph(), None)
    specs["folder"] = (base.with_source(Source("source", "folder", str(samples_dir()))), None)
    specs["file_list"] = (base.with_source(Source("source", "file_list", str(single))), None)
    specs["multi_label"] = (
        preset("randaugment").with_source(Source("source", "file_list", str(multi))),
        None,
    )
    arrays_graph = preset("random_affine").remove("decode").with_source(Source("source", "arrays"))
    specs["arrays"] = (arrays_graph, (images, labels))
    jobs = []
    results: dict[str, dict] = {}
    for name, (spec, data) in specs.items():
        module = export(spec, tmp / f"{name}_aug.py")
        jobs.append(
            {
                "name": name,
                "module": str(module),
                "out": str(tmp / f"{name}.npz"),
                "batch_size": spec.batch_size,
                "arrays": str(tmp / "arrays.npz") if data is not None else None,
                "data": None,
                "device": "cpu",
                "loader": True,
                "runs": RUNS,
            }
        )
        results[name] = {"spec": spec, "data": data, "module": module}
    for name, outputs in run_exported(jobs, tmp).items():
        results[name]["exported"] = outputs
    return results


CASES = [*PRESETS, "multi_input", "python", "folder", "file_list", "multi_label", "arrays"]


@pytest.mark.parametrize("name", CASES)
def test_exported_module_matches_live_engine(cases: dict[str, dict], name: str) -> None:
    case = cases[name]
    # on the CPU, as the exported module ran: the GPU's resampling differs in the last bit
    session = Session(case["spec"], data=case["data"], device_id=None)
    session.trust()  # the python case's code is this file's own `darken`
    exported = case["exported"]
    # batch after batch: "next batch" shows the images and the draws training gets there
    for run in range(RUNS):
        live = session.run() if run == 0 else session.next_batch()
        prefix = f"run{run}_" if run else ""
        for index, ref in enumerate(live.plan.outputs.values()):
            arrays = live.arrays(ref)
            assert len(arrays) == case["spec"].batch_size
            for sample, expected in enumerate(arrays):
                got = exported[f"{prefix}{index}_{sample}"]
                what = f"{name}: batch {run + 1}, {ref} #{sample}"
                assert got.dtype == expected.dtype and got.shape == expected.shape, what
                np.testing.assert_array_equal(got, expected, err_msg=what)


def test_multi_label_loader_yields_label_rows(cases: dict[str, dict]) -> None:
    case = cases["multi_label"]
    live = Session(case["spec"], device_id=None).run()
    rows = np.asarray(live.labels())
    assert rows.shape == (case["spec"].batch_size, 3)
    np.testing.assert_array_equal(case["exported"]["loader_labels"], rows)


def test_single_label_loader_yields_reader_labels(cases: dict[str, dict]) -> None:
    case = cases["file_list"]
    live = Session(case["spec"], device_id=None).run()
    expected = np.asarray([np.asarray(a).reshape(-1) for a in live.arrays(Ref("source", 1))])
    np.testing.assert_array_equal(
        case["exported"]["loader_labels"].reshape(expected.shape), expected
    )


def test_module_is_formatted_lint_clean_and_self_contained(cases: dict[str, dict]) -> None:
    for name in ("randaugment", "arrays", "multi_label"):
        source = cases[name]["module"].read_text()
        assert black.format_str(source, mode=black.Mode(line_length=100)) == source
        tree = ast.parse(source)
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            node.module.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        allowed = {
            "__future__",
            "argparse",
            "base64",
            "json",
            "os",
            "time",
            "zlib",
            "torch",
            "nvidia",
        }
        assert imported <= allowed, imported
    paths = [str(cases[name]["module"]) for name in CASES]
    for config in (["--isolated"], ["--config", str(Path(__file__).parents[1] / "pyproject.toml")]):
        lint = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--no-cache", *config, *paths],
            capture_output=True,
            text=True,
        )
        assert lint.returncode == 0, lint.stdout + lint.stderr


def test_module_header_seeds_and_conditionals() -> None:
    source = generate(preset("randaugment"))
    header = ast.get_docstring(ast.parse(source)) or ""
    assert "augexplorer" in header and "augexplorer import" in header
    assert "@pipeline_def(enable_conditionals=True)" in source
    plan_seeds = {step.seed for step in Session("randaugment").plan.steps if step.seed is not None}
    for seed in plan_seeds:  # each derived for the rank the module runs as (rank 0: as is)
        assert f"seed=rank_seed({seed}, rank)" in source
    assert "if rotate_apply:" in source
    assert "rotate_angle = fn.random.uniform(" in source
    assert 'decoder_device = "mixed" if device == "gpu" else "cpu"' in source
    assert "enable_conditionals" not in generate(preset("imagenet_val"))


def test_export_refuses_to_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "aug.py"
    target.write_text("keep me")
    with pytest.raises(FileExistsRefused):
        export(preset("basic"), target)
    assert target.read_text() == "keep me"
    export(preset("basic"), target, overwrite=True)
    assert "def make_loader" in target.read_text()


@pytest.mark.parametrize(
    ("name", "said", "fix"),
    [
        ("my aug.py", "`import my aug` is not Python", "my_aug.py"),
        ("1bad.py", "does not start with a digit", "aug_1bad.py"),
        ("class.py", "`class` is a Python keyword", "class_aug.py"),
        ("out.txt", "is not a Python module", "out.py"),
        ("random.py", "would hide Python's own `random` module", "random_aug.py"),
        ("torch.py", "would hide the installed `torch` module", "torch_aug.py"),
    ],
)
def test_export_refuses_a_name_a_training_script_cannot_import(
    tmp_path: Path, name: str, said: str, fix: str
) -> None:
    with pytest.raises(ExportError) as raised:
        export(preset("basic"), tmp_path / name)
    assert said in str(raised.value) and f"(fix: name it {fix})" in str(raised.value)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_the_suggested_name_imports(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"name it my_aug\.py"):
        export(preset("imagenet_val"), tmp_path / "my aug.py")
    export(preset("imagenet_val"), tmp_path / "my_aug.py")
    imported = subprocess.run(
        [sys.executable, "-c", "import my_aug; print(my_aug.imagenet_val_pipeline.__name__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "imagenet_val_pipeline"


def test_export_names_what_it_cannot_write() -> None:
    two_sources = GraphSpec(
        (
            Source("left"),
            Source("right", "arrays"),
            Node("decode", "decoders.image", (Ref("left"),), {}),
        ),
        {"images": Ref("decode")},
    )
    with pytest.raises(
        ExportError,
        match=r"several sources only where each is a folder or a file list.*'left' \(samples\), "
        r"'right' \(arrays\)",
    ):
        generate(two_sources)


def test_node_names_that_clash_with_module_names_are_renamed() -> None:
    spec = GraphSpec(
        (
            Source("files"),
            Node("labels", "decoders.image", (Ref("files"),), {}),
            Node("print", "flip", (Ref("labels"),), {"horizontal": 1}),
        ),
        {"images": Ref("print"), "labels": Ref("files", 1)},
    )
    tree = ast.parse(generate(spec))
    assigned = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in ast.walk(node.targets[0])
        if isinstance(target, ast.Name)
    }
    assert {"files_node", "labels_node", "print_node"} <= assigned
    assert "print" not in assigned


def test_cli_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from augexplorer.cli import main

    target = tmp_path / "val_aug.py"
    assert main(["export", "imagenet_val", "-o", str(target)]) == 0
    assert "def imagenet_val_pipeline(" in target.read_text()
    assert main(["export", "imagenet_val", "-o", str(target)]) == 2  # exists: refused
    spaced = tmp_path / "with space" / "val_aug.py"
    spaced.parent.mkdir()
    assert main(["export", "imagenet_val", "-o", str(spaced)]) == 0
    said = capsys.readouterr().out
    assert f"python '{spaced}' --help" in said  # a command that can be pasted as it is


@pytest.mark.gpu
def test_exported_module_on_gpu_matches_live_engine(tmp_path: Path) -> None:
    spec = preset("basic")
    module = export(spec, tmp_path / "gpu_aug.py")
    source = module.read_text()
    assert "device=decoder_device" in source
    job = {
        "name": "gpu",
        "module": str(module),
        "out": str(tmp_path / "gpu.npz"),
        "batch_size": spec.batch_size,
        "device": "gpu",
    }
    exported = run_exported([job], tmp_path)["gpu"]
    live = Session(spec, device_id=0).run()
    assert live.plan.step("decode").device == "mixed"
    for index, ref in enumerate(live.plan.outputs.values()):
        for sample, expected in enumerate(live.arrays(ref)):
            np.testing.assert_array_equal(exported[f"{index}_{sample}"], expected)


def test_the_header_names_the_dali_it_was_made_with() -> None:
    """A training machine's older DALI fails in its own words (an unknown argument): the module
    says which DALI it was made with."""
    import nvidia.dali

    text = generate(PRESETS["basic"]())
    assert f"with DALI {nvidia.dali.__version__}." in text.split('"""')[1]
