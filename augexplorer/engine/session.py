"""The live engine: a session over one batch that re-runs only what an edit touches.

Every step's outputs are cached under a key that covers the step itself and, recursively, every
step it reads (a Merkle key). After an edit, a step whose key is unchanged is served from the
cache; everything else re-runs, in dependency order. A result is therefore never stale: any change
upstream changes the key.

Random steps start from their seeds on each run (a copy of their pipeline as first built, loaded
from DALI's serialized form), so with the same seeds they draw the same values: an edit shows
only its own effect ("seed locked"). :meth:`Session.reroll` and
:meth:`Session.next_batch` are the explicit ways to see new draws or new images. On a later batch
the random steps' outputs are those the training pipeline draws there
(:mod:`~augexplorer.engine.training_draws`).
"""

from __future__ import annotations

import dataclasses
import os
import random as _random
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from ..batch_memory import check_batch_memory
from ..blocks import Block, in_unpaired_branches, samples
from ..catalog import Catalog, load_catalog
from ..data import SourceData, bad_files_error, open_source, source_for_path
from ..devices import GpuNodesOnCpu, default_device_id
from ..errors import AugExplorerError, DataError, GraphInvalid, RunError
from ..evolve import evolve
from ..plan import Plan, Step
from ..schedules import as_written, check_epoch, epoch_count
from ..spec import ArgValue, GraphSpec, Node, Probability, Source
from ..trust import check_trusted, trust_graph, untrusted_nodes
from ..validate import validate, validate_constant_edit
from .dali_errors import explained_run_error
from .ported_errors import in_library_words
from .ranks import check_rank, plan_for_rank
from .result import RunResult, StepResult, to_host
from .runners import (
    SourceRunner,
    StepGroupRunner,
    StepRunner,
    clean_dali_message,
    failed_step,
    share_structure,
    structure_key,
    suggest_fix,
)
from .training_draws import TrainingDraws, replay_key, replayed_steps


@dataclass
class _Cached:
    key: Any
    outputs: list[Any]
    time_ms: float
    # the result handed out from the cache, re-used while the plan keeps the same step object
    hit: StepResult | None = None
    samples: tuple[int, ...] | None = None  # see StepResult.samples


MAX_RUNNERS = 64  # built step pipelines kept for re-use
Runner = TypeVar("Runner", StepRunner, StepGroupRunner)


def _is_random(step: Step) -> bool:
    return step.role in ("random", "apply") or bool(step.info and step.info.random)


def default_threads() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


_UNSET = object()  # an argument a node does not set


def _paths_in(message: str, files: Sequence[str]) -> list[str]:
    """The files of `files` a DALI message names ("File mapping failed: /data/a.jpg")."""
    words = {word.strip(".,;:'\"()[]") for word in message.split() if os.sep in word}
    return [word for word in words if word in files]


def requested_graph(
    spec: GraphSpec | str | os.PathLike[str] | None,
    data: Any = None,
    batch_size: int | None = None,
) -> GraphSpec:
    """The graph ``Session(spec, data, batch_size=...)`` opens, before it is checked: the basic
    preset for None, a preset's name or a graph file read, reading the folder or file list
    `data` names at the batch size given."""
    from ..presets import graph_named, preset

    if spec is None:
        spec = preset("basic")
    elif not isinstance(spec, GraphSpec):  # a preset's name or a graph file
        spec = graph_named(spec)
    if batch_size is not None:
        spec = dataclasses.replace(spec, batch_size=batch_size)
    if isinstance(data, (str, os.PathLike)):
        spec = spec.with_data(source_for_path(str(data)))
    return spec


# The fix of a type change inside an if/elif/else the explorer runs node by node (an if/else
# on one value, or a chain under one condition, it runs as DALI does: augexplorer.blocks).
UNPAIRED_BRANCHES = (
    "the explorer runs an if/elif/else, or an if/else inside another branch, node by node, so "
    "each node of it must give back its input's type and number of dimensions where it ends; "
    "DALI runs the code as written, and so does a module exported from this graph: keep the "
    "type inside the branches and change it (fn.cast, crop_mirror_normalize) after them, on "
    "every sample"
)


class Session:
    """A graph, a data source and the cached outputs of its last run.

    ``Session(spec)`` opens the graph's data and checks it; :meth:`run` runs what changed.
    Edits (:meth:`update`, :meth:`set_arg`, ...) validate first: an invalid graph raises
    :class:`~augexplorer.errors.GraphInvalid` and the last good result stays in :attr:`result`,
    while :attr:`spec` keeps the user's graph so nothing typed is lost.
    """

    def __init__(
        self,
        spec: GraphSpec | str | os.PathLike[str] | None = None,
        data: Any = None,
        *,
        batch_size: int | None = None,
        device_id: int | str | None = "auto",
        num_threads: int | None = None,
        catalog: Catalog | None = None,
        rank: int = 0,
        world_size: int | None = None,
    ) -> None:
        spec = requested_graph(spec, data, batch_size)
        self.device_id: int | None = (
            default_device_id() if device_id == "auto" else _device_id(device_id)
        )
        # device_id=None means "CPU only", even on a machine with a GPU: place nodes accordingly,
        # also when the catalog passed is the machine's GPU one (its placement would need a GPU).
        if catalog is None or (catalog.gpu and self.device_id is None):
            catalog = load_catalog(gpu=self.device_id is not None)
        self.catalog = catalog
        self.num_threads = num_threads or default_threads()
        self.arrays = data if not isinstance(data, (str, os.PathLike)) else None
        self.spec = spec
        # the torchrun process previewed (engine.ranks): rank 0 draws the graph's own values
        self.rank, self.world_size = check_rank(rank, world_size)
        # the epoch previewed: a graph's schedules are read at it (augexplorer.schedules)
        self.epoch = 0
        self.plan: Plan = self._validate(spec)
        self._validated_spec = spec  # the user's spec that self.plan was validated from
        self._said_on_cpu: set[str] = set()  # GPU nodes already said to run on the CPU here
        self._say_where_gpu_nodes_run(self.plan)
        self.result: RunResult | None = None  # the last good result
        self.batch_index = 0
        self._data: dict[str, SourceData] = {}
        self._source_runners: dict[str, SourceRunner] = {}
        self._source_batches: dict[str, _Cached] = {}
        # bumped whenever the data behind a source may have changed though its spec did not
        # (new arrays, a folder picked again): part of the sources' keys
        self._data_generation = 0
        self._runners: OrderedDict[tuple[Any, ...], StepRunner | StepGroupRunner] = OrderedDict()
        # A random step's (or block's, by its last step) pipeline as first built, under its key:
        # one per step, so new seeds replace the last ones' rather than pile up.
        self._built_random: dict[str, tuple[tuple[Any, ...], Any]] = {}
        self._cache: dict[str, _Cached] = {}
        self._replay: TrainingDraws | None = None
        self._replayed_for: Plan | None = None
        self._replayed_steps: dict[str, Step] = {}
        self._rng = _random.Random(spec.seed)
        self.listeners: list[Callable[[RunResult], None]] = []
        self._open_sources(self.plan)

    @property
    def checked_spec(self) -> GraphSpec:
        """The user's graph as it last validated: what :attr:`plan` runs. It differs from
        :attr:`spec` while an edit is refused."""
        return self._validated_spec

    # ---- edits ------------------------------------------------------------------------------
    def update(self, spec: GraphSpec) -> RunResult:
        """Make `spec` the session's graph and run it."""
        edit = constant_edit(self._validated_spec, spec)
        if edit is not None:
            fast = self._constant_edit_plan(spec, *edit)
            if fast is not None:
                return self._run_plan()
        self.spec = spec  # kept even if invalid: the user's graph is never lost
        plan = self._validate(spec)
        if plan.spec.batch_size != self.plan.spec.batch_size:
            self._reset_runners()
        self._open_sources(plan)
        # Only now is `plan` the session's: a source that fails to open leaves the last good
        # graph as the one later edits are checked against.
        self.plan, self._validated_spec = plan, spec
        self.epoch = min(self.epoch, epoch_count(spec) - 1)  # a run made shorter
        self._say_where_gpu_nodes_run(plan)
        return self._run_plan()

    @property
    def gpu_nodes_on_cpu(self) -> dict[str, str]:
        """The nodes set to "gpu" or "mixed" that run on the CPU here (no GPU), with their
        device as written; the graph and its export keep those devices."""
        from ..checks.devices import gpu_stand_ins

        return gpu_stand_ins(self.plan)

    def _say_where_gpu_nodes_run(self, plan: Plan) -> None:
        """Warn once per node that a node written for a GPU runs on the CPU on this machine."""
        from ..checks.devices import gpu_stand_ins, stand_in_note

        stand_ins = gpu_stand_ins(plan)
        new = {k: v for k, v in stand_ins.items() if k not in self._said_on_cpu}
        if new:
            self._said_on_cpu |= new.keys()
            warnings.warn(GpuNodesOnCpu(stand_in_note(new)), stacklevel=3)

    def _validate(self, spec: GraphSpec) -> Plan:
        """`spec` validated, as the previewed rank runs it (its seeds, its shard) at the
        previewed epoch (its schedules' values)."""
        epoch = min(self.epoch, epoch_count(spec) - 1)
        return plan_for_rank(validate(spec, self.catalog, epoch=epoch), self.rank, self.world_size)

    def set_epoch(self, epoch: int) -> RunResult:
        """Preview epoch `epoch` of the run (0 is the first): the graph's schedules take their
        values at it, and every seed stays, so the images change only as the schedules say.
        Raises :class:`~augexplorer.errors.EpochError` for an epoch the run does not have,
        changing nothing."""
        check_epoch(self._validated_spec, epoch)
        previous, self.epoch = self.epoch, epoch
        try:
            plan = self._validate(self._validated_spec)
        except Exception:
            self.epoch = previous
            raise
        self.plan = plan
        return self._run_plan()

    def set_rank(self, rank: int, world_size: int | None = None) -> RunResult:
        """Preview what process `rank` of a torchrun job gets: the values it draws (seeds
        derived from the graph's by :func:`~augexplorer.spec.seeds.rank_seed`, as the exported
        module derives them) and, given `world_size`, its shard of the data. Rank 0 with no
        world size is the graph as it is. Raises :class:`~augexplorer.engine.ranks.RankError`
        for a rank no job has, changing nothing."""
        checked = check_rank(rank, world_size)
        previous = self.rank, self.world_size
        self.rank, self.world_size = checked
        try:
            plan = self._validate(self._validated_spec)  # the graph last run, seeds filled
            self._open_sources(plan)
        except Exception:
            self.rank, self.world_size = previous
            raise
        self.plan = plan
        return self._run_plan()

    def set_arg(self, node_id: str, name: str, value: ArgValue) -> RunResult:
        before = self.spec
        spec = self.spec.set_arg(node_id, name, value)  # raises for a source
        held = self.spec.node(node_id).args.get(name, _UNSET)
        # The edit is known: the graphs need no comparing to find it (update compares them).
        known = self.spec is self._validated_spec and held is not _UNSET and not _same(held, value)
        try:
            if known and self._constant_edit_plan(spec, node_id, name, value) is not None:
                return self._run_plan()
            return self.update(spec)
        except GraphInvalid:
            if self._misnamed(node_id, name):
                # a name the operator does not take is no value to keep: kept, it failed every
                # later call, the corrected one too ("did you mean 'angle'?" after angle= given)
                self.spec = before
            raise

    def _misnamed(self, node_id: str, name: str) -> bool:
        node = self.spec.node(node_id)
        info = self.catalog.get(node.op) if isinstance(node, Node) else None
        return info is not None and info.arg(name) is None

    def _constant_edit_plan(
        self, spec: GraphSpec, node_id: str, name: str, value: ArgValue
    ) -> Plan | None:
        """Make `spec`, the validated graph with one constant argument set anew, the session's
        graph, checking only that value (a slider drag must not re-check the whole graph on
        every step); None where the edit needs a full validation."""
        try:
            fast = validate_constant_edit(self.plan, node_id, name, value)
        except GraphInvalid:
            self.spec = spec  # the user's edit is kept, as with a full validation
            raise
        if fast is None:
            return None
        for before, after in zip(self.plan.steps, fast.steps, strict=True):
            if before is not after:  # the one step the edit made anew
                share_structure(before, after, changed=(name,))
                break
        self.spec, self.plan, self._validated_spec = spec, fast, spec
        return fast

    def set_probability(self, node_id: str, p: float | None) -> RunResult:
        probability = None if p is None else Probability(p, self._node_probability_seed(node_id))
        return self.update(self.spec.set_probability(node_id, probability))

    def set_batch_size(self, batch_size: int) -> RunResult:
        return self.update(dataclasses.replace(self.spec, batch_size=batch_size))

    def set_source(self, source: Source, arrays: Any = None) -> RunResult:
        if arrays is not None:
            self.arrays = arrays
        self._source_runners.clear()
        self._source_batches.clear()
        self._stop_surveys(self._data)
        self._data.clear()
        self._data_generation += 1
        self.batch_index = 0  # the new data's first batch
        before = self.spec.sources()
        spec = self.spec.with_source(source)
        if before:  # a folder's labels are a COCO reader's labels, not its boxes
            spec = spec.outputs_read_as(before[0], spec.sources()[0])
        return self.update(spec)

    def reroll(self) -> RunResult:
        """New random draws for every random argument, coin flip and random operator (the
        images stay). The new seeds are written into the spec, so the view can be replayed."""
        # The plan's spec has every seed filled in, so each random operator is one with a seed;
        # it holds the previewed epoch's scheduled values, which go back to those written.
        rerolled = self.plan.spec.reseeded(self._new_seed)
        return self.update(as_written(rerolled, self._validated_spec))

    def next_batch(self) -> RunResult:
        """The next batch as training gets it: the next images, and the draws the exported
        pipeline makes for them (its random operators' state moves on from batch to batch). An
        epoch's last batch ends in the reader's padding (:meth:`RunResult.padded`), repeats of
        its last file that training's loader drops on one rank and keeps on several. Past an
        epoch's last batch the next epoch begins, its schedules' values with it, as the exported
        loader moves on by itself (the last epoch of the run holds its values)."""
        per_epoch = self.result.batches_per_epoch() if self.result is not None else None
        self.batch_index += 1
        self._source_batches.clear()
        last = epoch_count(self._validated_spec) - 1
        if per_epoch and self.batch_index % per_epoch == 0 and self.epoch < last:
            self.epoch += 1
            self.plan = self._validate(self._validated_spec)
        return self._run_plan()

    # ---- trust ------------------------------------------------------------------------------
    def untrusted(self) -> list[str]:
        """The nodes of the current graph that must be trusted before the graph runs:
        python_function nodes (read the code first:
        ``session.spec.node(node_id).args["function"].source``) and nodes that write files on
        this machine, such as dump_image."""
        return untrusted_nodes(self.spec)

    def trust(self, node_id: str | None = None) -> list[str]:
        """Trust the Python code and side effects of node `node_id` (of every node of the
        current graph when None) for the rest of this process; returns the nodes trusted. A
        changed source or argument needs trusting again."""
        return trust_graph(self.spec, node_id)

    # ---- running ----------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Run the graph, re-running only steps whose key changed since the last run.

        The graph run is :attr:`spec`, the session's: where an edit was refused and kept (the
        user's graph is never lost), it is checked again and raises the same error, rather
        than return the last graph that ran as if it were this one.

        A graph with Python code or side effects (files written) that have not been trusted
        raises :class:`~augexplorer.errors.UntrustedCode` before anything runs.
        """
        if self.spec is not self._validated_spec:
            return self.update(self.spec)
        return self._run_plan()

    def _run_plan(self) -> RunResult:
        """Run the last validated plan: the previewed epoch, rank and batch of the last graph
        that validated (navigation keeps showing it while a refused edit waits for its fix)."""
        plan = self.plan
        if plan.needs_trust:
            check_trusted(plan.spec)
        self._leave_out_bad_found_since()
        keys: dict[str, Any] = {}
        results: dict[str, StepResult] = {}
        cache, read = self._cache, (self.batch_index, self._data_generation)
        blocks = plan.blocks
        # on a later batch the random steps draw as the training pipeline does at that batch
        replayed = self._replayed(plan) if self.batch_index else {}
        for step in plan.steps:
            # A Merkle key as nested tuples holding the step itself (compared by value): an
            # unchanged step is the very same object as last run, so comparing costs next to
            # nothing. Sources also key on the batch they read and the data behind them, and
            # so do random steps on a later batch (they draw anew on each).
            upstream = tuple([keys[node] for node in step.upstream_nodes])
            reads_batch = step.role == "source" or step.id in replayed
            block = blocks.get(step.id)
            # a step's output depends on the block it runs in (an inner one holds only its
            # side's samples): an edit that makes or unmakes a block runs its steps again
            shape = None if block is None else (tuple(s.id for s in block.steps), block.split)
            key = (step, read if reads_batch else None, upstream, shape)
            cached = cache.get(step.id)
            if cached is not None and cached.key == key:
                # downstream keys then hold the cached key itself, and compare by identity
                keys[step.id] = cached.key
                if cached.hit is None or cached.hit.step is not step:
                    cached.hit = StepResult(
                        step, cached.outputs, cached.time_ms, ran=False, samples=cached.samples
                    )
                results[step.id] = cached.hit
                continue
            keys[step.id] = key
            if block is not None:
                # a conditional block runs whole at its last step, whose key covers every step
                # of it; nothing outside the block reads the others
                if step is block.last:
                    self._run_block(block, keys, results)
                    if self.batch_index and step.id in replayed:
                        self._take_training_draws(plan, replayed, block.steps, results)
                continue
            outputs, time_ms = self._run_step(step, results)
            cache[step.id] = _Cached(key, outputs, time_ms)
            results[step.id] = StepResult(step, outputs, time_ms, ran=True)
            if self.batch_index and step.id in replayed:
                self._take_training_draws(plan, replayed, (step,), results)
        if len(self._cache) > len(keys):  # every step is cached by now: the rest are stale
            for stale in set(self._cache) - set(keys):
                del self._cache[stale]
        if self._built_random:  # most graphs draw nothing: no set work on their edits
            for gone in self._built_random.keys() - keys.keys():  # steps no longer in the graph
                del self._built_random[gone]
        result = RunResult(
            plan=plan, steps=results, batch_index=self.batch_index, sources=dict(self._data)
        )
        self.result = result
        for data in self._data.values():  # a big folder's files, looked at behind this grid
            if data.survey is not None:
                data.survey.start()
        for listener in list(self.listeners):
            listener(result)
        return result

    def _replayed(self, plan: Plan) -> dict[str, Step]:
        """The steps of `plan` whose outputs on a later batch come from the replay, by id."""
        if self._replayed_for is not plan:
            self._replayed_for = plan
            self._replayed_steps = {s.id: s for s in replayed_steps(plan, _is_random)}
        return self._replayed_steps

    def _take_training_draws(
        self,
        plan: Plan,
        replayed: dict[str, Step],
        steps: Sequence[Step],
        results: dict[str, StepResult],
    ) -> None:
        """Give `steps`, just run, the outputs the training pipeline has for them at this batch
        (their run here drew the first batch's values; it still gives their time and errors)."""
        key = replay_key(plan, tuple(replayed.values()), (self._data_generation, self.device_id))
        replay = self._replay
        try:
            drawn = None
            if replay is not None and replay.key == key:
                drawn = replay.at(self.batch_index)
            if drawn is None:
                self._replay = replay = None  # a replay is large: one at a time
                replay = TrainingDraws(
                    plan,
                    self._data,
                    tuple(replayed.values()),
                    key=key,
                    device_id=self.device_id,
                    num_threads=self.num_threads,
                )
                self._replay = replay
                drawn = replay.at(self.batch_index)
            assert drawn is not None and all(step.id in drawn for step in steps)
        except Exception as error:
            # nothing of the failed replay stays: neither the pipeline (its reader may have
            # moved on) nor the steps' cached first-batch draws, which a later run would take
            # for this batch's
            self._replay = None
            for step in steps:
                self._cache.pop(step.id, None)
            ours = _own_error(error)
            if ours is not None:
                raise ours from None
            failed_at = replay.position if replay is not None else None
            raise self._replay_error(plan, steps, error, failed_at) from None
        for step in steps:
            cached = self._cache[step.id]
            cached.outputs = drawn[step.id]
            results[step.id] = StepResult(
                step, cached.outputs, cached.time_ms, ran=True, samples=cached.samples
            )

    def _run_step(self, step: Step, results: dict[str, StepResult]) -> tuple[list[Any], float]:
        if step.role == "source":
            return self._run_source(step)
        inputs = [results[ref.node].outputs[ref.output] for ref in step.inputs]
        arg_inputs = {
            name: results[ref.node].outputs[ref.output] for name, ref in step.arg_inputs.items()
        }
        predicate = results[step.apply.node].outputs[step.apply.output] if step.apply else None
        devices = tuple(results[ref.node].step.device for ref in step.inputs)
        # DALI pins the type and layout of what an external_source is fed on its first run: a
        # new upstream type (a cast added before this step) needs a pipeline of its own.
        fed = tuple([results[ref.node].types[ref.output] for ref in step.inputs])
        runner_key = (structure_key(step, devices, self.plan.spec.batch_size), fed)
        random = _is_random(step)
        found = None if random else self._runners.get(runner_key)
        runner = found if isinstance(found, StepRunner) else None

        def build() -> StepRunner:
            return StepRunner(
                step,
                batch_size=self.plan.spec.batch_size,
                device_id=self.device_id,
                num_threads=self.num_threads,
                input_devices=devices,
            )

        try:
            if random:
                runner = self._fresh_runner(step.id, runner_key, build)
            elif runner is not None:
                self._runners.move_to_end(runner_key)
            else:
                runner = build()
                self._remember_runner(runner_key, runner)
            return runner.run(step, inputs, arg_inputs, predicate)
        except Exception as error:  # DALI raises RuntimeError, IndexError, TypeError, ...
            # a failed pipeline may be invalid: rebuild next time
            self._runners.pop(runner_key, None)
            self._built_random.pop(step.id, None)
            ours = _own_error(error)
            if ours is not None:  # already names the node (Python code that does not compile)
                raise ours from None
            raise self._run_error(step, error, inputs) from None

    def _run_block(
        self, block: Block, keys: dict[str, Any], results: dict[str, StepResult]
    ) -> None:
        """Run a conditional block as one DALI ``if`` (split once, merge once) and cache each of
        its steps: the inner ones with the samples where the block ran. The block's time is its
        last step's (DALI runs it as one pipeline)."""
        reads = block.reads()
        feeds = {ref: results[ref.node].outputs[ref.output] for ref in reads}
        devices = {ref.node: results[ref.node].step.device for ref in reads}
        inputs = [feeds[ref] for step in block.steps for ref in step.inputs if ref in feeds]
        fed = tuple((str(ref), *results[ref.node].types[ref.output]) for ref in feeds)
        batch_size = self.plan.spec.batch_size
        structure = tuple(structure_key(s, (), batch_size) for s in block.steps)
        runner_key = ("block", structure, tuple(sorted(devices.items())), fed)
        random = any(_is_random(step) for step in block.steps)
        found = None if random else self._runners.get(runner_key)
        runner = found if isinstance(found, StepGroupRunner) else None

        def build() -> StepGroupRunner:
            return StepGroupRunner(
                block.steps,
                batch_size=batch_size,
                device_id=self.device_id,
                num_threads=self.num_threads,
                input_devices=devices,
                blocks=(block,),
            )

        try:
            if random:
                runner = self._fresh_runner(block.last.id, runner_key, build)
            elif runner is not None:
                self._runners.move_to_end(runner_key)
            else:
                runner = build()
                self._remember_runner(runner_key, runner)
            outputs, time_ms = runner.run(feeds, block.steps)
        except Exception as error:
            self._runners.pop(runner_key, None)  # a failed pipeline may be invalid
            self._built_random.pop(block.last.id, None)
            ours = _own_error(error)
            if ours is not None:
                raise ours from None
            raise self._block_error(block, self._run_error(block.last, error, inputs)) from None
        ran = samples(to_host(feeds[block.predicate]))
        for step in block.steps:
            cached = _Cached(
                keys[step.id],
                outputs[step.id],
                time_ms if step is block.last else 0.0,
                samples=block.held(step, ran, self.plan.spec.batch_size),
            )
            self._cache[step.id] = cached
            results[step.id] = StepResult(
                step, cached.outputs, cached.time_ms, ran=True, samples=cached.samples
            )

    @staticmethod
    def _block_error(block: Block, error: RunError) -> RunError:
        """`error` of a block's run, saying that its steps ran as one block."""
        names = ", ".join(repr(step.origin) for step in block.then)
        if block.otherwise:
            others = ", ".join(repr(step.origin) for step in block.otherwise)
            how = (
                f"the nodes {names} (if) and {others} (else) run as one if/else block: DALI "
                "merges the two sides' last outputs"
            )
        else:
            how = (
                f"the nodes {names} run under one condition as one block: DALI merges only the "
                "last one's output with the input that passes through"
            )
        return error.said_otherwise(f"{error.dali_message} ({how})")

    def _run_source(self, step: Step) -> tuple[list[Any], float]:
        runner = self._source_runners.get(step.id)
        if runner is None or runner.step.digest != step.digest:
            runner = SourceRunner(
                step,
                self._data[step.id],
                batch_size=self.plan.spec.batch_size,
                device_id=self.device_id,
                num_threads=self.num_threads,
            )
            self._source_runners[step.id] = runner
            for _ in range(self.batch_index):  # a rebuilt reader catches up to the current batch
                runner.run()
        try:
            outputs, time_ms = runner.run()
        except DataError:  # the data itself (an empty shard): said as it is
            self._source_runners.pop(step.id, None)
            raise
        except Exception as error:
            self._source_runners.pop(step.id, None)
            named = _paths_in(str(error), self._data[step.id].files)
            if self._has_bad_files(step, named):
                return self._run_source(step)  # read again without them (skip_bad)
            raise self._run_error(step, error, []) from None
        if self._data[step.id].survey is None:  # every file was looked at when it was opened
            return outputs, time_ms
        batch = outputs[0]
        if self._has_bad_files(step, [str(batch[i].source_info()) for i in range(len(batch))]):
            return self._run_source(step)  # read again without them (skip_bad)
        return outputs, time_ms

    def _has_bad_files(self, step: Step, paths: list[str]) -> bool:
        """Look at the files of a batch about to be decoded (or named by the reader's error:
        it cannot read an empty file) for a big source whose files were not all looked at when
        it was opened (:attr:`SourceData.survey`). Without skip_bad a bad one raises the
        DataError opening the source would have raised; with it, the bad ones are left out and
        True says to read the batch again."""
        data = self._data[step.id]
        if data.survey is None or not paths:
            return False
        looked = data.survey.look_now(paths)
        bad = looked.bad
        if not bad:  # the batch's own decoded size, known only now: refused before decoding
            where = step.source.path if step.source else None
            try:
                check_batch_memory(looked.sizes, len(looked.sizes), files=looked.good, where=where)
            except DataError:
                self._source_runners.pop(step.id, None)  # rebuilt at the batch shown
                raise
            return False
        if not data.skip_bad:
            self._source_runners.pop(step.id, None)  # rebuilt at the batch shown, once fixed
            raise bad_files_error(bad, step.source.path if step.source else None)
        self._data[step.id] = data.leaving_out(bad)
        self._source_runners.pop(step.id, None)
        return True

    @staticmethod
    def _stop_surveys(sources: dict[str, SourceData]) -> None:
        """Stop looking at the files of sources no longer read (a folder replaced)."""
        for data in sources.values():
            if data.survey is not None:
                data.survey.stop()

    def _leave_out_bad_found_since(self) -> None:
        """With skip_bad, a big source whose background look found bad files since the batch
        shown was read: training's loader (which looks at every file first) reads without them,
        in another order, so the batch is read again without them, whatever the edit that runs
        now (the sources' cached batches would otherwise stay as they were)."""
        for step_id, data in list(self._data.items()):
            if data.survey is None or not data.skip_bad:
                continue
            found = data.found_bad()
            if found:
                self._data[step_id] = data.leaving_out(found)
                self._source_runners.pop(step_id, None)
                self._source_batches.clear()
                self._data_generation += 1

    def _run_error(self, step: Step, error: Exception, inputs: list[Any]) -> RunError:
        message = clean_dali_message(str(error))
        files: list[str] = []
        fix = None
        if inputs and step.op.startswith("decoders."):
            files = self._bad_files(step, inputs[0])
            if files:
                # not skip_bad: these files passed its header check, so it would keep them
                fix = "remove or replace these files: they look like images, but DALI cannot decode them"
        if fix is None and "Divergent data" in message and in_unpaired_branches(self.plan, step):
            fix = UNPAIRED_BRANCHES
        if fix is None:
            fix = suggest_fix(message, batch_size=self.plan.spec.batch_size)
        error = explained_run_error(step, message, fix=fix, files=files)
        node = self.plan.spec.node(step.origin) if step.origin in self.plan.spec else None
        return in_library_words(error, node.origin if isinstance(node, Node) else None)

    def _replay_error(
        self, plan: Plan, steps: Sequence[Step], error: Exception, failed_at: int | None
    ) -> RunError:
        """The error of a replay that failed: it names the node whose operator failed (the
        replay runs many as one pipeline) and the batch, which may be one before this."""
        replayed = plan.with_inputs(self._replayed(plan).values())
        blamed = failed_step(replayed, str(error)) or steps[-1]
        named = self._run_error(blamed, error, [])
        if failed_at is None or failed_at >= self.batch_index:
            return named
        # an earlier batch than the one shown: training would stop there
        return named.said_otherwise(
            f"on batch {failed_at + 1}, which training reads before this one: {named.dali_message}"
        )

    def _bad_files(self, step: Step, encoded: Any) -> list[str]:
        """Decode each sample alone to find the ones that fail (only after a decoder error)."""
        bad = []
        for index in range(len(encoded)):
            sample = encoded[index]
            try:
                runner = StepRunner(
                    dataclasses.replace(step, apply=None, arg_inputs={}),
                    batch_size=1,
                    device_id=self.device_id,
                    num_threads=1,
                    input_devices=("cpu",),
                )
                runner.run(step, [[np.array(sample)]], {})
            except Exception:
                bad.append(str(sample.source_info()) or f"sample {index}")
        return bad

    # ---- helpers ----------------------------------------------------------------------------
    def _open_sources(self, plan: Plan) -> None:
        for step in plan.steps:
            if step.role != "source" or step.source is None:
                continue
            previous = self._source_runners.get(step.id)
            if (
                step.id in self._data
                and previous is not None
                and previous.step.digest == step.digest
            ):
                self._data[step.id].check_memory(plan.spec.batch_size)  # the batch may be new
                continue
            if previous is not None and _reads(previous.step.source) != _reads(step.source):
                # other data: its first batch, not the one the old data's reader stood at
                self.batch_index = 0
            replaced = self._data.get(step.id)
            self._data[step.id] = open_source(
                step.source,
                self.arrays,
                skip_bad=step.source.skip_bad,
                batch_size=plan.spec.batch_size,
                check_all=False,  # a big folder's files are looked at per batch and behind it
            )
            if replaced is not None:
                self._stop_surveys({step.id: replaced})
            self._source_runners.pop(step.id, None)

    def _fresh_runner(
        self, step_id: str, key: tuple[Any, ...], build: Callable[[], Runner]
    ) -> Runner:
        """A runner for random step (or block) `step_id` that draws from its seeds as a new
        build does: a copy of its pipeline as first built, loaded from DALI's serialized form
        (an auto_aug policy builds in ~1 s, loads in ~30 ms). Every run takes such a copy, the
        first included, so the equivalence tests against the exported module check the copies.
        Built each time where DALI cannot serialize or load the pipeline (Python code)."""
        kept = self._built_random.get(step_id)
        if kept is not None and kept[0] == key:
            copy: Runner = kept[1].fresh_copy()
            return copy
        built = build()
        if not built.keep_built_state():
            return built
        try:
            first: Runner = built.fresh_copy()
        except Exception:  # not loadable: this step is built for every run
            return built
        self._built_random[step_id] = (key, built)
        return first

    def _remember_runner(self, key: tuple[Any, ...], runner: StepRunner | StepGroupRunner) -> None:
        """Keep built runners for re-use, the most recently used first; a long session that
        tries many structures does not keep every pipeline it ever built."""
        self._runners[key] = runner
        self._runners.move_to_end(key)
        while len(self._runners) > MAX_RUNNERS:
            self._runners.popitem(last=False)

    def _reset_runners(self) -> None:
        self._runners.clear()
        self._built_random.clear()
        self._source_runners.clear()
        self._cache.clear()
        self._replay = None

    def _new_seed(self) -> int:
        return self._rng.randrange(1, 2**31 - 1)

    def _node_probability_seed(self, node_id: str) -> int | None:
        node = self.plan.spec.node(node_id)
        if isinstance(node, Node) and node.probability is not None:
            return node.probability.seed
        return None


def _own_error(error: BaseException | None) -> AugExplorerError | None:
    """Our own error, raised while DALI defined a pipeline and possibly wrapped by it (DALI's
    autograph re-raises errors of a pipeline definition as its own, with ours as the context)."""
    seen = 0
    while error is not None and seen < 8:
        if isinstance(error, AugExplorerError):
            return error
        error, seen = error.__cause__ or error.__context__, seen + 1
    return None


def _device_id(value: int | str | None) -> int | None:
    if value is None or isinstance(value, int):
        return value
    raise ValueError(f"device_id must be 'auto', None (CPU only) or a GPU index, not {value!r}")


def constant_edit(old: GraphSpec, new: GraphSpec) -> tuple[str, str, ArgValue] | None:
    """`(node, argument, value)` where `new` is `old` with one argument of one node set to a new
    value, the rest untouched; None for any other change. Values compare with their types
    (1, 1.0 and True are three different values to a schema check)."""
    if new is old or len(new.nodes) != len(old.nodes):
        return None
    changed = [(a, b) for a, b in zip(old.nodes, new.nodes, strict=True) if not _same(a, b)]
    if len(changed) != 1:
        return None
    before, after = changed[0]
    if not isinstance(before, Node) or not isinstance(after, Node):
        return None
    names = {
        n
        for n in before.args.keys() | after.args.keys()
        if not _same(before.args.get(n), after.args.get(n))
    }
    if len(names) != 1:
        return None
    (name,) = names
    if name not in before.args or name not in after.args:
        return None  # an argument set or unset anew changes the call itself
    if evolve(before, args=after.args) != after:
        return None
    if evolve(old, nodes=new.nodes) != new:
        return None
    return after.id, name, after.args[name]


def _same(a: object, b: object) -> bool:
    return a is b or (a == b and repr(a) == repr(b))


def _reads(source: Source | None) -> tuple[object, ...]:
    """What a source reads (its kind, file and folder), apart from how (order, bad files)."""
    if source is None:
        return ()
    return (source.kind, source.path, source.file_root)
