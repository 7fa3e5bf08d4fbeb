"""What went wrong with the last edit, sorted by the node and argument it concerns."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from augexplorer.errors import DataError, GraphInvalid, Problem, RunError, UntrustedCode


@dataclass(frozen=True)
class Failure:
    """The problems of the user's current graph; the last good result stays on screen."""

    kind: str  # "invalid", "run", "data", "untrusted" or "internal"
    problems: tuple[Problem, ...]

    @classmethod
    def from_exception(cls, error: Exception, source_id: str | None = None) -> Failure:
        if isinstance(error, GraphInvalid):
            return cls("invalid", tuple(error.problems))
        if isinstance(error, RunError):
            message = error.message  # our sentence beside DALI's text, where there is one
            if error.files:
                message += f" (files: {', '.join(error.files)})"
            return cls("run", (Problem(message, error.node, error.argument, error.fix),))
        if isinstance(error, UntrustedCode):
            return cls(
                "untrusted",
                tuple(Problem(error.message, node, None, error.fix) for node in error.nodes),
            )
        if isinstance(error, DataError):
            return cls("data", (Problem(error.message, source_id, "path", error.fix),))
        return cls("internal", (Problem(f"{type(error).__name__}: {error}"),))

    @property
    def suggests_skip_bad(self) -> bool:
        """Whether leaving bad files out (the source's skip_bad) fixes these problems: only for
        data that cannot be read. A decoder's failure on a file that passed the header check
        also names skip_bad, but skipping would not leave that file out."""
        return self.kind == "data" and any(
            "skip_bad" in (problem.fix or problem.message) for problem in self.problems
        )

    def node_messages(self) -> dict[str, str]:
        """One line per node that has problems (for the graph view)."""
        out: dict[str, list[str]] = {}
        for problem in self.problems:
            if problem.node is not None:
                out.setdefault(problem.node, []).append(_line(problem))
        return {node: "; ".join(lines) for node, lines in out.items()}

    def argument_messages(self, node_id: str, said: Collection[str] = ()) -> dict[str, str]:
        """Problems of one node, by argument (`""` for the node as a whole), but for those
        whose message is in `said` (shown elsewhere, with their fix as a button)."""
        out: dict[str, list[str]] = {}
        for problem in self.problems:
            if problem.node == node_id and problem.message not in said:
                out.setdefault(problem.argument or "", []).append(_line(problem))
        return {arg: "; ".join(lines) for arg, lines in out.items()}

    def lines(self) -> list[str]:
        return [str(problem) for problem in self.problems]


def _line(problem: Problem) -> str:
    text = problem.message
    if problem.argument:
        text = f"{problem.argument}: {text}"
    if problem.fix:
        text += f" (fix: {problem.fix})"
    return text
