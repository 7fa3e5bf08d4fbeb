"""What the graph showed before the current edit, kept for the A/B view.

Host copies: DALI reuses the memory of live outputs on the next run. Every node's output is kept
(the selected node and the graph's output first) within a memory budget, so A/B can compare
whichever node is selected after the edit. Outputs are kept by node output, not by node: the
graph's output may be a node's second output, and A must be the same output as B.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from augexplorer.engine import RunResult
from augexplorer.engine.result import caption_draws
from augexplorer.engine.sample_reach import DrawsByStep, draws_that_made, steps_behind_each_sample
from augexplorer.plan import Plan
from augexplorer.render import Normalization
from augexplorer.render.tiles import display_normalization
from augexplorer.spec import GraphSpec, Ref

BUDGET_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Output:
    arrays: tuple[np.ndarray, ...]
    layout: str
    normalization: Normalization | None
    # the batch's samples the arrays hold, in order (an inner node of a conditional block holds
    # only those where the block ran); None: every sample
    samples: tuple[int, ...] | None = None

    def position(self, sample: int) -> int | None:
        """Where sample `sample` of the batch is in `arrays` (None: not there)."""
        if self.samples is None:
            return sample if 0 <= sample < len(self.arrays) else None
        return self.samples.index(sample) if sample in self.samples else None


@dataclass(frozen=True)
class Snapshot:
    outputs: Mapping[Ref, Output]
    spec: GraphSpec
    left_out: tuple[Ref, ...] = ()  # outputs over the memory budget
    # the values drawn, by node and argument, one per sample, beside the step that drew them
    # (RunResult.drawn_by_step), and the samples each step ran on where not all
    # (RunResult.samples_run): which draws made which sample of a node's picture
    draws: DrawsByStep = field(default_factory=dict)
    samples_run: Mapping[str, frozenset[int]] = field(default_factory=dict)
    plan: Plan | None = None  # what read what, as it was

    # old name -> the name the node has now, for nodes renamed since (see `named_as`)
    names: Mapping[str, str] = field(default_factory=dict)

    def of(self, ref: Ref) -> Output | None:
        return self.outputs.get(ref)

    def draw_captions(self, node: str, count: int) -> list[str]:
        """Each sample's drawn values as its tile said them for `node`: the draws its output
        depended on in the graph as it was (a node since removed may have drawn them), under
        the names the nodes have now."""
        old = {now: then for then, now in self.names.items()}.get(node, node)
        if self.plan is None:
            return caption_draws({}, count, name_nodes=True)
        behind = self.plan.nodes_read_by(old)
        made = steps_behind_each_sample(self.plan, self.samples_run, old)
        kept = draws_that_made(
            {name: args for name, args in self.draws.items() if name in behind}, made
        )
        renamed_draws = {self.names.get(name, name): args for name, args in kept.items()}
        return caption_draws(renamed_draws, count, name_nodes=True)

    def named_as(self, spec: GraphSpec) -> Snapshot:
        """This snapshot with its nodes under the names they have in `spec`: a node renamed since
        (or a rename undone) is still the same node to compare, with the same draws."""
        names = renamed(self.spec, spec)
        if not names:
            return self

        def rename(ref: Ref) -> Ref:
            return Ref(names.get(ref.node, ref.node), ref.output)

        return dataclasses.replace(
            self,
            outputs={rename(ref): output for ref, output in self.outputs.items()},
            left_out=tuple(rename(ref) for ref in self.left_out),
            names={**self.names, **names},
        )


def renamed(old: GraphSpec, new: GraphSpec) -> dict[str, str]:
    """Old name -> new name for each node of `old` that `new` holds under another name: at its
    place in the graph (a rename keeps it), a node under a name `old` lacks that is the old
    one in all but its name. `old` and `new` are plans' specs, every seed filled in (a rename
    pins the seeds its old name gave), so a node redrawn or edited is not taken for it."""
    if len(old.nodes) != len(new.nodes):
        return {}
    old_ids, new_ids = set(old.ids()), set(new.ids())
    return {
        before.id: after.id
        for before, after in zip(old.nodes, new.nodes, strict=True)
        if before.id not in new_ids
        and after.id not in old_ids
        and dataclasses.replace(before, id=after.id) == after
    }


def take_snapshot(
    result: RunResult, selected: str | None = None, budget: int = BUDGET_BYTES
) -> Snapshot:
    """Copies of `result`'s node outputs (each node's first, and the graph's output), `selected`
    and the graph's output first."""
    nodes = list(reversed(result.node_ids()))
    first = [Ref(selected)] if selected is not None and selected in nodes else []
    refs = [*first, result.final, *(Ref(node) for node in nodes)]
    outputs: dict[Ref, Output] = {}
    left_out: list[Ref] = []
    used = 0
    for ref in dict.fromkeys(refs):
        batch = result.output(ref)
        # Sized from the shapes before copying: four bytes a value covers every image type.
        size = 4 * sum(int(np.prod(shape)) for shape in batch.shape())
        if used + size > budget:
            left_out.append(ref)
            continue
        used += size
        arrays = tuple(result.arrays(ref))
        norm = display_normalization(result, ref, arrays[0]) if arrays else None
        samples = tuple(result.sample_indices(ref))
        held = None if samples == tuple(range(len(arrays))) else samples
        outputs[ref] = Output(arrays, str(batch.layout() or ""), norm, held)
    return Snapshot(
        outputs,
        result.plan.spec,
        tuple(left_out),
        result.drawn_by_step(),
        result.samples_run,
        result.plan,
    )
