"""Runs exported modules in one fresh process (no augexplorer imported there) and returns what
their pipelines produced: shared by the export tests."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

RUNNER = textwrap.dedent(
    """
    import importlib.util, json, sys
    import numpy as np

    for job in json.load(open(sys.argv[1])):
        spec = importlib.util.spec_from_file_location("exported", job["module"])
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert "augexplorer" not in sys.modules, "the exported module imported augexplorer"
        pipeline = next(v for v in vars(module).values() if getattr(v, "_is_pipeline_def", 0))
        device_id = 0 if job["device"] == "gpu" else None
        options = dict(batch_size=job["batch_size"], num_threads=2, device_id=device_id)
        if job.get("arrays"):
            stored = np.load(job["arrays"])
            data = ([stored[f"image_{i}"] for i in range(len(stored.files) - 1)], stored["labels"])
            batches = module.ArrayBatches(*data, job["batch_size"])
            pipe = pipeline(batches, device=job["device"], **options)
        elif hasattr(module, "ANNOTATIONS_FILE"):  # a COCO source: the module's own data
            pipe = pipeline(device=job["device"], **options)
        elif hasattr(module, "READERS"):  # several readers: each one's data by its name
            data = job.get("data") or module.DATA
            files, labels = module.read_readers(data)
            pipe = pipeline(files, labels, device=job["device"], **options)
        else:
            data = job.get("data") or module.DATA
            files, labels, _ = module.read_data(data)
            pipe = pipeline(files, labels, device=job["device"], **options)
        pipe.build()
        saved = {}
        for run in range(job.get("runs", 1)):
            prefix = f"run{run}_" if run else ""
            for index, batch in enumerate(pipe.run()):
                batch = batch.as_cpu() if hasattr(batch, "as_cpu") else batch
                for sample in range(len(batch)):
                    saved[f"{prefix}{index}_{sample}"] = np.array(batch.at(sample))
        if job.get("loader") and hasattr(module, "ANNOTATIONS_FILE"):
            # every tensor of the first batches, and each sample's targets
            loader = module.make_loader(batch_size=job["batch_size"], device=job["device"])
            for run in range(job.get("runs", 1)):
                for key, value in next(loader)[0].items():
                    if key != "targets":
                        saved[f"loader{run}_{key}"] = value.cpu().numpy()
                        continue
                    for sample, target in enumerate(value):
                        for name, tensor in target.items():
                            saved[f"loader{run}_targets_{sample}_{name}"] = tensor.cpu().numpy()
        elif job.get("loader"):
            loader = module.make_loader(data, batch_size=job["batch_size"], device=job["device"])
            first = next(loader)[0]
            if "labels" in first:
                saved["loader_labels"] = first["labels"].cpu().numpy()
        np.savez(job["out"], **saved)
    """
)


def run_exported(
    jobs: list[dict[str, Any]], tmp: Path, *, runner: str = RUNNER, timeout: int = 240
) -> dict[str, dict[str, np.ndarray]]:
    """Run every job's module in one fresh process; each job's outputs by its name.

    A job: name, module (path), out (.npz path), batch_size, device ("cpu"/"gpu"), and optionally
    arrays (.npz of an arrays source), data (a folder or list instead of the module's DATA),
    runs (batches to run, default 1; batch 2 and on are keyed `run1_...`) and loader (also take
    the first batch of make_loader, keeping its labels as `loader_labels`; for a module that
    reads COCO, `runs` batches of it, every tensor as `loader{run}_{key}` and each sample's
    targets as `loader{run}_targets_{sample}_{name}`).
    """
    (tmp / "jobs.json").write_text(json.dumps(jobs))
    (tmp / "runner.py").write_text(runner)
    subprocess.run(
        [sys.executable, str(tmp / "runner.py"), str(tmp / "jobs.json")],
        check=True,
        cwd=tmp,
        timeout=timeout,
    )
    return {job["name"]: dict(np.load(job["out"])) for job in jobs}


def exported_module(spec: Any, tmp_path: Path, name: str) -> Any:
    """`spec` exported to `tmp_path`/`name`.py and imported in this process, as a training
    script imports it."""
    import importlib.util

    from augexplorer.export import export

    path = export(spec, tmp_path / f"{name}.py")
    loaded = importlib.util.spec_from_file_location(name, path)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module
