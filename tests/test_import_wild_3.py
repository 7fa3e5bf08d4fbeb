"""A fifth set of DALI code from the wild imports (tests/pipelines_wild_3.py): conditionals,
the decoders' random crops and slices, warps fed by composed transforms, noise and occlusion,
file lists, an iterator's pipeline, ops under odd names, labels squeezed and one-hot encoded.
Each file's pipeline runs, in a Session and from its exported module, to the arrays the file's
own pipeline gives (two batches), and the module reads back as the same graph. A random crop
window DALI refuses when it builds (none or three values for random_area or
random_aspect_ratio, a reversed range) is refused at the edge, naming the node, the argument
and the fix; an error raised inside a conditional branch names its own line; external sources
and the numpy reader are refused as the code wrote them."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pipelines_wild_3 import (
    CONDITIONAL_TYPO,
    EXTERNAL_CALLABLE,
    EXTERNAL_ITERATOR,
    IF_WITHOUT_CONDITIONALS,
    NUMPY_READER,
    RANDOM_AREA_THREE_VALUES,
    RANDOM_WINDOW_OPS,
    REVERSED_UNIFORM,
    ROUND_TRIPS,
)
from wild_round_trips import (
    assert_module_gives_the_files_batches,
    assert_session_gives_the_files_batches,
    first_batches,
    round_trips,
    run_up_to,
)

from augexplorer import Session
from augexplorer.catalog import Catalog, load_catalog
from augexplorer.catalog.limits import PAIR_HIGH_LIMITS, RANGE_PAIRS
from augexplorer.checks.values import check_value, value_fix
from augexplorer.data import samples_dir
from augexplorer.engine.runners import fed_args
from augexplorer.errors import GraphInvalid
from augexplorer.export.importer import import_graph
from augexplorer.export.serialized import ImportRefused
from augexplorer.spec import Node
from augexplorer.validate import validate

# the old names are what these files are about: DALI's warnings of them are expected here
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:nvidia.dali.*")


def write(folder: Path, name: str, template: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(template.format(root=str(samples_dir())))
    return path


def original_pipe(path: Path) -> Any:
    """A fresh pipeline, made by the file's code up to where it builds it (after which an
    iterator or a loop runs it ahead)."""
    return run_up_to(path, "pipe.build()")["pipe"]


def original_batches(path: Path) -> list[list[list[np.ndarray]]]:
    """What the file's pipeline gives, batch by batch, output by output."""
    pipe = original_pipe(path)
    return first_batches(pipe)


@pytest.fixture(scope="module")
def wild(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Each file's round trip (tests/wild_round_trips.py)."""
    folder = tmp_path_factory.mktemp("wild3")
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


# ---- what the graphs hold ------------------------------------------------------------------------


def test_conditionals_come_in_as_conditions_on_their_nodes(wild: dict[str, Any]) -> None:
    _original, graph, _back, _caught = wild["conditionals"]
    # `if fn.random.coin_flip(probability=0.5):` is the node's probability; an if/else on one
    # coin, the two sides' conditions
    rotate = graph.node("rotate")
    assert isinstance(rotate, Node) and rotate.probability is not None
    assert rotate.probability.p == 0.5 and not rotate.when
    twist, hsv = graph.node("color_twist"), graph.node("hsv")
    assert isinstance(twist, Node) and isinstance(hsv, Node)
    assert [c.holds for c in twist.when] == [True] and [c.holds for c in hsv.when] == [False]
    assert twist.when[0].ref == hsv.when[0].ref
    conditioned = {n.op for n in graph.operators() if n.when or n.probability}
    assert conditioned == {"rotate", "color_twist", "hsv"}
    normalize = graph.node("crop_mirror_normalize")
    assert isinstance(normalize, Node) and normalize.args["dtype"] == "FLOAT16"


def test_the_decoders_own_random_crop_is_one_node(wild: dict[str, Any]) -> None:
    for name in ("ops_decoder_random_crop", "generic_iterator", "ops_odd_names"):
        _original, graph, _back, _caught = wild[name]
        assert graph.operators()[0].op == "decoders.image_random_crop", name
    _original, graph, _back, _caught = wild["ops_decoder_random_crop"]
    crop = graph.operators()[0]
    assert crop.args["random_area"] == [0.05, 1.0]
    assert crop.args["random_aspect_ratio"] == [0.75, 1.33]


def test_squeezed_labels_run_with_their_axes_as_written(wild: dict[str, Any]) -> None:
    # DALI does not see a squeeze's axes fed per sample ("Missing argument axes or axis_names"):
    # the session passes them as the constant the code wrote, as the exported module does
    _original, graph, _back, _caught = wild["squeezed_labels"]
    squeeze = graph.node("squeeze")
    assert isinstance(squeeze, Node) and squeeze.args == {"axes": [0]}
    session = Session(graph, device_id=None)
    assert "axes" not in fed_args(session.plan.step("squeeze"))
    labels = session.run().arrays(graph.outputs[list(graph.outputs)[-1]])
    assert [label.shape for label in labels] == [(5,)] * 3


# ---- a random crop window DALI refuses when it builds ----------------------------------------


@pytest.mark.parametrize(
    ("template", "refused"),
    [
        (RANDOM_AREA_THREE_VALUES, 'Argument "random_area" expects either a single value'),
        (RANDOM_WINDOW_OPS, "expects either a single value or a list of 2 elements"),
    ],
)
def test_dali_refuses_these_windows_when_it_builds(
    tmp_path: Path, template: str, refused: str
) -> None:
    pipe = original_pipe(write(tmp_path, "window", template))
    with pytest.raises(RuntimeError, match=refused):
        pipe.build()


def test_dali_refuses_a_reversed_range() -> None:
    from nvidia.dali import fn, pipeline_def

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)
    def reversed_range() -> Any:
        jpegs, _labels = fn.readers.file(file_root=str(samples_dir()))
        images = fn.decoders.image(jpegs)
        return fn.random_resized_crop(images, size=[16, 16], random_aspect_ratio=[1.33, 0.75])

    pipe = reversed_range()
    with pytest.raises(RuntimeError, match="Provided empty range"):
        pipe.build()
        pipe.run()


AREA_FIX = "use one value in [0, 1], or a low end in that range and a high end in [0, 100]"
RATIO_FIX = "use one value, or two: the [low, high] range to draw from, low first"


def imported(tmp_path: Path, template: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return import_graph(write(tmp_path, "window", template), run_file=True)


def test_three_values_for_random_area_are_refused_at_the_edge(tmp_path: Path) -> None:
    graph = imported(tmp_path, RANDOM_AREA_THREE_VALUES)
    with pytest.raises(GraphInvalid) as invalid:
        validate(graph)
    problems = [(p.node, p.argument, p.message, p.fix) for p in invalid.value.problems]
    assert problems == [
        ("random_resized_crop", "random_area", "takes 1 or 2 values, got 3", AREA_FIX)
    ]
    with pytest.raises(GraphInvalid):  # before DALI builds anything
        Session(graph, device_id=None).run()


def test_an_ops_decoders_empty_area_and_three_ratios_are_refused_at_the_edge(
    tmp_path: Path,
) -> None:
    graph = imported(tmp_path, RANDOM_WINDOW_OPS)
    with pytest.raises(GraphInvalid) as invalid:
        validate(graph)
    problems = [(p.node, p.argument, p.message, p.fix) for p in invalid.value.problems]
    assert problems == [
        ("image_random_crop", "random_area", "takes 1 or 2 values, got 0", AREA_FIX),
        ("image_random_crop", "random_aspect_ratio", "takes 1 or 2 values, got 3", RATIO_FIX),
    ]


def test_a_draw_from_a_reversed_range_is_refused_at_the_edge(tmp_path: Path) -> None:
    pipe = original_pipe(write(tmp_path, "window", REVERSED_UNIFORM))
    pipe.build()
    with pytest.raises(RuntimeError, match=r"Invalid range \[30, -30\)"):
        pipe.run()
    graph = imported(tmp_path, REVERSED_UNIFORM)
    with pytest.raises(GraphInvalid) as invalid:
        validate(graph)
    problems = [(p.node, p.argument, p.message, p.fix) for p in invalid.value.problems]
    assert problems == [
        (
            "uniform",
            "range",
            "the range [30, -30] is empty: its low end is above its high end (write [-30, 30])",
            "give two values: the [low, high) range to draw from, high above low",
        )
    ]


def test_a_uniform_draws_range_takes_two_values_high_above_low() -> None:
    # measured on DALI 2.4: [1.0], [5.0, 5.0] fail when the pipeline runs ("Invalid range"),
    # none or three values too ("expected shape 2")
    info = load_catalog()["random.uniform"]
    arg = info.arg("range")
    assert arg is not None
    assert check_value(info, arg, [-30.0, 30.0]) is None
    assert check_value(info, arg, [28, 36]) is None
    assert check_value(info, arg, [1.0]) == "takes 2 values, got 1"
    assert check_value(info, arg, [1.0, 2.0, 3.0]) == "takes 2 values, got 3"
    empty = "is empty: DALI draws from [low, high), high above low"
    assert check_value(info, arg, [5.0, 5.0]) == f"the range [5, 5] {empty}"
    # equal once DALI holds them in float32
    assert check_value(info, arg, [1.0, 1.00000001]) == f"the range [1, 1.00000001] {empty}"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(("op", "name"), sorted(RANGE_PAIRS))
def test_a_random_window_range_takes_one_value_or_an_ordered_pair(
    catalog: Catalog, op: str, name: str
) -> None:
    info = catalog[op]
    arg = info.arg(name)
    assert arg is not None
    for taken in ([0.5], [0.08, 1.0], [0.75, 0.75]):
        assert check_value(info, arg, taken) is None, taken
    assert check_value(info, arg, []) == "takes 1 or 2 values, got 0"
    assert check_value(info, arg, [0.2, 0.5, 1.0]) == "takes 1 or 2 values, got 3"
    assert check_value(info, arg, [1.0, 0.08]) == (
        "the range [1, 0.08] is empty: its low end is above its high end (write [0.08, 1])"
    )
    # random_area's ends have their own ranges (tests/test_import_wild_2.py)
    assert value_fix(info, arg) == (AREA_FIX if (op, name) in PAIR_HIGH_LIMITS else RATIO_FIX)


# ---- a file that fails while it makes its pipeline ------------------------------------------


def refusal(tmp_path: Path, template: str) -> tuple[Path, str]:
    path = write(tmp_path, "failing", template)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ImportRefused) as refused:
            import_graph(path, run_file=True)
    return path, str(refused.value)


def line_of(path: Path, code: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if code in text)


def test_an_error_in_a_conditional_branch_names_its_own_line(tmp_path: Path) -> None:
    # DALI's conditionals wrap it as "in user code:", which named nothing: the line that made
    # the pipeline was blamed, and the error itself left out
    path, message = refusal(tmp_path, CONDITIONAL_TYPO)
    line = line_of(path, "angel=10.0")
    assert message.startswith(
        f"{path}: running it failed at line {line} "
        "(`images = fn.rotate(images, angel=10.0)`): KeyError: "
        """'Argument "angel" is not defined for operator "Rotate".'"""
    ), message
    assert "in user code" not in message


def test_an_if_on_data_without_conditionals_says_how_to_turn_them_on(tmp_path: Path) -> None:
    path, message = refusal(tmp_path, IF_WITHOUT_CONDITIONALS)
    line = line_of(path, "if fn.random.coin_flip():")
    assert message.startswith(f"{path}: running it failed at line {line}: TypeError: "), message
    assert message.endswith(
        "(fix: an `if` on data needs DALI's conditionals: write @pipeline_def("
        "enable_conditionals=True) on the pipeline's function, then import it again)"
    ), message


# ---- what cannot come in ------------------------------------------------------------------------

SOURCE_FIX = (
    "fix: read the images with fn.readers.file from a folder (file_root=) or a file list "
    "(file_list=), or open in-memory arrays in the explorer (Session(..., data=arrays))"
)

# each template, what its refusal names, the code of the line it points at, and its fix
REFUSED = {
    "external_callable": (
        EXTERNAL_CALLABLE,
        "fn.external_source (data fed from Python: a source= callback or iterator, or feed_input)",
        "jpegs, labels = fn.external_source(source=ExternalInputCallable(3)",
        "ext_pipe",
        SOURCE_FIX,
    ),
    "external_iterator": (
        EXTERNAL_ITERATOR,
        "fn.external_source (data fed from Python: a source= callback or iterator, or feed_input)",
        "jpegs, labels = fn.external_source(source=ExternalInputIterator(3)",
        "ext_pipe",
        SOURCE_FIX,
    ),
    "numpy_reader": (
        NUMPY_READER,
        "fn.readers.numpy (a reader of a format the explorer does not read",
        "data = fn.readers.numpy(",
        "np_pipe",
        "fix: write the images out as files in class folders or a file list, read them with "
        "fn.readers.file, and import that",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_what_cannot_come_in_is_named_as_the_code_wrote_it(tmp_path: Path, case: str) -> None:
    template, named, code, function, fix = REFUSED[case]
    path, message = refusal(tmp_path, template)
    assert message.startswith(f"{path}: {named}"), message
    assert f"at line {line_of(path, code)} of {path} in {function}()" in message, message
    assert fix in message, message
