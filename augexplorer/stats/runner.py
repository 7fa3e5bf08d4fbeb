"""Run a graph over many batches and count what it did.

The whole graph runs as one DALI pipeline from :func:`~augexplorer.builder.build_pipeline` (the
calls the exported module makes) that returns every node's output and every draw, so the random
arguments and coin flips draw anew each batch from their recorded seeds, as in training: the same
spec, data and seeds give the same figures. Each batch is reduced to running sums as it arrives
and then dropped; nothing grows with the number of batches.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..builder import build_pipeline
from ..data import SourceData, open_source, source_for_path
from ..engine.ast_threads import no_collection_where_ast_is_shared
from ..engine.dali_builds import engine_build
from ..engine.epoch_padding import padded_by_reader
from ..engine.result import files_read
from ..plan import Plan, Step
from ..schedules import check_epoch
from ..spec import GraphSpec, Node, Random, Ref
from .boxes import BoxCounter
from .draws import DrawHistogram
from .fill import FillStats, fill_reach, fill_share, fill_value, grid_step
from .findings import find_warnings
from .host import HostViews, cpu_views, same_bytes
from .labels import LabelCounts
from .pixels import OutputStats, channel_axis
from .policies import policy_counters
from .provenance import Provenance
from .rates import Rate
from .report import Stats
from .windows import window_counters

Progress = Callable[[int, int], None]

# Ops whose output holds exactly its input's values, only moved: its per-channel counts are its
# input's (a horizontal, vertical or depthwise flip mirrors the pixels, whatever it draws).
VALUE_PRESERVING_OPS = frozenset({"flip"})


class CancelFlag(Protocol):
    """What :func:`collect_stats` polls between batches (a :class:`threading.Event` is one)."""

    def is_set(self) -> bool: ...


def collect_stats(
    graph: Any,
    data: Any = None,
    *,
    batches: int = 16,
    batch_size: int | None = None,
    device_id: int | str | None = "auto",
    num_threads: int | None = None,
    progress: Progress | None = None,
    cancel: CancelFlag | None = None,
    name: str | None = None,
    epoch: int | None = None,
) -> Stats:
    """Statistics of `graph` (a spec, a preset name or a :class:`~augexplorer.Session`) over
    `batches` batches. `data` is a folder, a file list or arrays, as for a session (a session's
    own data is used when it is None). `progress(done, total)` is called after each batch;
    when `cancel.is_set()` the run stops after the current batch and the figures so far come
    back with ``cancelled=True``. `name` titles the figures (default: the graph's name); they
    carry the graph as it ran and the data it read (:attr:`Stats.provenance`). A graph with
    schedules runs at `epoch` (a session's at the epoch it previews, a spec's at 0 when None).
    :func:`~augexplorer.stats.whole.collect_stats_all` counts every image once instead.

    Raises what a run raises: :class:`~augexplorer.errors.GraphInvalid`,
    :class:`~augexplorer.errors.DataError`, :class:`~augexplorer.errors.RunError` (naming the
    node), :class:`~augexplorer.errors.UntrustedCode`.
    """
    if batches < 1:
        raise ValueError("batches must be at least 1")
    # a build may convert code (the Stats tab's thread)
    with no_collection_where_ast_is_shared(), engine_build():
        run = StatsRun.prepare(graph, data, batch_size, device_id, num_threads, epoch)
        run.pipeline.build()
    stats = run.new_stats(name, batches)
    run.count(stats, batches, progress=progress, cancel=cancel)
    return run.finish(stats)


@dataclass
class StatsRun:
    """One statistics pipeline, its sources and what its outputs are counted into."""

    plan: Plan
    arrays: Any
    device: int | None
    batch_size: int
    sources: dict[str, SourceData]
    counter: _Counter
    pipeline: Any
    feeder: _ArrayFeeder

    @classmethod
    def prepare(
        cls,
        graph: Any,
        data: Any,
        batch_size: int | None,
        device_id: int | str | None,
        num_threads: int | None,
        epoch: int | None,
        *,
        rank: int = 0,
        world_size: int | None = None,
        sample: int | None = None,
        sample_seed: int = 0,
    ) -> StatsRun:
        """The pipeline (not yet built) of `graph` on `data`; with a `world_size`, as process
        `rank` of a job of that many runs it (:func:`~augexplorer.engine.ranks.plan_for_rank`:
        its seeds and its shard, as the exported loader reads it); with a `sample`, its first
        source holds only that many images, drawn evenly over the classes
        (:func:`~augexplorer.stats.sample.even_sample`)."""
        from ..engine.ranks import plan_for_rank
        from ..trust import check_trusted

        plan, arrays, device, threads = _plan(graph, data, device_id, num_threads, epoch)
        if plan.needs_trust:
            check_trusted(plan.spec)
        if world_size is not None:
            plan = plan_for_rank(plan, rank, world_size)
        size = batch_size or plan.spec.batch_size
        sources = {
            step.id: open_source(
                step.source, arrays, skip_bad=step.source.skip_bad, batch_size=size
            )
            for step in plan.steps
            if step.role == "source" and step.source is not None
        }
        if sample is not None:
            from .sample import sampled

            first = next(step.id for step in plan.steps if step.id in sources)
            sources[first] = sampled(sources[first], sample, sample_seed)
        if world_size is not None:  # arrays are sharded as the exported ArrayBatches does
            sources = {key: _array_shard(d, rank, world_size) for key, d in sources.items()}
        counter = _Counter(plan, sources, size)
        pipeline = build_pipeline(
            plan,
            sources,
            outputs=counter.refs,
            batch_size=size,
            device_id=device,
            num_threads=threads,
            # readers run a batch ahead while this one is counted; fed arrays are fed one at a
            # time
            prefetch_queue_depth=1 if any(d.kind == "arrays" for d in sources.values()) else 2,
        )
        feeder = _ArrayFeeder(plan, sources, size)
        return cls(plan, arrays, device, size, sources, counter, pipeline, feeder)

    def new_stats(self, name: str | None, requested: int) -> Stats:
        stats = Stats(name or self.plan.spec.name or "graph", self.batch_size, 0, requested)
        stats.provenance = Provenance.of(self.plan.spec, self.arrays)
        stats.data_notes = [note for data in self.sources.values() for note in data.notes()]
        return stats

    def count(
        self,
        stats: Stats,
        batches: int,
        *,
        last_batch: int | None = None,
        progress: Progress | None = None,
        cancel: CancelFlag | None = None,
    ) -> None:
        """Run and count `batches` batches of the built pipeline into `stats`; of the last,
        only its first `last_batch` samples when given (the rest are the next epoch's)."""
        start = time.perf_counter()
        index = 0
        padding = 0
        try:
            for index in range(batches):
                if cancel is not None and cancel.is_set():
                    stats.cancelled = True
                    break
                self.feeder.feed(self.pipeline)
                keep = last_batch if index == batches - 1 else None
                if last_batch is None:
                    keep = self._unpadded(index)
                    padding += 0 if keep is None else self.batch_size - keep
                outputs = self.pipeline.run()
                if keep != 0:
                    self.counter.add(outputs, keep)
                stats.batches = index + 1
                if stats.counted is not None:  # a whole-dataset run counts its samples
                    stats.counted += self.batch_size if keep is None else keep
                elif padding:
                    stats.counted = stats.batches * self.batch_size - padding
                if progress is not None:
                    progress(index + 1, batches)
        except Exception as error:
            raise _run_error(self.plan, self.arrays, self.device, error, index) from None
        stats.seconds = time.perf_counter() - start

    @functools.cached_property
    def _read(self) -> tuple[int, dict[str, Any]] | None:
        """How many files the first source's reader reads, and its arguments (once: a COCO
        source counts the images it keeps); None for in-memory arrays, fed without padding
        (:class:`_ArrayFeeder`)."""
        step = next((s for s in self.plan.steps if s.role == "source" and s.source), None)
        if step is None or step.id not in self.sources:
            return None
        return files_read(step, self.sources[step.id])

    def _unpadded(self, index: int) -> int | None:
        """How many samples of batch `index` come before the reader's padding (repeats of its
        last file at an epoch's end, which training's loader drops on one rank); None for a
        batch with none."""
        if self._read is None:
            return None
        padded = padded_by_reader(*self._read, self.batch_size, index)
        return padded.index(True) if any(padded) else None

    def finish(self, stats: Stats) -> Stats:
        """`stats` with the counts filled in and the warnings found."""
        self.counter.fill_in(stats)
        stats.warnings = find_warnings(stats, self.plan)
        return stats


def _array_shard(data: SourceData, rank: int, world_size: int) -> SourceData:
    """Process `rank`'s contiguous part of an array source, as the exported ArrayBatches."""
    if data.kind != "arrays":
        return data
    count = len(data.arrays)
    start, stop = count * rank // world_size, count * (rank + 1) // world_size
    return dataclasses.replace(
        data, arrays=data.arrays[start:stop], labels=tuple(data.labels)[start:stop]
    )


def _plan(
    graph: Any, data: Any, device_id: int | str | None, num_threads: int | None, epoch: int | None
) -> tuple[Plan, Any, int | None, int]:
    from ..catalog import load_catalog
    from ..devices import default_device_id
    from ..engine import Session
    from ..engine.session import default_threads
    from ..presets import preset
    from ..validate import validate

    if isinstance(data, os.PathLike):
        data = os.fspath(data)  # a folder or file list given as a Path, as a Session takes it
    if isinstance(graph, Session):
        arrays = graph.arrays if data is None or isinstance(data, str) else data
        plan = graph.plan
        if epoch is not None or isinstance(data, str):
            ran = graph.plan.spec
            if isinstance(data, str):
                ran = ran.with_data(source_for_path(data))
            at = graph.epoch if epoch is None else check_epoch(ran, epoch)
            plan = validate(ran, graph.catalog, epoch=at)
        return plan, arrays, graph.device_id, num_threads or graph.num_threads
    spec: GraphSpec = preset(graph) if isinstance(graph, str) else graph
    device = default_device_id() if device_id == "auto" else device_id
    if not (device is None or isinstance(device, int)):
        raise ValueError(
            f"device_id must be 'auto', None (CPU only) or a GPU index, not {device!r}"
        )
    arrays = None
    if isinstance(data, str):
        spec = spec.with_data(source_for_path(data))
    else:
        arrays = data
    if epoch is not None:
        check_epoch(spec, epoch)
    plan = validate(spec, load_catalog(gpu=device is not None), epoch=epoch or 0)
    _say_where_gpu_nodes_run(plan)
    return plan, arrays, device, num_threads or default_threads()


def _say_where_gpu_nodes_run(plan: Plan) -> None:
    """As a Session does: a graph written for a GPU runs on the CPU here, said once."""
    import warnings

    from ..checks.devices import gpu_stand_ins, stand_in_note
    from ..devices import GpuNodesOnCpu

    stand_ins = gpu_stand_ins(plan)
    if stand_ins:
        warnings.warn(GpuNodesOnCpu(stand_in_note(stand_ins)), stacklevel=4)


def _run_error(
    plan: Plan, arrays: Any, device: int | None, error: Exception, index: int
) -> Exception:
    """The error of a failed statistics run on batch `index` (from 0), naming the node: the
    graph's first batch is run through the live engine, which names the node and the files at
    fault; a later batch's failure is named from DALI's message, with the batch."""
    from ..engine import Session
    from ..engine.dali_errors import explained_run_error
    from ..engine.runners import clean_dali_message, failed_step, suggest_fix
    from ..errors import AugExplorerError, RunError

    if isinstance(error, AugExplorerError):
        return error
    try:
        Session(plan.spec, arrays, device_id=device).run()
    except AugExplorerError as named:
        return named
    message = clean_dali_message(str(error))
    step = failed_step(plan.steps, str(error))
    fix = suggest_fix(message, batch_size=plan.spec.batch_size)
    # the node's arguments, said in our words as the live engine says them (DALI's text beside)
    ours = explained_run_error(step, message, fix=fix, files=[]) if step is not None else None
    return RunError(
        step.origin if step is not None else plan.outputs[next(iter(plan.outputs))].node,
        f"on batch {index + 1} of the statistics run: {message}" if index else message,
        fix=ours.fix if ours is not None else fix,
        argument=ours.argument if ours is not None else None,
        explanation=ours.explanation if ours is not None else None,
    )


def host_views(batch: Any) -> HostViews:
    """One array per sample, viewing the pipeline's own output memory (no copy on the CPU);
    valid until the pipeline runs again, which is after the batch has been counted."""
    from nvidia.dali.backend import TensorListCPU

    if not isinstance(batch, TensorListCPU):  # a GPU batch: views of its host copy
        batch = batch.as_cpu()
    return cpu_views(batch)


class _ArrayFeeder:
    """Feeds in-memory array sources batch after batch, wrapping around: epochs one after the
    other without the padding that fills an epoch's last batch in the explorer and the exported
    loader (which drops it on one rank), so that counting many batches of a few arrays counts
    each as often as training sees it."""

    def __init__(self, plan: Plan, sources: Mapping[str, SourceData], batch_size: int) -> None:
        self.sources = {key: data for key, data in sources.items() if data.kind == "arrays"}
        self.positions = dict.fromkeys(self.sources, 0)
        self.batch_size = batch_size

    def feed(self, pipeline: Any) -> None:
        for step_id, data in self.sources.items():
            count = len(data.arrays)
            start = self.positions[step_id]
            indices = [(start + i) % count for i in range(self.batch_size)]
            self.positions[step_id] = (start + self.batch_size) % count
            pipeline.feed_input(f"{step_id}_images", [data.arrays[i] for i in indices])
            labels = [np.array([data.labels[i]], dtype=np.int32) for i in indices]
            pipeline.feed_input(f"{step_id}_labels", labels)


class _Counter:
    """Which outputs the statistics pipeline returns, and what each is counted into."""

    def __init__(self, plan: Plan, sources: Mapping[str, SourceData], batch_size: int) -> None:
        self.plan = plan
        self.refs: list[Ref] = []
        self.draws: dict[str, DrawHistogram] = {}
        self.coin_args: dict[str, Rate] = {}
        self.applied: dict[str, Rate] = {}
        self.nested: dict[str, Rate] = {}
        self.outputs: dict[str, OutputStats] = {}
        self.same_values: dict[str, str] = {}  # output -> the input whose values it reorders
        self.first_inputs: dict[str, str] = {}  # output -> its first input, where counted too
        self.fills: dict[str, tuple[FillStats, Step]] = {}
        self.fill_reaches: dict[str, Step] = {}  # filling step -> where its fill is passed on
        self.labels: dict[str, LabelCounts] = {}
        for step in plan.steps:
            if step.apply is not None:
                self._conditional(step, step.apply)
            if step.role == "random":
                self._random(step)
            elif step.role in ("apply", "when"):
                pass  # counted per node that reads it (above)
            elif step.role == "source":
                data = sources.get(step.id)
                labels = Ref(step.id, step.source.labels_output if step.source else 1)
                self.labels[step.id] = LabelCounts(step.id, data, labels)
                self.refs.append(labels)
                if data is not None and data.kind == "arrays":
                    self._output(step, 0)
            else:
                for index in range(step.output_count):
                    self._output(step, index)
                value = fill_value(step)
                if value is not None and step.inputs:
                    fill = FillStats(step.origin, step.op, value)
                    self.fills[step.id] = (fill, step)
                    reach = fill_reach(plan, step)
                    if reach is not None:
                        fill.reaches = reach.origin
                        self.fill_reaches[step.id] = reach
        self._nested()
        # boxes in, out and clipped at each geometric node of an annotated graph
        self.boxes = BoxCounter(plan.spec)
        self.refs += [ref for ref in self.boxes.refs if ref not in self.refs]
        # the crop windows random crops drew, where DALI lets them be known
        self.windows = window_counters(plan, batch_size)
        self.refs += [ref for w in self.windows for ref in w.refs if ref not in self.refs]
        # what auto_aug policies chose, where DALI's policy run again gives the same pixels
        self.policies = policy_counters(plan, batch_size)
        self.refs += [ref for p in self.policies for ref in p.refs if ref not in self.refs]

    def _conditional(self, step: Step, predicate: Ref) -> None:
        """A node that runs only on some samples: apply-with-probability (its declared rate is
        the probability) or a condition on other nodes (no declared rate)."""
        made_by = self.plan.step(predicate.node)
        if made_by.role == "apply":
            p = float(made_by.args.get("probability", 0.5))
            rate = Rate(f"{step.origin} applied", step.origin, "probability", p)
        else:
            node = self.plan.spec.node(step.origin)
            condition = node.describe_condition() if isinstance(node, Node) else str(predicate)
            rate = Rate(f"{step.origin} ran ({condition})", step.origin, "when", None)
        self.applied[step.id] = rate
        if predicate not in self.refs:
            self.refs.append(predicate)

    def _random(self, step: Step) -> None:
        node = self.plan.spec.node(step.origin)
        declared = node.args.get(str(step.bound_arg)) if isinstance(node, Node) else None
        if not isinstance(declared, Random):
            return
        argument = str(step.bound_arg)
        self.draws[step.id] = DrawHistogram.for_random(step.origin, argument, declared)
        if declared.dist == "coin_flip":
            what = f"{step.origin}.{argument} = 1"
            self.coin_args[step.id] = Rate(what, step.origin, argument, declared.probability)
        self.refs.append(Ref(step.id))

    def _output(self, step: Step, index: int) -> None:
        ref = Ref(step.id, index)
        op = step.op if step.role != "source" else "source"
        self.outputs[str(ref)] = OutputStats(str(ref), step.origin, op)
        self.refs.append(ref)
        if step.inputs and str(step.inputs[0]) in self.outputs:
            input_ref = str(step.inputs[0])
            if op in VALUE_PRESERVING_OPS:
                self.same_values[str(ref)] = input_ref
            else:
                self.first_inputs[str(ref)] = input_ref

    def _nested(self) -> None:
        """A conditional node after other conditional nodes: count how often all of them ran."""
        for step_id, rate_alone in self.applied.items():
            before = [a for a in self.plan.ancestors(step_id) if a in self.applied]
            if not before:
                continue
            rates = [rate_alone.expected, *(self.applied[a].expected for a in before)]
            expected = math.prod(r for r in rates if r is not None) if None not in rates else None
            origin = self.plan.step(step_id).origin
            together = tuple(self.plan.step(a).origin for a in before)
            what = f"{origin} applied with {' and '.join(together)}"
            argument = "probability" if expected is not None else "when"
            rate = Rate(what, origin, argument, expected, together_with=together)
            self.nested[step_id] = rate

    def _predicate(self, step_id: str) -> Ref:
        predicate = self.plan.step(step_id).apply
        assert predicate is not None  # only conditional steps are in self.applied
        return predicate

    def add(self, outputs: tuple[Any, ...], keep: int | None = None) -> None:
        """Count one batch of the pipeline's outputs: its first `keep` samples when given."""
        batch = dict(zip((str(r) for r in self.refs), outputs, strict=True))
        hosts: dict[str, HostViews] = {}

        def host(ref: str) -> HostViews:
            if ref not in hosts:
                hosts[ref] = host_views(batch[ref]).first(keep)
            return hosts[ref]

        for step_id, draw in self.draws.items():
            values = np.stack([np.asarray(v).reshape(-1) for v in host(step_id)])
            draw.add(values)
            if step_id in self.coin_args:
                self.coin_args[step_id].add(int(np.count_nonzero(values)), values.shape[0])
        flags = {
            step_id: np.array(
                [bool(np.asarray(v).reshape(-1)[0]) for v in host(str(self._predicate(step_id)))]
            )
            for step_id in self.applied
        }
        for step_id, rate in self.applied.items():
            rate.add(int(flags[step_id].sum()), flags[step_id].size)
        for step_id, rate in self.nested.items():
            together = flags[step_id].copy()
            for other in self.plan.ancestors(step_id):
                if other in flags:
                    together &= flags[other]
            rate.add(int(together.sum()), together.size)
        counted: dict[str, np.ndarray | None] = {}
        for ref, output in self.outputs.items():  # in graph order: a node's input comes first
            same = counted.get(self.same_values.get(ref, ""))
            input_ref = self.first_inputs.get(ref)
            if same is None and input_ref is not None and counted.get(input_ref) is not None:
                # an output equal to its input byte for byte (a brightness of 1, a crop of the
                # whole image) has its input's counts; comparing costs far less than counting
                same = counted[input_ref] if same_bytes(host(ref), host(input_ref)) else None
            counted[ref] = output.add_batch(host(ref), str(batch[ref].layout() or ""), same)
        for step_id, (fill, step) in self.fills.items():
            # what the step transformed (for the first step of an else, its block's input);
            # an output inside a block holds only some samples: no sample-by-sample pairs
            source_ref = str(self.plan.first_input(step))
            if source_ref not in batch or len(batch[source_ref]) != len(batch[step_id]):
                continue
            out_layout = str(batch[step_id].layout() or "")
            in_layout = str(batch[source_ref].layout() or "")
            reach = self.fill_reaches.get(step_id)
            passed: list[np.ndarray | None] = [None] * len(host(step_id))
            passed_layout = ""
            if reach is not None and len(batch[reach.id]) == len(batch[step_id]):
                passed = list(host(reach.id))
                passed_layout = str(batch[reach.id].layout() or "")
            for made, read, kept in zip(host(step_id), host(source_ref), passed, strict=True):
                made_axis = channel_axis(out_layout, made.ndim)
                read_axis = channel_axis(in_layout, read.ndim)
                after = fill_share(made, made_axis, fill.value, step=grid_step(made, made_axis))
                before = fill_share(read, read_axis, fill.value, step=grid_step(read, read_axis))
                fill.add(max(0.0, after - before))
                if kept is not None:
                    # the photo's own pixels of the fill's value, as where it was made
                    kept_axis = channel_axis(passed_layout, kept.ndim)
                    there = fill_share(kept, kept_axis, fill.value, step=grid_step(kept, kept_axis))
                    fill.add_reached(max(0.0, there - before))
        for counts in self.labels.values():
            counts.add(host(str(counts.ref)))
        self.boxes.add(host)
        for windows in self.windows:
            windows.add(host)
        for policy in self.policies:
            policy.add(host)

    def fill_in(self, stats: Stats) -> None:
        stats.draws = list(self.draws.values())
        stats.rates = [*self.applied.values(), *self.nested.values(), *self.coin_args.values()]
        stats.outputs = list(self.outputs.values())
        stats.fills = [fill for fill, _ in self.fills.values()]
        stats.labels = list(self.labels.values())
        stats.boxes = self.boxes.flows
        stats.windows = [w.stats for w in self.windows]
        stats.policies = [p.stats for p in self.policies]
