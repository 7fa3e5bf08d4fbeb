"""Export of a graph whose values follow the training run: the module's loader, run in a fresh
process, draws at each epoch what the explorer shows there and what a DALI pipeline written by
hand draws with that epoch's values; it moves to the next epoch with no stale prefetched batch,
and set_epoch / set_strength change the batches after them."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import black
import numpy as np
import pytest
from exported_checks import check_module
from exported_runner import run_exported

from augexplorer import GraphSpec, Probability, Random, Session, Source
from augexplorer.data import samples_dir
from augexplorer.export import ExportError, generate
from augexplorer.export.importer import import_graph
from augexplorer.spec import Schedule, chain
from augexplorer.validate import validate

EPOCHS = 9
CHECKED = (0, EPOCHS // 2, EPOCHS - 1)  # the first, the middle and the last epoch
BATCH = 8
SIDE = 64


def ramped() -> GraphSpec:
    """A rotate angle ramped from U(-5, 5) to U(-45, 45), and a node that blacks images out
    applied with a probability ramped from 0.1 to 0.9."""
    spec = chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"size": [float(SIDE), float(SIDE)]}),
        ("rotate", "rotate", {"angle": Random.uniform(-5, 5), "keep_size": True}),
        ("dim", "brightness", {"brightness": 0.0}),
        batch_size=BATCH,
        name="ramped",
    )
    return (
        spec.set_probability("dim", Probability(0.5))
        .with_epochs(EPOCHS)
        .with_schedule("rotate.angle.low", Schedule.linear(-5, -45))
        .with_schedule("rotate.angle.high", Schedule.linear(5, 45))
        .with_schedule("dim.apply", Schedule.linear(0.1, 0.9))
    )


def magnitude() -> GraphSpec:
    """DALI's RandAugment with its magnitude m (a Python int at build time) ramped 2 -> 26."""
    spec = chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"size": [float(SIDE), float(SIDE)]}),
        ("augment", "auto_aug.rand_augment", {"n": 2, "m": 2, "shape": [SIDE, SIDE]}),
        batch_size=BATCH,
        name="magnitude",
    )
    return spec.with_epochs(EPOCHS).with_schedule("augment.m", Schedule.linear(2, 26))


def quality() -> GraphSpec:
    """A JPEG quality, an integer argument the graph leaves out, ramped 30.7 -> 90.7: every epoch
    gets a fractional value, which the explorer and the module both round (not truncate)."""
    spec = chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"size": [float(SIDE), float(SIDE)]}),
        ("jpeg", "jpeg_compression_distortion", {}),
        batch_size=BATCH,
        name="quality",
    )
    return spec.with_epochs(EPOCHS).with_schedule("jpeg.quality", Schedule.linear(30.7, 90.7))


# Runs in a fresh process (nothing of augexplorer imported): each job loads one module and does
# what its "action" says with make_loader(), saving arrays to its .npz.
RUNNER = textwrap.dedent(
    """
    import importlib.util, json, sys
    import numpy as np

    def dark(images):  # which samples the brightness-0 node blacked out
        return images.reshape(len(images), -1).max(axis=1) == 0

    def take(loader):  # the next batch, into the next epoch at the end of one
        try:
            return next(loader)[0]
        except StopIteration:
            return next(loader)[0]

    for job in json.load(open(sys.argv[1])):
        spec = importlib.util.spec_from_file_location(job["name"], job["module"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert "augexplorer" not in sys.modules, "the exported module imported augexplorer"
        data = job.get("data", module.DATA)
        device = job.get("device", "cpu")
        shard = job.get("shard", [0, 1])  # [rank, world size]
        policy = {}
        if job.get("policy"):
            from nvidia.dali.plugin.base_iterator import LastBatchPolicy

            policy["last_batch_policy"] = getattr(LastBatchPolicy, job["policy"])
        load = lambda: module.make_loader(
            data, batch_size=job["batch"], device=device, shard_id=shard[0], num_shards=shard[1],
            **policy,
        )
        saved = {}
        action = job["action"]
        if action == "first":  # a new loader's first batch at each epoch
            for epoch in job["epochs"]:
                loader = load()
                if job.get("len"):  # len() builds the pipeline before set_epoch
                    assert len(loader) > 0
                loader.set_epoch(epoch)
                saved[f"first_{epoch}"] = next(loader)[0]["images"].numpy()
        elif action == "epochs":  # whole epochs, a sampler's set_epoch before each
            loader = load()
            for epoch in range(job["epochs"]):
                if job.get("set_epoch", True) and hasattr(loader, "set_epoch"):
                    loader.set_epoch(epoch)
                loop = job.get("loop", "for")
                if loop == "for":
                    batches = [b[0] for b in loader]
                elif loop == "next":  # len(loader) batches with next(), as many loops count
                    batches = [take(loader) for _ in range(len(loader))]
                else:  # zip(range(len(loader)), loader)
                    batches = [b[0] for _, b in zip(range(len(loader)), loader)]
                images = np.concatenate([b["images"].numpy() for b in batches])
                saved[f"dark_{epoch}"] = dark(images)
                saved[f"labels_{epoch}"] = np.concatenate([b["labels"].numpy() for b in batches])
                if job.get("images"):
                    saved[f"images_{epoch}"] = images
        elif action == "jump":  # two batches of epoch 0, then epoch `to`
            loader = load()
            taken = [take(loader) for _ in range(2)]
            loader.set_epoch(job["to"])
            taken += [take(loader) for _ in range(2)]
            for index, batch in enumerate(taken):
                saved[f"dark_{index}"] = dark(batch["images"].numpy())
        elif action == "strength":  # one batch, then the probability set outright
            loader = load()
            taken = [take(loader)]
            loader.set_strength(job["target"], job["value"])
            taken += [take(loader) for _ in range(job["after"])]
            for index, batch in enumerate(taken):
                saved[f"dark_{index}"] = dark(batch["images"].numpy())
                if job.get("labels"):
                    saved[f"labels_{index}"] = batch["labels"].numpy()
                    saved[f"images_{index}"] = batch["images"].numpy()
        np.savez(job["out"], **saved)
    """
)


def run_jobs(jobs: list[dict[str, Any]], tmp: Path) -> dict[str, dict[str, np.ndarray]]:
    for job in jobs:
        job["out"] = str(tmp / f"{job['name']}.npz")
        job.setdefault("batch", BATCH)
    return run_exported(jobs, tmp, runner=RUNNER, timeout=400)


def write(spec: GraphSpec, tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.py"
    path.write_text(generate(spec))
    return path


def explorer(spec: GraphSpec, epoch: int, rank: int = 0, world_size: int = 1) -> np.ndarray:
    session = Session(spec, device_id=None, rank=rank, world_size=world_size)
    return np.stack(
        [np.asarray(a) for a in session.set_epoch(epoch).arrays(spec.outputs["images"].node)]
    )


def sample_files() -> tuple[list[str], list[int]]:
    """The bundled samples in the order every reader is given them: classes, then files, sorted."""
    root = samples_dir()
    files, labels = [], []
    for label, folder in enumerate(sorted(p for p in root.iterdir() if p.is_dir())):
        for path in sorted(folder.iterdir()):
            files.append(str(path))
            labels.append(label)
    return files, labels


def by_hand(spec: GraphSpec, epoch: int) -> np.ndarray:
    """The first batch of `spec` at `epoch` from DALI calls written here, with the epoch's
    values worked out here and the seeds of the graph's plan."""
    from nvidia.dali import fn, pipeline_def, types
    from nvidia.dali.auto_aug import rand_augment

    from augexplorer.policy_seeds import independent_draws

    seeds = {step.id: step.seed for step in validate(spec).steps if step.seed is not None}
    t = epoch / (EPOCHS - 1)
    files, labels = sample_files()

    @pipeline_def(batch_size=BATCH, num_threads=2, device_id=None, enable_conditionals=True)
    def pipeline():  # type: ignore[no-untyped-def]
        jpegs, _ = fn.readers.file(
            files=files, labels=labels, random_shuffle=True, seed=seeds["source"], name="source"
        )
        images = fn.decoders.image(jpegs, output_type=types.DALIImageType.RGB)
        images = fn.resize(images, size=[float(SIDE), float(SIDE)])
        if spec.name == "magnitude":
            m = round(2 + 24 * t)
            return independent_draws(  # DALI's call, its draws seeded apart as the node's
                rand_augment.rand_augment,
                images,
                n=2,
                m=m,
                shape=[SIDE, SIDE],
                seed=seeds["augment"],
            )
        width = 5 + 40 * t
        angle = fn.random.uniform(
            range=[-width, width], dtype=types.DALIDataType.FLOAT, seed=seeds["rotate_angle"]
        )
        images = fn.rotate(images, angle=angle, keep_size=True)
        applied = fn.random.coin_flip(
            probability=0.1 + 0.8 * t, dtype=types.DALIDataType.BOOL, seed=seeds["dim_apply"]
        )
        if applied:
            images = fn.brightness(images, brightness=0.0)
        return images

    pipe = pipeline()
    pipe.build()
    (out,) = pipe.run()
    return np.stack([np.asarray(out.at(i)) for i in range(len(out))])


@pytest.fixture(scope="module")
def first_batches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, np.ndarray]]:
    tmp = tmp_path_factory.mktemp("first")
    jobs = [
        {
            "name": name,
            "module": str(write(spec, tmp, name)),
            "action": "first",
            "epochs": list(CHECKED),
        }
        for name, spec in (("ramped", ramped()), ("magnitude", magnitude()), ("quality", quality()))
    ]
    return run_jobs(jobs, tmp)


@pytest.mark.parametrize("graph", [ramped, magnitude])
@pytest.mark.parametrize("epoch", CHECKED)
def test_explorer_module_and_hand_written_pipeline_agree_at_an_epoch(
    first_batches: dict[str, dict[str, np.ndarray]], graph: Any, epoch: int
) -> None:
    spec = graph()
    module = first_batches[spec.name][f"first_{epoch}"]
    np.testing.assert_array_equal(module, explorer(spec, epoch))
    np.testing.assert_array_equal(module, by_hand(spec, epoch))


@pytest.mark.parametrize("epoch", CHECKED)
def test_an_integer_argument_left_out_is_rounded_alike_in_the_module(
    first_batches: dict[str, dict[str, np.ndarray]], epoch: int
) -> None:
    np.testing.assert_array_equal(
        first_batches["quality"][f"first_{epoch}"], explorer(quality(), epoch)
    )


def test_a_torchrun_rank_at_an_epoch_draws_what_the_explorer_previews_for_it(
    tmp_path: Path,
) -> None:
    """Rank 1 of 2 at the last epoch: its own shard and seeds, the epoch's values."""
    spec, epoch = ramped(), CHECKED[-1]
    job = {"name": "rank", "module": str(write(spec, tmp_path, "rank")), "action": "first"}
    saved = run_jobs([{**job, "epochs": [epoch], "shard": [1, 2]}], tmp_path)["rank"]
    np.testing.assert_array_equal(saved[f"first_{epoch}"], explorer(spec, epoch, 1, 2))
    assert not np.array_equal(saved[f"first_{epoch}"], explorer(spec, epoch))


def test_setting_a_built_value_rebuilds_where_the_reader_stood(tmp_path: Path) -> None:
    """set_strength on RandAugment's m (read when the pipeline is built) rebuilds the pipeline
    before the next batch; the reader goes on as without the change."""
    held = magnitude().with_schedule("augment.m", Schedule.constant(2))
    jobs = [
        {
            "name": name,
            "module": str(write(held, tmp_path, name)),
            "action": "strength",
            "target": "augment.m",
            "value": value,
            "after": 3,
            "labels": True,
        }
        for name, value in (("strong", 26), ("same", 2))
    ]
    saved = run_jobs(jobs, tmp_path)
    for index in range(4):
        np.testing.assert_array_equal(
            saved["strong"][f"labels_{index}"], saved["same"][f"labels_{index}"]
        )
    np.testing.assert_array_equal(saved["strong"]["images_0"], saved["same"]["images_0"])
    for index in (1, 2, 3):  # every batch after the call: the rebuilt pipeline's, at m 26
        assert not np.array_equal(
            saved["strong"][f"images_{index}"], saved["same"][f"images_{index}"]
        )


def test_set_epoch_after_len_still_gives_the_epochs_first_batch(tmp_path: Path) -> None:
    """len() builds the pipeline first: a fed value is read when DALI asks for it, a value read
    at build time (m) rebuilds it before the first batch."""
    epoch = CHECKED[-1]
    jobs = [
        {
            "name": spec.name,
            "module": str(write(spec, tmp_path, spec.name)),
            "action": "first",
            "epochs": [epoch],
            "len": True,
        }
        for spec in (ramped(), magnitude())
    ]
    saved = run_jobs(jobs, tmp_path)
    for spec in (ramped(), magnitude()):
        np.testing.assert_array_equal(saved[spec.name][f"first_{epoch}"], explorer(spec, epoch))


def test_the_schedules_change_what_is_drawn(
    first_batches: dict[str, dict[str, np.ndarray]],
) -> None:
    for name in ("ramped", "magnitude"):
        first, last = (first_batches[name][f"first_{e}"] for e in (CHECKED[0], CHECKED[-1]))
        assert not np.array_equal(first, last), name


def file_list(tmp: Path, repeats: int) -> Path:
    files, labels = sample_files()
    lines = [
        f"{path} {label}" for _ in range(repeats) for path, label in zip(files, labels, strict=True)
    ]
    path = tmp / "list.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_each_epoch_applies_at_its_scheduled_rate(tmp_path: Path) -> None:
    """Over many draws per epoch, the share of samples the node ran on is the epoch's
    probability within a binomial bound (4.5 standard deviations)."""
    epochs = 3
    spec = ramped().with_epochs(epochs)
    jobs = [
        {
            "name": "rate",
            "module": str(write(spec, tmp_path, "rate")),
            "action": "epochs",
            "epochs": epochs,
            "data": str(file_list(tmp_path, 20)),
            "batch": 38,
        }
    ]
    saved = run_jobs(jobs, tmp_path)["rate"]
    for epoch, p in enumerate((0.1, 0.5, 0.9)):
        dark = saved[f"dark_{epoch}"]
        n = len(dark)
        assert n == 380
        assert abs(dark.sum() - n * p) <= 4.5 * math.sqrt(n * p * (1 - p)), (epoch, dark.mean())


def test_epochs_follow_one_another_with_no_stale_prefetched_batch(tmp_path: Path) -> None:
    """DALI prepares the next epoch's first batches before the last of this one is taken; a
    probability that steps from 0 to 1 at epoch 1 is 0 on every sample of epoch 0 and 1 on every
    sample of epoch 1, with or without set_epoch; values held constant by schedules draw what
    the graph without schedules draws, epoch after epoch; a jump mid-epoch takes effect at once."""
    held = (
        ramped()
        .with_schedule("rotate.angle.low", Schedule.constant(-5))
        .with_schedule("rotate.angle.high", Schedule.constant(5))
        .with_schedule("dim.apply", Schedule.constant(0.5))
    )
    plain = GraphSpec(
        nodes=held.nodes, outputs=held.outputs, batch_size=BATCH, seed=held.seed, name=held.name
    )
    jobs = [
        {
            "name": "stepped",
            "module": str(write(stepped(), tmp_path, "stepped")),
            "action": "epochs",
            "epochs": 3,
        },
        {
            "name": "unset",
            "module": str(write(stepped(), tmp_path, "unset")),
            "action": "epochs",
            "epochs": 3,
            "set_epoch": False,
        },
        {
            "name": "held",
            "module": str(write(held, tmp_path, "held")),
            "action": "epochs",
            "epochs": 2,
            "images": True,
        },
        {
            "name": "plain",
            "module": str(write(plain, tmp_path, "plain")),
            "action": "epochs",
            "epochs": 2,
            "images": True,
        },
        {
            "name": "jump",
            "module": str(write(stepped(), tmp_path, "jump")),
            "action": "jump",
            "to": 2,
        },
    ]
    saved = run_jobs(jobs, tmp_path)
    check_stepped(saved, ("stepped", "unset"))
    for epoch in (0, 1):
        np.testing.assert_array_equal(
            saved["held"][f"images_{epoch}"], saved["plain"][f"images_{epoch}"]
        )
    jump = saved["jump"]
    assert not jump["dark_0"].any() and not jump["dark_1"].any()
    assert jump["dark_2"].all() and jump["dark_3"].all()


@pytest.mark.parametrize("policy", ["PARTIAL", "DROP"])
@pytest.mark.parametrize("loop", ["next", "zip"])
def test_a_loop_that_counts_len_batches_gets_the_epoch_it_sets(
    loop: str, policy: str, tmp_path: Path
) -> None:
    """A loop taking len(loader) batches ends an epoch before DALI's iterator has said so (it
    says it at the next call): set_epoch ends it there, so each epoch gets its own values and
    its own batches, as a for loop does (before, next() ran an epoch ahead and zip() got empty
    epochs)."""
    module = str(write(ramped(), tmp_path, "ramped"))  # every epoch's values its own
    jobs = [
        {"name": name, "module": module, "action": "epochs", "epochs": 3, "images": True}
        for name in ("for", loop)
    ]
    jobs[1]["loop"] = loop
    for job in jobs:
        job["policy"] = policy  # DROP: len(loader) counts whole batches only
    saved = run_jobs(jobs, tmp_path)
    for epoch in range(3):
        np.testing.assert_array_equal(
            saved[loop][f"images_{epoch}"], saved["for"][f"images_{epoch}"]
        )
        np.testing.assert_array_equal(
            saved[loop][f"labels_{epoch}"], saved["for"][f"labels_{epoch}"]
        )


def stepped() -> GraphSpec:
    return ramped().with_schedule("dim.apply", Schedule.steps([(0, 0.0), (1, 1.0)]))


def check_stepped(saved: dict[str, dict[str, np.ndarray]], names: tuple[str, ...]) -> None:
    """No sample of epoch 0 ran the node, every sample of epochs 1 and 2 did."""
    for name in names:
        assert not saved[name]["dark_0"].any(), name
        assert saved[name]["dark_1"].all() and saved[name]["dark_2"].all(), name
        assert len(saved[name]["dark_1"]) == len(sample_files()[0])


@pytest.mark.gpu
def test_on_a_gpu_each_epoch_gets_its_values(tmp_path: Path) -> None:
    job = {"module": str(write(stepped(), tmp_path, "gpu")), "action": "epochs", "epochs": 3}
    saved = run_jobs([{**job, "name": "gpu", "device": "gpu"}], tmp_path)
    check_stepped(saved, ("gpu",))


def test_a_magnitude_change_rebuilds_where_the_reader_stood(tmp_path: Path) -> None:
    """m is a Python value DALI reads at build time: the loader rebuilds the pipeline at each
    epoch whose m differs, from its checkpoint, so the reader goes on through its epochs as the
    loader of a graph whose m stays."""
    held = magnitude().with_schedule("augment.m", Schedule.constant(2))
    jobs = [
        {"name": name, "module": str(write(spec, tmp_path, name)), "action": "epochs", "epochs": 3}
        for name, spec in (("ramp", magnitude().with_epochs(3)), ("held", held.with_epochs(3)))
    ]
    saved = run_jobs(jobs, tmp_path)
    for epoch in range(3):
        np.testing.assert_array_equal(
            saved["ramp"][f"labels_{epoch}"], saved["held"][f"labels_{epoch}"]
        )


def test_set_strength_changes_the_next_batches(tmp_path: Path) -> None:
    """A probability set outright (as an adaptive loop would) reaches every batch DALI prepares
    after the call; those already prepared (prefetch_queue_depth, 2) keep their values."""
    spec = ramped().with_schedule("dim.apply", Schedule.constant(0.0))
    jobs = [
        {
            "name": "strength",
            "module": str(write(spec, tmp_path, "strength")),
            "action": "strength",
            "target": "dim.apply",
            "value": 1.0,
            "after": 4,
        }
    ]
    saved = run_jobs(jobs, tmp_path)["strength"]
    assert not saved["dark_0"].any()
    assert all(saved[f"dark_{i}"].all() for i in (3, 4))


def test_the_module_reads_well_and_imports_back_to_the_same_graph(tmp_path: Path) -> None:
    for spec in (ramped(), magnitude()):
        path = write(spec, tmp_path, spec.name)
        source = path.read_text()
        assert black.format_str(source, mode=black.Mode(line_length=100)) == source
        assert "def schedule_value(name, epoch):" in source and "SCHEDULES = {" in source
        assert import_graph(path) == spec
        check_module(source, spec)  # every call the template's own or a catalog operator
    ramp_source = (tmp_path / "ramped.py").read_text()
    assert 'range=strengths.feed("rotate_angle.range")' in ramp_source
    assert 'm=strengths.value("augment.m")' in (tmp_path / "magnitude.py").read_text()
    config = Path(__file__).parents[1] / "pyproject.toml"
    lint = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--config",
            str(config),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_schedule_value_in_the_module_is_augexplorers(tmp_path: Path) -> None:
    schedules = {
        "a.x": Schedule.linear(1, 2, begin=2, finish=6),
        "a.y": Schedule.cosine(0.25, 0.75),
        "a.z": Schedule.warmup(0, 30, epochs=3),
        "b.x": Schedule.steps([(0, 0.1), (4, 0.5)]),
        "b.y": Schedule.table([(0, 0.0), (4, 8.0), (8, 0.0)]),
        "b.z": Schedule.constant(3),
    }
    module = {"EPOCHS": EPOCHS, "SCHEDULES": {k: s.to_json() for k, s in schedules.items()}}
    source = generate(ramped())
    start = source.index("def schedule_value")
    exec(
        compile(
            "from math import cos, pi\n" + source[start : source.index("\nclass ", start)],
            "m",
            "exec",
        ),
        module,
    )
    for name, schedule in schedules.items():
        for epoch in range(EPOCHS + 2):
            assert module["schedule_value"](name, epoch) == schedule.value_at(epoch, EPOCHS), name


def test_a_schedule_edited_in_the_modules_table_comes_back(tmp_path: Path) -> None:
    """The pipeline runs what SCHEDULES and EPOCHS say, so an edit there is what imports."""
    path = write(ramped(), tmp_path, "edited")
    source = path.read_text()
    edited = source.replace(f"EPOCHS = {EPOCHS}\n", "EPOCHS = 30\n").replace(
        '"rotate.angle.high": {"curve": "linear", "start": 5.0, "end": 45.0}',
        '"rotate.angle.high": {"curve": "cosine", "start": 5.0, "end": 30.0}',
    )
    assert edited.count("EPOCHS = 30") == 1 and '"cosine"' in edited
    path.write_text(edited)
    expected = ramped().with_epochs(30).with_schedule("rotate.angle.high", Schedule.cosine(5, 30))
    assert import_graph(path) == expected


def test_the_adaptive_example_runs_its_toy_loop(tmp_path: Path) -> None:
    example = Path(__file__).parents[1] / "examples" / "adaptive_strength.py"
    done = subprocess.run(
        [sys.executable, str(example), "--epochs", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("epoch ")]
    assert [line.split(":")[0] for line in lines] == ["epoch 0", "epoch 1"]
    assert "+-5.0 degrees" in lines[0] and "+-30.0 degrees" in lines[1]
    assert (tmp_path / "adaptive_pipeline.py").is_file()


def test_a_graph_with_schedules_on_arrays_is_refused_with_the_fix() -> None:
    spec = ramped().with_source(Source("source", kind="arrays"))
    with pytest.raises(ExportError, match="folder or file list source; this one reads arrays"):
        generate(spec)
    generate(GraphSpec(nodes=spec.nodes, outputs=spec.outputs, name="plain"))  # without: fine


PAST_THE_RUN = textwrap.dedent(
    """
    import importlib.util, json, sys, warnings

    spec = importlib.util.spec_from_file_location("past", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    said = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = module.make_loader(batch_size=8, device="cpu")
        for epoch in range(module.EPOCHS):  # the whole run, as exported: nothing to say
            loader.set_epoch(epoch)
            for _ in loader:
                pass
        said["run"] = [str(w.message) for w in caught]
        next(loader)  # one batch more than the run: the loader moved on to epoch EPOCHS
        said["after"] = [str(w.message) for w in caught]
        loader.set_epoch(module.EPOCHS + 3)  # said once only
        next(loader)
        said["again"] = [str(w.message) for w in caught]
    print(json.dumps(said))
    """
)


def test_an_epoch_past_the_run_is_said_once(tmp_path: Path) -> None:
    """The schedules hold their last values past the run they were made for: a training loop
    longer than that run (or counting epochs from 1) is told, once, not silently left on the
    last values."""
    module = write(ramped().with_epochs(2), tmp_path, "past")
    script = tmp_path / "past_run.py"
    script.write_text(PAST_THE_RUN)
    done = subprocess.run(
        [sys.executable, str(script), str(module)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["run"] == []
    assert len(said["after"]) == 1
    assert said["after"][0].startswith("epoch 2 is past the 2 epochs (0..1)")
    assert "export again" in said["after"][0]
    assert said["again"] == said["after"]


def test_the_loaders_docstring_says_what_an_epoch_reads(tmp_path: Path) -> None:
    """make_loader's docstring speaks of the reader as it is called: whole epochs by default;
    DALI's own default (an imported graph's) is said as what it does."""
    whole = " ".join(generate(ramped()).split())
    assert "Every epoch reads each file once" in whole
    source = ramped().sources()[0]
    imported = ramped().replace_node(
        dataclasses.replace(source, reader_args={"pad_last_batch": False})
    )
    as_dali = " ".join(generate(imported).split())  # the docstring's words, lines joined
    assert "Every epoch reads each file once" not in as_dali
    assert "pad_last_batch=False" in as_dali and "may read some files twice" in as_dali


def test_next_batch_moves_into_the_next_epoch_as_the_loader_does(tmp_path: Path) -> None:
    """The explorer's next batch past an epoch's end is the next epoch's, its schedules' values
    with it: two epochs of next_batch give, sample for sample, what the exported loader gives
    iterated straight through (the reader's padding, which it drops on one rank, aside)."""
    spec = ramped().with_epochs(3)
    saved = run_jobs(
        [
            {
                "name": "through",
                "module": str(write(spec, tmp_path, "through")),
                "action": "epochs",
                "epochs": 2,
                "images": True,
                "set_epoch": False,
            }
        ],
        tmp_path,
    )["through"]
    session = Session(spec, device_id=None)
    result = session.run()
    per_epoch = result.batches_per_epoch()
    assert per_epoch == -(-len(sample_files()[0]) // BATCH)
    for epoch in (0, 1):
        kept = []
        for index in range(per_epoch):
            if epoch or index:
                result = session.next_batch()
            assert session.epoch == epoch, (epoch, index)
            arrays = result.arrays(spec.outputs["images"].node)
            kept += [a for a, pad in zip(arrays, result.padded(), strict=True) if not pad]
        np.testing.assert_array_equal(np.stack(kept), saved[f"images_{epoch}"])
