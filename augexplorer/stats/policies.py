"""How often each operation of a DALI ``auto_aug`` policy ran over a statistics run.

DALI returns only the augmented images; the policy's choices are recorded by running DALI's own
policy again beside the statistics pipeline, from the same first draws and fed the same images
batch after batch (:class:`~augexplorer.engine.policy_draws.PolicyProbe`), and a sample's
choices are counted only where that run gives the node's very pixels; the rest are counted as not
known, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.policy_draws import POLICY_OPS, PolicyProbe, operations_in
from ..plan import Plan, Step
from ..spec import Ref
from .state import Gathered, Leaf, gathered, ints, summed

Host = Callable[[str], list[np.ndarray]]


@dataclass
class PolicyStats:
    """The operations `node`'s policy applied, counted over the samples whose choices are
    known (an AutoAugment stage that did not run is not counted)."""

    node: str
    op: str
    samples: int = 0  # samples whose choices are known and counted
    unknown: int = 0  # samples the node ran on whose choices could not be known
    operations: Counter[str] = field(default_factory=Counter)

    def state(self) -> list[Leaf]:
        return [ints(self.samples, self.unknown), Gathered(dict(self.operations))]

    def load_state(self, combined: list[Leaf]) -> None:
        self.samples, self.unknown = (int(v) for v in summed(combined[0]))
        self.operations = Counter()
        for counted in gathered(combined[1]):
            self.operations.update(counted)

    def describe(self) -> str:
        checked = f"{self.samples:,} of {self.samples + self.unknown:,}"
        head = f"operations {self.node} applied (DALI's policy run again, each checked on pixels: "
        if not self.samples:
            return f"{head}{checked}): none known"
        counted = ", ".join(f"{name} {count:,}" for name, count in self.operations.most_common())
        return f"{head}{checked}): {counted}"

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "op": self.op,
            "samples": self.samples,
            "unknown": self.unknown,
            "operations": dict(self.operations.most_common()),
        }


class PolicyCounter:
    """Counts one policy step's choices batch by batch; `refs` are the outputs of the
    statistics pipeline it reads."""

    def __init__(self, step: Step, batch_size: int) -> None:
        self.step = step
        self.refs: list[Ref] = [step.inputs[0], Ref(step.id)]
        if step.apply is not None:
            self.refs.append(step.apply)
        self.stats = PolicyStats(step.origin, step.op)
        self._probe = PolicyProbe(step, batch_size)

    def add(self, host: Host) -> None:
        images, made = host(str(self.step.inputs[0])), host(str(Ref(self.step.id)))
        ran = list(range(len(images)))
        if self.step.apply is not None:
            flags = host(str(self.step.apply))
            ran = [i for i in ran if bool(np.asarray(flags[i]).reshape(-1)[0])]
        if not ran:
            return
        # the node's generators serve the samples it ran on, in order: so does the probe's
        pixels, calls = self._probe.run([images[i] for i in ran])
        choices = self._probe.describe(calls)
        for position, sample in enumerate(ran):
            same = pixels[position].shape == made[sample].shape and np.array_equal(
                pixels[position], made[sample]
            )
            if not same:
                self.stats.unknown += 1
                continue
            self.stats.samples += 1
            self.stats.operations.update(operations_in(choices[position]))


def policy_counters(plan: Plan, batch_size: int) -> list[PolicyCounter]:
    """A counter for every ``auto_aug`` policy of `plan` whose choices can be known: on the
    CPU, seeded, with no argument fed per sample."""
    return [
        PolicyCounter(step, batch_size)
        for step in plan.steps
        if step.op in POLICY_OPS
        and step.seed is not None
        and step.inputs
        and not step.arg_inputs
        and step.device == "cpu"
    ]
