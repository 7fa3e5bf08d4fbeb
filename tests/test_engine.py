"""The live engine: incremental re-runs, seed-locked draws, never a stale result."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from augexplorer import GraphInvalid, Node, Random, Ref, RunError, Session, Source
from augexplorer.catalog import Catalog, load_catalog
from augexplorer.data import samples_dir
from augexplorer.errors import AugExplorerError

BATCH = 4


@pytest.fixture
def session() -> Session:
    return Session("basic", batch_size=BATCH, device_id=None)


def assert_same_batch(a: list[np.ndarray], b: list[np.ndarray]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_first_run_runs_every_step_and_a_rerun_none(session: Session) -> None:
    first = session.run()
    assert set(first.ran()) == {step.id for step in session.plan.steps}
    assert session.run().ran() == []


def test_editing_the_last_node_reruns_only_it(session: Session) -> None:
    session.run()
    result = session.set_arg("crop", "crop", [200.0, 200.0])
    assert result.ran() == ["crop", "flip"]  # flip reads crop, so it re-runs too
    assert result.arrays("flip")[0].shape == (200, 200, 3)


def test_editing_a_middle_node_reruns_it_and_what_depends_on_it(session: Session) -> None:
    session.run()
    result = session.set_arg("resize", "resize_shorter", 240.0)
    assert set(result.ran()) == {"resize", "rotate", "crop", "flip"}


def test_editing_a_random_binding_reruns_the_draw_and_its_consumers(session: Session) -> None:
    session.run()
    result = session.set_arg("rotate", "angle", Random.uniform(-5, 5))
    assert set(result.ran()) == {"rotate_angle", "rotate", "crop", "flip"}
    assert all(-5 <= v <= 5 for v in result.draws("rotate")["rotate"]["angle"])


def test_inserting_a_node_rebuilds_only_what_it_touches(session: Session) -> None:
    session.run()
    spec = session.spec.insert_after("crop", Node("blur", "gaussian_blur", args={"sigma": 2.0}))
    result = session.update(spec)
    assert set(result.ran()) == {"blur", "flip"}


def test_result_after_edits_equals_a_fresh_session(session: Session) -> None:
    session.run()
    session.set_arg("resize", "resize_shorter", 230.0)
    session.set_arg("crop", "crop", [180.0, 180.0])
    edited = session.set_arg("rotate", "fill_value", 128.0)
    fresh = Session(session.spec, device_id=None).run()
    for step_id in ("rotate", "crop", "flip"):
        assert_same_batch(edited.arrays(step_id), fresh.arrays(step_id))


def test_draws_stay_locked_across_unrelated_edits(session: Session) -> None:
    before = session.run().draws()
    after = session.set_arg("crop", "crop", [160.0, 160.0]).draws()
    assert before == after


def test_reroll_draws_new_values_and_records_the_seeds(session: Session) -> None:
    first = session.run()
    angles = first.draws("rotate")["rotate"]["angle"]
    rerolled = session.reroll()
    assert rerolled.draws("rotate")["rotate"]["angle"] != angles
    assert_same_batch(first.arrays("source"), rerolled.arrays("source"))  # same images
    # The new seeds are in the spec: a fresh session of it replays the same draws.
    replay = Session(session.spec, device_id=None).run()
    assert replay.draws() == rerolled.draws()


def test_next_batch_reads_new_images(session: Session) -> None:
    first = session.run()
    second = session.next_batch()
    assert second.batch_index == 1
    assert first.files() != second.files()


def test_recorded_draws_are_the_values_applied(session: Session) -> None:
    result = session.run()
    flips = result.draws("flip")["flip"]["horizontal"]
    cropped, flipped = result.arrays("crop"), result.arrays("flip")
    for flag, before, after in zip(flips, cropped, flipped, strict=True):
        expected = before[:, ::-1] if flag else before
        np.testing.assert_array_equal(after, expected)


def test_captions_name_each_value_and_say_which_nodes_were_skipped() -> None:
    from augexplorer.engine.result import caption_draws

    draws = {
        "tilt": {"apply": [1, 0, 1], "angle": [12.34, 50.0, -3.0]},
        "blur": {"apply": [1, 0, 0]},
        "flip": {"horizontal": [0, 1, 1]},
    }
    assert caption_draws(draws, 3, name_nodes=True) == [
        "tilt.angle=12.34 blur applied flip.horizontal=0",
        "flip.horizontal=1 skipped tilt,blur",  # no angle: the rotation was not applied
        "tilt.angle=-3 flip.horizontal=1 skipped blur",
    ]
    one = {"tilt": draws["tilt"]}
    assert caption_draws(one, 3, name_nodes=False) == ["angle=12.34", "skipped", "angle=-3"]


def test_outputs_stay_on_device_until_asked(session: Session) -> None:
    result = session.run()
    output = result.output("flip")
    assert type(output).__name__ in ("TensorListCPU", "TensorListGPU")
    arrays = result.arrays("flip")
    assert isinstance(arrays[0], np.ndarray) and arrays[0].dtype == np.uint8


def test_every_node_reports_its_time_and_device(session: Session) -> None:
    result = session.run()
    for node in session.spec.nodes:
        assert result.time_ms(node.id) > 0
        assert result.steps[node.id].device == "cpu"


def test_probability_zero_and_one(session: Session) -> None:
    session.run()
    never = session.set_probability("rotate", 0.0)
    assert_same_batch(never.arrays("rotate"), never.arrays("resize"))
    always = session.set_probability("rotate", 1.0)
    assert all(always.draws("rotate")["rotate"]["apply"])
    assert any(
        a.shape != b.shape or not np.array_equal(a, b)
        for a, b in zip(always.arrays("rotate"), always.arrays("resize"), strict=True)
    )


def test_an_invalid_edit_keeps_the_spec_and_the_last_good_result(session: Session) -> None:
    good = session.run()
    with pytest.raises(GraphInvalid) as error:
        session.set_arg("rotate", "angel", 3.0)
    assert error.value.problems[0].node == "rotate"
    assert error.value.problems[0].argument == "angel"
    assert "angle" in (error.value.problems[0].fix or "")
    assert session.result is good
    # a name the operator does not take is not kept (tests/test_session_misnamed_argument.py);
    # a graph given whole is, as written
    assert "angel" not in session.spec.node("rotate").args
    with pytest.raises(GraphInvalid):
        session.update(session.spec.set_arg("rotate", "angel", 3.0))
    assert session.spec.node("rotate").args["angel"] == 3.0  # the user's graph is kept
    fixed = session.update(session.spec.unset_arg("rotate", "angel"))
    assert fixed is session.result and fixed is not good


def test_a_failing_node_names_itself_and_the_session_recovers(session: Session) -> None:
    good = session.run()
    # Validation cannot know the images have 3 channels: DALI finds out at run time.
    bad = Node("norm", "crop_mirror_normalize", args={"mean": [1.0, 2.0]})
    with pytest.raises(RunError) as error:
        session.update(session.spec.insert_after("crop", bad))
    assert error.value.node == "norm"
    assert "per-channel" in str(error.value)
    assert "C++ context" not in str(error.value)
    assert session.result is good
    result = session.update(session.spec.set_arg("norm", "mean", [1.0, 2.0, 3.0]))
    assert "norm" in result.ran()


def test_folder_and_file_list_and_array_sources(tmp_path) -> None:  # type: ignore[no-untyped-def]
    files = sorted(samples_dir().glob("*/*.jpg"))[:5]
    listing = tmp_path / "list.txt"
    listing.write_text("".join(f"{f} {i} {i + 1}\n" for i, f in enumerate(files)))
    multi = Session("basic", data=str(listing), batch_size=BATCH, device_id=None).run()
    assert multi.labels() and all(len(labels) == 2 for labels in multi.labels())
    assert {labels[1] - labels[0] for labels in multi.labels()} == {1}

    folder = Session("basic", data=str(samples_dir()), batch_size=BATCH, device_id=None).run()
    assert set(folder.captions()) <= {"animal", "food", "people", "space", "texture"}

    arrays = [np.full((40 + i, 50, 3), i * 20, dtype=np.uint8) for i in range(3)]
    spec = Session("basic", device_id=None).spec
    array_spec = spec.with_source(Source("source", "arrays")).remove("decode")
    session = Session(array_spec, data=(arrays, [7, 8, 9]), batch_size=BATCH, device_id=None)
    result = session.run()
    # the epoch's last batch filled with its last array, marked as padding, as the exported
    # loader's ArrayBatches feeds it (and drops it on one rank)
    assert result.labels() == [[7], [8], [9], [9]]
    assert result.padded() == [False, False, False, True]
    assert result.batches_per_epoch() == 1
    assert session.next_batch().labels() == [[7], [8], [9], [9]]  # the next epoch, from the first
    assert result.arrays(Ref("source"))[1].shape == (41, 50, 3)


def test_the_same_source_given_new_data_reads_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the source's spec does not change, so only the data behind it can tell the runs apart
    spec = Session("basic", device_id=None).spec
    spec = spec.with_source(Source("source", "arrays")).remove("decode")
    dark = [np.zeros((40, 50, 3), dtype=np.uint8)] * 3
    session = Session(spec, data=(dark, [0, 1, 2]), batch_size=BATCH, device_id=None)
    assert max(int(a.max()) for a in session.run().arrays(Ref("source"))) == 0
    light = [np.full((40, 50, 3), 200, dtype=np.uint8)] * 3
    result = session.set_source(Source("source", "arrays"), light)
    assert "source" in result.ran() and "flip" in result.ran()
    assert min(int(a.min()) for a in result.arrays(Ref("source"))) == 200

    # a folder picked again after its files changed is read again
    folder = tmp_path / "photos" / "cats"
    folder.mkdir(parents=True)
    first, second = sorted(samples_dir().glob("*/*.jpg"))[:2]
    (folder / "a.jpg").write_bytes(first.read_bytes())
    session = Session("basic", data=str(tmp_path / "photos"), batch_size=2, device_id=None)
    before = session.run().arrays(Ref("decode"))[0].shape
    (folder / "a.jpg").write_bytes(second.read_bytes())
    after = session.set_source(Source("source", "folder", str(tmp_path / "photos")))
    assert after.arrays(Ref("decode"))[0].shape != before


def test_earlier_results_keep_their_data_after_later_runs(session: Session) -> None:
    first = session.run()
    images = first.arrays("source")
    files = first.files()
    session.next_batch()
    session.set_arg("crop", "crop", [100.0, 100.0])
    assert first.files() == files
    assert_same_batch(first.arrays("source"), images)


def test_editing_a_scalar_value_reuses_the_built_pipeline(session: Session) -> None:
    session.run()
    first = session.set_arg("resize", "resize_shorter", 250.0)
    runners = len(session._runners)
    second = session.set_arg("resize", "resize_shorter", 240.0)
    assert min(first.arrays("resize")[0].shape[:2]) == 250
    assert min(second.arrays("resize")[0].shape[:2]) == 240
    assert len(session._runners) == runners  # the same pipeline ran with the new value
    session.set_arg("rotate", "fill_value", 10.0)  # fill_value is not per-sample: a new build
    assert len(session._runners) == runners + 1


def test_only_edits_of_fed_values_share_a_built_pipeline(session: Session) -> None:
    from augexplorer.engine.runners import share_structure, structure_key

    old = session.plan.step("resize")
    fed_edit = dataclasses.replace(old, args={**old.args, "resize_shorter": 200.0})
    assert share_structure(old, fed_edit)
    assert structure_key(fed_edit, ["cpu"], 4) == structure_key(old, ["cpu"], 4)
    rotate = session.plan.step("rotate")
    baked_edit = dataclasses.replace(rotate, args={**rotate.args, "fill_value": 9.0})
    assert not share_structure(rotate, baked_edit)  # fill_value is baked into the pipeline
    assert structure_key(baked_edit, ["cpu"], 4) != structure_key(rotate, ["cpu"], 4)


def test_host_copies_are_the_samples_whatever_their_shape(catalog: Catalog) -> None:
    """Dense batches are copied in one go; each sample comes back as its own array, 0-d draws
    and ragged encoded files alike."""
    from augexplorer.engine.result import to_host

    result = Session("reference", batch_size=4, catalog=catalog).run()
    for ref in ("brightness", "source:1", "source", "rotate_angle"):
        batch = result.output(ref)
        host = batch.as_cpu() if hasattr(batch, "as_cpu") else batch  # the reference copy
        for got, want in zip(to_host(batch), [host.at(i) for i in range(len(host))], strict=True):
            want = np.array(want)
            assert isinstance(got, np.ndarray), ref
            assert got.dtype == want.dtype and got.shape == want.shape, ref
            np.testing.assert_array_equal(got, want)


def test_a_cpu_session_places_on_the_cpu_whatever_catalog_it_is_given() -> None:
    """`device_id=None` is "CPU only": a GPU machine's catalog passed with it must not place
    nodes on the GPU (found on a GPU: such a session ran other kernels than the CPU export)."""
    session = Session("basic", batch_size=2, device_id=None, catalog=load_catalog(gpu=True))
    assert not session.catalog.gpu
    assert {step.device for step in session.plan.steps} == {"cpu"}
    assert len(session.run().arrays(session.plan.outputs["images"])) == 2


def test_a_session_opens_a_graph_file_or_says_what_it_takes(tmp_path: Path) -> None:
    # found in a newcomer's trial: Session("graph.json") said "no preset" and listed presets
    from augexplorer.presets import preset
    from augexplorer.spec import save

    path = tmp_path / "graph.json"
    save(preset("imagenet_val"), path)
    for given in (str(path), path):
        opened = Session(given, device_id=None, batch_size=2)
        assert opened.spec.node("normalize").op == "crop_mirror_normalize"
    with pytest.raises(KeyError, match=r"no preset 'nothing' and no file of that name.*\.json"):
        Session("nothing", device_id=None)
    with pytest.raises(KeyError, match=r"no preset 'detection' .*did you mean 'ssd_detection'\?"):
        Session("detection", device_id=None)
    with pytest.raises(AugExplorerError, match="no such spec file"):
        Session(str(tmp_path / "missing.json"), device_id=None)
    # an exported module opened as a graph: said to be imported, not "not valid JSON"
    from augexplorer.export import export

    module = export(preset("imagenet_val"), tmp_path / "val_aug.py")
    with pytest.raises(AugExplorerError, match=r"is Python, not a spec.*augexplorer import FILE"):
        Session(str(module), device_id=None)
