"""The graph spec: a JSON-able description of an augmentation pipeline. No DALI import.

A graph is a list of nodes in the order the user arranged them. A node is either a data source
(:class:`Source`) or an operator call (:class:`Node`). Operator nodes name their positional inputs
(:class:`Ref`), and each argument holds a constant, a :class:`Ref` to another node's output (an
argument input), a :class:`Random` distribution drawn per sample, or (for ``python_function``)
:class:`PythonCode`, which is text until the user trusts it.

Specs are immutable: every edit returns a new spec, which makes undo, A/B views and caching
by value straightforward.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import json
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias, TypeVar

from ..evolve import evolve
from ..expressions import EXPRESSION
from ..expressions.rename import follow_inputs
from .schedule import Schedule, ScheduleTarget
from .seeds import derive_seed

Device = Literal["cpu", "gpu", "mixed"]
SourceKind = Literal["samples", "folder", "file_list", "arrays", "coco", "yolo"]
Distribution = Literal["uniform", "normal", "coin_flip", "choice"]
# How faithfully a node ported from another library reproduces it (augexplorer.port):
# "exact": the same pixels for the same parameter values; "distribution": parameters drawn as the
# library draws them, by another generator; "approximate": differs, as its `differences` say.
Fidelity = Literal["exact", "distribution", "approximate"]
FIDELITIES: tuple[str, ...] = ("exact", "distribution", "approximate")

SOURCE_KINDS: tuple[str, ...] = ("samples", "folder", "file_list", "arrays", "coco", "yolo")
# Sources read by readers.coco: a YOLO folder is converted to a COCO file when opened.
COCO_KINDS: tuple[str, ...] = ("coco", "yolo")
DISTRIBUTIONS: tuple[str, ...] = ("uniform", "normal", "coin_flip", "choice")


@dataclass(frozen=True)
class Ref:
    """Output `output` of node `node`; written ``"node"`` or ``"node:1"`` in JSON."""

    node: str
    output: int = 0

    def __str__(self) -> str:
        return self.node if self.output == 0 else f"{self.node}:{self.output}"

    @classmethod
    def parse(cls, text: str) -> Ref:
        """``"decode"`` or ``"reader:1"``; anything else (``"rotate:xyz"``, ``"rotate:-1"``, an
        empty name) is a ValueError rather than silently output 0."""
        name, colon, index = text.partition(":")
        if not name or (colon and not (index.isascii() and index.isdigit() and len(index) <= 3)):
            raise ValueError(
                f"{text!r} is not a node output; write 'node' for its first output or "
                "'node:1' for output 1"
            )
        return cls(name, int(index)) if colon else cls(name)


@dataclass(frozen=True)
class Random:
    """A per-sample random draw bound to an argument instead of a constant.

    - ``uniform``: `low`..`high`
    - ``normal``: `mean`, `stddev`
    - ``coin_flip``: 1 with `probability`, else 0
    - ``choice``: one of `values` (weights `p`, optional)

    `shape` makes the draw a vector of that length (for vector arguments). `seed` fixes the draw
    so the explorer and an exported module produce the same values.
    """

    dist: Distribution
    low: float = 0.0
    high: float = 1.0
    mean: float = 0.0
    stddev: float = 1.0
    probability: float = 0.5
    values: tuple[Any, ...] = ()
    p: tuple[float, ...] = ()
    shape: int | None = None
    seed: int | None = None

    _FIELDS: ClassVar[dict[str, tuple[str, ...]]] = {
        "uniform": ("low", "high"),
        "normal": ("mean", "stddev"),
        "coin_flip": ("probability",),
        "choice": ("values", "p"),
    }

    @classmethod
    def uniform(
        cls, low: float, high: float, *, shape: int | None = None, seed: int | None = None
    ) -> Random:
        return cls("uniform", low=float(low), high=float(high), shape=shape, seed=seed)

    @classmethod
    def normal(
        cls, mean: float, stddev: float, *, shape: int | None = None, seed: int | None = None
    ) -> Random:
        return cls("normal", mean=float(mean), stddev=float(stddev), shape=shape, seed=seed)

    @classmethod
    def coin_flip(cls, probability: float = 0.5, *, seed: int | None = None) -> Random:
        return cls("coin_flip", probability=float(probability), seed=seed)

    @classmethod
    def choice(
        cls,
        values: Iterable[Any],
        p: Iterable[float] = (),
        *,
        shape: int | None = None,
        seed: int | None = None,
    ) -> Random:
        weights = tuple(float(x) for x in p)
        return cls("choice", values=tuple(values), p=weights, shape=shape, seed=seed)

    def params(self) -> dict[str, Any]:
        """The distribution's own parameters (without shape and seed)."""
        names = self._FIELDS.get(self.dist, ())
        out = {name: getattr(self, name) for name in names}
        if self.dist == "choice" and not self.p:
            out.pop("p")
        return out

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"random": self.dist}
        for key, value in self.params().items():
            out[key] = list(value) if isinstance(value, tuple) else value
        if self.shape is not None:
            out["shape"] = self.shape
        if self.seed is not None:
            out["seed"] = self.seed
        return out

    def describe(self) -> str:
        params = ", ".join(f"{k}={v}" for k, v in self.params().items())
        return f"{self.dist}({params})"

    def short(self) -> str:
        """A compact form for narrow places: ``U(-20, 20)``, ``N(0, 2)``, ``coin(0.5)``,
        ``choice(0, 90)``; ``x3`` for a vector draw of 3 values."""
        if self.dist == "uniform":
            text = f"U({_num(self.low)}, {_num(self.high)})"
        elif self.dist == "normal":
            text = f"N({_num(self.mean)}, {_num(self.stddev)})"
        elif self.dist == "coin_flip":
            text = f"coin({_num(self.probability)})"
        else:
            text = f"choice({', '.join(_num(v) for v in self.values)})"
        return text if self.shape is None else f"{text} x{self.shape}"


def _sorted(schedules: Mapping[ScheduleTarget, Schedule]) -> dict[ScheduleTarget, Schedule]:
    """Schedules in the order of their written targets: one graph, one JSON."""
    return dict(sorted(schedules.items(), key=lambda item: str(item[0])))


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Probability:
    """Apply a node to each sample with probability `p` (DALI conditionals); else pass through."""

    p: float
    seed: int | None = None


@dataclass(frozen=True)
class Clause:
    """One part of a node's condition: the node runs where output `ref` (a per-sample boolean,
    such as a coin flip or ``angle < 0``) is `holds`; ``if``/``else`` are two nodes with opposite
    clauses, ``elif`` adds the negation of the earlier predicate, nesting adds clauses."""

    ref: Ref
    holds: bool = True

    def describe(self) -> str:
        return str(self.ref) if self.holds else f"not {self.ref}"

    def negated(self) -> Clause:
        """The clause that holds exactly where this one does not."""
        return Clause(self.ref, not self.holds)


def exclusive(first: Sequence[Clause], second: Sequence[Clause]) -> bool:
    """Whether two conditions never hold on one sample: a clause of one is negated in the
    other (an ``if`` and its ``else``, or ``elif``, branches)."""
    return any(clause.negated() in second for clause in first)


@dataclass(frozen=True)
class Origin:
    """Where a node ported from another library's pipeline came from, and how faithful it is.

    `transform` is the call as the user wrote it (``RandomResizedCrop(224)``), `line` its line in
    the file it was read from (None for a live object), `fidelity` the measured grade and
    `differences` what differs from the library, one sentence each.
    """

    library: str
    transform: str
    fidelity: Fidelity
    line: int | None = None
    differences: tuple[str, ...] = ()
    # arguments changed since the port (and "probability"): the transform and its grade are
    # what was ported, no longer what the node does with these
    edited: tuple[str, ...] = ()

    def describe(self) -> str:
        """``torchvision RandomRotation(15) (line 12): approximate``, and what was edited since."""
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.library} {self.transform}{where}: {self.fidelity}{self.edited_note()}"

    def edited_note(self) -> str:
        """``; edited since the port: angle`` ("" where nothing was)."""
        return f"; edited since the port: {', '.join(self.edited)}" if self.edited else ""

    def edit(self, name: str) -> Origin:
        """This origin with argument `name` changed since the port."""
        return (
            self if name in self.edited else dataclasses.replace(self, edited=(*self.edited, name))
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "library": self.library,
            "transform": self.transform,
            "fidelity": self.fidelity,
        }
        if self.line is not None:
            out["line"] = self.line
        if self.differences:
            out["differences"] = list(self.differences)
        if self.edited:
            out["edited"] = list(self.edited)
        return out


@dataclass(frozen=True)
class NotPorted:
    """A transform of the pipeline a graph was ported from that the port left out of the graph
    (it could not be expressed in DALI): kept with the graph, so that its saved JSON and any
    module exported from it still say the pipeline is not whole.

    `transform` is the call as the user wrote it, `line` its line in the file it was read from
    (None for a live object), `reason` why it was left out and what to use instead.
    """

    library: str
    transform: str
    reason: str
    line: int | None = None

    def describe(self) -> str:
        """``torchvision Normalize(mean, std) (line 8): <why it was left out>``."""
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.library} {self.transform}{where}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "library": self.library,
            "transform": self.transform,
            "reason": self.reason,
        }
        if self.line is not None:
            out["line"] = self.line
        return out


@dataclass(frozen=True)
class PythonCode:
    """Python source for a ``python_function`` node: the function `name` defined in `source`.

    It is data: loading, validating or exporting a graph never compiles or runs it. It runs only
    after the user trusts it (:mod:`augexplorer.trust`), in a fresh namespace holding numpy as
    ``np``; it receives NumPy arrays on the CPU and CuPy arrays on the GPU.
    """

    source: str
    name: str

    @classmethod
    def from_function(cls, function: Callable[..., Any]) -> PythonCode:
        """The source of a function defined with ``def`` (in a notebook cell or a file).

        Raises ValueError for what cannot be captured as text that runs on its own: lambdas,
        closures, decorated functions and functions whose source Python cannot find.
        """
        import ast
        import inspect
        import textwrap

        name = getattr(function, "__name__", repr(function))
        code = getattr(function, "__code__", None)
        if code is None:
            raise ValueError(f"{name!r} is not a Python function defined with def")
        if name == "<lambda>":
            raise ValueError(
                "a lambda cannot be captured; define the function with def "
                "(at the top level of a cell or a module)"
            )
        if code.co_freevars:
            raise ValueError(
                f"{name!r} uses variables of the function around it "
                f"({', '.join(code.co_freevars)}), which its source does not carry; "
                "define it at the top level and pass values in another way"
            )
        try:
            source = textwrap.dedent(inspect.getsource(function))
        except (OSError, TypeError) as error:
            raise ValueError(
                f"the source of {name!r} cannot be found ({error}); "
                "write it as text: PythonCode(source, name)"
            ) from None
        tree = ast.parse(source)
        defined = tree.body[0] if len(tree.body) == 1 else None
        if not isinstance(defined, ast.FunctionDef) or defined.name != name:
            raise ValueError(
                f"the source of {name!r} is not one plain function definition; "
                "write it as text: PythonCode(source, name)"
            )
        if defined.decorator_list:
            raise ValueError(
                f"{name!r} is decorated, and its decorators would run with it; "
                "capture the undecorated function"
            )
        return cls(source, name)

    @property
    def digest(self) -> str:
        """What trust is recorded by: any change to the source or the name changes it."""
        payload = json.dumps([self.name, self.source]).encode()
        return hashlib.sha256(payload).hexdigest()

    def to_json(self) -> dict[str, Any]:
        return {"python": self.source, "name": self.name}

    def describe(self) -> str:
        return f"python {self.name}() [{self.digest[:8]}]"


ArgValue: TypeAlias = Any  # a constant, a Ref (argument input), a Random or PythonCode


@dataclass(frozen=True)
class Source:
    """A data source: the bundled samples, a folder tree, a file list, in-memory arrays, or a
    COCO annotations file (images with boxes, labels and masks).

    Outputs: 0 = images (encoded bytes, or decoded HWC arrays for ``arrays``), 1 = labels; a COCO
    source has the outputs of DALI's ``readers.coco`` (:meth:`output_names`): images, boxes,
    labels, then polygons and vertices (``polygon_masks``) or masks (``pixelwise_masks``), then
    image ids (``image_ids``). Its `path` is the annotations file (None: the bundled annotated
    samples) and `file_root` the folder its images are read from (default: the file's folder).
    A file list has one image path per line followed by one or more integer labels; relative
    paths are read from `file_root` when it is set (as DALI's ``readers.file`` reads them), else
    from the list's own folder.
    A ``yolo`` source's `path` is a folder of images with one YOLO ``.txt`` label file each
    (:mod:`augexplorer.yolo_folder`): converted to a COCO file when opened, it is read and has
    the outputs of a COCO source.

    Every source but ``arrays`` is read by a DALI reader (``readers.file``, or ``readers.coco``
    for COCO and YOLO): `reader_args` holds its other arguments (``initial_fill``, ``shuffle_after_epoch``,
    ``ltrb``, ``ratio``, ...) as JSON-typed constants, passed to the reader as they are.
    """

    id: str
    kind: SourceKind = "samples"
    path: str | None = None
    shuffle: bool = True
    seed: int | None = None
    # Leave out files that fail a header check; they are listed in SourceData.skipped.
    skip_bad: bool = False
    file_root: str | None = None
    reader_args: Mapping[str, Any] = field(default_factory=dict)
    # COCO: also give each image's keypoints (which readers.coco does not read), looked up
    # by image id from a table made of the file (see augexplorer.annotations.keypoints)
    keypoints: bool = False

    def with_reader_arg(self, name: str, value: Any) -> Source:
        return dataclasses.replace(self, reader_args={**self.reader_args, name: value})

    def without_reader_arg(self, name: str) -> Source:
        kept = {k: v for k, v in self.reader_args.items() if k != name}
        return dataclasses.replace(self, reader_args=kept)

    @property
    def op(self) -> str:
        return f"source.{self.kind}"

    @property
    def reads_coco(self) -> bool:
        """Read by ``readers.coco``: a COCO file, or a YOLO folder converted to one."""
        return self.kind in COCO_KINDS

    def output_names(self) -> tuple[str, ...]:
        """What each output holds, in order (DALI's order for ``readers.coco``)."""
        if not self.reads_coco:
            return ("images", "labels")
        names = ["images", "boxes", "labels"]
        if self.reader_args.get("polygon_masks"):
            names += ["polygons", "vertices"]
        elif self.reader_args.get("pixelwise_masks"):
            names.append("masks")
        if self.reader_args.get("image_ids") or self.keypoints:
            names.append("image_ids")
        if self.keypoints:
            names += ["keypoints", "keypoint_visibility"]
        return tuple(names)

    def output_name(self, output: int) -> str:
        """What output `output` holds ("" for an output the source does not have)."""
        names = self.output_names()
        return names[output] if 0 <= output < len(names) else ""

    @property
    def labels_output(self) -> int:
        """The output that carries labels (one per image, or one per box for COCO)."""
        return self.output_names().index("labels")

    @property
    def inputs(self) -> tuple[Ref, ...]:
        return ()

    @property
    def args(self) -> Mapping[str, ArgValue]:
        return {}

    @property
    def probability(self) -> Probability | None:
        return None

    @property
    def when(self) -> tuple[Clause, ...]:
        return ()


@dataclass(frozen=True)
class Node:
    """One DALI operator call; `op` is its `fn` name, e.g. ``"decoders.image"``."""

    id: str
    op: str
    inputs: tuple[Ref, ...] = ()
    args: Mapping[str, ArgValue] = field(default_factory=dict)
    device: Device | None = None  # None: where its inputs are (decoders: mixed on a GPU)
    probability: Probability | None = None
    seed: int | None = None  # the operator's own randomness, for random operators
    # Run only where every clause holds; elsewhere the first input passes through unchanged.
    when: tuple[Clause, ...] = ()
    # Set on nodes ported from a torchvision or albumentations pipeline: what they stand for.
    origin: Origin | None = None

    def describe_condition(self) -> str:
        """``if flip and not angle_neg``, or "" for a node that runs on every sample."""
        return "if " + " and ".join(c.describe() for c in self.when) if self.when else ""

    def with_arg(self, name: str, value: ArgValue) -> Node:
        return evolve(self, args={**self.args, name: value})

    def without_arg(self, name: str) -> Node:
        return dataclasses.replace(
            self,
            args={k: v for k, v in self.args.items() if k != name},
            origin=self.origin and self.origin.edit(name) if name in self.args else self.origin,
        )

    def reads(self) -> tuple[Ref, ...]:
        """Every output this node reads, once each time it reads it: positional inputs,
        argument inputs and its condition's predicates."""
        fed = (value for value in self.args.values() if isinstance(value, Ref))
        return (*self.inputs, *fed, *(clause.ref for clause in self.when))

    def map_refs(self, redirect: Callable[[Ref], Ref | None]) -> Node:
        """This node with every edge it reads, positional inputs and argument inputs alike,
        passed through `redirect`. An edge redirected to None is dropped where that changes no
        other edge's meaning: an argument input (the argument goes back to its default) or a
        trailing positional input; one in the middle stays, so validation names it. Returns
        `self` when nothing changed."""
        redirected = [redirect(ref) for ref in self.inputs]
        while redirected and redirected[-1] is None:
            redirected.pop()
        inputs = tuple(new or old for new, old in zip(redirected, self.inputs, strict=False))
        # a predicate redirected to None stays, so validation names it: dropping a clause would
        # run the node on samples it was meant to skip
        when = tuple(
            dataclasses.replace(c, ref=target) if (target := redirect(c.ref)) else c
            for c in self.when
        )
        args: dict[str, ArgValue] = {}
        for name, value in self.args.items():
            if isinstance(value, Ref):
                value = redirect(value)
                if value is None:
                    continue
            args[name] = value
        if self.op == EXPRESSION and inputs != self.inputs:  # its text names its inputs
            args = dict(follow_inputs(args, self.inputs, inputs))
        if inputs == self.inputs and args == self.args and when == self.when:
            return self
        return dataclasses.replace(self, inputs=inputs, args=args, when=when)


AnyNode: TypeAlias = "Source | Node"


_UNSET = object()


def _same_value(before: Any, after: Any) -> bool:
    try:
        return bool(before == after)
    except (ValueError, TypeError):  # arrays compare element by element: not the same object
        return False


class NoSuchNode(KeyError):
    """A node id the graph does not have; says the nearest it has (a typo in a notebook cell
    otherwise read as a bare KeyError)."""

    def __init__(self, node_id: object, ids: list[str]) -> None:
        super().__init__(node_id)
        near = difflib.get_close_matches(str(node_id), ids, n=1)
        fix = f"did you mean {near[0]!r}?" if near else f"its nodes: {', '.join(ids)}"
        self.message = f"the graph has no node {node_id!r} (fix: {fix})"

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class GraphSpec:
    """A whole augmentation graph, plus the batch it runs on."""

    nodes: tuple[AnyNode, ...]
    outputs: Mapping[str, Ref] = field(default_factory=dict)
    batch_size: int = 8
    seed: int = 0
    name: str = "augmentation"
    # The training run's length in epochs, and the values that follow it (augexplorer.schedules
    # writes each schedule's value into the graph for one epoch).
    epochs: int | None = None
    schedules: Mapping[ScheduleTarget, Schedule] = field(default_factory=dict)
    # What a port left out of the pipeline it was read from (augexplorer.port): the graph does
    # not run these, and its export says so.
    not_ported: tuple[NotPorted, ...] = ()

    # ---- lookup -------------------------------------------------------------------------------
    @functools.cached_property
    def _by_id(self) -> dict[str, AnyNode]:
        # The first node of a name wins, as a linear search would find it; validation reports
        # the duplicate. Cached, so lookups in validation and edits stay linear overall.
        index: dict[str, AnyNode] = {}
        for node in self.nodes:
            index.setdefault(node.id, node)
        return index

    def node(self, node_id: str) -> AnyNode:
        try:
            return self._by_id[node_id]
        except KeyError:
            raise NoSuchNode(node_id, self.ids()) from None

    def ids(self) -> list[str]:
        return [node.id for node in self.nodes]

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._by_id

    def sources(self) -> list[Source]:
        return [node for node in self.nodes if isinstance(node, Source)]

    def operators(self) -> list[Node]:
        return [node for node in self.nodes if isinstance(node, Node)]

    def consumers(self, node_id: str) -> list[str]:
        """Nodes that read `node_id` as an input or an argument input."""
        return [
            node.id
            for node in self.nodes
            if any(ref.node == node_id for ref in node.inputs)
            or any(isinstance(v, Ref) and v.node == node_id for v in node.args.values())
            or any(clause.ref.node == node_id for clause in node.when)
        ]

    def downstream(self, node_id: str) -> set[str]:
        """Every node that reads `node_id`, directly or through others: none of them can be an
        input of `node_id` (the graph would go round in a cycle)."""
        found: set[str] = set()
        waiting = [node_id]
        while waiting:
            for reader in self.consumers(waiting.pop()):
                if reader not in found:
                    found.add(reader)
                    waiting.append(reader)
        return found

    def final_output(self) -> Ref | None:
        """The image output: the first named output, else the last node."""
        if self.outputs:
            return next(iter(self.outputs.values()))
        return Ref(self.nodes[-1].id) if self.nodes else None

    # ---- edits (each returns a new spec) --------------------------------------------------------
    def replace_node(self, node: AnyNode) -> GraphSpec:
        return evolve(self, nodes=tuple([node if n.id == node.id else n for n in self.nodes]))

    def set_arg(self, node_id: str, name: str, value: ArgValue) -> GraphSpec:
        # one pass, no helpers: a slider drag calls this twice per step
        nodes = list(self.nodes)
        for index, node in enumerate(nodes):
            if node.id == node_id:
                if not isinstance(node, Node):
                    raise ValueError(f"{node_id!r} is a data source, not an operator")
                origin = node.origin
                if origin is not None and not _same_value(node.args.get(name, _UNSET), value):
                    origin = origin.edit(name)  # the same value again is no edit
                nodes[index] = evolve(node, args={**node.args, name: value}, origin=origin)
                return evolve(self, nodes=tuple(nodes))
        raise NoSuchNode(node_id, self.ids())

    def unset_arg(self, node_id: str, name: str) -> GraphSpec:
        return self.replace_node(self._operator(node_id).without_arg(name))

    def set_device(self, node_id: str, device: Device | None) -> GraphSpec:
        return self.replace_node(dataclasses.replace(self._operator(node_id), device=device))

    def set_probability(self, node_id: str, probability: Probability | None) -> GraphSpec:
        node = self._operator(node_id)
        origin = node.origin
        if origin is not None and probability != node.probability:
            origin = origin.edit("probability")
        return self.replace_node(dataclasses.replace(node, probability=probability, origin=origin))

    def set_condition(self, node_id: str, when: Iterable[Clause]) -> GraphSpec:
        """Run node `node_id` only where every clause holds (no clauses: on every sample)."""
        return self.replace_node(dataclasses.replace(self._operator(node_id), when=tuple(when)))

    def with_schedule(self, target: ScheduleTarget | str, schedule: Schedule | None) -> GraphSpec:
        """Make the number `target` names follow `schedule` over the run (None: a plain value
        again, the one it holds now). A bound of an argument that reads a plain draw node of its
        own (imported DALI code draws so) takes that draw into the argument first: the same
        draws (:mod:`.draw_inlining`), and a bound to schedule."""
        if isinstance(target, str):
            target = ScheduleTarget.parse(target)
        if schedule is not None and target.arg is not None and target.bound is not None:
            from .draw_inlining import inline_draw

            inlined = inline_draw(self, target.node, target.arg)
            if inlined is not self:
                return inlined.with_schedule(target, schedule)
        schedules = {k: v for k, v in self.schedules.items() if k != target}
        if schedule is not None:
            schedules[target] = schedule
        return dataclasses.replace(self, schedules=_sorted(schedules))

    def with_not_ported(self, left_out: Iterable[NotPorted]) -> GraphSpec:
        """The graph with `left_out` as the transforms its port left out (``()`` once they are
        in the graph by hand: the export's header then stops warning of them)."""
        return dataclasses.replace(self, not_ported=tuple(left_out))

    def with_epochs(self, epochs: int | None) -> GraphSpec:
        """Declare the training run's length, which schedules are drawn over."""
        return dataclasses.replace(self, epochs=epochs)

    def unique_id(self, base: str) -> str:
        stem = base.replace(".", "_")
        taken = set(self.ids())
        if stem not in taken:
            return stem
        index = 2
        while f"{stem}_{index}" in taken:
            index += 1
        return f"{stem}_{index}"

    def insert_after(self, after: str | None, node: AnyNode, *, rewire: bool = True) -> GraphSpec:
        """Insert `node` after node `after` (at the end when None).

        With `rewire`, consumers of `after`'s first output now read the new node instead, and the
        new node reads `after` when it names no inputs: the usual "insert a step in a chain".
        """
        if node.id in self:
            raise ValueError(
                f"a node named {node.id!r} already exists; pick another name (a notebook cell "
                "run again inserts it again: start again from the graph before it, or give "
                f"the name to spec.unique_id({node.id!r}))"
            )
        index = len(self.nodes) if after is None else self.ids().index(after) + 1
        if isinstance(node, Node) and not node.inputs and after is not None:
            node = dataclasses.replace(node, inputs=(Ref(after),))
        spec = self
        if rewire and after is not None:
            old, new = Ref(after), Ref(node.id)
            spec = self._redirect(lambda ref: new if ref == old else ref)
        nodes = list(spec.nodes)
        nodes.insert(index, node)
        return dataclasses.replace(spec, nodes=tuple(nodes))

    def remove(self, node_id: str) -> GraphSpec:
        """Remove a node. Whatever read its first output, as an input or as an argument input,
        now reads the node's first input; with none to read, an argument input is dropped and an
        input or output left for validation to name."""
        node = self.node(node_id)
        replacement = node.inputs[0] if node.inputs else None

        def redirect(ref: Ref) -> Ref | None:
            if ref.node != node_id:
                return ref
            return replacement if ref.output == 0 else None

        spec = self._redirect(redirect)
        schedules = {k: v for k, v in spec.schedules.items() if k.node != node_id}
        return dataclasses.replace(
            spec, nodes=tuple(n for n in spec.nodes if n.id != node_id), schedules=schedules
        )

    def rename(self, node_id: str, new_id: str, random_ops: Container[str] = ()) -> GraphSpec:
        """Give a node a new name; every edge and output that read it follows. The node draws
        what it drew before: the seeds it left unset (derived from its name) are pinned first,
        its own seed where its op is one of `random_ops` (the catalog's random operators)."""
        if new_id in self:
            raise ValueError(f"a node named {new_id!r} already exists; pick another name")
        node = self.node(node_id)
        random = isinstance(node, Node) and node.op in random_ops
        spec = self.replace_node(pinned_seeds(node, self.seed, random=random))
        spec = spec._redirect(lambda ref: Ref(new_id, ref.output) if ref.node == node_id else ref)
        schedules = {
            (k.with_node(new_id) if k.node == node_id else k): v for k, v in spec.schedules.items()
        }
        return dataclasses.replace(
            spec,
            nodes=tuple(
                dataclasses.replace(n, id=new_id) if n.id == node_id else n for n in spec.nodes
            ),
            schedules=_sorted(schedules),
        )

    def _redirect(self, redirect: Callable[[Ref], Ref | None]) -> GraphSpec:
        """The one place edges are rewired: every positional input, argument input and graph
        output goes through `redirect` (see :meth:`Node.map_refs`; an output sent to None is
        dropped)."""
        nodes = tuple(n.map_refs(redirect) if isinstance(n, Node) else n for n in self.nodes)
        outputs = {}
        for name, ref in self.outputs.items():
            target = redirect(ref)
            if target is not None:
                outputs[name] = target
        return dataclasses.replace(self, nodes=nodes, outputs=outputs)

    def move(self, node_id: str, offset: int) -> GraphSpec:
        """Swap a node with its neighbour in a chain, keeping the data flowing top to bottom.

        Moving node B up in ``A -> B -> C`` gives ``B -> A -> C``: the wiring follows the order.
        """
        ids = self.ids()
        index = ids.index(node_id)
        other_index = index + offset
        if not 0 <= other_index < len(ids) or offset not in (-1, 1):
            return self
        first, second = sorted((index, other_index))
        upper, lower = self.nodes[first], self.nodes[second]
        if not isinstance(upper, Node) or not isinstance(lower, Node):
            return self
        if Ref(upper.id) not in lower.inputs:
            # Not a chain link: just reorder the list.
            nodes = list(self.nodes)
            nodes[first], nodes[second] = lower, upper
            return dataclasses.replace(self, nodes=tuple(nodes))
        # lower reads upper; afterwards upper reads what lower read (with upper swapped for
        # upper's inputs) and lower reads upper's inputs.
        upper_input = upper.inputs[0] if upper.inputs else None
        new_lower = lower.map_refs(lambda ref: upper_input if ref == Ref(upper.id) else ref)
        new_upper = dataclasses.replace(upper, inputs=(Ref(lower.id), *upper.inputs[1:]))
        # Everything else that read one end of the link now reads the other, whichever kind
        # of edge it is; the graph's outputs follow the chain's new end.
        swap = {Ref(lower.id): Ref(upper.id), Ref(upper.id): Ref(lower.id)}
        spec = self._redirect(lambda ref: swap.get(ref, ref))
        moved = {upper.id: new_lower, lower.id: new_upper}
        outputs = {k: Ref(upper.id) if v == Ref(lower.id) else v for k, v in self.outputs.items()}
        return dataclasses.replace(
            spec, nodes=tuple(moved.get(n.id, n) for n in spec.nodes), outputs=outputs
        )

    def duplicate(self, node_id: str) -> GraphSpec:
        """A copy of the node after it. The copy draws values of its own: seeds set on the node
        (by a reroll or a rename) are left for the copy to derive from its name. The copy's
        numbers follow the run as the node's do: its schedules are copied with it."""
        node = self._operator(node_id)
        copy = dataclasses.replace(_unseeded(node), id=self.unique_id(node.id))
        spec = self.insert_after(node_id, dataclasses.replace(copy, inputs=()), rewire=True)
        copied = {t.with_node(copy.id): s for t, s in self.schedules.items() if t.node == node_id}
        if not copied:
            return spec
        return dataclasses.replace(spec, schedules=_sorted({**spec.schedules, **copied}))

    def rewire(self, node_id: str, index: int, ref: Ref) -> GraphSpec:
        node = self._operator(node_id)
        inputs = list(node.inputs)
        if index == len(inputs):
            inputs.append(ref)
        else:
            inputs[index] = ref
        return self.replace_node(dataclasses.replace(node, inputs=tuple(inputs)))

    def with_source(self, source: Source) -> GraphSpec:
        """Swap the (first) data source for another, keeping its id so the wiring stays, and
        its reader arguments when the new source brings none (new data, same reading)."""
        old = self.sources()[0] if self.sources() else None
        if old is None:
            return dataclasses.replace(self, nodes=(source, *self.nodes))
        same_reader = source.reads_coco == old.reads_coco  # readers.coco or .file
        if not source.reader_args and source.kind != "arrays" and same_reader:
            source = dataclasses.replace(source, reader_args=old.reader_args)
        return self.replace_node(dataclasses.replace(source, id=old.id))

    def outputs_read_as(self, old: Source, new: Source) -> GraphSpec:
        """This graph with its outputs of source `old` pointed at what `new` reads under the
        same names, where the two read differently (a folder's labels are a COCO reader's third
        output, not its second, which holds boxes); an output `new` does not read is dropped.
        Both sources have `old`'s id (the swapped source keeps its wiring)."""
        if old.reads_coco == new.reads_coco:
            return self
        old_names, new_names = old.output_names(), new.output_names()
        outputs: dict[str, Ref] = {}
        for name, ref in self.outputs.items():
            if ref.node != old.id:
                outputs[name] = ref
                continue
            held = old_names[ref.output] if ref.output < len(old_names) else None
            if held in new_names:  # the same thing under its new index; what is gone is dropped
                outputs[name] = Ref(old.id, new_names.index(held))
        return dataclasses.replace(self, outputs=outputs)

    def with_data(self, data: Source) -> GraphSpec:
        """Read other data the same way: `data`'s kind, path and file root replace the first
        source's, whose shuffling, seed, bad-file handling and reader arguments stay. This is
        what ``--data`` and ``Session(data=...)`` mean: a validation graph stays unshuffled."""
        old = self.sources()[0] if self.sources() else None
        if old is None:
            return self.with_source(data)
        return self.replace_node(
            dataclasses.replace(
                old,
                kind=data.kind,
                path=data.path,
                file_root=data.file_root,
                skip_bad=old.skip_bad or data.skip_bad,
                reader_args={} if data.kind == "arrays" else old.reader_args,
            )
        )

    def set_reader_arg(self, source_id: str, name: str, value: Any) -> GraphSpec:
        """Set an argument of the DALI reader that reads source `source_id`."""
        return self.replace_node(self._source(source_id).with_reader_arg(name, value))

    def unset_reader_arg(self, source_id: str, name: str) -> GraphSpec:
        return self.replace_node(self._source(source_id).without_reader_arg(name))

    def unseeded(self) -> GraphSpec:
        """A copy with every operator's seeds left unset (its draws, coin flips and own seed);
        sources keep theirs. Two graphs equal unseeded differ at most in what they draw."""
        return dataclasses.replace(
            self, nodes=tuple(_unseeded(n) if isinstance(n, Node) else n for n in self.nodes)
        )

    def reseeded(self, draw: Callable[[], int], random_ops: Container[str] = ()) -> GraphSpec:
        """A copy with a new seed, from `draw`, for every random argument, every coin flip, and
        every random operator (one that already has a seed, or whose op is in `random_ops`).
        Sources keep their seeds, so the same images come back with new draws."""
        nodes: list[AnyNode] = []
        for node in self.nodes:
            if isinstance(node, Node):
                args = {
                    name: dataclasses.replace(value, seed=draw())
                    if isinstance(value, Random)
                    else value
                    for name, value in node.args.items()
                }
                probability = node.probability and dataclasses.replace(
                    node.probability, seed=draw()
                )
                random_op = node.seed is not None or node.op in random_ops
                seed = draw() if random_op else node.seed
                node = dataclasses.replace(node, args=args, probability=probability, seed=seed)
            nodes.append(node)
        return dataclasses.replace(self, nodes=tuple(nodes))

    def _source(self, node_id: str) -> Source:
        node = self.node(node_id)
        if not isinstance(node, Source):
            raise ValueError(f"{node_id!r} is an operator, not a data source")
        return node

    def _operator(self, node_id: str) -> Node:
        node = self.node(node_id)
        if not isinstance(node, Node):
            raise ValueError(f"{node_id!r} is a data source, not an operator")
        return node


N = TypeVar("N", bound="Source | Node")


def pinned_seeds(node: N, graph_seed: int, *, random: bool = False) -> N:
    """`node` with the seeds it leaves unset derived from `graph_seed` and its name, the one
    rule lowering and renaming share: a source's own seed; a node's draws (by argument), its
    coin flip ("apply") and, where `random` (its operator draws), its own seed."""
    if isinstance(node, Source):
        if node.seed is not None:
            return node
        return dataclasses.replace(node, seed=derive_seed(graph_seed, node.id))
    args = {
        name: dataclasses.replace(value, seed=derive_seed(graph_seed, node.id, name))
        if isinstance(value, Random) and value.seed is None
        else value
        for name, value in node.args.items()
    }
    probability = node.probability
    if probability is not None and probability.seed is None:
        probability = dataclasses.replace(
            probability, seed=derive_seed(graph_seed, node.id, "apply")
        )
    seed = node.seed
    if random and seed is None:
        seed = derive_seed(graph_seed, node.id)
    return dataclasses.replace(node, args=args, probability=probability, seed=seed)


def _unseeded(node: Node) -> Node:
    """`node` with its seeds unset: derived from its name when the graph is lowered."""
    args = {
        name: dataclasses.replace(value, seed=None) if isinstance(value, Random) else value
        for name, value in node.args.items()
    }
    probability = node.probability and dataclasses.replace(node.probability, seed=None)
    return dataclasses.replace(node, args=args, probability=probability, seed=None)


def chain(
    source: Source, *steps: tuple[str, str, Mapping[str, ArgValue]], **spec: Any
) -> GraphSpec:
    """A linear graph: `source` then each ``(id, op, args)`` step reading the previous one.

    The graph's outputs are ``images`` (the last step) and the source's other outputs by name
    (``labels``; for a COCO source also ``boxes`` and its masks).
    """
    nodes: list[AnyNode] = [source]
    previous = Ref(source.id)
    for node_id, op, args in steps:
        nodes.append(Node(node_id, op, inputs=(previous,), args=dict(args)))
        previous = Ref(node_id)
    outputs = {"images": previous}
    for index, name in enumerate(source.output_names()[1:], start=1):
        outputs[name] = Ref(source.id, index)
    return GraphSpec(nodes=tuple(nodes), outputs=outputs, **spec)
