"""Is DALI worth it for my pipeline? A user's own torchvision or albumentations pipeline in a
PyTorch DataLoader, timed against its port's exported DALI loader on the same images.

The original runs the user's file, so it runs only when the caller allows it (``run_file=True``,
``--run-file``), as any import that runs a file. It runs in a Python of the caller's choosing
(`python`, default this one) through :mod:`.original_runner`, a script that needs only torch,
Pillow and the library: torchvision may import only in another environment than augexplorer's.
The port is the file read without running it (:mod:`augexplorer.port`), exported as a module
(:func:`augexplorer.export.generate`) whose ``make_loader`` is timed as a training script would
use it, on the CPU and, where DALI sees one, on the GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AugExplorerError
from ..port.build import DataSource
from ..port.model import PortResult
from .suite import machine

Progress = Callable[[str], None]

RUNNER = Path(__file__).with_name("original_runner.py")
ORIGINAL = "original DataLoader"
PORTED = "ported DALI loader"
METHOD = (
    "both loaders make one pass over the same image files (the data looped over to the "
    "requested count) in batches of the same size; the original opens each image with Pillow "
    "(RGB) and applies the user's pipeline in a PyTorch DataLoader with one worker per core; "
    "the port runs the exported module's make_loader with one DALI thread per core; the first "
    "batch of each (worker start-up, pipeline build) is not timed; images/s = images after the "
    "first batch / seconds; one run each"
)


class OriginalWouldRun(AugExplorerError):
    """Timing the original means running the user's file, which the caller did not allow."""


class OriginalFailed(AugExplorerError):
    """The original pipeline could not be timed (its library does not import, the file fails)."""


@dataclass(frozen=True)
class AgainstRow:
    name: str
    device: str
    images_per_s: float | None  # None: not measured (see note)
    images: int = 0  # images the loader delivered in its pass
    timed_images: int = 0  # of those, the ones after the first batch
    seconds: float = 0.0
    note: str = ""


@dataclass
class AgainstResult:
    pipeline: str
    file: str
    library: str
    batch_size: int
    images: int
    workers: int
    threads: int
    port_summary: str
    python: str
    versions: dict[str, str] = field(default_factory=dict)
    rows: list[AgainstRow] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)

    @property
    def original(self) -> AgainstRow:
        return next(row for row in self.rows if row.name == ORIGINAL)

    def ratio(self, row: AgainstRow) -> float | None:
        """`row`'s images/s over the original DataLoader's."""
        base = self.original.images_per_s
        if row.images_per_s is None or not base:
            return None
        return row.images_per_s / base

    def table(self) -> str:
        width = max(len(row.name) for row in self.rows)
        lines = [
            f"{self.pipeline} ({self.library}, {self.file}): {self.images} images, batch "
            f"{self.batch_size}, {self.workers} DataLoader workers, {self.threads} DALI threads",
            f"{'loader'.ljust(width)}  device  images  images/s  vs original",
        ]
        for row in self.rows:
            ratio = self.ratio(row)
            count = f"{row.images:6d}" if row.images_per_s else "     -"
            rate = f"{row.images_per_s:8.1f}" if row.images_per_s else "       -"
            shown = f"{ratio:10.2f}x" if ratio is not None else "          -"
            note = f"  ({row.note})" if row.note else ""
            lines.append(f"{row.name.ljust(width)}  {row.device:6}  {count}  {rate}  {shown}{note}")
        versions = ", ".join(f"{name} {version}" for name, version in self.versions.items())
        lines.append(f"original ran in {self.python}" + (f" ({versions})" if versions else ""))
        lines.append(f"port: {self.port_summary}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "augexplorer.bench_against",
            "version": 1,
            "pipeline": self.pipeline,
            "file": self.file,
            "library": self.library,
            "batch_size": self.batch_size,
            "images": self.images,
            "dataloader_workers": self.workers,
            "dali_threads": self.threads,
            "method": METHOD,
            "port": self.port_summary,
            "original_python": self.python,
            "original_versions": self.versions,
            "machine": self.machine,
            "rows": [
                {
                    "name": row.name,
                    "device": row.device,
                    "images_per_s": row.images_per_s,
                    "ratio_to_original": self.ratio(row),
                    "images": row.images,
                    "timed_images": row.timed_images,
                    "seconds": row.seconds,
                    "note": row.note,
                }
                for row in self.rows
            ],
        }

    def save(self, json_path: Path, overwrite: bool = False) -> Path:
        from ..files import atomic_write_text

        text = json.dumps(self.to_json(), indent=2) + "\n"
        return atomic_write_text(json_path, text, overwrite=overwrite)


def bench_against(
    path: str | Path,
    *,
    pipeline: str | None = None,
    params: Mapping[str, Any] | None = None,
    data: str | None = None,
    images: int = 256,
    batch_size: int | None = None,
    workers: int | None = None,
    threads: int | None = None,
    python: str | None = None,
    run_file: bool = False,
    progress: Progress | None = None,
) -> AgainstResult:
    """Time the pipeline of file `path` (`pipeline` names it where the file has several) in a
    PyTorch DataLoader, run by `python` (default: this Python), against its port's exported
    DALI loader, on `images` images of `data` (a folder or a file list; default the bundled
    samples). Running the original runs the file: only with `run_file`."""
    from ..export.importer import what_would_run
    from ..port.door import port_found
    from ..port.reading import choose, file_source, read_source

    path = Path(path)
    where = str(path)
    source = file_source(path)
    found = choose(read_source(source, where=where, params=params), pipeline, where=where)
    if not run_file:
        raise OriginalWouldRun(
            f"timing the original pipeline means running {path}: {what_would_run(source)}, "
            "with your permissions; nothing ran (fix: read the file, and if you trust it, time "
            "it with --run-file, or bench_against(..., run_file=True))"
        )
    say = progress or (lambda _message: None)
    cores = os.cpu_count() or 1
    workers = workers or cores
    threads = threads or cores
    files = _image_files(data, images)
    with tempfile.TemporaryDirectory(prefix="augexplorer-against-") as folder:
        file_list = Path(folder) / "images.txt"
        file_list.write_text("".join(f"{name} 0\n" for name in files), encoding="utf-8")
        ported = port_found(found, data=DataSource("file_list", str(file_list), shuffle=False))
        if batch_size:
            import dataclasses

            ported = dataclasses.replace(
                ported, spec=dataclasses.replace(ported.spec, batch_size=batch_size)
            )
        batch = ported.spec.batch_size
        python = python or sys.executable
        result = AgainstResult(
            pipeline=found.name,
            file=where,
            library=found.library,
            batch_size=batch,
            images=len(files),
            workers=workers,
            threads=threads,
            port_summary=_port_line(ported),
            python=python,
            machine=machine(),
        )
        say(f"{ORIGINAL} ({found.library}, {workers} workers, in {python})")
        original, result.versions = run_original(
            python,
            source=source,
            where=where,
            pipeline=found.name,
            library=found.library,
            files=files,
            batch_size=batch,
            workers=workers,
            scratch=Path(folder),
        )
        result.rows.append(original)
        say(f"    {_rate(original)}")
        result.rows += time_ported(ported, file_list, batch=batch, threads=threads, say=say)
    return result


def _image_files(data: str | None, count: int) -> list[str]:
    """`count` image files of `data` (the bundled samples when None), looped over as needed."""
    from ..data import open_source, source_for_path
    from ..spec import Source

    source = Source("source", "samples") if data is None else source_for_path(data)
    opened = open_source(source)
    if not opened.files:
        raise OriginalFailed(f"{data} holds no images (fix: give a folder or file list of images)")
    return [str(Path(opened.files[i % len(opened.files)]).resolve()) for i in range(count)]


def _port_line(ported: PortResult) -> str:
    """The summary's first line, and what the port leaves out (the DALI loader does less)."""
    line = ported.summary().splitlines()[0]
    if ported.refusals:
        names = ", ".join(refusal.call.name for refusal in ported.refusals)
        line += f"; the DALI loader does not do {names}, so it does less work than the original"
    return line


def run_original(
    python: str,
    *,
    source: str,
    where: str,
    pipeline: str,
    library: str,
    files: Sequence[str],
    batch_size: int,
    workers: int,
    scratch: Path,
) -> tuple[AgainstRow, dict[str, str]]:
    """Run the user's pipeline in a DataLoader in `python` (:mod:`.original_runner`); the row
    and the versions of Python, torch, Pillow and the library it ran with."""
    job = scratch / "job.json"
    out = scratch / "result.json"
    job.write_text(
        json.dumps(
            {
                "source": source,
                "where": where,
                "pipeline": pipeline,
                "library": library,
                "files": list(files),
                "batch_size": batch_size,
                "workers": workers,
            }
        ),
        encoding="utf-8",
    )
    try:
        finished = subprocess.run(
            [python, str(RUNNER), str(job), str(out)], capture_output=True, text=True
        )
    except OSError as error:
        raise OriginalFailed(
            f"cannot start {python}: {error.strerror or error} (fix: give the path of a python "
            "executable with --python PATH)"
        ) from None
    if finished.returncode != 0 or not out.exists():
        lines = (finished.stderr or "").strip().splitlines()
        raise OriginalFailed(
            f"the original pipeline stopped in {python} (exit status {finished.returncode}): "
            f"{lines[-1] if lines else 'no message'}"
        )
    measured = json.loads(out.read_text(encoding="utf-8"))
    if "error" in measured:
        raise OriginalFailed(str(measured["error"]))
    versions = {str(k): str(v) for k, v in measured["versions"].items()}
    label = library if library not in versions else f"{library} {versions[library]}"
    row = _row(
        ORIGINAL,
        "cpu",
        int(measured["images"]),
        int(measured["timed_images"]),
        float(measured["seconds"]),
        note=f"{label}, Pillow RGB images",
    )
    return row, versions


def time_ported(
    ported: PortResult, file_list: Path, *, batch: int, threads: int, say: Progress
) -> list[AgainstRow]:
    """The exported module's make_loader, one pass over `file_list`, on the CPU and (where
    DALI sees one) the GPU."""
    from ..devices import has_gpu
    from ..export import generate

    # a module file, as a training script imports it: DALI's conditionals (apply with a
    # probability) read the pipeline function's source
    name = f"ported_{ported.spec.name or 'pipeline'}"
    module_file = file_list.with_name(f"{name}.py")
    module_file.write_text(generate(ported.spec), encoding="utf-8")
    module = _load_module(name, module_file)
    rows = []
    for device in ("cpu", "gpu"):
        if device == "gpu" and not has_gpu():
            rows.append(AgainstRow(PORTED, device, None, note="not measured: no GPU here"))
            continue
        say(f"{PORTED} ({device}, {threads} threads)")
        loader = module.make_loader(
            str(file_list), batch_size=batch, device=device, num_threads=threads
        )
        images, timed, seconds = _one_pass(loader, module.OUTPUTS[0])
        rows.append(_row(PORTED, device, images, timed, seconds, note="exported make_loader"))
        say(f"    {_rate(rows[-1])}")
    return rows


def _load_module(name: str, path: Path) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None  # a .py file always has both
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # DALI finds the pipeline's source through its module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _one_pass(loader: Any, output: str) -> tuple[int, int, float]:
    """(images, images after the first batch, seconds for those) over one epoch of `loader`."""
    images = timed = 0
    start = 0.0
    for index, batches in enumerate(loader):
        count = sum(len(batch[output]) for batch in batches)
        images += count
        if index == 0:
            start = time.perf_counter()
        else:
            timed += count
    return images, timed, time.perf_counter() - start


def _row(name: str, device: str, images: int, timed: int, seconds: float, note: str) -> AgainstRow:
    if timed <= 0 or seconds <= 0:
        return AgainstRow(
            name, device, None, images, note="not measured: one batch only (fix: more --images)"
        )
    return AgainstRow(name, device, timed / seconds, images, timed, seconds, note)


def _rate(row: AgainstRow) -> str:
    return f"{row.images_per_s:.1f} images/s" if row.images_per_s else row.note
