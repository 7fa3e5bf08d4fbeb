"""The serialized form of a pipeline, for one loaded back with ``Pipeline.deserialize`` too.

Scripts that hand a pipeline to another process save it with ``serialize()`` and load it with
``Pipeline.deserialize(serialized_pipeline=...)``. Such a pipeline has no Python graph, so its
own ``serialize()`` fails (DALI 2.4 raises a NotImplementedError with no message); its backend still holds
the operators it was loaded with, with their seeds, and gives them back as they were saved.
"""

from __future__ import annotations

from typing import Any


def serialized(pipeline: Any) -> bytes:
    """``pipeline.serialize()``, or for a pipeline DALI deserialized, what its backend holds."""
    if getattr(pipeline, "_deserialized", False):
        return bytes(pipeline._pipe.SerializeToProtobuf())
    return bytes(pipeline.serialize())
