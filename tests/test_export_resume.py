"""A training job resumed from a checkpoint sees what it would have seen without the stop: the
exported loader's checkpoint() saves where it stands, and make_loader(..., checkpoint=...) gives
the same batches and draws next, mid-epoch or at an epoch's end, on any rank, with schedules and
values set by set_strength. Before, a resumed job replayed epoch 0's order and draws."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from test_export_schedules import magnitude, ramped

from augexplorer import Node, Ref, Source
from augexplorer.data import samples_dir
from augexplorer.export import export
from augexplorer.presets import preset

BATCH = 4  # 19 bundled samples: five batches an epoch, the last of three

# Each job: batches of an uninterrupted loader, then the same loader stopped after `stop`
# batches (counting StopIteration as one), its checkpoint taken, and a new loader made from it
# giving the rest. A batch is a digest of its bytes; "end" where an epoch ended.
RESUME = textwrap.dedent(
    """
    import hashlib, importlib.util, json, os, sys

    def load(path):
        spec = importlib.util.spec_from_file_location("exported", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def digest(batch):
        hashed = hashlib.sha1()
        for name in sorted(batch):
            value = batch[name]
            if isinstance(value, list):  # a detection loader's per-sample targets
                value = [t for target in value for t in target.values()]
            for tensor in value if isinstance(value, list) else [value]:
                hashed.update(tensor.cpu().contiguous().numpy().tobytes())
        return hashed.hexdigest()

    def take(loader, count, job, epoch):
        # as a training loop does: set_epoch before each epoch's batches (schedules)
        seen = []
        while len(seen) < count:
            if hasattr(loader, "set_epoch") and job.get("set_epoch"):
                loader.set_epoch(epoch)
            try:
                seen.append(digest(next(loader)[0]))
                if job.get("strength") and len(seen) == job["strength"][2]:
                    loader.set_strength(*job["strength"][:2])
            except StopIteration:
                seen.append("end")
                epoch += 1
        return seen, epoch

    results = {}
    for job in json.load(open(sys.argv[1])):
        module = load(job["module"])
        os.environ.update(RANK=str(job.get("rank", 0)), WORLD_SIZE=str(job.get("ranks", 1)))
        options = dict(batch_size=job["batch"], device="cpu", num_threads=1)
        if job.get("data"):
            options["data"] = job["data"]
        if job.get("arrays"):
            import numpy as np
            images = [np.full((16, 16, 3), i, np.uint8) for i in range(6)]
            loader = module.make_loader((images, list(range(6))), checkpoint=None, **options)
            next(loader)
            said = []
            for attempt in (loader.checkpoint, lambda: module.make_loader(
                (images, list(range(6))), checkpoint=b"{}", **options
            )):
                try:
                    attempt()
                    said.append("no error")
                except (RuntimeError, ValueError) as error:
                    said.append(str(error))
            results[job["name"]] = said
            continue
        if job.get("unresumable"):  # an operator DALI cannot checkpoint (clahe in DALI 2.4)
            loader = module.make_loader(**options)
            batches = [digest(next(loader)[0]) for _ in range(2)]
            said = []
            files = module.read_data(module.DATA)[0]
            given = module.loader_state(b"0", module.reads(files, 0, 1, job["batch"]))
            for attempt in (loader.checkpoint, lambda: module.make_loader(checkpoint=given, **options)):
                try:
                    attempt()
                    said.append("no error")
                except (RuntimeError, ValueError) as error:
                    said.append(str(error))
            results[job["name"]] = {"batches": batches, "said": said}
            continue
        if job.get("other"):  # a checkpoint given to a loader that reads otherwise
            first = module.make_loader(**options)
            next(first)
            saved = first.checkpoint()
            said = []
            for other in job["other"]:
                os.environ.update(RANK=str(other.pop("rank", 0)), WORLD_SIZE=str(other.pop("ranks", 1)))
                try:
                    module.make_loader(checkpoint=other.pop("checkpoint", saved), **{**options, **other})
                    said.append("no error")
                except ValueError as error:
                    said.append(str(error))
            results[job["name"]] = said
            continue
        whole, _ = take(module.make_loader(**options), job["count"], job, 0)
        first = module.make_loader(**options)
        head, epoch = take(first, job["stop"], job, 0)
        saved = first.checkpoint()
        rest, _ = take(
            module.make_loader(checkpoint=saved, **options), job["count"] - job["stop"], job, epoch
        )
        fresh, _ = take(module.make_loader(**options), job["count"] - job["stop"], job, 0)
        results[job["name"]] = {"whole": whole, "resumed": head + rest, "fresh": fresh}
    print(json.dumps(results))
    """
)


def run_jobs(jobs: list[dict[str, Any]], where: Path) -> dict[str, Any]:
    (where / "jobs.json").write_text(json.dumps(jobs))
    script = where / "resume.py"
    script.write_text(RESUME)
    done = subprocess.run(
        [sys.executable, str(script), str(where / "jobs.json")],
        check=True,
        capture_output=True,
        text=True,
        timeout=400,
        cwd=where,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def check_resumed(result: dict[str, list[str]], stop: int) -> None:
    assert result["resumed"] == result["whole"]
    # the check can fail: a new loader without the checkpoint starts over at epoch 0
    assert result["fresh"] != result["whole"][stop:]


def test_a_resumed_loader_goes_on_where_the_first_stopped(tmp_path: Path) -> None:
    module = str(export(preset("basic"), tmp_path / "basic_aug.py"))
    job = {"module": module, "batch": BATCH, "count": 14}
    # mid-epoch; every batch of the epoch taken, its end not yet met (the restored loader opens
    # the next epoch); just after the end; into the second epoch; rank 1 of 2 (FILL)
    stops = {"mid": 2, "last": 5, "after_end": 6, "second": 9}
    jobs = [{**job, "name": name, "stop": stop} for name, stop in stops.items()]
    jobs.append({**job, "name": "rank1", "stop": 4, "rank": 1, "ranks": 2})
    results = run_jobs(jobs, tmp_path)
    assert results["mid"]["whole"][5] == "end"  # five batches an epoch
    for name, stop in {**stops, "rank1": 4}.items():
        check_resumed(results[name], stop)


def test_a_scheduled_loader_resumes_with_its_epoch_and_set_values(tmp_path: Path) -> None:
    module = str(export(ramped(), tmp_path / "ramped_aug.py"))
    job = {"module": module, "batch": BATCH, "count": 14, "set_epoch": True}
    jobs = [
        {**job, "name": "mid_epoch_1", "stop": 8},
        {**job, "name": "at_end", "stop": 6},
        {**job, "name": "last_batch", "stop": 5},  # its end not yet met: the epoch stays 0
        # a probability put in place by set_strength before the stop stays in place after it
        {**job, "name": "strength", "stop": 8, "strength": ["dim.apply", 1.0, 3]},
    ]
    results = run_jobs(jobs, tmp_path)
    for job in jobs:
        check_resumed(results[job["name"]], int(job["stop"]))
    held = results["strength"]["whole"]
    assert held != results["mid_epoch_1"]["whole"]  # the value set changed the batches


def test_a_detection_loader_and_an_arrays_loader(tmp_path: Path) -> None:
    detection = str(export(preset("ssd_detection"), tmp_path / "ssd_aug.py"))
    arrays_spec = preset("random_affine").remove("decode").with_source(Source("source", "arrays"))
    arrays = str(export(arrays_spec, tmp_path / "arrays_aug.py"))
    jobs = [
        {"name": "coco", "module": detection, "batch": 2, "count": 6, "stop": 3},
        {"name": "arrays", "module": arrays, "batch": 2, "arrays": True},
    ]
    results = run_jobs(jobs, tmp_path)
    check_resumed(results["coco"], 3)
    taken, given = results["arrays"]
    assert "in-memory arrays has no checkpoint" in taken and "fix:" in taken
    assert given == taken  # checkpoint=None is taken, anything else refused with the same words


def test_a_checkpoint_is_refused_by_a_loader_that_reads_otherwise(tmp_path: Path) -> None:
    """A rank given rank 0's checkpoint (a script that saves on rank 0 only), another folder or
    batch size: the loader went on silently, with empty batches or another file stream."""
    module = str(export(preset("basic"), tmp_path / "basic_aug.py"))
    other = tmp_path / "other"
    (other / "only").mkdir(parents=True)
    for photo in sorted(samples_dir().rglob("*.jpg"))[:5]:
        (other / "only" / photo.name).write_bytes(photo.read_bytes())
    job = {"name": "other", "module": module, "batch": BATCH}
    job["other"] = [
        {"rank": 1, "ranks": 2},
        {"data": str(other)},
        {"batch_size": 2},
        {"checkpoint": "not a checkpoint"},
    ]
    said = run_jobs([job], tmp_path)["other"]
    assert "shard [id, count] [0, 1] there, [1, 2] here" in said[0]
    assert "the data" in said[1] and "batch_size 4 there, 2 here" in said[2]
    assert all("fix: resume each rank from its own checkpoint" in text for text in said[:3])
    assert "not the checkpoint of an exported loader (fix:" in said[3]


def test_the_module_documents_checkpoint(tmp_path: Path) -> None:
    text = (export(preset("basic"), tmp_path / "doc_aug.py")).read_text()
    assert "checkpoint=None," in text and "`loader.checkpoint()`" in text
    assert text.count("enable_checkpointing=checkpointing") == 1
    assert "pipe = built(pipeline, saved)" in text


def test_a_graph_dali_cannot_checkpoint_still_trains_and_says_why_it_cannot_resume(
    tmp_path: Path,
) -> None:
    """DALI 2.4's clahe has no checkpointing: a pipeline built with it failed at make_loader
    ("Checkpointing is not implemented for this operator"), resumed or not."""
    spec = preset("basic").insert_after(
        "decode",
        Node(
            "clahe",
            "clahe",
            inputs=(Ref("decode"),),
            args={"clip_limit": 2.0, "tiles_x": 8, "tiles_y": 8},
        ),
    )
    module = str(export(spec, tmp_path / "clahe_aug.py"))
    job = {"name": "clahe", "module": module, "batch": BATCH, "unresumable": True}
    result = run_jobs([job], tmp_path)["clahe"]
    assert len(result["batches"]) == 2 and result["batches"][0] != result["batches"][1]
    taken, given = result["said"]
    assert "has no checkpoint" in taken and "nvidia.dali.fn.clahe" in taken and "fix:" in taken
    assert given == taken  # a checkpoint given is refused with the same words


REBUILT = textwrap.dedent(
    """
    import importlib.util, sys, warnings
    spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loader = module.make_loader(batch_size=4, device="cpu", num_threads=1)
    counts = []
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        for epoch in range(2):
            loader.set_epoch(epoch)
            counts.append(sum(1 for _ in loader))
    print(counts)
    print(" | ".join(str(w.message) for w in said if "rebuilt" in str(w.message)))
    """
)


def test_a_scheduled_graph_dali_cannot_checkpoint_is_rebuilt_at_an_epochs_start(
    tmp_path: Path,
) -> None:
    """RandAugment's m, read at build time, changes each epoch: the loader rebuilds its pipeline
    where it stood from DALI's checkpoint, which a graph with clahe has none of. The loader
    stopped at the end of epoch 0 ("this graph's loader has no checkpoint")."""
    spec = magnitude().insert_after(
        "resize",
        Node(
            "clahe",
            "clahe",
            inputs=(Ref("resize"),),
            args={"clip_limit": 2.0, "tiles_x": 4, "tiles_y": 4},
        ),
    )
    module = export(spec, tmp_path / "clahe_magnitude_aug.py")
    script = tmp_path / "rebuilt.py"
    script.write_text(REBUILT)
    done = subprocess.run(
        [sys.executable, str(script), str(module)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    counts, said = done.stdout.strip().splitlines()[-2:]
    assert counts == "[5, 5]"  # 19 samples, batches of 4: both epochs whole
    assert "reader's order and random draws start over" in said
