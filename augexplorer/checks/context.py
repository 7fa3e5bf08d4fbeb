"""What the checks of one graph share: the graph, the catalog, the problems found so far and
the calls of the nodes already checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..catalog import Catalog
from ..errors import Problem
from ..plan import Step
from ..spec import GraphSpec
from ..spec.schema import SEED_MAX


@dataclass
class CheckContext:
    spec: GraphSpec
    catalog: Catalog
    problems: list[Problem] = field(default_factory=list)
    # node id -> the node's own call, for nodes checked so far (none for a node whose problems
    # leave no call to read: an unknown operator, an expression that does not parse, ...)
    calls: dict[str, Step] = field(default_factory=dict)
    node_ids: set[str] = field(init=False)
    _cpu_bound: set[str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.node_ids = set(self.spec.ids())

    def cpu_bound(self) -> set[str]:
        """The nodes whose output must stay on the CPU (:func:`.devices.cpu_bound`), once."""
        if self._cpu_bound is None:
            from .devices import cpu_bound

            self._cpu_bound = cpu_bound(self.spec, self.catalog)
        return self._cpu_bound

    def problem(
        self,
        message: str,
        node: str | None = None,
        argument: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.problems.append(Problem(message, node, argument, fix))

    def check_seed(self, seed: Any, node: str | None, argument: str) -> None:
        """Seeds recorded in a spec are DALI seeds: int64, and never -1 (which means random)."""
        if seed is None:
            return
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
            self.problem(
                f"seed {seed!r:.40} is not a whole number from 0 to {SEED_MAX}",
                node,
                argument,
                fix="use a seed such as 42, or leave it out to have one derived from the graph's",
            )
