"""Inputs a hidden probe found raising raw Python errors: integers no DALI argument holds, text
that is not Unicode, an autosave holding a 5,000-digit integer. Each now gives one clear line
naming the value and the fix; nothing is lost, and the panel opens."""

from __future__ import annotations

import dataclasses
import html
import json
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets import Explorer
from augexplorer_widgets.autosave import Autosave
from augexplorer_widgets.failure import Failure

from augexplorer import Session
from augexplorer.catalog import Catalog
from augexplorer.engine.dali_errors import explain_run_error
from augexplorer.errors import (
    AugExplorerError,
    GraphInvalid,
    Problem,
    RunError,
    SpecFormatError,
)
from augexplorer.export import generate
from augexplorer.export.importer import graph_literal
from augexplorer.presets import preset
from augexplorer.spec import GraphSpec, Node, Random, Ref, Source, dumps, loads, to_json

HUGE = (10**400, -(10**400), 10**5000, [1, 10**400], Random.choice([10**5000, 1]))


@pytest.fixture(scope="module")
def session(catalog: Catalog) -> Session:
    live = Session("basic", batch_size=2, catalog=catalog)
    live.run()
    return live


@pytest.mark.parametrize("value", HUGE, ids=["1e400", "-1e400", "5000 digits", "list", "choice"])
@pytest.mark.parametrize(("node", "arg"), [("rotate", "angle"), ("flip", "horizontal")])
def test_an_integer_no_dali_argument_holds_is_refused_naming_it(
    session: Session, node: str, arg: str, value: object
) -> None:
    before = session.result
    with pytest.raises(GraphInvalid) as raised:
        session.set_arg(node, arg, value)  # type: ignore[arg-type]
    [problem] = raised.value.problems
    assert (problem.node, problem.argument) == (node, arg)
    assert "out of range" in problem.message and "64-bit" in problem.message
    assert len(str(raised.value)) < 400, "the number is described, not written out"
    assert problem.fix and session.result is before
    session.update(session.plan.spec)  # the last good graph: the next case starts from it


def test_a_huge_batch_size_and_probability_are_refused_too(session: Session) -> None:
    edits = (
        lambda: session.set_batch_size(10**400),
        lambda: session.set_probability("flip", 10**5000),
    )
    for edit in edits:
        with pytest.raises(GraphInvalid) as raised:
            edit()
        assert "out of range" in str(raised.value) and len(str(raised.value)) < 400
        session.update(session.plan.spec)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"format": "\ud800"}', "line 1, column 13: the text holds U+D800"),
        ('{"format":\n "\\ud800"}', "line 2, column 3: the escape \\ud800"),
        ('{"format": "\\udc00"}', "the escape \\udc00"),
        (b'{"format": "\xed\xa0\x80"}', "not UTF-8 text (line 1, column 13"),
        (b"\xff\xfe{}", "not UTF-8 text (line 1, column 1"),
    ],
)
def test_text_that_is_not_unicode_is_a_spec_format_error(text: str | bytes, said: str) -> None:
    with pytest.raises(SpecFormatError) as raised:
        loads(text)
    assert said in str(raised.value)


def test_a_spec_starting_with_a_byte_order_mark_loads() -> None:
    text = dumps(preset("basic"))
    assert loads("\ufeff" + text) == loads(text) == loads(("\ufeff" + text).encode())


def _autosave_with_huge_integer(path: Path, where: str) -> None:
    graph = to_json(preset("basic").set_arg("rotate", "fill_value", 99.0))
    text = json.dumps({"saved_at": "2026-11-26T10:00:00", "graph": graph}, indent=1)
    marker = '"fill_value": 99.0' if where == "argument" else '"batch_size": 8'
    assert marker in text
    path.write_text(text.replace(marker, marker.split(":")[0] + ": " + "9" * 5000))


@pytest.mark.parametrize("where", ["argument", "batch_size"])
def test_an_autosave_holding_a_5000_digit_integer_is_kept_aside_and_read(
    tmp_path: Path, where: str
) -> None:
    path = tmp_path / "autosave.json"
    _autosave_with_huge_integer(path, where)
    store = Autosave(path)
    saved = store.load()
    assert store.damage is not None and store.damage.kept_at is not None
    assert store.damage.kept_at.exists() and not path.exists(), "kept aside, never overwritten"
    assert "5,000 digits" in store.damage.reason
    named = "node 'rotate', argument 'fill_value'" if where == "argument" else "'batch_size'"
    assert named in store.damage.reason
    assert saved is not None and "left out" in saved.note
    kept = [n.id for n in saved.spec.nodes]
    assert ("rotate" not in kept) if where == "argument" else (kept[-1] == "flip")


def test_the_panel_opens_over_an_autosave_holding_a_5000_digit_integer(
    tmp_path: Path, catalog: Catalog
) -> None:
    path = tmp_path / "autosave.json"
    _autosave_with_huge_integer(path, "batch_size")
    explorer = Explorer("basic", batch_size=2, autosave=path, catalog=catalog)
    assert explorer.banner.shown
    assert "5,000 digits" in html.unescape(explorer.banner.text.value)
    assert list(tmp_path.glob("autosave.damaged-*")), "the damaged file is kept"


# ---- names, the importer, dump_image -------------------------------------------------------------


def test_an_export_refused_for_a_name_says_nothing_about_gpus() -> None:
    basic = preset("basic")
    nodes = tuple(
        dataclasses.replace(node, id="2nd rotate") if node.id == "rotate" else node
        for node in basic.nodes
    )
    spec = dataclasses.replace(basic, nodes=nodes)
    with pytest.raises(AugExplorerError) as raised:
        generate(spec, formatted=False)
    said = str(raised.value)
    assert "'2nd rotate'" in said and "identifier" in said
    assert "GPU" not in said


def test_an_export_refused_only_on_a_gpu_names_the_nodes_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Problems that come from placing nodes on a GPU (as the exported module does) get a line
    naming those nodes; the graph's own problems do not."""
    from augexplorer.export import codegen

    checked = codegen.validate

    def on_a_gpu_only(spec: GraphSpec, catalog: Catalog | None = None) -> object:
        if catalog is not None and catalog.gpu:
            raise GraphInvalid([Problem("cannot read GPU data", "flip", "device", "set cpu")])
        return checked(spec, catalog)

    monkeypatch.setattr(codegen, "validate", on_a_gpu_only)
    with pytest.raises(AugExplorerError) as raised:
        generate(preset("basic"), formatted=False)
    assert "the problems of 'flip' come from running on a GPU" in str(raised.value)


def test_an_annotated_graph_assignment_is_read_by_the_importer() -> None:
    source = generate(preset("basic"), formatted=False)
    annotated = source.replace("GRAPH = {", "GRAPH: dict = {", 1)
    assert annotated != source
    assert graph_literal(annotated) == graph_literal(source) is not None


@pytest.mark.parametrize("suffix", ["../../escape", "sub/dir", "back\\slash", "nul\0"])
def test_a_dump_image_suffix_that_leaves_its_folder_is_refused(suffix: str) -> None:
    spec = preset("basic").insert_after(
        "flip", Node("dump", "dump_image", (Ref("flip"),), {"suffix": suffix})
    )
    with pytest.raises(GraphInvalid) as raised:
        Session(spec, batch_size=2)
    [problem] = raised.value.problems
    assert (problem.node, problem.argument) == ("dump", "suffix")
    assert problem.fix and "no '/'" in problem.fix


def test_dump_image_failing_to_open_its_file_is_said_in_our_words() -> None:
    explained = explain_run_error(
        "dump_image", {"suffix": "x"}, frozenset(), ("suffix",), 'Assert on "file.is_open()" failed'
    )
    assert explained.argument == "suffix" and "current folder" in explained.sentence


def test_a_statistics_run_failing_on_a_later_batch_names_the_argument() -> None:
    """Statistics read batches past the first in one pipeline: DALI's failure there is said
    in the same words as the live engine's, with the batch."""
    from augexplorer.stats import collect_stats

    small = [np.zeros((20, 20, 3), np.uint8)] * 2
    images = [np.zeros((80, 80, 3), np.uint8)] * 2 + small
    nodes = (
        Source("source", "arrays"),
        Node("crop", "crop", (Ref("source"),), {"crop": [64.0, 64.0]}),
    )
    with pytest.raises(RunError) as raised:
        collect_stats(GraphSpec(nodes, batch_size=2), images, batches=2, device_id=None)
    error = raised.value
    assert (error.node, error.argument) == ("crop", "crop")
    assert error.dali_message.startswith("on batch 2 of the statistics run: ")
    assert "reaches outside the image" in str(error) and "out_of_bounds_policy" in str(error)


def test_the_panel_shows_a_run_failure_at_its_argument() -> None:
    error = RunError(
        "crop", "`crop_w` and `crop_h` arguments must be provided together", fix="give crop_h",
        argument="crop_w", explanation="crop_w and crop_h go together",
    )  # fmt: skip
    failure = Failure.from_exception(error)
    [problem] = failure.problems
    assert (problem.node, problem.argument) == ("crop", "crop_w")
    assert problem.message.startswith("crop_w and crop_h go together (DALI: `crop_w`")
    assert "crop_w" in failure.argument_messages("crop")


def test_a_rand_augment_with_a_million_operations_is_refused_before_dali_builds_it(
    catalog: Catalog,
) -> None:
    spec = GraphSpec(
        (
            Source("source", "arrays"),
            Node("policy", "auto_aug.rand_augment", (Ref("source"),), {"n": 10**6, "m": 9}),
        ),
        batch_size=2,
    )
    with pytest.raises(GraphInvalid) as raised:
        Session(spec, [np.zeros((32, 32, 3), np.uint8)] * 2, catalog=catalog)
    [problem] = raised.value.problems
    assert (problem.node, problem.argument) == ("policy", "n") and "16" in str(problem.fix)


def test_a_policy_with_a_million_magnitude_bins_is_refused_before_dali_builds_it(
    catalog: Catalog,
) -> None:
    """Found by the auto_aug probe: trivial_augment_wide with 1,000,000 bins never finished."""
    args = {"num_magnitude_bins": 10**6}
    node = Node("policy", "auto_aug.trivial_augment_wide", (Ref("source"),), args)
    spec = GraphSpec((Source("source", "arrays"), node), batch_size=2)
    with pytest.raises(GraphInvalid) as raised:
        Session(spec, [np.zeros((32, 32, 3), np.uint8)] * 2, catalog=catalog)
    [problem] = raised.value.problems
    assert (problem.node, problem.argument) == ("policy", "num_magnitude_bins")
    assert "100" in str(problem.fix)


def test_a_refused_value_drawn_per_sample_is_not_blamed_on_an_edit() -> None:
    """A draw that reaches past what DALI takes fails on some later batch, with no edit behind
    it: the fix says to narrow the draw, where it said "undo the last edit"."""
    message = "Invalid value for argument some_arg: 7.5 is not supported"
    fed = explain_run_error(
        "rotate", {}, frozenset({"angle"}), ("angle",), message.replace("some_arg", "angle")
    )
    assert "undo the last edit" not in fed.fix and "narrow the draw" in fed.fix
    constant = explain_run_error(
        "rotate", {"angle": 7.5}, frozenset(), ("angle",), message.replace("some_arg", "angle")
    )
    assert "undo the last edit" in constant.fix
