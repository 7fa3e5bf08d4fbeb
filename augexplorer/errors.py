"""Errors users see. Each names what is wrong (node, argument, file) and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class AugExplorerError(Exception):
    """Base class of every error augexplorer raises on purpose."""


class SpecFormatError(AugExplorerError):
    """A spec file or JSON object that is not a well-formed augexplorer graph."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a graph."""

    message: str
    node: str | None = None
    argument: str | None = None
    fix: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.node is not None:
            where = f"node {self.node!r}"
            if self.argument is not None:
                where += f", argument {self.argument!r}"
            where += ": "
        text = where + self.message
        if self.fix:
            text += f" (fix: {self.fix})"
        return text


class GraphInvalid(AugExplorerError):
    """A graph that fails validation; `problems` lists every problem found, not just the first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {problem}" for problem in self.problems)
        noun = "problem" if len(self.problems) == 1 else "problems"
        super().__init__(f"the graph has {len(self.problems)} {noun}:\n{lines}")

    def for_node(self, node_id: str) -> list[Problem]:
        return [p for p in self.problems if p.node == node_id]


class DataError(AugExplorerError):
    """A data source that cannot be read: missing folder, bad file list, unreadable image."""

    def __init__(self, message: str, *, path: str | None = None, fix: str | None = None) -> None:
        self.path = path
        self.fix = fix
        self.message = f"{path}: {message}" if path else message  # what is wrong, without the fix
        text = self.message
        if fix:
            text += f" (fix: {fix})"
        super().__init__(text)


class RunError(AugExplorerError):
    """DALI failed while running a node; names the node and keeps DALI's own message.

    Where the failure is about the node's arguments, `explanation` says it in our words and
    `argument` names the one to change; DALI's text (`dali_message`) is then shown beside it.
    """

    def __init__(
        self,
        node: str,
        message: str,
        *,
        fix: str | None = None,
        files: list[str] | None = None,
        argument: str | None = None,
        explanation: str | None = None,
    ) -> None:
        self.node = node
        self.dali_message = message
        self.fix = fix
        self.files = files or []
        self.argument = argument
        self.explanation = explanation
        if explanation:
            where = f"node {node!r}" + (f", argument {argument!r}" if argument else "")
            text = f"{where}: {self.message}"
        else:
            text = f"node {node!r} failed: {message}"
        if self.files:
            text += f" (files: {', '.join(self.files)})"
        if fix:
            text += f" (fix: {fix})"
        super().__init__(text)

    @property
    def message(self) -> str:
        """What went wrong, without the node and the fix: our sentence with DALI's text beside
        it where there is one, else DALI's text."""
        if self.explanation:
            return f"{self.explanation} (DALI: {self.dali_message})"
        return self.dali_message

    def said_otherwise(self, message: str) -> RunError:
        """The same failure, its DALI text put in other words (where or when it happened)."""
        return RunError(
            self.node,
            message,
            fix=self.fix,
            files=self.files,
            argument=self.argument,
            explanation=self.explanation,
        )


class UntrustedCode(AugExplorerError):
    """A graph whose python_function nodes hold code this process has not been told to trust.

    Nothing of it ran. `nodes` are the nodes that need trust.
    """

    def __init__(self, nodes: list[str]) -> None:
        self.nodes = list(nodes)
        names = ", ".join(repr(node) for node in self.nodes)
        self.fix = (
            "read the code, then trust it: session.trust() (or session.trust(node)), "
            'the node\'s "Trust and run" button in the panel, or --trust on the command line'
        )
        subject = f"node {names} runs" if len(self.nodes) == 1 else f"nodes {names} run"
        super().__init__(
            f"{subject} Python code from the graph that has not been trusted, so nothing ran "
            f"(fix: {self.fix})"
        )
        self.message = "runs Python code from the graph that has not been trusted"


class FileExistsRefused(AugExplorerError, FileExistsError):
    """A write that would replace an existing file the caller did not ask to overwrite."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"{path} already exists; pass overwrite=True (--overwrite) to replace it, "
            "or pick another name"
        )
        self.path = path


class EpochError(AugExplorerError):
    """An epoch the graph's run does not have; says the run's epochs and the fix."""
