"""Is DALI worth it for my pipeline? A user's own torchvision or albumentations pipeline in a
PyTorch DataLoader, timed against its port's exported DALI loader on the same images.

The original runs the user's file, so it runs only when the caller allows it (``run_file=True``,
``--run-file``), as any import that runs a file. It runs in a Python of the caller's choosing
(`python`, default this one) through :mod:`.original_runner`, a script that needs only torch,
Pillow and the library: torchvision may import only in another environment than augexplorer's.
The port is the file read without running it (:mod:`augexplorer.port`), exported as a module
(:func:`augexplorer.export.generate`) whose ``make_loader`` is timed as a training script would
use it, on the CPU and, where DALI sees one, on the GPU. With several ``rounds`` the two sides
take turns (:mod:`.against_rounds`), and each row keeps every round's rate beside its median.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import AugExplorerError
from ..port.build import DataSource
from ..port.model import PortResult
from .against_rounds import RUNNER, BatchSizesDiffer, Pass, median_pass
from .suite import machine, too_few_batches

Progress = Callable[[str], None]

__all__ = [
    "METHOD",
    "ORIGINAL",
    "PORTED",
    "RUNNER",
    "AgainstResult",
    "AgainstRow",
    "OriginalFailed",
    "OriginalWouldRun",
    "SizesDiffer",
    "bench_against",
]
ORIGINAL = "original DataLoader"
PORTED = "ported DALI loader"
METHOD = (
    "both loaders make one pass over the same image files (the data looped over to the "
    "requested count) in batches of the same size; the original opens each image with Pillow "
    "(RGB) and applies the user's pipeline in a PyTorch DataLoader with one worker per core; "
    "the port runs the exported module's make_loader with one DALI thread per core; the first "
    "batch of each pass (worker start-up, pipeline build) is not timed; images/s = images "
    "after the first batch / seconds; each loader makes `rounds` passes, the two sides taking "
    "turns (a pass of the original, then one of the port on each device), and the median "
    "pass is kept"
)


class OriginalWouldRun(AugExplorerError):
    """Timing the original means running the user's file, which the caller did not allow."""


class OriginalFailed(AugExplorerError):
    """The original pipeline could not be timed (its library does not import, the file fails)."""


class SizesDiffer(AugExplorerError):
    """The pipeline keeps each image's own size (a detection pipeline's transforms), so its
    port's exported loader, which hands PyTorch each batch as one tensor, cannot batch them."""


# a transform that gives every image one size, by library: the fix a size-keeping pipeline gets
ONE_SIZE = {
    "torchvision": "T.Resize((224, 224)) or T.RandomResizedCrop(224)",
    "albumentations": "A.Resize(224, 224) or A.RandomResizedCrop(size=(224, 224))",
}


@dataclass(frozen=True)
class AgainstRow:
    name: str
    device: str
    images_per_s: float | None  # None: not measured (see note)
    images: int = 0  # images the loader delivered in its pass
    timed_images: int = 0  # of those, the ones after the first batch
    seconds: float = 0.0
    note: str = ""
    # every round's rate, in the order measured: the spread a single median hides
    round_rates: tuple[float, ...] = ()


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
    rounds: int = 1
    versions: dict[str, str] = field(default_factory=dict)
    rows: list[AgainstRow] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=dict)

    @property
    def too_few(self) -> str | None:
        """Why the rates are rough (too few batches timed for the DataLoader's prefetching), or
        None."""
        return too_few_batches(
            math.ceil(self.images / self.batch_size), self.batch_size, self.workers
        )

    @property
    def original(self) -> AgainstRow:
        return next(row for row in self.rows if row.name == ORIGINAL)

    def ratio(self, row: AgainstRow) -> float | None:
        """`row`'s images/s over the original DataLoader's."""
        base = self.original.images_per_s
        if row.images_per_s is None or not base:
            return None
        return row.images_per_s / base

    def spread(self, row: AgainstRow) -> tuple[float, float] | None:
        """`row`'s slowest and fastest round, images/s (None where it was not measured)."""
        return (min(row.round_rates), max(row.round_rates)) if row.round_rates else None

    def table(self) -> str:
        width = max(len(row.name) for row in self.rows)
        of_rounds = f", median of {self.rounds} rounds" if self.rounds > 1 else ""
        spread = "  slowest - fastest" if self.rounds > 1 else ""
        lines = [
            f"{self.pipeline} ({self.library}, {self.file}): {self.images} images, batch "
            f"{self.batch_size}, {self.workers} DataLoader workers, {self.threads} DALI "
            f"threads{of_rounds}",
            f"{'loader'.ljust(width)}  device  images  images/s  vs original{spread}",
        ]
        for row in self.rows:
            ratio = self.ratio(row)
            count = f"{row.images:6d}" if row.images_per_s else "     -"
            rate = f"{row.images_per_s:8.1f}" if row.images_per_s else "       -"
            shown = f"{ratio:10.2f}x" if ratio is not None else "          -"
            low_high = self.spread(row)
            ranged = f"  {low_high[0]:7.1f} - {low_high[1]:7.1f}" if spread and low_high else ""
            note = f"  ({row.note})" if row.note else ""
            lines.append(
                f"{row.name.ljust(width)}  {row.device:6}  {count}  {rate}  {shown}{ranged}{note}"
            )
        versions = ", ".join(f"{name} {version}" for name, version in self.versions.items())
        lines.append(f"original ran in {self.python}" + (f" ({versions})" if versions else ""))
        lines.append(f"port: {self.port_summary}")
        if self.too_few is not None:
            lines.append(f"ROUGH: {self.too_few}")
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
            "too_few_batches": self.too_few,
            "dataloader_workers": self.workers,
            "dali_threads": self.threads,
            "rounds": self.rounds,
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
                    "round_rates": list(row.round_rates),
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
    rounds: int = 1,
    run_file: bool = False,
    progress: Progress | None = None,
) -> AgainstResult:
    """Time the pipeline of file `path` (`pipeline` names it where the file has several) in a
    PyTorch DataLoader, run by `python` (default: this Python), against its port's exported
    DALI loader, on `images` images of `data` (a folder or a file list; default the bundled
    samples), each `rounds` times, taking turns. Running the original runs the file: only with
    `run_file`."""
    from ..export.importer import what_would_run
    from ..port.door import port_found
    from ..port.original_builder import builder_of
    from ..port.reading import choose, file_source, read_source

    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds=... must be a whole number of at least 1, not {rounds!r}")
    path = Path(path)
    where = str(path)
    source = file_source(path)
    found = choose(
        read_source(source, where=where, params=params, origin=path), pipeline, where=where
    )
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
    files = image_files(data, images)
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
        # known from one batch of the port, before the original starts or anything is timed
        sizes = _first_batch_sizes(ported, batch)
        if sizes is not None:
            raise SizesDiffer(_sizes_differ(found.name, found.library, sizes))
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
            rounds=rounds,
            machine=machine(),
        )
        job = {
            "source": source,
            "where": where,
            "pipeline": found.name,
            "params": dict(params or {}),
            "builder": builder_of(source, found.compose.line),
            "library": found.library,
            "files": files,
            "batch_size": batch,
            "workers": workers,
            "rounds": rounds,
        }
        try:
            result.versions, rows = _time_in_turns(job, python, ported, file_list, threads, say)
        except BatchSizesDiffer:  # a later batch than the one tried first mixed sizes
            raise SizesDiffer(_sizes_differ(found.name, found.library, None)) from None
        result.rows += rows
    return result


def _time_in_turns(
    job: dict[str, Any],
    python: str,
    ported: PortResult,
    file_list: Path,
    threads: int,
    say: Progress,
) -> tuple[dict[str, str], list[AgainstRow]]:
    """The original's passes in `python` and the port's on each device, taking turns; the
    versions the original ran with, and the rows."""
    from ..devices import gpu_loader_missing
    from .against_rounds import PortedModule, RunnerFailed, run_original_in_turns

    module = PortedModule(ported, file_list, batch=job["batch_size"], threads=threads)
    # the GPU loader runs where DALI sees a GPU and PyTorch takes its CUDA batches
    gpu_missing = gpu_loader_missing()
    devices = ("cpu", "gpu") if gpu_missing is None else ("cpu",)
    port_passes: dict[str, list[Pass]] = {device: [] for device in devices}
    rounds = job["rounds"]

    def port_round(number: int, original: Pass) -> None:
        say(f"[round {number}/{rounds}] {ORIGINAL}: {_pass_rate(original)}")
        for device in devices:
            port_passes[device].append(module.one_pass(device))
            rate = _pass_rate(port_passes[device][-1])
            say(f"[round {number}/{rounds}] {PORTED} ({device}): {rate}")

    say(
        f"{ORIGINAL} ({job['library']}, {job['workers']} workers, in {python}) and {PORTED} "
        f"({', '.join(devices)}, {threads} threads), {rounds} round(s) in turns"
    )
    try:
        measured = run_original_in_turns(python, job, file_list.parent, port_round)
    except RunnerFailed as failed:
        raise OriginalFailed(str(failed)) from None
    versions = measured.versions
    library = job["library"]
    label = library if library not in versions else f"{library} {versions[library]}"
    rows = [_row(ORIGINAL, "cpu", measured.passes, note=f"{label}, Pillow RGB images")]
    for device in ("cpu", "gpu"):
        if device in port_passes:
            rows.append(_row(PORTED, device, port_passes[device], note="exported make_loader"))
        else:
            rows.append(AgainstRow(PORTED, device, None, note=f"not measured: {gpu_missing}"))
    return versions, rows


def image_files(
    data: str | None, count: int, *, repeat: bool = True, check_all: bool = True
) -> list[str]:
    """`count` image files of `data` (the bundled samples when None), as absolute paths; with
    `repeat`, looped over as needed (a timing wants its count), else at most the ones there
    are. `check_all`: every file's header is read first (:func:`augexplorer.data.open_source`)."""
    from ..data import open_source, source_for_path
    from ..spec import Source

    source = Source("source", "samples") if data is None else source_for_path(data)
    opened = open_source(source, check_all=check_all)
    if not opened.files:
        raise OriginalFailed(f"{data} holds no images (fix: give a folder or file list of images)")
    taken = count if repeat else min(count, len(opened.files))
    return [str(Path(opened.files[i % len(opened.files)]).resolve()) for i in range(taken)]


def _first_batch_sizes(ported: PortResult, batch: int) -> list[str] | None:
    """The sizes of the port's images in the first batch the loader will make (``CHW
    3x480x640``), where they are several; None where they are one, or where the port does not
    run here on the CPU (the timed passes then say why)."""
    from ..engine import Session

    try:
        session = Session(ported.spec, None, batch_size=batch, device_id=None)
        if session.plan.needs_trust:
            return None
        run = session.run()
    except Exception:  # a check only: whatever stops this run, the timed pass meets and says
        return None
    for ref in run.plan.outputs.values():
        layout = run.layout(ref)
        if "H" not in layout or "W" not in layout:
            continue  # labels
        shapes = sorted({tuple(int(n) for n in shape) for shape in run.output(ref).shape()})
        if len(shapes) > 1:
            sizes = ["x".join(map(str, shape)) for shape in shapes]
            return [f"{layout} {sizes[0]}", *sizes[1:]]
    return None


def _sizes_differ(name: str, library: str, sizes: Sequence[str] | None) -> str:
    """Why a size-keeping pipeline cannot be timed against its port's loader, and the fix."""
    shown = ""
    if sizes:
        kept = sizes if len(sizes) <= 4 else [*sizes[:3], f"{len(sizes) - 3} more"]
        shown = f" ({', '.join(kept)})"
    found = f"{len(sizes)} sizes in its first batch{shown}" if sizes else "several sizes in a batch"
    example = ONE_SIZE.get(library, "a resize or crop to one size")
    return (
        f"{name} keeps each image's own size, so its port gives {found}: the exported DALI "
        "loader hands PyTorch each batch as one tensor of one size and cannot batch them, so "
        "there is nothing to time against (fix: end the pipeline with a resize or crop to one "
        f"size, such as {example}, as a classifier's training batches need, and bench that)"
    )


def _port_line(ported: PortResult) -> str:
    """The summary's first line, and what the port leaves out (the DALI loader does less)."""
    line = ported.summary().splitlines()[0]
    if ported.refusals:
        names = ", ".join(refusal.call.name for refusal in ported.refusals)
        line += f"; the DALI loader does not do {names}, so it does less work than the original"
    return line


def _row(name: str, device: str, passes: Sequence[Pass], note: str) -> AgainstRow:
    """The median pass, with every pass's rate; unmeasured where a pass timed no images."""
    middle = median_pass(passes)
    if any(one.images_per_s is None for one in passes):
        return AgainstRow(
            name,
            device,
            None,
            middle.images,
            note="not measured: one batch only (fix: more --images)",
        )
    return AgainstRow(
        name,
        device,
        middle.images_per_s,
        middle.images,
        middle.timed_images,
        middle.seconds,
        note,
        tuple(one.images_per_s or 0.0 for one in passes),
    )


def _pass_rate(one: Pass) -> str:
    rate = one.images_per_s
    return f"{rate:.1f} images/s" if rate else "one batch only: not timed"
