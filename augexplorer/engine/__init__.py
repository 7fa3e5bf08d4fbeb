"""The live engine: run a graph on one batch, incrementally."""

from .result import RunResult, StepResult, to_host
from .session import Session

__all__ = ["RunResult", "Session", "StepResult", "to_host"]
