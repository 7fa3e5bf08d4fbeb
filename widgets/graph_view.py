"""The graph drawn in the browser (anywidget, a local ES module: no CDN, no build step)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anywidget
import traitlets

from augexplorer.engine import RunResult
from augexplorer.spec import GraphSpec, Node, Random, Ref

from .failure import Failure
from .graph_layout import graph_layout

STATIC = Path(__file__).parent / "static"


class GraphView(anywidget.AnyWidget):
    _esm = STATIC / "graph_view.js"
    _css = STATIC / "graph_view.css"
    nodes = traitlets.List(traitlets.Dict()).tag(sync=True)
    # which nodes are drawn inside which branch of which conditional block (graph_layout.py)
    arrangement = traitlets.List(traitlets.Dict()).tag(sync=True)
    selected = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.add_class("ax-graph")

    def show(self, spec: GraphSpec, result: RunResult | None, failure: Failure | None) -> None:
        # one message: the browser never sees nodes without the layout that places them
        with self.hold_sync():
            self.nodes = describe_nodes(spec, result, failure)
            self.arrangement = graph_layout(spec)


def describe_nodes(
    spec: GraphSpec, result: RunResult | None, failure: Failure | None
) -> list[dict[str, Any]]:
    """What the browser draws for each node: name, op, device, last time, draws, errors."""
    errors = failure.node_messages() if failure is not None else {}
    final = spec.final_output()
    times = result.node_times() if result is not None else {}
    ran = set(result.ran()) if result is not None else set()
    devices: dict[str, str] = {}
    if result is not None:
        devices = result.devices()
    out = []
    for node in spec.nodes:
        is_op = isinstance(node, Node)
        randoms = []
        arg_refs = []
        if isinstance(node, Node):
            for name, value in node.args.items():
                if isinstance(value, Random):
                    randoms.append(f"{name} ~ {value.short()}")
                elif isinstance(value, Ref):
                    arg_refs.append([name, str(value)])
            # a value that follows the run is shown at the epoch previewed (the caller passes
            # the graph as it stands there), and said to move
            randoms += [
                f"{str(target).partition('.')[2]} follows the run"
                for target in spec.schedules
                if target.node == node.id
            ]
        out.append(
            {
                "id": node.id,
                "op": node.op,
                "kind": "op" if is_op else "source",
                "device": getattr(node, "device", None) or devices.get(node.id, ""),
                "time_ms": times.get(node.id),
                "ran": node.id in ran,
                "inputs": [str(r) for r in node.inputs],
                "arg_refs": arg_refs,
                "randoms": randoms,
                "probability": node.probability.p if node.probability is not None else None,
                "condition": node.describe_condition() if isinstance(node, Node) else "",
                "error": errors.get(node.id),
                "output": final is not None and final.node == node.id,
                "origin": _origin(node),
            }
        )
    return out


def _origin(node: object) -> str:
    """A ported node's grade and library: ``exact · torchvision``; "" for the others."""
    origin = getattr(node, "origin", None)
    return f"{origin.fidelity} · {origin.library}" if origin is not None else ""
