"""The two sides of `bench_against`, timed in turns: the user's pipeline in a DataLoader in
another Python (:mod:`.original_runner`, one pass a round), and the port's exported module in
this one, each of its rounds run while the original waits for its next.

Taking turns, rather than all of one side and then all of the other, puts a slow spell of a
shared machine on both sides alike; the spread of the rounds shows how large such spells were.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..port.model import PortResult
from .module_file import load_module

RUNNER = Path(__file__).with_name("original_runner.py")
ROUND_LINE = re.compile(r"round (\d+) (\{.*\})\s*$")  # the runner's word after each pass


@dataclass(frozen=True)
class Pass:
    """One pass of a loader over the files: images delivered, those after the first batch (the
    first is not timed: worker start-up, pipeline build) and the seconds they took."""

    images: int
    timed_images: int
    seconds: float

    @property
    def images_per_s(self) -> float | None:
        return self.timed_images / self.seconds if self.timed_images and self.seconds else None


@dataclass(frozen=True)
class OriginalRun:
    passes: list[Pass]
    versions: dict[str, str]


class RunnerFailed(Exception):
    """The runner did not give figures; the message is its last word (or why it did not start)."""


class BatchSizesDiffer(Exception):
    """The exported loader met a batch whose images differ in size: PyTorch takes a batch as
    one tensor. The caller words it for the user's pipeline."""


def run_original_in_turns(
    python: str, job: dict[str, Any], scratch: Path, between: Callable[[int, Pass], None]
) -> OriginalRun:
    """Run `job` (see :mod:`.original_runner`) in `python`; after each of its passes, call
    `between(round, the pass)` while the runner waits, then let it go on."""
    job_file, out, log = scratch / "job.json", scratch / "result.json", scratch / "runner.log"
    job_file.write_text(json.dumps(job), encoding="utf-8")
    with log.open("w", encoding="utf-8") as errors:  # a file: a chatty pipeline cannot block it
        try:
            process = subprocess.Popen(
                [python, str(RUNNER), str(job_file), str(out)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
            )
        except OSError as error:
            raise RunnerFailed(
                f"cannot start {python}: {error.strerror or error} (fix: give the path of a "
                "python executable with --python PATH)"
            ) from None
        with process:  # closes the pipes
            try:
                _take_turns(process, between)
                returncode = process.wait()
            finally:
                if process.poll() is None:  # the caller's side failed or was interrupted
                    process.kill()
                    process.wait()
    if returncode != 0 or not out.exists():
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        raise RunnerFailed(
            f"the original pipeline stopped in {python} (exit status {returncode}): "
            f"{lines[-1] if lines else 'no message'}"
        )
    measured = json.loads(out.read_text(encoding="utf-8"))
    if "error" in measured:
        raise RunnerFailed(str(measured["error"]))
    return OriginalRun(
        [_pass(figures) for figures in measured["rounds"]],
        {str(k): str(v) for k, v in measured["versions"].items()},
    )


def _take_turns(process: subprocess.Popen[str], between: Callable[[int, Pass], None]) -> None:
    assert process.stdout is not None and process.stdin is not None  # both are pipes
    while line := process.stdout.readline():
        # searched, not matched at the start: a library's own unfinished print to the file
        # descriptor may precede the runner's line, and missing it would leave both waiting
        said = ROUND_LINE.search(line)
        if said is None:
            continue
        between(int(said.group(1)), _pass(json.loads(said.group(2))))
        try:
            process.stdin.write("\n")
            process.stdin.flush()
        except BrokenPipeError:  # the runner is gone: its exit status says why
            return


def _pass(figures: dict[str, Any]) -> Pass:
    return Pass(int(figures["images"]), int(figures["timed_images"]), float(figures["seconds"]))


class PortedModule:
    """The port exported as a module file and imported as a training script imports it (DALI's
    conditionals read the pipeline function's source); `one_pass` times its `make_loader`."""

    def __init__(self, ported: PortResult, file_list: Path, *, batch: int, threads: int) -> None:
        from ..export import generate

        name = f"ported_{ported.spec.name or 'pipeline'}"
        module_file = file_list.with_name(f"{name}.py")
        module_file.write_text(generate(ported.spec), encoding="utf-8")
        self.module = load_module(name, module_file)
        self.file_list = file_list
        self.batch = batch
        self.threads = threads

    def one_pass(self, device: str) -> Pass:
        """A fresh loader (its build inside the untimed first batch), one epoch."""
        try:
            loader = self.module.make_loader(
                str(self.file_list), batch_size=self.batch, device=device, num_threads=self.threads
            )
            return _one_pass(loader, self.module.OUTPUTS[0])
        except RuntimeError as error:
            if not sizes_differ(error):
                raise
            raise BatchSizesDiffer(str(error)) from None


def sizes_differ(error: BaseException) -> bool:
    """Whether `error` is the exported loader's (or DALI's own) for a batch of images of
    several sizes."""
    said = str(error)
    # the first is the exported module's wording (export/template.py), the second DALI's
    return "differ in shape within this batch" in said or "IsDenseTensor" in said


def _one_pass(loader: Any, output: str) -> Pass:
    images = timed = 0
    start = 0.0
    for index, batches in enumerate(loader):
        count = sum(len(batch[output]) for batch in batches)
        images += count
        if index == 0:
            start = time.perf_counter()
        else:
            timed += count
    return Pass(images, timed, time.perf_counter() - start)


def median_pass(passes: Sequence[Pass]) -> Pass:
    """The pass of median rate (the upper middle one for an even count), as `run_bench` keeps."""
    return sorted(passes, key=lambda p: p.images_per_s or 0.0)[len(passes) // 2]
