"""A sixth set of DALI code from the wild imports (tests/pipelines_wild_4.py): three outputs, casts
of comparisons and coins, stacked views, label reshapes and one-hot codes, not_smaller resizes
into padded normalization, zoom-out with boxes, colour draws seeded operator by operator, a
multi-crop, DALI's operator-objects tutorial. Each file's pipeline runs, in a Session and from its
exported module, to the arrays the file's own pipeline gives (two batches), and the module reads
back as the same graph. A comparison fed to an integer argument as it is, which DALI refuses when
it runs, is refused when the graph is checked, with the cast to write; a pipeline made only under
``if __name__ == "__main__":`` is built with what its call there writes (its seed above all); a
file that argparse stops for want of its required arguments says so, with the fix."""

from __future__ import annotations

import ast
import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types
from pipelines_wild_4 import (
    COMPARISON_FLIP,
    MAIN_LITERAL,
    MAIN_ONLY,
    ROUND_TRIPS,
    TOP_LEVEL_ARGPARSE,
)
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_same,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
    run_up_to,
)

from augexplorer import Session
from augexplorer.data import samples_dir
from augexplorer.errors import GraphInvalid
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.export.unrun_call import ReadFromCall, unrun_call
from augexplorer.spec import GraphSpec, Node, Ref, Source
from augexplorer.validate import validate

# the old names of some of these files are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")

ANNOTATIONS = samples_dir().parent / "annotations.json"


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir()), annotations=str(ANNOTATIONS)))
    return path


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    """What the file's pipeline gives, made by the file's code up to where it builds it."""
    return first_batches(run_up_to(path, "pipe.build()")["pipe"])


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild4")
    return round_trips(folder, ROUND_TRIPS, write, original_batches, record_warnings=True)


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_session_runs_the_files_batches(wild: dict[str, Any], name: str) -> None:
    assert_session_gives_the_files_batches(wild[name], name)


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_exported_module_runs_the_files_batches(wild: dict[str, Any], name: str) -> None:
    assert_module_gives_the_files_batches(wild[name], wild["exported"][name], name)


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_exported_module_reads_back_as_the_same_graph(wild: dict[str, Any], name: str) -> None:
    _original, graph, back, _caught = wild[name]
    assert back == graph


def test_every_output_the_code_returns_is_an_output_of_the_graph(wild: dict[str, Any]) -> None:
    # an image, its label and the drawn angle; six crops and the labels
    assert len(wild["three_outputs"].graph.outputs) == 3
    assert len(wild["multi_crop"].graph.outputs) == 7
    assert len(wild["ops_tutorial"].graph.outputs) == 3


# ---- a comparison fed to an argument that takes whole numbers ------------------------------------


def test_a_comparison_fed_to_a_flip_is_refused_with_the_cast_to_write(tmp_path: Path) -> None:
    graph = import_graph(write(tmp_path, "comparison_flip", COMPARISON_FLIP), run_file=True)
    with pytest.raises(GraphInvalid) as refused:
        validate(graph)
    (problem,) = refused.value.problems
    assert (problem.node, problem.argument) == ("flip", "horizontal")
    assert "gives BOOL values (a comparison), and horizontal takes whole numbers" in (
        problem.message
    )
    assert problem.fix is not None and "fn.cast(compare, dtype=types.INT32)" in problem.fix
    # DALI itself refuses the file's pipeline on its first batch
    with pytest.raises(RuntimeError, match="Expected int32 and got bool"):
        original_batches(tmp_path / "comparison_flip.py")


def fed(feeder: Node, extra: tuple[Node, ...] = ()) -> GraphSpec:
    nodes: tuple[Source | Node, ...] = (
        Source("source"),
        Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
        *extra,
        feeder,
        Node("flip", "flip", (Ref("decode"),), {"horizontal": Ref(feeder.id)}),
    )
    return GraphSpec(nodes, {"images": Ref("flip"), "labels": Ref("source", 1)}, batch_size=2)


COIN = Node("coin", "random.coin_flip")
UNIFORM = Node("u", "random.uniform", args={"range": [0.0, 1.0]})
FEEDS = {
    "a comparison": (
        Node("cmp", "expression", (Ref("u"),), {"expression": "u > 0.5"}),
        (UNIFORM,),
        "BOOL",
    ),
    "comparisons joined": (
        Node("both", "expression", (Ref("u"),), {"expression": "(u > 0.2) & ~(u > 0.7)"}),
        (UNIFORM,),
        "BOOL",
    ),
    "a cast to float": (
        Node("cast", "cast", (Ref("coin"),), {"dtype": "FLOAT"}),
        (COIN,),
        "FLOAT",
    ),
}


@pytest.mark.parametrize("case", FEEDS, ids=list(FEEDS))
def test_what_a_cast_or_a_comparison_gives_is_checked_against_the_argument(case: str) -> None:
    feeder, extra, given = FEEDS[case]
    with pytest.raises(GraphInvalid) as refused:
        validate(fed(feeder, extra))
    (problem,) = refused.value.problems
    assert (problem.node, problem.argument) == ("flip", "horizontal")
    assert f"{feeder.id!r} gives {given} values" in problem.message


@pipeline_def(batch_size=2, num_threads=1, device_id=None)
def _dali_fed(case: str):  # type: ignore[no-untyped-def]
    images = fn.external_source(
        source=lambda: [np.zeros((8, 8, 3), np.uint8)] * 2, batch=True, layout="HWC"
    )
    u = fn.random.uniform(range=[0.0, 1.0])
    if case == "a comparison":
        flip = u > 0.5
    elif case == "comparisons joined":
        flip = (u > 0.2) & ~(u > 0.7)
    else:
        flip = fn.cast(fn.random.coin_flip(), dtype=types.FLOAT)
    return fn.flip(images, horizontal=flip)


@pytest.mark.parametrize("case", FEEDS, ids=list(FEEDS))
def test_dali_itself_refuses_each_refused_feed(case: str) -> None:
    pipe = _dali_fed(case)
    pipe.build()
    with pytest.raises(RuntimeError, match="Unexpected type of argument"):
        pipe.run()


def test_a_cast_to_the_arguments_own_type_passes_and_runs() -> None:
    cast = Node("cast", "cast", (Ref("cmp"),), {"dtype": "INT32"})
    compare = Node("cmp", "expression", (Ref("u"),), {"expression": "u > 0.5"})
    Session(fed(cast, (UNIFORM, compare)), device_id=None).run()


# ---- a pipeline made only under `if __name__ == "__main__":` -------------------------------------


def test_a_pipeline_made_only_under_main_is_built_with_what_its_call_writes(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "main_only", MAIN_ONLY)
    # the command line's values cannot be read without running it: named, with their fix
    with pytest.warns(ReadFromCall), pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert "needs a value for its parameters 'data_dir', 'crop'" in said
    assert "(num_threads=1, seed=9;" in said
    assert "(data_dir=args.data, crop=args.crop, batch_size=args.batch_size)" in said
    params = {"data_dir": str(samples_dir()), "crop": 32, "batch_size": 3}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = import_graph(path, run_file=True, params=params)
    notes = [str(w.message) for w in caught if issubclass(w.category, ReadFromCall)]
    assert len(notes) == 1 and "'train_pipe' is made at line 26" in notes[0]
    # the seed the call writes: the graph draws what the script's pipeline draws
    namespace = runpy.run_path(str(path))
    pipe = namespace["train_pipe"](**params, num_threads=1, device_id=None, seed=9)
    want = first_batches(pipe)
    session = Session(graph, device_id=None)
    result = session.run()
    for index, ref in enumerate(result.plan.outputs.values()):
        assert_same(result.arrays(ref), want[0][index], f"output {index}")


def test_literals_and_constants_of_the_call_under_main_are_read(tmp_path: Path) -> None:
    path = write(tmp_path, "main_literal", MAIN_LITERAL)
    with pytest.warns(ReadFromCall, match=r"batch_size=4, num_threads=2, seed=42, data_dir="):
        graph = import_graph(path, run_file=True)
    assert graph.batch_size == 4
    namespace = runpy.run_path(str(path))
    pipe = namespace["train_pipe"](
        namespace["DATA"], 32, batch_size=4, num_threads=2, device_id=None, seed=42
    )
    want = first_batches(pipe)
    result = Session(graph, device_id=None).run()
    for index, ref in enumerate(result.plan.outputs.values()):
        assert_same(result.arrays(ref), want[0][index], f"output {index}")


def test_required_arguments_at_the_top_level_are_named_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "top_level_argparse", TOP_LEVEL_ARGPARSE)
    with pytest.raises(ImportRefused) as refused:
        import_graph(path, run_file=True)
    said = str(refused.value)
    assert "running it failed at line 10: SystemExit: 2, argparse: the following arguments " in said
    assert "are required: data, --batch-size" in said
    assert "give those arguments defaults (default=...)" in said
    assert "usage:" in capsys.readouterr().err  # argparse's own words, as python prints them


MAIN_CALLS = {
    "in main()": "def main():\n    pipe = train_pipe(seed=1)\n",
    "in the else of the test": 'if __name__ == "__main__":\n    pass\nelse:\n    p = train_pipe(seed=1)\n',
    "two calls": 'if __name__ == "__main__":\n    a = train_pipe(seed=1)\n    b = train_pipe(seed=2)\n',
}


@pytest.mark.parametrize("case", MAIN_CALLS, ids=list(MAIN_CALLS))
def test_only_the_one_call_under_main_is_read(case: str) -> None:
    def train_pipe(seed: int) -> None: ...

    assert unrun_call(ast.parse(MAIN_CALLS[case]), "train_pipe", train_pipe, {}) is None
    under_main = '"__main__" == __name__'
    read = unrun_call(
        ast.parse(f"if {under_main}:\n    pipe = train_pipe(seed=1)\n"),
        "train_pipe",
        train_pipe,
        {},
    )
    assert read is not None and read.values == {"seed": 1} and read.line == 2
