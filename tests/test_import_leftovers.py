"""What importing DALI code from the wild still got wrong: warp_perspective's one-value size and
matrix (DALI repeats a one-value constant, and refuses it per sample), a reader whose data is not
on this machine (said at import), the batch size written in the call that stopped a file for
want of a GPU, and how old readers and a stopped statement are named. Real DALI, on the CPU."""

from __future__ import annotations

import ast
import textwrap
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def

from augexplorer import Session
from augexplorer.builder import dali_value
from augexplorer.catalog import Catalog
from augexplorer.checks.values import check_value
from augexplorer.cli import main
from augexplorer.data import samples_dir
from augexplorer.devices import has_gpu
from augexplorer.errors import GraphInvalid
from augexplorer.export.derived_seeds import DrawsDiffer
from augexplorer.export.importer import import_graph
from augexplorer.export.missing_data import DataMissing
from augexplorer.export.script_run import StoppedForGpu
from augexplorer.export.stopped_call import SHOWN_LENGTH, shown_statement
from augexplorer.spec import GraphSpec, Node, Random, Ref, Source

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")

WARP = "experimental.warp_perspective"
IDENTITY = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
IMAGE = (np.arange(20 * 30 * 3) % 251).astype(np.uint8).reshape(20, 30, 3)


def plain_warp(args: dict[str, Any], catalog: Catalog) -> np.ndarray | None:
    """warp_perspective on IMAGE in a plain DALI pipeline with `args` as constants: its first
    output, or None where DALI fails."""
    info = catalog[WARP]

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def warp() -> Any:
        images = fn.external_source(source=lambda: [IMAGE, IMAGE], batch=True, layout="HWC")
        kwargs = {k: dali_value(info.arg(k), v) for k, v in args.items()}
        return fn.experimental.warp_perspective(images, **kwargs)

    try:
        pipe = warp()
        pipe.build()
        (out,) = pipe.run()
    except RuntimeError:  # DALI's "Critical error in pipeline"
        return None
    return np.array(out.at(0))


# ---- 1. warp_perspective's size and matrix: what DALI takes, and only that -----------------------


@pytest.mark.parametrize(
    "args",
    [
        {"matrix": IDENTITY, "size": [10.0]},  # one value: 10x10
        {"matrix": IDENTITY, "size": 12.0},
        {"matrix": IDENTITY, "size": [10.0, 12.0]},
        {"matrix": [2.0]},  # a 3x3 matrix of 2.0
        {"matrix": [2.0], "size": [8.0]},
        {"matrix": IDENTITY, "size": [10.0, 12.0, 3.0]},  # refused: a channel count
        {"matrix": IDENTITY, "size": []},
        {"matrix": IDENTITY[:6]},  # refused: warp_affine's 2x3
        {"matrix": [*IDENTITY, 0.0]},
    ],
    ids=str,
)
def test_warp_perspective_constants_are_checked_as_dali_takes_them(
    args: dict[str, Any], catalog: Catalog
) -> None:
    info = catalog[WARP]
    refused = {name: check_value(info, info.arg(name), value) for name, value in args.items()}
    ran = plain_warp(args, catalog)
    assert (ran is not None) == (not any(refused.values())), (refused, ran is not None)
    for name, why in refused.items():
        if why:  # the reason says what DALI takes, counted
            expected = "2 values or one" if name == "size" else "9 values or one"
            assert expected in why and f"got {len(args[name])}" in why, why


def test_a_one_value_warp_runs_in_the_explorer_as_in_dali(catalog: Catalog) -> None:
    args = {"matrix": [2.0], "size": [10.0]}
    graph = GraphSpec(
        nodes=(
            Source("source", kind="arrays"),
            Node("warp", WARP, (Ref("source"),), args),
        ),
        batch_size=2,
    )
    result = Session(graph, data=np.stack([IMAGE, IMAGE]), device_id=None).run()
    got = result.arrays(Ref("warp"))[0]
    want = plain_warp(args, catalog)
    assert want is not None and got.shape == (10, 10, 3)
    np.testing.assert_array_equal(got, want)


def test_a_one_value_draw_of_the_size_is_refused_as_dali_refuses_it(catalog: Catalog) -> None:
    # DALI fails a 1-element size per sample ("Expected uniform shape for argument size")
    draw = Random("uniform", low=10.0, high=20.0, shape=1, seed=3)
    graph = GraphSpec(
        nodes=(
            Source("source", kind="arrays"),
            Node("warp", WARP, (Ref("source"),), {"matrix": IDENTITY, "size": draw}),
        ),
        batch_size=2,
    )
    with pytest.raises(GraphInvalid) as invalid:
        Session(graph, data=np.stack([IMAGE, IMAGE]), device_id=None).run()
    (problem,) = invalid.value.problems
    assert problem.argument == "size" and "one value only as a constant" in problem.message
    assert problem.fix == "set shape to 2"


WARP_FILE = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def warped():
    jpegs, labels = fn.readers.file(file_root={root!r}, random_shuffle=False)
    images = fn.decoders.image(jpegs, output_type=types.RGB)
    images = fn.experimental.warp_perspective(images, matrix=[1.0, 0.1, 2.0, 0.0, 1.0, 3.0,
                                              0.0, 0.0, 1.0], size=[32], border_mode="reflect")
    return images, labels


pipe = warped()
"""


def test_an_imported_one_value_size_runs_to_the_files_pixels(tmp_path: Path) -> None:
    path = tmp_path / "warped.py"
    path.write_text(WARP_FILE.format(root=str(samples_dir())))
    graph = import_graph(path, run_file=True)
    (warp,) = [n for n in graph.operators() if n.op == WARP]
    assert warp.args["size"] == [32.0]
    result = Session(graph, device_id=None).run()
    images = result.arrays(next(iter(result.plan.outputs.values())))
    from runpy import run_path

    pipe = run_path(str(path))["pipe"]
    pipe.build()
    want = pipe.run()[0]
    for index, got in enumerate(images):
        assert got.shape == (32, 32, 3)
        np.testing.assert_array_equal(got, np.array(want.at(index)))


# ---- 2. a reader whose data is not on this machine -----------------------------------------------

READER_FILE = """
from nvidia.dali import fn, pipeline_def, types


@pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=5)
def train(data):
    jpegs, labels = fn.readers.file({reader}, name="Reader")
    return fn.decoders.image(jpegs, output_type=types.RGB), labels


pipe = train(None)
"""


def imported(path: Path) -> tuple[GraphSpec, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True)
    return graph, [str(w.message) for w in caught if issubclass(w.category, DataMissing)]


@pytest.mark.parametrize("argument", ["file_root", "file_list"])
def test_a_reader_of_data_not_here_is_imported_and_said_at_once(
    tmp_path: Path, argument: str
) -> None:
    missing = tmp_path / "elsewhere" / ("train" if argument == "file_root" else "train.txt")
    path = tmp_path / "train.py"
    path.write_text(READER_FILE.format(reader=f"{argument}={str(missing)!r}"))
    graph, said = imported(path)
    (source,) = graph.sources()
    assert source.path == str(missing)  # kept as written: the graph may be for that machine
    assert said == [
        f"source 'Reader' (fn.readers.file) reads its {argument}, {missing}, which does not "
        "exist on this machine: the graph is imported as written, and runs only where that "
        "path is found (fix: give this machine's data with --data PATH when you render, "
        "profile, take stats of or export the graph, or edit the path in the graph, in the "
        "panel or in the code)"
    ]


def test_data_that_is_here_is_not_said(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(READER_FILE.format(reader=f"file_root={str(samples_dir())!r}"))
    _graph, said = imported(path)
    assert said == []


def test_the_command_line_warns_and_writes_the_graph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "imagenet" / "train"
    path = tmp_path / "train.py"
    path.write_text(READER_FILE.format(reader=f"file_root={str(missing)!r}"))
    target = tmp_path / "graph.json"
    assert main(["import", str(path), "--run-file", "-o", str(target)]) == 0
    err = capsys.readouterr().err
    assert f"warning: source 'Reader' (fn.readers.file) reads its file_root, {missing}" in err
    assert target.is_file()


# ---- 3. the batch size written in the call that stopped the file ---------------------------------

# DALI's PyTorch plugin may be missing here: the iterator is a function of the file's own that
# builds the pipeline, as DALIGenericIterator does
STOPPED_IN_CALL = """
from nvidia.dali import fn, pipeline_def, types


def DALIGenericIterator(pipelines, output_map, reader_name):
    for pipe in pipelines:
        pipe.build()


@pipeline_def(num_threads=4, device_id=0)
def get_dali_pipeline(images_dir):
    images, labels = fn.readers.file(file_root=images_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(images, device="mixed", output_type=types.RGB)
    images = fn.resize(images, resize_x=64, resize_y=64)
    return images, labels


train_data = DALIGenericIterator(
    [get_dali_pipeline(images_dir={root!r}, batch_size=16)],
    ["data", "label"],
    reader_name="Reader",
)
"""

no_gpu = pytest.mark.skipif(has_gpu(), reason="the file runs through where there is a GPU")


def stopped_import(path: Path, **params: Any) -> tuple[GraphSpec, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True, params=params or None)
    return graph, list(caught)


@no_gpu
def test_the_batch_size_written_in_the_stopping_call_is_read(tmp_path: Path) -> None:
    path = tmp_path / "loader.py"
    path.write_text(STOPPED_IN_CALL.format(root=str(samples_dir())))
    graph, caught = stopped_import(path)
    assert graph.batch_size == 16
    assert not any("import chose" in str(w.message) for w in caught if w.category is DrawsDiffer)
    (stopped,) = [str(w.message) for w in caught if w.category is StoppedForGpu]
    assert (
        f"'get_dali_pipeline', made where the file stopped, is built with the values written there "
        f"(images_dir={str(samples_dir())!r}, batch_size=16; --param NAME=VALUE gives another)"
    ) in stopped
    # the statement quoted whole where it fits, never its first line's open bracket alone
    assert "(`train_data = DALIGenericIterator([get_dali_pipeline(images_dir=" in stopped
    assert "DALIGenericIterator()" not in stopped
    # what follows the top-level statement did not run; the line that failed is said beside it
    line = STOPPED_IN_CALL.splitlines().index("train_data = DALIGenericIterator(") + 1
    assert f"stopped at line {line} (`" in stopped and f"what follows line {line} " in stopped
    assert "), in what it calls, at line 7 (`pipe.build()`) for want of a GPU" in stopped


@no_gpu
def test_a_param_still_wins_over_the_call(tmp_path: Path) -> None:
    path = tmp_path / "loader.py"
    path.write_text(STOPPED_IN_CALL.format(root=str(samples_dir())))
    graph, _caught = stopped_import(path, batch_size=4)
    assert graph.batch_size == 4


@no_gpu
def test_a_batch_size_the_call_computes_is_still_chosen_and_said(tmp_path: Path) -> None:
    path = tmp_path / "loader.py"
    text = STOPPED_IN_CALL.format(root=str(samples_dir()))
    path.write_text(text.replace("batch_size=16", "batch_size=len('x') * 16"))
    graph, caught = stopped_import(path)
    assert graph.batch_size == 8
    assert any("--param batch_size=N" in str(w.message) for w in caught)


# ---- 4. how a stopped statement and an old reader are named --------------------------------------


def test_a_stopped_statement_is_shown_on_one_line_and_cut_at_a_word() -> None:
    text = textwrap.dedent(
        """
        loader = make(
            [pipe(root="images", batch_size=16)],
            ["data", "label"],
        )
        train_data = DALIGenericIterator(
            [get_dali_pipeline(images_dir=images_dir, batch_size=16, num_threads=4, seed=12)],
            ["data", "label"],
            reader_name="Reader",
        )
        """
    )
    tree = ast.parse(text)
    assert shown_statement(text, tree, 2) == (
        'loader = make([pipe(root="images", batch_size=16)], ["data", "label"])'
    )
    long = shown_statement(text, tree, 6)
    assert long.endswith(" …") and len(long) <= SHOWN_LENGTH + 2
    assert long.startswith("train_data = DALIGenericIterator([get_dali_pipeline(images_dir=")
    whole = (
        "train_data = DALIGenericIterator([get_dali_pipeline(images_dir=images_dir, "
        'batch_size=16, num_threads=4, seed=12)], ["data", "label"], reader_name="Reader")'
    )
    cut = long.removesuffix(" …")
    assert whole.startswith(cut) and whole[len(cut)] == " "  # at a word


def test_a_long_path_is_cut_at_a_word_of_it() -> None:
    text = (
        "pipe = get_pipeline(file_root='/data/imagenet/ILSVRC2012/train_set_with_a_long_name/x')\n"
    )
    shown = shown_statement(text, ast.parse(text), 1)
    # not "pipe = …": no space comes late enough, so the path is cut at one of its words
    assert shown == "pipe = get_pipeline(file_root='/data/imagenet/ILSVRC2012/ …"


def test_the_catalog_listing_says_one_value_is_for_a_constant(catalog: Catalog) -> None:
    from augexplorer.commands.catalog import describe

    listing = describe(catalog[WARP])
    size = next(line for line in listing.splitlines() if line.strip().startswith("size "))
    assert size.endswith("per-sample; 2 values (or one constant value, repeated)")
