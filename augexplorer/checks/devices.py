"""Where an operator runs: the device the user set, or the one its inputs and backends imply
(on the GPU where its inputs are, on the GPU or mixed where DALI sees one, else on the CPU);
problems where that device cannot run it or cannot read its inputs."""

from __future__ import annotations

from ..catalog import PYTHON_FUNCTION, OpInfo
from ..plan import Step
from ..spec import Node
from .context import CheckContext


def resolve_device(ctx: CheckContext, node: Node, info: OpInfo, inputs: list[Step | None]) -> str:
    """The device operator `node` runs on, reading the calls `inputs` (None for an input with
    a problem of its own); reports what makes that device impossible."""
    on_gpu = any(step is not None and step.device in ("gpu", "mixed") for step in inputs)
    # Python code is written for NumPy: it moves to the GPU (and CuPy) only with its data.
    python_code = info.name == PYTHON_FUNCTION
    device = node.device
    if device is None:
        if on_gpu:
            device = "gpu"
        elif ctx.catalog.gpu and "mixed" in info.backends and inputs:
            device = "mixed"
        elif ctx.catalog.gpu and "gpu" in info.backends and inputs and not python_code:
            device = "gpu"
        else:
            device = info.default_device()
    if device not in info.backends:
        ctx.problem(
            f"{info.name} has no {device} backend (it has {', '.join(info.backends)})",
            node.id,
            "device",
            fix=f"set device to {' or '.join(info.backends)}",
        )
        return device
    if device in ("gpu", "mixed") and not ctx.catalog.gpu:
        ctx.problem(
            f"device {device!r} needs a GPU, and DALI sees none on this machine",
            node.id,
            "device",
            fix="set device to cpu (or leave it on auto)",
        )
    if device in ("cpu", "mixed") and on_gpu:
        gpu_inputs = [s.id for s in inputs if s is not None and s.device in ("gpu", "mixed")]
        ctx.problem(
            f"a {device} operator cannot read GPU data (from {', '.join(map(repr, gpu_inputs))})",
            node.id,
            "device",
            fix=f"set {node.id!r} to gpu, or move {gpu_inputs[0]!r} to cpu",
        )
    return device
