"""Lowering a checked graph to a :class:`~augexplorer.plan.Plan`: one step per DALI call.

Each node's own call comes from checking (:mod:`augexplorer.checks`); lowering adds what runs
around it: a ``fn.random.*`` step per drawn argument (``<node>_<argument>``), a coin-flip step
per apply probability (``<node>_apply``), a predicate step for a condition of several clauses
(``<node>_when``), and every seed the graph leaves out, derived from the graph's seed. It
assumes the graph passed its checks and checks nothing again.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .catalog import ArgInfo, Catalog
from .checks import CheckedGraph
from .conditions import predicate
from .expressions import GRAPH_OPS
from .node_calls import operator_call, source_call
from .plan import Plan, Step
from .spec import GraphSpec, Node, Probability, Random, Ref, Source
from .spec.graph import pinned_seeds


def lower(spec: GraphSpec, catalog: Catalog, checked: CheckedGraph) -> Plan:
    """The plan of `spec`, which passed its checks (`checked`, with no problems)."""
    return _Lowering(spec, catalog, checked).run()


class _Lowering:
    def __init__(self, spec: GraphSpec, catalog: Catalog, checked: CheckedGraph) -> None:
        self.spec = spec
        self.catalog = catalog
        self.checked = checked
        self.steps: dict[str, Step] = {}  # in the order the plan runs them
        self.used_ids: set[str] = set(spec.ids())

    def run(self) -> Plan:
        spec = self.spec
        filled_nodes: dict[str, Any] = {}
        for node_id in self.checked.order:
            node = spec.node(node_id)
            if isinstance(node, Source):
                filled_nodes[node_id] = self._source(node)
            else:
                filled_nodes[node_id] = self._operator(node)
        filled = dataclasses.replace(
            spec, nodes=tuple(filled_nodes.get(n.id, n) for n in spec.nodes)
        )
        return Plan(
            spec=filled,
            steps=tuple(self.steps.values()),
            outputs=dict(spec.outputs) or _default_outputs(filled),
            warnings=self.checked.warnings,
        )

    def _source(self, source: Source) -> Source:
        filled = pinned_seeds(source, self.spec.seed)
        assert filled.seed is not None
        self.steps[source.id] = source_call(filled, filled.seed)
        return filled

    def _operator(self, node: Node) -> Node:
        call = self.checked.calls[node.id]
        if node.op in GRAPH_OPS:  # an expression or a constant: checking made its whole call
            return self._graph_node(node, call)
        info = call.info
        assert info is not None, f"{node.id} passed its checks"
        node = pinned_seeds(node, self.spec.seed, random=info.random)
        seed = node.seed
        arg_inputs: dict[str, Ref] = {}
        for name, value in node.args.items():
            if isinstance(value, Ref):
                arg_inputs[name] = value
            elif isinstance(value, Random):
                arg = info.arg(name)
                assert arg is not None, f"{node.id}.{name} passed its checks"
                arg_inputs[name] = Ref(self._random_step(node, arg, value))
        apply = None
        probability = _as_float(node.probability)
        if probability is not None:
            apply = Ref(self._apply_step(node, probability))
        if node.when:  # checks allow a condition or a probability, not both
            apply = predicate(node, self._fresh_id, self._add)
        self.steps[node.id] = operator_call(
            node,
            info,
            call.device,
            call.args,
            arg_inputs=arg_inputs,
            apply=apply,
            when=node.when if apply is not None else (),
            seed=seed if info.random else None,
        )
        return dataclasses.replace(node, probability=probability)

    def _graph_node(self, node: Node, call: Step) -> Node:
        """An expression or a constant (:mod:`augexplorer.expressions`)."""
        probability = _as_float(pinned_seeds(node, self.spec.seed).probability)
        if probability is not None:
            call = dataclasses.replace(call, apply=Ref(self._apply_step(node, probability)))
        if node.when:
            call = dataclasses.replace(
                call, apply=predicate(node, self._fresh_id, self._add), when=node.when
            )
        self.steps[node.id] = call
        return dataclasses.replace(node, probability=probability)

    def _add(self, step: Step) -> None:
        self.steps[step.id] = step

    def _fresh_id(self, base: str) -> str:
        step_id, index = base, 2
        while step_id in self.used_ids or step_id in self.steps:
            step_id, index = f"{base}_{index}", index + 1
        self.used_ids.add(step_id)
        return step_id

    def _random_step(self, node: Node, arg: ArgInfo, value: Random) -> str:
        step_id = self._fresh_id(f"{node.id}_{arg.name}")
        op, args = random_call(value, arg.kind)
        self.steps[step_id] = Step(
            id=step_id,
            op=op,
            device="cpu",
            role="random",
            origin=node.id,
            args=args,
            seed=value.seed,
            bound_arg=arg.name,
            info=self.catalog.get(op),
        )
        return step_id

    def _apply_step(self, node: Node, probability: Probability) -> str:
        step_id = self._fresh_id(f"{node.id}_apply")
        self.steps[step_id] = Step(
            id=step_id,
            op="random.coin_flip",
            device="cpu",
            role="apply",
            origin=node.id,
            args={"probability": probability.p, "dtype": "BOOL"},
            seed=probability.seed,
            info=self.catalog.get("random.coin_flip"),
        )
        return step_id


def random_call(value: Random, target_kind: str) -> tuple[str, dict[str, Any]]:
    """The `fn.random.*` call (name, constant arguments) that draws `value` for an argument of
    DALI type `target_kind`; the draw's dtype matches the argument's, as DALI requires."""
    dtype = {
        "FLOAT": "FLOAT",
        "BOOL": "BOOL",
        "UINT8": "UINT8",
        "UINT32": "UINT32",
        "INT64": "INT64",
    }.get(target_kind, "INT32")
    args: dict[str, Any]
    if value.dist == "uniform":
        op, args = "random.uniform", {"range": [value.low, value.high]}
    elif value.dist == "normal":
        op, args = "random.normal", {"mean": value.mean, "stddev": value.stddev}
    elif value.dist == "coin_flip":
        op, args = "random.coin_flip", {"probability": value.probability}
    elif value.p:  # weighted: the builder makes `values` random.choice's input, typed `dtype`
        op, args = "random.choice", {"values": list(value.values), "p": list(value.p)}
    else:
        op, args = "random.uniform", {"values": [float(v) for v in value.values]}
    if value.shape is not None and value.shape != 1:
        args["shape"] = [value.shape]
    args["dtype"] = dtype  # explicit: a draw of the wrong dtype invalidates the pipeline
    return op, args


def _default_outputs(spec: GraphSpec) -> dict[str, Ref]:
    outputs: dict[str, Ref] = {}
    last = spec.operators()[-1].id if spec.operators() else spec.nodes[-1].id
    outputs["images"] = Ref(last)
    if spec.sources():  # labels, or a COCO source's boxes, labels, ... by name
        source = spec.sources()[0]
        for index, name in enumerate(source.output_names()[1:], start=1):
            outputs[name] = Ref(source.id, index)
    return outputs


def _as_float(probability: Probability | None) -> Probability | None:
    """A coin flip's probability as DALI takes it (a float, where the graph may hold 1)."""
    if probability is None:
        return None
    return Probability(float(probability.p), probability.seed)
