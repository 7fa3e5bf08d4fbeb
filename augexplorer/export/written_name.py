"""An operator named as the user's code names it: the ``ops`` class it was made with
(``ops.BbFlip``), else its ``fn`` name; what a warning or a fix says must be findable in the code."""

from __future__ import annotations

from .protobuf import OpRecord


def written_name(op: OpRecord, fn_name: str) -> str:
    """``ops.COCOReader`` where the code made `op` with the ops API, else ``fn.<fn_name>``."""
    return op.called or f"fn.{fn_name}"


def made_with(op: OpRecord) -> str:
    """Where an ops object's arguments go, for a fix: ``, where ops.BbFlip(...) is made``
    (its call in define_graph takes data, not its settings); nothing for fn code."""
    return f", where {op.called}(...) is made" if op.called else ""
