"""Where an operator runs: the device the user set, or the one its inputs imply (on the GPU
where any input is, a decoder "mixed" where DALI sees a GPU, else on the CPU);
problems where that device cannot run it or cannot read its inputs. A node set to "gpu" or
"mixed" runs on the CPU on a machine without a GPU, where the operator has a CPU backend: the
graph keeps its device (:func:`gpu_stand_ins` names such nodes).

A node left to choose stays on the CPU where what reads it needs CPU data (:func:`cpu_bound`):
an argument input or a condition (DALI reads those on the CPU only), or the input of an operator
that has no GPU backend (``random_bbox_crop`` reading the boxes ``bb_flip`` moved). Otherwise a
graph that runs on the CPU would fail on a GPU machine, or in its exported module there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog import Catalog, OpInfo
from ..expressions import GRAPH_OPS
from ..plan import Plan, Step
from ..spec import GraphSpec, Node, Ref

if TYPE_CHECKING:
    from .context import CheckContext


def resolve_device(ctx: CheckContext, node: Node, info: OpInfo, inputs: list[Step | None]) -> str:
    """The device operator `node` runs on, reading the calls `inputs` (None for an input with
    a problem of its own); reports what makes that device impossible."""
    on_gpu = any(step is not None and step.device in ("gpu", "mixed") for step in inputs)
    device = node.device
    if device is None and node.id in ctx.cpu_bound() and "cpu" in info.backends and not on_gpu:
        device = "cpu"
    if device is None:
        # As DALI's fn API places a call without device=: where its inputs are. A GPU operator
        # cannot read CPU inputs, so CPU data (boxes from a reader, random draws, arrays fed
        # from Python) stays on the CPU; only decoders cross over, as "mixed".
        if on_gpu:
            device = "gpu"
        elif ctx.catalog.gpu and "mixed" in info.backends and inputs:
            device = "mixed"
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
    written_for_gpu = node.device == device and device in ("gpu", "mixed")
    if written_for_gpu and not ctx.catalog.gpu and "cpu" in info.backends:
        # Written for a GPU (imported GPU code, a graph saved on a GPU machine): it runs on
        # the CPU here, and keeps its device in the graph and the export (gpu_stand_ins).
        return "cpu"
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
    if device == "gpu":
        _check_gpu_reads(ctx, node, info, inputs)
    return device


def _check_gpu_reads(
    ctx: CheckContext, node: Node, info: OpInfo, inputs: list[Step | None]
) -> None:
    """A GPU operator reads most inputs from GPU memory only: DALI refuses CPU data there."""
    for index, step in enumerate(inputs):
        if step is None or step.device != "cpu" or not info.inputs:
            continue
        described = info.inputs[min(index, len(info.inputs) - 1)]  # variadic: like the first
        if described.gpu_reads_cpu:
            continue
        ctx.problem(
            f"a gpu operator cannot read CPU data: input {index} comes from {step.id!r}, "
            "which runs on the CPU",
            node.id,
            "device",
            fix=f"set {step.id!r} to {_device_onto_gpu(step)}, or set {node.id!r} to cpu "
            "(or leave it on auto)",
        )
        return


def _device_onto_gpu(step: Step) -> str:
    """The device that puts `step`'s output on the GPU: a decoder has a mixed backend, no gpu."""
    backends = step.info.backends if step.info is not None else ()
    return "mixed" if "mixed" in backends and "gpu" not in backends else "gpu"


def cpu_bound(spec: GraphSpec, catalog: Catalog) -> set[str]:
    """The nodes whose output must be CPU data: read as an argument input or a condition, or as
    an input of an operator with no GPU backend, and, since a CPU operator cannot read GPU data,
    the inputs of those that choose their device, and so on upstream. Expressions are not
    entered: they run where their inputs are, and ``.shape()`` reads GPU data from the CPU."""
    if not catalog.gpu:
        return set()
    bound: set[str] = set()
    for node in spec.operators():
        refs: list[Ref] = [v for v in node.args.values() if isinstance(v, Ref)]
        refs += [clause.ref for clause in node.when]
        info = catalog.get(node.op)
        cpu_only = info is not None and not {"gpu", "mixed"} & set(info.backends)
        if cpu_only or node.device == "cpu":
            refs += list(node.inputs)
        bound.update(ref.node for ref in refs)
    frontier = list(bound)
    while frontier:
        node_id = frontier.pop()
        reader = spec.node(node_id) if node_id in spec else None
        if not isinstance(reader, Node) or reader.device is not None or reader.op in GRAPH_OPS:
            continue
        for ref in reader.inputs:
            if ref.node not in bound:
                bound.add(ref.node)
                frontier.append(ref.node)
    return bound


def gpu_stand_ins(plan: Plan) -> dict[str, str]:
    """The nodes of `plan` set to "gpu" or "mixed" that run on the CPU on this machine (which
    has no GPU), by id, with their device as written."""
    found: dict[str, str] = {}
    for node in plan.spec.operators():
        if node.device not in ("gpu", "mixed"):
            continue
        steps = [s for s in plan.steps if s.origin == node.id and s.role == "node"]
        if steps and all(step.device == "cpu" for step in steps):
            found[node.id] = node.device
    return found


def stand_in_note(stand_ins: dict[str, str]) -> str:
    """What running GPU nodes on the CPU means, said once: which nodes, and what may differ."""
    named = ", ".join(f"{node_id} ({device})" for node_id, device in stand_ins.items())
    decoders = [node_id for node_id, device in stand_ins.items() if device == "mixed"]
    differs = (
        f"; what may differ: the decoder ({', '.join(decoders)}) is DALI's CPU decoder here, "
        "not nvJPEG, and its pixels may differ from a GPU run's"
        if decoders
        else "; their outputs may differ slightly from a GPU run's"
    )
    return (
        f"this machine has no GPU, so the nodes set to run on one run on the CPU here: {named}. "
        f"The graph and its export keep their devices{differs}"
    )
