"""Validation at the edge: a spec becomes a :class:`~augexplorer.plan.Plan`, or every problem in it
is reported at once, each naming the node, the argument and the fix.
"""

from __future__ import annotations

import dataclasses
import graphlib
import keyword
import math
import re
import struct
import zlib
from typing import Any

from .auto_aug_checks import policy_problems
from .catalog import PYTHON_FUNCTION, ArgInfo, Catalog, OpInfo, load_catalog
from .catalog.auto_aug import is_auto_aug
from .catalog.limits import (
    LIMITS,
    NEEDS_ONE_OF,
    NOT_DRAWN,
    STRING_CHOICES,
    VECTOR_LENGTHS,
    value_counts,
)
from .catalog.readers import owned_by_source, reader_of
from .conditions import condition_problems, predicate
from .errors import GraphInvalid, Problem
from .evolve import evolve
from .expressions import GRAPH_OPS
from .expressions.checks import check_graph_node
from .plan import Plan, Step
from .spec import GraphSpec, Node, Probability, PythonCode, Random, Ref, Source
from .spec.schema import MAX_BATCH, MAX_NAME, SEED_MAX

# Matched over the whole name: a name ending in a newline is not an identifier.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
MAX_CYCLES_REPORTED = 10
CHOICE_WEIGHT_TOLERANCE = 5e-5
# Names the exported module uses for itself; a node may not take them.
RESERVED_IDS = frozenset(
    {
        "fn",
        "types",
        "pipeline_def",
        "np",
        "os",
        "torch",
        "pipe",
        "pipeline",
        "make_loader",
        "main",
        "GRAPH",
        "device",
        "batch_size",
    }
)


def derive_seed(graph_seed: int, *parts: str) -> int:
    """A stable seed for one random draw, from the graph's seed and what the draw is for."""
    return zlib.crc32(":".join([str(graph_seed), *parts]).encode()) & 0x7FFFFFFF


def validate(spec: GraphSpec, catalog: Catalog | None = None) -> Plan:
    """Check `spec` against the catalog and lower it to a plan, or raise :class:`GraphInvalid`."""
    return _Validator(spec, catalog or load_catalog()).run()


def validate_constant_edit(plan: Plan, node_id: str, name: str, value: Any) -> Plan | None:
    """The plan after setting one constant argument, checking only that value; None when the
    edit needs a full validation (a new argument, a random binding or reference replaced, ...).

    This keeps a slider drag from re-validating the whole graph on every step.
    """
    if isinstance(value, (Ref, Random)):
        return None
    step = next((s for s in plan.steps if s.id == node_id and s.role == "node"), None)
    if step is None or step.info is None or name not in step.args:
        return None
    if is_auto_aug(step.op):  # its arguments are checked together (m against the bins, ...)
        return None
    arg = step.info.arg(name)
    if arg is None:
        return None
    message = check_value(step.info, arg, value)
    if message:
        raise GraphInvalid([Problem(message, node_id, name, _value_fix(step.info, arg))])
    # A constant's value changes neither what a step reads nor which operators run.
    new_step = evolve(step, keep=("upstream_nodes",), args={**step.args, name: value})
    steps = tuple([new_step if s is step else s for s in plan.steps])
    spec = plan.spec.set_arg(node_id, name, value)
    return evolve(plan, keep=("runs_python",), spec=spec, steps=steps)


class _Validator:
    def __init__(self, spec: GraphSpec, catalog: Catalog) -> None:
        self.spec = spec
        self.catalog = catalog
        self.problems: list[Problem] = []
        self.steps: dict[str, Step] = {}
        self.used_ids: set[str] = set(spec.ids())

    def problem(
        self,
        message: str,
        node: str | None = None,
        argument: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.problems.append(Problem(message, node, argument, fix))

    def check_seed(self, seed: Any, node: str | None, argument: str) -> None:
        """Seeds recorded in a spec are DALI seeds: int64, and never -1 (which means random)."""
        if seed is None:
            return
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
            self.problem(
                f"seed {seed!r:.40} is not a whole number from 0 to {SEED_MAX}",
                node,
                argument,
                fix="use a seed such as 42, or leave it out to have one derived from the graph's",
            )

    # ---- driver -----------------------------------------------------------------------------
    def run(self) -> Plan:
        spec = self.spec
        self.check_seed(spec.seed, None, "seed")
        size = spec.batch_size
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_BATCH:
            self.problem(f"batch size {size!r:.40} is out of range", fix=f"use 1..{MAX_BATCH}")
        if not spec.nodes:
            self.problem("the graph is empty", fix="add a data source and at least one operator")
        for what, text in [("graph name", spec.name)] + [("output name", o) for o in spec.outputs]:
            if not isinstance(text, str) or len(text) > MAX_NAME:
                self.problem(
                    f"the {what} {text!r:.40} is not text of at most {MAX_NAME} characters",
                    fix="shorten it",
                )
        self._check_ids()
        if not spec.sources():
            self.problem(
                "the graph has no data source",
                fix="add a source (the bundled samples, a folder or a file list)",
            )
        order = self._topological_order()
        filled_nodes: dict[str, Any] = {}
        for node_id in order:
            node = spec.node(node_id)
            if isinstance(node, Source):
                filled_nodes[node_id] = self._source(node)
            else:
                filled_nodes[node_id] = self._operator(node)
        self._check_inputs_readable()
        outputs = dict(spec.outputs)
        for name, ref in outputs.items():
            self._check_ref(ref, f"output {name!r}", None)
        if self.problems:
            raise GraphInvalid(self.problems)
        filled = dataclasses.replace(
            spec, nodes=tuple(filled_nodes.get(n.id, n) for n in spec.nodes)
        )
        return Plan(
            spec=filled,
            steps=tuple(self.steps.values()),
            outputs=outputs or _default_outputs(filled),
        )

    # ---- structure --------------------------------------------------------------------------
    def _check_ids(self) -> None:
        seen: set[str] = set()
        for node in self.spec.nodes:
            if node.id in seen:
                self.problem("two nodes have this name", node.id, fix="rename one of them")
            seen.add(node.id)
            if not _IDENTIFIER.fullmatch(node.id) or keyword.iskeyword(node.id):
                self.problem(
                    "a node name must be a Python identifier (letters, digits, _; not starting with a digit)",
                    node.id,
                    fix=f"rename it, e.g. {_suggest_id(node.id)!r}",
                )
            elif node.id in RESERVED_IDS:
                self.problem(
                    "this name is reserved for the exported module",
                    node.id,
                    fix=f"rename it, e.g. '{node.id}_node'",
                )

    def _topological_order(self) -> list[str]:
        """Node ids in dependency order, each node after what it reads and otherwise in the
        user's order; reports cycles (found by graphlib), each broken at one edge so that the
        rest of the graph is still checked. No recursion: a long chain is not a deep stack."""
        deps: dict[str, list[str]] = {}
        for node in self.spec.nodes:
            refs = [*node.inputs, *(v for v in node.args.values() if isinstance(v, Ref))]
            refs += [clause.ref for clause in node.when]
            known = deps.setdefault(node.id, [])
            known += [r.node for r in refs if r.node in self.spec and r.node not in known]
        for _ in range(MAX_CYCLES_REPORTED):
            try:
                graphlib.TopologicalSorter(deps).prepare()
                break
            except graphlib.CycleError as error:
                cycle: list[str] = error.args[1]  # each feeds the next; first == last
                self.problem(
                    f"the graph has a cycle: {' -> '.join(cycle)}",
                    cycle[0],
                    fix="rewire one of these inputs to an earlier node",
                )
                deps[cycle[1]].remove(cycle[0])
        order: list[str] = []
        placed: set[str] = set()
        for root in deps:
            if root in placed:
                continue
            stack = [(root, iter(deps[root]))]
            placed.add(root)
            while stack:
                node_id, pending = stack[-1]
                dep = next((d for d in pending if d not in placed), None)
                if dep is None:
                    stack.pop()
                    order.append(node_id)
                else:
                    placed.add(dep)
                    stack.append((dep, iter(deps[dep])))
        return order

    def _check_ref(
        self, ref: Ref, what: str, node: str | None, argument: str | None = None
    ) -> Step | None:
        if ref.node not in self.spec:
            near = _closest(ref.node, self.spec.ids()) if len(self.spec.nodes) <= 500 else None
            self.problem(
                f"{what} reads {str(ref)!r}, which does not exist",
                node,
                argument,
                fix=f"did you mean {near!r}?" if near else "connect it to an existing node",
            )
            return None
        step = self.steps.get(ref.node)
        if step is None:
            return None  # a problem in that node (or a cycle) is reported there
        if ref.output >= step.output_count:
            self.problem(
                f"{what} reads output {ref.output} of {ref.node!r}, which has {step.output_count} output(s)",
                node,
                argument,
                fix=f"use an output index below {step.output_count}",
            )
        return step

    def _check_inputs_readable(self) -> None:
        """An operator given data it cannot read (an image operator on encoded bytes, a HWC-only
        operator on CHW floats) is refused: DALI runs some of them on the bytes without a word."""
        from .catalog.flow import decoder_downstream, input_problems

        flagged = {problem.node for problem in self.problems}
        for node_id, reason in input_problems(self.spec, self.catalog, certain_only=True).items():
            if node_id in flagged:
                continue
            decoder = decoder_downstream(self.spec, self.catalog, node_id)
            fix = (
                f'move it after {decoder!r} (the panel\'s "Move after" button)'
                if decoder
                else "connect it to a node whose output it can read"
            )
            self.problem(reason, node_id, fix=fix)

    # ---- sources ----------------------------------------------------------------------------
    def _source(self, source: Source) -> Source:
        self.check_seed(source.seed, source.id, "seed")
        if source.kind in ("folder", "file_list") and not source.path:
            self.problem(
                f"a {source.kind} source needs a path",
                source.id,
                "path",
                fix="set path to the folder or list file",
            )
        if source.file_root is not None and source.kind not in ("file_list", "coco"):
            self.problem(
                "file_root is where a file list's entries (or a COCO file's images) are read "
                f"from; this source reads {'a folder' if source.kind != 'arrays' else 'in-memory arrays'}",
                source.id,
                "file_root",
                fix="remove file_root (a folder source reads its path)",
            )
        elif source.file_root is not None and (
            not isinstance(source.file_root, str) or not source.file_root
        ):
            self.problem(
                f"file_root {source.file_root!r:.60} is not a folder path",
                source.id,
                "file_root",
                fix="give the folder the list's entries are relative to, or remove it",
            )
        self._reader_args(source)
        seed = source.seed if source.seed is not None else derive_seed(self.spec.seed, source.id)
        filled = dataclasses.replace(source, seed=seed)
        self.steps[source.id] = Step(
            id=source.id,
            op=source.op,
            device="cpu",
            role="source",
            origin=source.id,
            seed=seed,
            source=filled,
        )
        return filled

    def _reader_args(self, source: Source) -> None:
        """The reader's other arguments: constants of the reader's schema, none of them one the
        source holds itself."""
        if not source.reader_args:
            return
        if source.kind == "arrays":
            self.problem(
                "in-memory arrays are fed to the pipeline, not read by a DALI reader: reader "
                f"arguments ({', '.join(source.reader_args)}) do not apply",
                source.id,
                "reader_args",
                fix="remove reader_args, or read the images from a folder or a file list",
            )
            return
        reader = reader_of(source.kind)
        owned = owned_by_source(source.kind)
        info = self.catalog.get(reader)
        assert info is not None, f"{reader} is not in the catalog"
        for name, value in source.reader_args.items():
            where = f"reader_args.{name}"
            arg = info.arg(name)
            if name in owned:
                self.problem(
                    f"{reader}'s {name!r} is {owned[name]}, not a reader argument",
                    source.id,
                    where,
                    fix=f"remove {name!r} from reader_args and set {owned[name]}",
                )
            elif arg is None:
                near = _closest(name, [a.name for a in info.args if a.name not in owned])
                self.problem(
                    f"{reader} has no argument {name!r}",
                    source.id,
                    where,
                    fix=f"did you mean {near!r}?"
                    if near
                    else f"see `augexplorer catalog {reader}`",
                )
            elif isinstance(value, (Ref, Random, PythonCode)):
                self.problem(
                    "a reader argument is a constant; it cannot be fed from a node or drawn",
                    source.id,
                    where,
                    fix=f"give it a constant ({arg.describe_type()})",
                )
            else:
                message = check_value(info, arg, value)
                if message:
                    self.problem(message, source.id, where, fix=_value_fix(info, arg))

    # ---- operators --------------------------------------------------------------------------
    def _operator(self, node: Node) -> Node:
        if node.op in GRAPH_OPS:
            return self._graph_node(node)
        info = self.catalog.get(node.op)
        if info is None:
            near = self.catalog.similar(node.op)
            self.problem(
                f"unknown operator {node.op!r}",
                node.id,
                fix=f"did you mean {' or '.join(map(repr, near))}?"
                if near
                else "pick one from `augexplorer catalog`",
            )
            return node
        if not info.available:
            self.problem(
                f"{info.name} {info.unavailable_reason}",
                node.id,
                fix="remove it, or run on a machine with a GPU",
            )
            return node
        input_steps = [
            self._check_ref(ref, f"input {i}", node.id) for i, ref in enumerate(node.inputs)
        ]
        self._check_input_count(node, info)
        device = self._device(node, info, input_steps)
        self.check_seed(node.seed, node.id, "seed")
        seed = node.seed
        if info.random and seed is None:
            seed = derive_seed(self.spec.seed, node.id)
        args: dict[str, Any] = {}
        arg_inputs: dict[str, Ref] = {}
        filled_args = dict(node.args)
        for name, value in node.args.items():
            arg = info.arg(name)
            if arg is None:
                near_arg = _closest(name, [a.name for a in info.args])
                self.problem(
                    f"{info.name} has no argument {name!r}",
                    node.id,
                    name,
                    fix=f"did you mean {near_arg!r}?"
                    if near_arg
                    else f"see `augexplorer catalog {info.name}`",
                )
                continue
            if isinstance(value, Ref):
                step = self._check_ref(value, "argument input", node.id, name)
                if not arg.per_sample:
                    self.problem(
                        "this argument cannot be fed from another node",
                        node.id,
                        name,
                        fix="give it a constant",
                    )
                elif step is not None and step.device != "cpu":
                    self.problem(
                        f"argument inputs must be CPU data, but {value.node!r} runs on {step.device}",
                        node.id,
                        name,
                        fix=f"set {value.node!r} to run on cpu",
                    )
                arg_inputs[name] = value
            elif isinstance(value, Random):
                bound = self._random_binding(node, arg, value)
                if bound is not None:
                    filled_args[name] = bound
                    arg_inputs[name] = Ref(self._random_step(node, arg, bound))
            else:
                message = check_value(info, arg, value)
                if message:
                    self.problem(message, node.id, name, fix=_value_fix(info, arg))
                else:
                    args[name] = value
        self._check_needs_one_of(node, info)
        for arg in info.args:
            if arg.required and arg.name not in node.args:
                self.problem(
                    "this argument is required",
                    node.id,
                    arg.name,
                    fix=_value_fix(info, arg)
                    if arg.kind == "PYTHON_OBJECT"
                    else f"give {arg.name} a value ({arg.describe_type()})",
                )
        apply = None
        probability = node.probability
        if probability is not None:
            probability = self._probability(node, info, probability)
            if probability is not None:
                apply = Ref(self._apply_step(node, probability))
        outputs = node.args.get("num_outputs", 1) if info.name == PYTHON_FUNCTION else info.outputs
        if node.when:
            apply = self._condition(node, outputs) or apply
        self.steps[node.id] = Step(
            id=node.id,
            op=info.name,
            device=device,
            role="node",
            origin=node.id,
            inputs=tuple(node.inputs),
            args=args,
            arg_inputs=arg_inputs,
            apply=apply,
            when=node.when if apply is not None else (),
            seed=seed if info.random else None,
            info=info,
        )
        if is_auto_aug(info.name):
            self.problems += policy_problems(self.spec, self.catalog, node)
        return dataclasses.replace(
            node, args=filled_args, probability=probability, seed=seed if info.random else node.seed
        )

    def _graph_node(self, node: Node) -> Node:
        """An expression or a constant (:mod:`augexplorer.expressions`)."""
        inputs = [self._check_ref(ref, f"input {i}", node.id) for i, ref in enumerate(node.inputs)]
        step, problems = check_graph_node(node, inputs, self.spec, self.catalog.gpu)
        self.problems += problems
        if step is None:
            return node
        probability = node.probability
        if probability is not None:
            seed = probability.seed
            seed = derive_seed(self.spec.seed, node.id, "apply") if seed is None else seed
            probability = Probability(float(probability.p), seed)
            step = dataclasses.replace(step, apply=Ref(self._apply_step(node, probability)))
        if node.when:
            apply = self._condition(node, 1)
            if apply is not None:
                step = dataclasses.replace(step, apply=apply, when=node.when)
        self.steps[node.id] = step
        return dataclasses.replace(node, probability=probability)

    def _check_needs_one_of(self, node: Node, info: OpInfo) -> None:
        needed = NEEDS_ONE_OF.get(info.name)
        if needed is None:
            return
        if any(name in node.args for name in needed.args):
            return
        if needed.input is not None and len(node.inputs) >= needed.input:
            return
        names = needed.args
        choices = " or ".join(names) if len(names) < 3 else f"one of {', '.join(names)}"
        instead = " (or connect it as a second input)" if needed.input is not None else ""
        self.problem(
            f"{info.name} needs {needed.what}: {choices}{instead}",
            node.id,
            names[0] if len(names) == 1 else None,
            fix=needed.fix,
        )

    def _check_input_count(self, node: Node, info: OpInfo) -> None:
        count = len(node.inputs)
        if count < info.min_inputs:
            names = ", ".join(i.name for i in info.inputs) or "an input"
            self.problem(
                f"{info.name} needs at least {info.min_inputs} input(s) ({names}), it has {count}",
                node.id,
                fix="connect its input to the node before it",
            )
        elif count > info.max_inputs:
            self.problem(
                f"{info.name} takes at most {info.max_inputs} input(s), it has {count}",
                node.id,
                fix="remove the extra inputs",
            )

    def _device(self, node: Node, info: OpInfo, inputs: list[Step | None]) -> str:
        on_gpu = any(step is not None and step.device in ("gpu", "mixed") for step in inputs)
        # Python code is written for NumPy: it moves to the GPU (and CuPy) only with its data.
        python_code = info.name == PYTHON_FUNCTION
        device = node.device
        if device is None:
            if on_gpu:
                device = "gpu"
            elif self.catalog.gpu and "mixed" in info.backends and inputs:
                device = "mixed"
            elif self.catalog.gpu and "gpu" in info.backends and inputs and not python_code:
                device = "gpu"
            else:
                device = info.default_device()
        if device not in info.backends:
            self.problem(
                f"{info.name} has no {device} backend (it has {', '.join(info.backends)})",
                node.id,
                "device",
                fix=f"set device to {' or '.join(info.backends)}",
            )
            return device
        if device in ("gpu", "mixed") and not self.catalog.gpu:
            self.problem(
                f"device {device!r} needs a GPU, and DALI sees none on this machine",
                node.id,
                "device",
                fix="set device to cpu (or leave it on auto)",
            )
        if device in ("cpu", "mixed") and on_gpu:
            gpu_inputs = [s.id for s in inputs if s is not None and s.device in ("gpu", "mixed")]
            self.problem(
                f"a {device} operator cannot read GPU data (from {', '.join(map(repr, gpu_inputs))})",
                node.id,
                "device",
                fix=f"set {node.id!r} to gpu, or move {gpu_inputs[0]!r} to cpu",
            )
        return device

    # ---- random bindings and probabilities ------------------------------------------------------
    def _random_binding(self, node: Node, arg: ArgInfo, value: Random) -> Random | None:
        instead = NOT_DRAWN.get((node.op, arg.name))
        if instead is not None:
            self.problem(
                "a per-sample draw is a flat list of numbers; DALI reads this argument per "
                "sample as a matrix",
                node.id,
                arg.name,
                fix=instead,
            )
            return None
        if not arg.per_sample:
            self.problem(
                "this argument takes one value per batch; it cannot be random per sample",
                node.id,
                arg.name,
                fix="give it a constant",
            )
            return None
        if arg.kind not in ("FLOAT", "INT32", "INT64", "BOOL", "UINT8", "UINT32"):
            self.problem(
                f"a {arg.kind.lower()} argument cannot be drawn at random",
                node.id,
                arg.name,
                fix="give it a constant",
            )
            return None
        numbers = [
            value.low,
            value.high,
            value.mean,
            value.stddev,
            value.probability,
            *value.values,
            *value.p,
        ]
        if any(
            not isinstance(x, (int, float)) or isinstance(x, bool) or not math.isfinite(x)
            for x in numbers
        ):
            self.problem(
                f"{value.dist} parameters must be finite numbers",
                node.id,
                arg.name,
                fix="replace NaN/inf/non-numbers",
            )
            return None
        if value.dist == "uniform" and value.low > value.high:
            self.problem(
                f"uniform range is reversed ({value.low} > {value.high})",
                node.id,
                arg.name,
                fix="swap low and high",
            )
        elif value.dist == "uniform" and _as_float32(value.low) >= _as_float32(value.high):
            # DALI draws in float32 from [low, high): a range empty there fails at run time.
            self.problem(
                f"uniform range {value.low}..{value.high} is empty",
                node.id,
                arg.name,
                fix="make high greater than low, or give the argument a constant",
            )
        if value.dist == "normal" and value.stddev < 0:
            self.problem(
                "normal stddev must be >= 0", node.id, arg.name, fix="use a non-negative stddev"
            )
        if value.dist == "coin_flip" and not 0 <= value.probability <= 1:
            self.problem(
                "coin flip probability must be in [0, 1]",
                node.id,
                arg.name,
                fix="use a value from 0 to 1",
            )
        if value.dist == "choice" and not value.values:
            self.problem(
                "choice needs at least one value",
                node.id,
                arg.name,
                fix="list the values to choose from",
            )
        elif value.dist == "choice" and value.p:
            self._check_weights(node, arg, value)
        if arg.is_vector and value.shape is None:
            self.problem(
                "this argument is a vector: the random draw needs a shape",
                node.id,
                arg.name,
                fix="set shape to the vector's length",
            )
        if not arg.is_vector and value.shape not in (None, 1):
            self.problem(
                "this argument is a scalar: the random draw cannot have a shape",
                node.id,
                arg.name,
                fix="remove shape",
            )
        if value.shape is not None and not 1 <= value.shape <= 64:
            self.problem("shape must be 1..64", node.id, arg.name, fix="use the vector's length")
        lengths = VECTOR_LENGTHS.get((node.op, arg.name))
        if arg.is_vector and value.shape is not None and lengths and value.shape not in lengths:
            self.problem(
                f"this argument takes {value_counts(lengths)} values; the draw has shape {value.shape}",
                node.id,
                arg.name,
                fix=f"set shape to {value_counts(lengths)}",
            )
        self.check_seed(value.seed, node.id, arg.name)
        seed = (
            value.seed if value.seed is not None else derive_seed(self.spec.seed, node.id, arg.name)
        )
        return dataclasses.replace(value, seed=seed)

    def _check_weights(self, node: Node, arg: ArgInfo, value: Random) -> None:
        """Choice weights as DALI's random.choice takes them: one per value, none negative,
        summing to 1 (DALI allows 1e-4; we keep inside that)."""
        weights, count = value.p, len(value.values)
        if len(weights) != count:
            self.problem(
                f"choice has {count} value(s) but {len(weights)} weight(s)",
                node.id,
                arg.name,
                fix="give one weight per value, or no weights for equal chances",
            )
        elif any(w < 0 for w in weights):
            self.problem(
                "choice weights cannot be negative",
                node.id,
                arg.name,
                fix="use weights from 0 to 1 that sum to 1",
            )
        elif abs(math.fsum(weights) - 1.0) > CHOICE_WEIGHT_TOLERANCE:
            total = math.fsum(weights)
            scaled = ", ".join(f"{w / total:.4g}" for w in weights) if total > 0 else None
            self.problem(
                f"choice weights sum to {total:g}, not 1",
                node.id,
                arg.name,
                fix=f"scale them to sum to 1: {scaled}" if scaled else "give some value a weight",
            )

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

    def _probability(
        self, node: Node, info: OpInfo, probability: Probability
    ) -> Probability | None:
        p = probability.p
        if (
            not isinstance(p, (int, float))
            or isinstance(p, bool)
            or not math.isfinite(p)
            or not 0 <= p <= 1
        ):
            self.problem(
                f"apply probability {p!r} is not in [0, 1]",
                node.id,
                "probability",
                fix="use a value from 0 to 1",
            )
            return None
        if not node.inputs:
            self.problem(
                "only a node with an input can be applied with a probability",
                node.id,
                "probability",
                fix="remove the probability",
            )
            return None
        outputs = node.args.get("num_outputs", 1) if info.name == PYTHON_FUNCTION else info.outputs
        if outputs != 1:
            self.problem(
                "only a single-output node can be applied with a probability",
                node.id,
                "probability",
                fix="remove the probability",
            )
            return None
        self.check_seed(probability.seed, node.id, "probability")
        seed = (
            probability.seed
            if probability.seed is not None
            else derive_seed(self.spec.seed, node.id, "apply")
        )
        return Probability(float(p), seed)

    def _condition(self, node: Node, outputs: int) -> Ref | None:
        """The predicate step of `node`'s condition (None, with problems, for a bad one)."""
        problems = condition_problems(node, outputs, self.steps, set(self.spec.ids()))
        if problems:
            self.problems += problems
            return None

        def add(step: Step) -> None:
            self.steps[step.id] = step

        return predicate(node, self._fresh_id, add)

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


# ---- constant values --------------------------------------------------------------------------

_INT_RANGES = {
    "INT8": (-(2**7), 2**7 - 1),
    "INT16": (-(2**15), 2**15 - 1),
    "INT32": (-(2**31), 2**31 - 1),
    "INT64": (-(2**63), 2**63 - 1),
    "UINT8": (0, 2**8 - 1),
    "UINT16": (0, 2**16 - 1),
    "UINT32": (0, 2**32 - 1),
    "UINT64": (0, 2**64 - 1),
}


def check_value(info: OpInfo, arg: ArgInfo, value: Any) -> str | None:
    """Why `value` is not a valid constant for `arg`, or None when it is."""
    if arg.is_vector:
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if not items and arg.required:
            return "needs at least one value"
        for item in items:
            message = _check_scalar(info, arg, item)
            if message:
                return f"element {item!r}: {message}"
        lengths = VECTOR_LENGTHS.get((info.name, arg.name))
        if lengths and len(items) not in lengths:
            return f"takes {value_counts(lengths)} values, got {len(items)}"
        return None
    if isinstance(value, (list, tuple)):
        return f"expected a single {arg.kind.lower()}, got a list of {len(value)}"
    return _check_scalar(info, arg, value)


def _check_scalar(info: OpInfo, arg: ArgInfo, value: Any) -> str | None:
    kind = arg.kind
    if kind == "PYTHON_OBJECT":
        return _check_python(value)
    if isinstance(value, PythonCode):
        return f"only the function of a {PYTHON_FUNCTION} node is Python code"
    if arg.choices:
        if value not in arg.choices:
            return f"{value!r} is not one of {', '.join(arg.choices)}"
        return None
    if kind == "BOOL":
        if not isinstance(value, bool) and value not in (0, 1):
            return f"expected true or false, got {value!r}"
        return None
    if kind in ("STRING", "TENSOR_LAYOUT"):
        if not isinstance(value, str):
            return f"expected text, got {type(value).__name__} {value!r}"
        choices = STRING_CHOICES.get((info.name, arg.name))
        if choices and value not in choices:
            return f"{value!r} is not one of {', '.join(choices)}"
        return None
    if arg.is_numeric:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"expected a number, got {type(value).__name__} {value!r}"
        if not math.isfinite(value):
            return f"{value} is not a finite number"
        if arg.is_integer:
            if isinstance(value, float) and not value.is_integer():
                return f"expected a whole number, got {value}"
            low, high = _INT_RANGES.get(kind, (-(2**63), 2**63 - 1))
            if not low <= value <= high:
                return f"{value} does not fit in {kind.lower()} ({low}..{high})"
        limits = LIMITS.get((info.name, arg.name)) or LIMITS.get(("*", arg.name))
        if limits is not None:
            low_limit, high_limit = limits
            if not low_limit <= value <= high_limit:
                return f"{value} is out of range [{low_limit}, {high_limit}]"
        return None
    return None  # types the catalog cannot check (rare): DALI reports them at build time


MAX_PYTHON_SOURCE = 100_000  # characters


def _check_python(value: Any) -> str | None:
    """Why `value` is not usable Python code for a python_function; the source is only looked
    at as text (it is compiled when the user trusts it and runs the graph)."""
    if not isinstance(value, PythonCode):
        return (
            f"expected Python code, got {type(value).__name__} {value!r:.60}; "
            "in JSON {'python': source, 'name': function name}"
        )
    if not value.name.isidentifier() or keyword.iskeyword(value.name):
        return f"{value.name!r:.60} is not a Python function name"
    if not value.source.strip():
        return "the Python source is empty"
    if len(value.source) > MAX_PYTHON_SOURCE:
        return f"the Python source has {len(value.source)} characters (at most {MAX_PYTHON_SOURCE})"
    return None


def _value_fix(info: OpInfo, arg: ArgInfo) -> str:
    if arg.kind == "PYTHON_OBJECT":
        return "give it PythonCode(source, name) or PythonCode.from_function(my_function)"
    lengths = VECTOR_LENGTHS.get((info.name, arg.name))
    if lengths:
        return f"give {value_counts(lengths)} values ({arg.describe_type()})"
    limits = LIMITS.get((info.name, arg.name)) or LIMITS.get(("*", arg.name))
    if arg.choices:
        return f"use one of {', '.join(arg.choices[:8])}{', ...' if len(arg.choices) > 8 else ''}"
    if limits:
        return f"use a value in [{limits[0]}, {limits[1]}]"
    if arg.has_default:
        return f"use a {arg.describe_type()}; the default is {arg.default!r}"
    return f"use a {arg.describe_type()}"


def _as_float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _closest(name: str, options: list[str]) -> str | None:
    import difflib

    found = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    return found[0] if found else None


def _suggest_id(text: str) -> str:
    cleaned = re.sub(r"\W+", "_", text).strip("_") or "node"
    return f"n_{cleaned}" if cleaned[0].isdigit() else cleaned


def _default_outputs(spec: GraphSpec) -> dict[str, Ref]:
    outputs: dict[str, Ref] = {}
    last = spec.operators()[-1].id if spec.operators() else spec.nodes[-1].id
    outputs["images"] = Ref(last)
    if spec.sources():
        outputs["labels"] = Ref(spec.sources()[0].id, 1)
    return outputs
