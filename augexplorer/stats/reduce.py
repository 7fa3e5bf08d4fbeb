"""Combine the statistics every process of a ``torchrun`` job counted on its shard.

Each accumulator gives its running state as leaves (:mod:`augexplorer.stats.state`); the
exchange takes a fixed number of collective calls whatever the graph, because every process runs
the same plan and so holds the same leaves in the same order:

1. the length of every leaf's leading axis, reduced with MAX (a channel may be seen on one shard
   only), so that every process pads its arrays to the same shape;
2. the summed arrays, one flat array per (operation, dtype), with SUM, MIN or MAX; with them each
   moments' per-channel counts and totals (SUM), minima (MIN) and maxima (MAX);
3. each moments' sum of squared deviations about the combined mean (SUM): the parallel form of
   Welford's update, in sums, so no precision is lost to a difference of large squares;
4. what is not a sum, gathered in rank order (one ``all_gather_object``).

Integer counts combine exactly; float sums differ from one process's running sum only by
rounding (they are added in another order). torch is imported only by :class:`TorchComm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .moments import RunningMoments
from .report import Stats
from .state import Gathered, Leaf, Op, Summed, Tally, summed


class Comm(Protocol):
    """The collective calls the reduction needs (:class:`TorchComm` over torch.distributed)."""

    def all_reduce(self, values: np.ndarray, op: Op) -> np.ndarray:
        """`values` combined element by element over every process (same shape everywhere)."""
        ...

    def all_gather(self, value: Any) -> list[Any]:
        """Every process's `value`, in rank order."""
        ...


class TorchComm:
    """:class:`Comm` over an initialised ``torch.distributed`` process group (gloo works on CPU
    tensors; under NCCL the arrays travel through this process's GPU)."""

    def __init__(self, group: Any = None) -> None:
        import torch
        import torch.distributed as dist

        if not dist.is_initialized():
            raise RuntimeError(
                "torch.distributed is not initialised (fix: run under torchrun and call "
                "torch.distributed.init_process_group first)"
            )
        self._dist = dist
        self._torch = torch
        self.group = group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)
        nccl = dist.get_backend(group) == "nccl"
        self._device = torch.device("cuda", torch.cuda.current_device()) if nccl else None

    def all_reduce(self, values: np.ndarray, op: Op) -> np.ndarray:
        tensor = self._torch.from_numpy(np.ascontiguousarray(values))
        if self._device is not None:
            tensor = tensor.to(self._device)
        ops = {"sum": self._dist.ReduceOp.SUM, "min": self._dist.ReduceOp.MIN}
        self._dist.all_reduce(tensor, op=ops.get(op, self._dist.ReduceOp.MAX), group=self.group)
        return np.asarray(tensor.cpu().numpy())

    def all_gather(self, value: Any) -> list[Any]:
        out: list[Any] = [None] * self.world_size
        self._dist.all_gather_object(out, value, group=self.group)
        return out


def reduce_stats(stats: Stats, comm: Comm) -> None:
    """Combine, in place, what every process counted into `stats`: the accumulators' state,
    the batches asked for and counted and the samples counted (summed), the seconds taken (the slowest process) and
    whether any process was cancelled. Warnings are left to be found again on the result."""
    run = Summed(np.array([stats.batches, stats.samples, stats.requested], dtype=np.int64))
    slowest = Summed(np.array([stats.seconds]), "max")
    cancelled = Summed(np.array([int(stats.cancelled)], dtype=np.int64), "max")
    own = _Own([run, slowest, cancelled])
    reduce_tallies([own, *tallies_of(stats)], comm)
    batches, samples, requested = (int(v) for v in summed(own.combined[0]))
    stats.batches, stats.counted, stats.requested = batches, samples, requested
    stats.seconds = float(summed(own.combined[1])[0])
    stats.cancelled = bool(summed(own.combined[2])[0])


def tallies_of(stats: Stats) -> list[Tally]:
    """Every accumulator of `stats`, in an order every process shares."""
    return [
        *stats.draws,
        *stats.rates,
        *stats.outputs,
        *stats.fills,
        *stats.labels,
        *stats.boxes,
        *stats.windows,
        *stats.policies,
    ]


def reduce_tallies(tallies: Sequence[Tally], comm: Comm) -> None:
    """Combine every tally's state over the processes of `comm`, in place."""
    states = [tally.state() for tally in tallies]
    leaves = [leaf for state in states for leaf in state]
    combined = _combine(leaves, comm)
    start = 0
    for tally, state in zip(tallies, states, strict=True):
        tally.load_state(combined[start : start + len(state)])
        start += len(state)


class _Own:
    """The run's own figures, as a tally."""

    def __init__(self, leaves: list[Leaf]) -> None:
        self.leaves = leaves
        self.combined: list[Leaf] = []

    def state(self) -> list[Leaf]:
        return self.leaves

    def load_state(self, combined: list[Leaf]) -> None:
        self.combined = combined


def _combine(leaves: list[Leaf], comm: Comm) -> list[Leaf]:
    sized = [i for i, leaf in enumerate(leaves) if not isinstance(leaf, Gathered)]
    lengths = np.array([_length(leaves[i]) for i in sized], dtype=np.int64)
    longest = comm.all_reduce(lengths, "max") if lengths.size else lengths
    width = dict(zip(sized, (int(n) for n in longest), strict=True))

    combined: list[Leaf | None] = [None] * len(leaves)
    flat = _Flat()
    moments: list[tuple[int, tuple[np.ndarray, ...]]] = []
    for index in sized:
        leaf = leaves[index]
        if isinstance(leaf, Summed):
            flat.put(index, _padded(leaf, width[index]), leaf.op)
        else:
            assert isinstance(leaf, RunningMoments)
            count, mean, m2, low, high = (a.copy() for a in leaf.summary(width[index]))
            moments.append((index, (count, mean, m2)))
            flat.put((index, "count"), count, "sum")
            flat.put((index, "total"), mean * count, "sum")
            flat.put((index, "min"), low, "min")
            flat.put((index, "max"), high, "max")
    reduced = flat.reduce(comm)
    for index in sized:
        leaf = leaves[index]
        if isinstance(leaf, Summed):
            combined[index] = Summed(reduced[index], leaf.op)

    deviations = _Flat()
    means: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for index, (count, mean, m2) in moments:
        total_count = reduced[(index, "count")]
        safe = np.where(total_count > 0, total_count, 1)
        combined_mean = np.where(total_count > 0, reduced[(index, "total")] / safe, 0.0)
        means[index] = (total_count, combined_mean)
        deviations.put(index, m2 + count * (mean - combined_mean) ** 2, "sum")
    spread = deviations.reduce(comm)
    for index, (total_count, combined_mean) in means.items():
        low, high = reduced[(index, "min")], reduced[(index, "max")]
        combined[index] = RunningMoments.from_summary(
            total_count, combined_mean, spread[index], low, high
        )

    kept = [i for i, leaf in enumerate(leaves) if isinstance(leaf, Gathered)]
    if kept:
        every = comm.all_gather([_value(leaves[i]) for i in kept])
        for position, index in enumerate(kept):
            combined[index] = Gathered([values[position] for values in every])
    assert all(leaf is not None for leaf in combined)
    return [leaf for leaf in combined if leaf is not None]


def _value(leaf: Leaf) -> Any:
    assert isinstance(leaf, Gathered)
    return leaf.value


def _length(leaf: Leaf) -> int:
    if isinstance(leaf, RunningMoments):
        return leaf.channels
    assert isinstance(leaf, Summed)
    return int(np.asarray(leaf.values).shape[0]) if np.ndim(leaf.values) else 1


def _padded(leaf: Summed, length: int) -> np.ndarray:
    values = np.asarray(leaf.values)
    values = values.reshape(1) if values.ndim == 0 else values
    values = values.astype(_dtype(values), copy=False)
    missing = length - values.shape[0]
    if missing <= 0:
        return values
    filler = np.full((missing, *values.shape[1:]), _identity(leaf.op, values.dtype), values.dtype)
    return np.concatenate([values, filler])


def _dtype(values: np.ndarray) -> type[np.generic]:
    return np.int64 if values.dtype.kind in "biu" else np.float64


def _identity(op: Op, dtype: np.dtype[Any]) -> float | int:
    """The value that leaves `op` unchanged: what a process that counted nothing holds."""
    if op == "sum":
        return 0
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return int(info.max if op == "min" else info.min)
    return float(np.inf if op == "min" else -np.inf)


class _Flat:
    """Arrays of one reduction round, packed into one flat array per (operation, dtype) so the
    round is a few collective calls, not one per accumulator."""

    def __init__(self) -> None:
        self._parts: dict[tuple[Op, str], list[tuple[Any, np.ndarray]]] = {}

    def put(self, key: Any, values: np.ndarray, op: Op) -> None:
        values = np.asarray(values)
        values = values.astype(_dtype(values), copy=False)
        self._parts.setdefault((op, values.dtype.str), []).append((key, values))

    def reduce(self, comm: Comm) -> dict[Any, np.ndarray]:
        out: dict[Any, np.ndarray] = {}
        # sorted: every process makes the same calls in the same order
        for (op, _), parts in sorted(self._parts.items()):
            packed = np.concatenate([values.reshape(-1) for _, values in parts])
            reduced = comm.all_reduce(packed, op)
            start = 0
            for key, values in parts:
                out[key] = reduced[start : start + values.size].reshape(values.shape)
                start += values.size
        return out
