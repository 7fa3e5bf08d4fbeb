"""Put a whole graph on one device for a profile or a benchmark run."""

from __future__ import annotations

from ..catalog import Catalog
from ..errors import GraphInvalid, Problem
from ..spec import GraphSpec

DEVICES = ("cpu", "gpu")


def place_on(spec: GraphSpec, device: str | None, catalog: Catalog) -> GraphSpec:
    """`spec` with every operator on `device`: ``"cpu"``, or ``"gpu"`` (decoders on ``"mixed"``,
    operators without a GPU backend left to validation's choice). ``None`` keeps the spec's own
    placement. A placement the graph cannot take fails in validation, with the node named."""
    if device is None:
        return spec
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)} (or None), not {device!r}")
    if device == "gpu" and not catalog.gpu:
        # Asked for, not written in the graph: the CPU does not stand in for a GPU asked for.
        raise GraphInvalid(
            [
                Problem(
                    "device 'gpu' needs a GPU, and DALI sees none on this machine",
                    argument="device",
                    fix="run it on the cpu, or leave the device out to keep the graph's own "
                    "placement (GPU nodes then run on the CPU here)",
                )
            ]
        )
    for node in spec.operators():
        info = catalog.get(node.op)
        backends = tuple(info.backends) if info is not None else ()
        if device == "cpu":
            spec = spec.set_device(node.id, "cpu")
        elif "mixed" in backends and node.inputs:
            spec = spec.set_device(node.id, "mixed")
        elif "gpu" in backends:
            spec = spec.set_device(node.id, "gpu")
    return spec
