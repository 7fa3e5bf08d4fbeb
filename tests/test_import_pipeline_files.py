"""Files written the way DALI's tutorials write them import as a user expects: the pipeline the
file builds is picked without --pipeline, a file with only its @pipeline_def function has it
built with the parameters given on the command line, and the imported graph runs in a Session
to the original pipeline's outputs."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipeline_files import load_module, run_once

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.devices import default_device_id, has_gpu
from augexplorer.export import generate
from augexplorer.export.code_pipelines import parse_param
from augexplorer.export.derived_seeds import DrawsDiffer
from augexplorer.export.importer import ImportWouldRun, import_graph
from augexplorer.export.serialized import ImportRefused, ReaderRenamed
from augexplorer.spec import GraphSpec, load

# DALI's getting-started pipeline, its image folder a parameter rather than a global.
GETTING_STARTED = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=4)
def simple_pipeline(root, device="mixed", shuffle=True):
    jpegs, labels = fn.readers.file(
        file_root=root, random_shuffle=shuffle, initial_fill=21, seed=1234, name="Reader"
    )
    images = fn.decoders.image(jpegs, device=device, output_type=types.RGB)
    images = fn.resize(images, resize_x=96, resize_y=64)
    return images, labels
"""

BUILT = """
from nvidia.dali import fn, pipeline_def

image_dir = {root!r}
max_batch_size = 3


@pipeline_def
def rotated_pipeline():
    jpegs, labels = fn.readers.file(file_root=image_dir, random_shuffle=True, seed=7)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.resize(images, resize_x=80, resize_y=80)
    angle = fn.random.uniform(range=(-10.0, 10.0), seed=12)
    return fn.rotate(images, angle=angle, fill_value=0), labels


pipe = rotated_pipeline(batch_size=max_batch_size, num_threads=1, device_id=0)
"""

TWO_BUILT = """
from nvidia.dali import fn, pipeline_def

image_dir = {root!r}


@pipeline_def
def flipped_pipeline():
    jpegs, labels = fn.readers.file(file_root=image_dir, seed=3)
    images = fn.decoders.image(jpegs, device="cpu")
    return fn.flip(fn.resize(images, resize_x=64, resize_y=48), horizontal=1), labels


@pipeline_def
def cropped_pipeline():
    jpegs, labels = fn.readers.file(file_root=image_dir, seed=3)
    images = fn.decoders.image(jpegs, device="cpu")
    return fn.crop(fn.resize(images, resize_x=64, resize_y=64), crop=(32, 32)), labels


flipped = flipped_pipeline(batch_size=2, num_threads=1, device_id=None)
cropped = cropped_pipeline(batch_size=5, num_threads=1, device_id=None)
"""

ONLY_DEFINED = """
from nvidia.dali import fn, pipeline_def

image_dir = {root!r}


@pipeline_def
def gray_pipeline(width=72):
    jpegs, labels = fn.readers.file(file_root=image_dir, random_shuffle=True, seed=5)
    images = fn.decoders.image(jpegs, device="cpu")
    images = fn.color_space_conversion(images, image_type=types.RGB, output_type=types.GRAY)
    return fn.resize(images, resize_x=width, resize_y=40), labels


from nvidia.dali import types  # noqa: E402  (where a notebook-grown file puts its imports)
"""


def write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source.format(root=str(samples_dir())) if "{root" in source else source)
    return path


def session_batch(graph: GraphSpec) -> list[list[np.ndarray]]:
    result = Session(graph, device_id=None).run()
    return [result.arrays(ref) for ref in result.plan.outputs.values()]


def assert_same_batch(graph: GraphSpec, pipe: Any) -> None:
    want = run_once(pipe)
    got = session_batch(graph)
    assert len(got) == len(want)
    for index, (outputs, expected) in enumerate(zip(got, want, strict=True)):
        assert len(outputs) == len(expected) == graph.batch_size, f"output {index}"
        for x, y in zip(outputs, expected, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape, f"output {index}"
            np.testing.assert_array_equal(x, y, err_msg=f"output {index}")


def test_getting_started_pipeline_with_its_root_given(tmp_path: Path) -> None:
    source = write(tmp_path, "getting_started.py", GETTING_STARTED)
    root = str(samples_dir())
    graph = import_graph(source, run_file=True, params={"root": root, "device": "cpu"})
    assert graph.name == "simple_pipeline" and graph.batch_size == 4  # the decorator's
    reader = graph.sources()[0]
    assert reader.seed == 1234
    # the reader keeps its name as written: a training loop passes it as reader_name="Reader"
    assert reader.id == "Reader"
    module = generate(graph)
    assert 'name="Reader"' in module and 'reader_name="Reader"' in module
    original = load_module(source).simple_pipeline(
        root=root, device="cpu", num_threads=1, device_id=None
    )
    assert_same_batch(graph, original)


def test_a_reader_name_that_is_no_python_name_is_said_as_it_changes(tmp_path: Path) -> None:
    code = GETTING_STARTED.replace('name="Reader"', 'name="Train-Reader"')
    source = write(tmp_path, "named.py", code)
    params = {"root": str(samples_dir()), "device": "cpu"}
    with pytest.warns(ReaderRenamed, match="pass reader_name='Train_Reader' to your iterator"):
        graph = import_graph(source, run_file=True, params=params)
    assert graph.sources()[0].id == "Train_Reader"


def test_getting_started_pipeline_from_the_command_line(tmp_path: Path) -> None:
    source = write(tmp_path, "getting_started.py", GETTING_STARTED)
    target = tmp_path / "graph.json"
    argv = ["import", str(source), "-o", str(target), "--run-file"]
    params = ["--param", f"root={samples_dir()}", "--param", "device=cpu"]
    assert main([*argv, *params, "--param", "shuffle=false"]) == 0
    graph = load(target)
    original = load_module(source).simple_pipeline(
        root=str(samples_dir()), device="cpu", shuffle=False, num_threads=1, device_id=None
    )
    assert_same_batch(graph, original)  # `false` reached the function as JSON, not as text


def test_the_pipeline_a_file_builds_is_picked(tmp_path: Path) -> None:
    source = write(tmp_path, "built.py", BUILT)
    graph = import_graph(source, run_file=True)
    # named after its function (so the export's function is too), batch size as built
    assert graph.name == "rotated_pipeline" and graph.batch_size == 3
    # built for GPU 0 as DALI's tutorials do: without a GPU it is rebuilt with device_id=None
    original = load_module(source).rotated_pipeline(
        batch_size=3, num_threads=1, device_id=default_device_id()
    )
    assert_same_batch(graph, original)


def test_several_built_pipelines_are_named_and_one_is_chosen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path, "two.py", TWO_BUILT)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    assert str(source) in message and "--pipeline NAME" in message
    assert "flipped (built from flipped_pipeline)" in message
    assert "cropped (built from cropped_pipeline)" in message
    graph = import_graph(source, run_file=True, pipeline="cropped")
    assert graph.name == "cropped_pipeline" and graph.batch_size == 5
    assert_same_batch(graph, load_module(source).cropped)

    target = tmp_path / "graph.json"
    argv = ["import", str(source), "-o", str(target), "--run-file"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error and "--pipeline" in error
    assert main([*argv, "--pipeline", "flipped"]) == 0
    assert_same_batch(load(target), load_module(source).flipped)


def test_a_file_with_only_the_decorated_function_has_it_built(tmp_path: Path) -> None:
    source = write(tmp_path, "only.py", ONLY_DEFINED)
    with warnings.catch_warnings():
        # no operator draws, and the reader's shuffle does not depend on the batch size: the
        # batch size the import chose changes no pixel, and nothing is said of it
        warnings.simplefilter("error", DrawsDiffer)
        graph = import_graph(source, run_file=True)
    assert graph.name == "gray_pipeline" and graph.batch_size == 8  # no batch size: a sample's
    module = load_module(source)
    assert_same_batch(graph, module.gray_pipeline(batch_size=8, num_threads=1, device_id=None))
    # a parameter with a default can be given, and a Pipeline argument too
    wider = import_graph(source, run_file=True, params={"width": 100, "batch_size": 2})
    assert wider.batch_size == 2
    assert_same_batch(
        wider, module.gray_pipeline(width=100, batch_size=2, num_threads=1, device_id=None)
    )


def test_a_coin_flip_folded_into_a_node_still_says_the_batch_size_was_chosen(
    tmp_path: Path,
) -> None:
    # `if fn.random.coin_flip():` becomes the flip node's probability: no random operator is
    # left in the graph, and its draws still depend on a sample's place in its batch
    drawing = ONLY_DEFINED.replace(
        "@pipeline_def\n", "@pipeline_def(enable_conditionals=True)\n"
    ).replace(
        "    return fn.resize(",
        "    if fn.random.coin_flip(seed=2):\n"
        "        images = fn.flip(images, horizontal=1)\n"
        "    return fn.resize(",
    )
    source = write(tmp_path, "flip.py", drawing)
    with pytest.warns(DrawsDiffer, match="batch_size=8, which the import chose"):
        graph = import_graph(source, run_file=True)
    assert any(node.probability is not None for node in graph.operators())


def test_a_decorated_function_is_built_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each build runs the user's function (with conditionals, DALI's AutoGraph conversion of
    # it and of every policy it calls): the sample batch size is known before the first one
    from nvidia.dali import pipeline as dali_pipeline

    made: list[int] = []
    generate = dali_pipeline._generate_graph  # what a @pipeline_def call runs the function in

    def counted(pipe: Any, *args: Any) -> Any:
        made.append(pipe.max_batch_size)
        return generate(pipe, *args)

    monkeypatch.setattr(dali_pipeline, "_generate_graph", counted)
    drawing = ONLY_DEFINED.replace(
        "return fn.resize(",
        "images = fn.flip(images, horizontal=fn.random.coin_flip(seed=2))\n    return fn.resize(",
    )
    source = write(tmp_path, "only.py", drawing)
    with pytest.warns(DrawsDiffer, match="batch_size=8, which the import chose"):
        assert import_graph(source, run_file=True).batch_size == 8
    assert made == [8]
    made.clear()
    decorated = write(tmp_path, "decorated.py", GETTING_STARTED)  # @pipeline_def(batch_size=4)
    params = {"root": str(samples_dir()), "device": "cpu"}
    assert import_graph(decorated, run_file=True, params=params).batch_size == 4
    assert made == [4]


def test_a_parameter_without_default_left_out_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path, "getting_started.py", GETTING_STARTED)
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True, params={"device": "cpu"})
    message = str(refused.value)
    assert str(source) in message and "'simple_pipeline'" in message
    assert "parameter 'root'" in message and "--param root=VALUE" in message
    assert "root (no default), device='cpu' (set), shuffle=True" in message

    target = tmp_path / "graph.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert "parameter 'root'" in error and not target.exists()


def test_an_unknown_parameter_is_named_with_the_functions_parameters(tmp_path: Path) -> None:
    source = write(tmp_path, "getting_started.py", GETTING_STARTED)
    # the parameters listed with the values given (a typo beside a name given right)
    with pytest.raises(ImportRefused, match=r"no parameter 'rot'.*root='/data' \(set\)"):
        import_graph(source, run_file=True, params={"root": "/data", "rot": 1})


def test_parameters_do_not_run_a_file_without_run_file(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    source = write(
        tmp_path,
        "marked.py",
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n" + GETTING_STARTED,
    )
    with pytest.raises(ImportWouldRun, match="--run-file"):
        import_graph(source, params={"root": str(samples_dir())})
    assert main(["import", str(source), "-o", str(tmp_path / "g.json"), "--param", "root=x"]) == 2
    assert not marker.exists()


def test_parameters_for_a_built_pipeline_are_refused(tmp_path: Path) -> None:
    source = write(tmp_path, "built.py", BUILT)
    with pytest.raises(ImportRefused, match=r"'pipe' is a pipeline the file already built"):
        import_graph(source, run_file=True, pipeline="pipe", params={"batch_size": 2})
    # without --pipeline, parameters go to the file's @pipeline_def function
    graph = import_graph(source, run_file=True, params={"batch_size": 2})
    assert graph.name == "rotated_pipeline" and graph.batch_size == 2


def test_a_file_that_fails_to_run_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path, "broken.py", "import os\n\nvalue = 1 / 0\n")
    argv = ["import", str(source), "-o", str(tmp_path / "g.json"), "--run-file"]
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "Traceback" not in error
    assert f"{source}: running it failed at line 3: ZeroDivisionError" in error


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("root=/data/images", ("root", "/data/images")),
        ("device=cpu", ("device", "cpu")),
        ("width=100", ("width", 100)),
        ("shuffle=false", ("shuffle", False)),
        ("size=[224, 224]", ("size", [224, 224])),
        ('name="123"', ("name", "123")),
        ("empty=", ("empty", "")),
    ],
)
def test_param_values_are_json_when_they_parse_else_text(
    text: str, expected: tuple[str, Any]
) -> None:
    assert parse_param(text) == expected


def test_a_malformed_or_repeated_param_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path, "getting_started.py", GETTING_STARTED)
    argv = ["import", str(source), "-o", str(tmp_path / "g.json"), "--run-file"]
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--param", "root"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "NAME=VALUE" in error
    assert main([*argv, "--param", "root=a", "--param", "root=b"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "--param root is given twice" in error


@pytest.mark.skipif(has_gpu(), reason="the rebuild happens only on a machine without a GPU")
def test_a_gpu_pipeline_that_cannot_be_rebuilt_says_how_to_fix_it(tmp_path: Path) -> None:
    source = write(tmp_path, "gone.py", BUILT + "del max_batch_size\n")
    with pytest.raises(ImportRefused) as refused:
        import_graph(source, run_file=True)
    message = str(refused.value)
    assert str(source) in message and "'pipe' was built for GPU 0" in message
    assert "failed at line 17: NameError" in message and "device_id=None" in message


# A training script's shape: a sibling config module and argparse at module level.
ARGPARSE_SCRIPT = """
import argparse
import sys
from pathlib import Path

from aug_config import WIDTH
from nvidia.dali import fn, pipeline_def

# as `python FILE` runs it: its own arguments only, its folder first on the module path
assert sys.argv == [__file__], sys.argv
assert sys.path[0] == str(Path(__file__).resolve().parent), sys.path[0]
parser = argparse.ArgumentParser()
parser.add_argument("--data", default={root!r})
args = parser.parse_args()


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def config_pipeline():
    jpegs, labels = fn.readers.file(file_root=args.data, seed=3)
    images = fn.decoders.image(jpegs, device="cpu")
    return fn.resize(images, resize_x=WIDTH, resize_y=32), labels
"""


def test_a_script_runs_as_python_runs_it_and_everything_is_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    project = tmp_path / "project"
    project.mkdir()
    (project / "aug_config.py").write_text("WIDTH = 48\n")
    source = write(project, "train.py", ARGPARSE_SCRIPT)
    argv, path = list(sys.argv), list(sys.path)
    target = tmp_path / "graph.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    assert load(target).node("resize").args["resize_x"] == 48  # the sibling module's value
    assert sys.argv == argv and sys.path == path and "aug_config" not in sys.modules
    # SystemExit from the script (argparse refusing, sys.exit) is an import error, not an exit
    exits = write(project, "exits.py", "import sys\n\nsys.exit(3)\n")
    assert main(["import", str(exits), "-o", str(tmp_path / "g.json"), "--run-file"]) == 2
    error = capsys.readouterr().err
    assert f"{exits}: running it failed at line 3: SystemExit: 3" in error
    assert error.count("\n") == 1 and sys.argv == argv and sys.path == path


# DALI's Getting Started: the pipeline built and run at module level on GPU 0.
GPU_AT_MODULE_LEVEL = """
from nvidia.dali import fn, pipeline_def

image_dir = {root!r}


@pipeline_def
def simple_pipeline():
    jpegs, labels = fn.readers.file(file_root=image_dir, seed=9)
    images = fn.decoders.image(jpegs, device="cpu")
    return fn.resize(images, resize_x=40, resize_y=40), labels


pipe = simple_pipeline(batch_size=3, num_threads=2, device_id=0)
pipe.build()
images, labels = pipe.run()
"""


@pytest.mark.skipif(has_gpu(), reason="the file stops only on a machine without a GPU")
def test_a_file_stopped_for_want_of_a_gpu_imports_what_it_had_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write(tmp_path, "getting_started.py", GPU_AT_MODULE_LEVEL)
    target = tmp_path / "graph.json"
    assert main(["import", str(source), "-o", str(target), "--run-file"]) == 0
    graph = load(target)
    assert graph.name == "simple_pipeline" and graph.batch_size == 3
    error = capsys.readouterr().err
    assert f"warning: {source}: the file stopped at line 15 (`pipe.build()`) for want" in error
    assert "what follows line 15 was not run" in error and "device_id=None" in error
    module = load_module(write(tmp_path, "cpu.py", GPU_AT_MODULE_LEVEL.split("pipe =")[0]))
    assert_same_batch(graph, module.simple_pipeline(batch_size=3, num_threads=1, device_id=None))
    # any other failure after a pipeline was made stays an error
    broken = write(tmp_path, "broken.py", GPU_AT_MODULE_LEVEL.replace("pipe.build()", "1 / 0"))
    with pytest.raises(ImportRefused, match="running it failed at line 15: ZeroDivisionError"):
        import_graph(broken, run_file=True)


def notebook(*cells: str) -> str:
    import json

    code = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c} for c in cells]
    markdown = {"cell_type": "markdown", "metadata": {}, "source": "# DALI"}
    return json.dumps({"cells": [markdown, *code], "metadata": {}, "nbformat": 4})


def test_a_dali_notebook_imports_as_its_code_cells_run(tmp_path: Path) -> None:
    body = BUILT.format(root=str(samples_dir()))
    functions, built = body.split("pipe =")
    cells = [
        "%matplotlib inline\n!pip install nvidia-dali\nfiles = !ls",
        "%%bash\necho not python",
        functions,
        "%%time\npipe =" + built,
    ]
    source = tmp_path / "getting_started.ipynb"
    source.write_text(notebook(*cells))
    with pytest.raises(ImportWouldRun, match="--run-file"):
        import_graph(source)
    graph = import_graph(source, run_file=True)
    assert graph.name == "rotated_pipeline" and graph.batch_size == 3
    module = load_module(write(tmp_path, "built.py", BUILT))
    pipe = module.rotated_pipeline(batch_size=3, num_threads=1, device_id=default_device_id())
    assert_same_batch(graph, pipe)
    # an error names the notebook's cell
    source.write_text(notebook(functions, "x = 1\ny = 1 / 0"))
    with pytest.raises(ImportRefused, match=r"line \d+ \(code cell 2, line 2\): ZeroDivision"):
        import_graph(source, run_file=True)


RELATIVE_PATHS = """
from nvidia.dali import fn, pipeline_def


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=4)
def relative_pipeline():
    jpegs, labels = fn.readers.file(file_root="images", seed=3)
    return fn.decoders.image(jpegs, device="cpu"), labels
"""


def test_relative_reader_paths_are_stored_as_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from augexplorer.export import generate

    ran_in = tmp_path / "work"
    (ran_in / "lists").mkdir(parents=True)
    (ran_in / "images").symlink_to(samples_dir())
    first = sorted(samples_dir().rglob("*.jpg"))[0].relative_to(samples_dir())
    (ran_in / "lists" / "train.txt").write_text(f"{first} 0\n")
    source = write(tmp_path, "relative.py", RELATIVE_PATHS)
    listing = RELATIVE_PATHS.replace('"images",', '"images", file_list="lists/train.txt",')
    listed_source = write(tmp_path, "listed.py", listing)
    monkeypatch.chdir(ran_in)  # where the files run, and DALI reads their paths from
    graph = import_graph(source, run_file=True)
    assert graph.sources()[0].kind == "folder"
    assert graph.sources()[0].path == str(ran_in / "images")  # not resolved past the link
    listed = import_graph(listed_source, run_file=True).sources()[0]
    assert listed.path == str(ran_in / "lists" / "train.txt")
    assert listed.file_root == str(ran_in / "images")
    monkeypatch.chdir(tmp_path)  # elsewhere, the graph reads the same files
    assert len(session_batch(graph)[0]) == 2
    assert f"DATA = {str(ran_in / 'images')!r}" in generate(graph).replace('"', "'")
    # an absolute path is kept as written
    absolute = write(tmp_path, "absolute.py", RELATIVE_PATHS.replace('"images"', "{root!r}"))
    assert import_graph(absolute, run_file=True).sources()[0].path == str(samples_dir())


def test_a_projects_own_installed_packages_stay_imported(tmp_path: Path) -> None:
    """A script's folder holding its virtual environment (uv's and poetry's .venv): what the
    script imported from there stays imported, where every module under the folder was
    forgotten (DALI itself then failed to import again)."""
    import sys

    project = tmp_path / "project"
    packages = project / ".venv" / "lib" / "site-packages"
    packages.mkdir(parents=True)
    (packages / "installed_helper.py").write_text("VALUE = 3\n")
    (project / "local_helper.py").write_text("VALUE = 4\n")
    script = write(project, "train.py", "import installed_helper\nimport local_helper\n")
    sys.path.append(str(packages))
    try:
        from augexplorer.export.script_run import code_of, run_code

        run_code(code_of(script, script.read_text()))
        assert "installed_helper" in sys.modules and "local_helper" not in sys.modules
    finally:
        sys.path.remove(str(packages))
        sys.modules.pop("installed_helper", None)


def test_notebook_lines_inside_brackets_or_strings_are_python() -> None:
    """``% name)`` continuing a bracket and ``!`` inside a triple-quoted string were blanked
    as IPython lines."""
    import json

    from augexplorer.export.script_run import notebook_code

    cell = (
        '%matplotlib inline\nmsg = ("a %s"\n       % "b")\ndoc = """\n!not shell\n"""\n'
        "!pip install x\nfiles = !ls\n"
    )
    code = notebook_code(
        Path("n.ipynb"), json.dumps({"cells": [{"cell_type": "code", "source": cell}]})
    )
    lines = code.text.splitlines()
    assert lines[0] == "" and lines[2] == '       % "b")' and lines[4] == "!not shell"
    assert lines[6] == lines[7] == ""
    namespace: dict[str, object] = {}
    exec(compile(code.text, "n.ipynb", "exec"), namespace)  # the test's own cell
    assert namespace["msg"] == "a b" and namespace["doc"] == "\n!not shell\n"
