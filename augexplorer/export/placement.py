"""Where each operator of an exported module runs: the one rule the module's code and its
docstring both follow, read from the plan as it runs with ``device="gpu"``."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Literal

from ..plan import Step
from .literals import literal

# Where a step runs with device="gpu": "cpu" (whatever the device), "device" (the GPU, or the
# CPU with device="cpu"), "mixed" (decoded by the GPU, or the CPU), "gpu" (a GPU-only operator)
Placement = Literal["cpu", "device", "mixed", "gpu"]


def device_expression(step: Step) -> str | None:
    """How the module writes a step's device: None (cpu), or the `device`/`decoder_device`
    variable, so one module serves both ``device="cpu"`` and ``device="gpu"``."""
    if step.role != "node" or step.device == "cpu":
        return None
    runs_on_cpu = step.info is not None and "cpu" in step.info.backends
    if not runs_on_cpu:
        return literal(step.device)  # a GPU-only operator stays on the GPU
    return "decoder_device" if step.device == "mixed" else "device"


def placement(step: Step) -> Placement:
    """Where `step` runs with ``device="gpu"``, as :func:`device_expression` writes it."""
    written = device_expression(step)
    if written is None:
        return "cpu"
    if written == "decoder_device":
        return "mixed"
    return "device" if written == "device" else "gpu"


def device_doc(steps: Sequence[Step], width: int = 92) -> str:
    """The pipeline docstring's paragraph saying where each of the user's nodes runs with
    ``device="gpu"`` and with ``device="cpu"``: lines joined for a 4-space indented
    docstring."""
    places: dict[str, list[str]] = {"mixed": [], "device": [], "gpu": [], "cpu": []}
    for step in steps:
        if step.role not in ("node", "source") or step.origin in _named(places):
            continue  # a node's helper steps (its random arguments, conditions) go with it
        places[placement(step) if step.role == "node" else "cpu"].append(step.origin)
    on_gpu = places["mixed"] + places["device"] + places["gpu"]
    if not on_gpu:
        return "Every operator of this graph runs on the CPU, whatever the device."
    if not places["cpu"] or places["cpu"] == _sources(steps):
        text = _all_on_gpu(places)
    else:
        text = _split(places)
    gpu_only = list(dict.fromkeys(_gpu_only(steps)))
    if gpu_only:
        text += (
            f" GPU-only operators ({_names(gpu_only)}) have no CPU backend: with "
            'device="cpu" the pipeline refuses to run, saying so.'
        )
    else:
        text += ' With device="cpu" every operator runs on the CPU.'
    if any(step.role == "random" for step in steps):
        # DALI takes an argument's per-sample values from the CPU, wherever its operator runs
        text += " The values of random arguments are drawn on the CPU, as DALI takes them."
    return "\n    ".join(textwrap.wrap(text, width))


def gpu_only_check(steps: Sequence[Step]) -> str:
    """The pipeline function's first lines where the graph holds GPU-only operators: with
    device="cpu" (device_id None) DALI could not run them, and its own error ("input 0 for gpu
    operator ... is stored on incompatible device cpu") names neither the cause nor a fix."""
    names = _gpu_only(steps)
    if not names:
        return ""
    named = ", ".join(dict.fromkeys(names))
    message = (
        f"{named} run{'s' if len(set(names)) == 1 else ''} only on the GPU, so device='cpu' "
        "cannot run this graph (fix: device='gpu' on a machine with a GPU, or remove "
        f"{'it' if len(set(names)) == 1 else 'them'} from the graph in augexplorer)"
    )
    pieces = textwrap.wrap(message, 80, drop_whitespace=False)
    lines = "".join(f"            {literal(piece)}\n" for piece in pieces)
    return f'    if device == "cpu":\n        raise ValueError(\n{lines}        )\n'


def _gpu_only(steps: Sequence[Step]) -> list[str]:
    """The user's nodes of operators with no CPU backend (an expression, which has no catalog
    entry, runs where its inputs are)."""
    return [
        step.origin
        for step in steps
        if step.role == "node"
        and step.info is not None
        and "cpu" not in step.info.backends
        and placement(step) == "gpu"
    ]


def _all_on_gpu(places: dict[str, list[str]]) -> str:
    decoding = f'decoding is "mixed" ({_names(places["mixed"])}) and ' if places["mixed"] else ""
    reader = " after the reader" if places["cpu"] else ""
    return f'With device="gpu", {decoding}every operator{reader} runs on the GPU.'


def _split(places: dict[str, list[str]]) -> str:
    parts = []
    if places["mixed"]:
        parts.append(f'decoded by the GPU ("mixed"): {_names(places["mixed"])}')
    if places["device"] or places["gpu"]:
        parts.append(f"on the GPU: {_names(places['device'] + places['gpu'])}")
    parts.append(f"on the CPU, as the graph places them: {_names(places['cpu'])}")
    return (
        'With device="gpu" the operators run where the graph puts them: ' + "; ".join(parts) + "."
    )


def _named(places: dict[str, list[str]]) -> set[str]:
    return {name for names in places.values() for name in names}


def _sources(steps: Sequence[Step]) -> list[str]:
    return [step.origin for step in steps if step.role == "source"]


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)
