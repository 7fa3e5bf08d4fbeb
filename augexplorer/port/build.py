"""Turn a pipeline read from another library (a :class:`~.model.TransformCall` tree) into a graph.

The graph reads the user's data (the bundled samples by default, else a folder or a file list,
as any graph's source), decodes it to RGB, then holds a node or a small group of nodes per
transform, made by the library's mapping (:class:`Mapping`: a handler per class name). The
user's randomness is kept: a transform's ``p=`` becomes apply-with-probability (one coin for
all the nodes of the transform), a group applied with a probability (``RandomApply``) runs its
nodes under one coin flip, a group that picks one transform (``RandomChoice``, ``OneOf``) draws
one choice and runs each transform where the choice is its index. Every draw is seeded from
the graph's seed and the node's name (:mod:`augexplorer.spec.seeds`), as any graph's are.
A transform the library's mapping cannot express is left out, with a :class:`~.model.Refusal`
naming it, its line and the nearest DALI operator; the graph keeps the refusals
(``GraphSpec.not_ported``), so its saved JSON and its export say what it does not run. A group
whose transforms could not be read is refused, and a group's coin or pick that would gate
nothing (its transforms all refused) is left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..expressions.nodes import expression
from ..spec import Clause, GraphSpec, Node, Origin, Probability, Ref, Source
from ..spec.graph import Fidelity
from ..spec.seeds import derive_seed
from .argument_names import explain_unknown
from .library_names import misspelled
from .model import PortedStep, PortResult, Refusal, TransformCall, Unknown
from .other_libraries import other_library_refusal
from .own_classes import near_refusal, near_transform
from .reading import COMPOSES

FIDELITY_ORDER: tuple[Fidelity, ...] = ("exact", "distribution", "approximate")


class Refuse(Exception):
    """Raised by a handler: the transform cannot be expressed; `reason` says why and what to
    use instead."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Grade:
    """A handler's measured grade for the call it ported and what differs, one sentence each."""

    fidelity: Fidelity
    differences: tuple[str, ...] = ()
    # the arguments given that the library's version the port follows ignores (albumentations
    # 2.x: 1.x's names), left out as it leaves them out; counted in the summary's first line
    ignored: tuple[str, ...] = ()


def worst(*fidelities: Fidelity) -> Fidelity:
    """The least faithful of several grades (a group is as faithful as its worst part)."""
    return max(fidelities, key=FIDELITY_ORDER.index, default="exact")


# A handler: ports `call` by adding nodes through the context, returns the grade.
Handler = Callable[[TransformCall, "PortContext"], Grade]
# A group handler: ports a transform holding others (RandomApply, OneOf) by calling
# `context.port_children` under the conditions it sets up; returns the grade of the grouping.
GroupHandler = Callable[[TransformCall, "PortContext"], Grade]


@dataclass
class LibraryMapping:
    """A library's mapping: handlers by class name, and groups (transforms holding others)."""

    library: str
    handlers: dict[str, Handler] = field(default_factory=dict)
    groups: dict[str, GroupHandler] = field(default_factory=dict)
    # what a refused class's nearest DALI operator is, by class name
    nearest: dict[str, str] = field(default_factory=dict)
    # classes whose handler reads an argument the file gives as code, by its text (Lambda)
    reads_code: frozenset[str] = frozenset()
    # classes the library's version the port follows no longer has: why each is refused
    removed: dict[str, str] = field(default_factory=dict)
    # why the library fails on a call (an argument its class does not take), else None;
    # `group`: a group's transforms were taken out of its arguments. Asked before anything
    # else: the call is refused as the library fails on it
    rejects: Callable[..., str | None] | None = None
    # handlers of a file's own classes whose source reads as a known transform, by the kind
    # the reading gave them (TransformCall.own: "pil_gaussian_blur")
    own_classes: dict[str, Handler] = field(default_factory=dict)


@dataclass
class PortContext:
    """What a handler builds with: the image so far, fresh node names, the conditions the
    transform runs under, and the layout state (HWC uint8 until a tensor conversion)."""

    mapping: LibraryMapping
    graph_seed: int
    nodes: list[Node] = field(default_factory=list)
    image: Ref = field(default_factory=lambda: Ref("decode"))
    clauses: tuple[Clause, ...] = ()
    steps: list[PortedStep] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    taken: set[str] = field(default_factory=lambda: {"reader", "decode"})
    # state the library's handlers share (a pending ToTensor to fold Normalize into, ...)
    state: dict[str, Any] = field(default_factory=dict)
    # nodes that only compute values from the image (a mean, a shape): they run on every
    # sample, whatever condition the transform runs under
    helpers: set[str] = field(default_factory=set)
    _current: list[Node] = field(default_factory=list)

    # ---- for handlers --------------------------------------------------------------------------
    def fresh_id(self, base: str) -> str:
        stem = base.replace(".", "_")
        name, index = stem, 2
        while name in self.taken:
            name, index = f"{stem}_{index}", index + 1
        self.taken.add(name)
        return name

    def add(
        self,
        base: str,
        op: str,
        args: Mapping[str, Any] | None = None,
        *,
        inputs: Sequence[Ref] | None = None,
        image: bool = True,
        seed: bool = False,
        check: bool = False,
    ) -> Ref:
        """Add a node named after `base`. With `image` it reads the image so far (unless
        `inputs` are given) and becomes the image; without, it is a helper (a draw, a matrix)
        that reads only `inputs`. `seed`: the operator draws, so it gets a seed. `check`: a
        node that is not the image but fails the run where the transform cannot apply (a size
        check): it runs under the transform's conditions, as the library raises only when it
        applies the transform."""
        node_id = self.fresh_id(base)
        if inputs is None:
            inputs = (self.image,) if image else ()
        node = Node(
            node_id,
            op,
            inputs=tuple(inputs),
            args=dict(args or {}),
            seed=self.seed_for(node_id) if seed else None,
        )
        self.nodes.append(node)
        self._current.append(node)
        if image:
            self.image = Ref(node_id)
        elif not check:
            self.helpers.add(node_id)
        return Ref(node_id)

    def add_node(self, node: Node, *, helper: bool = False) -> Ref:
        """Add a node made outside :meth:`add` (a constant) to the transform's own nodes, which
        run under its conditions unless `helper`: it computes on every sample."""
        self.nodes.append(node)
        self._current.append(node)
        if helper:
            self.helpers.add(node.id)
        return Ref(node.id)

    def add_expression(
        self,
        base: str,
        text: str,
        inputs: Sequence[Ref] | None = None,
        *,
        image: bool = False,
        helper: bool = False,
    ) -> Ref:
        """Add an expression node named after `base` (`inputs`: default, the nodes its text
        names). With `image` it becomes the image; `helper`: it computes on every sample."""
        ref = self.add_node(expression(self.fresh_id(base), text, inputs), helper=helper)
        if image:
            self.image = ref
        return ref

    def seed_for(self, *parts: str) -> int:
        from ..spec.seeds import derive_seed

        return derive_seed(self.graph_seed, "port", *parts)

    def replace(self, node_id: str, **changes: Any) -> None:
        """Change a node added before (folding a later transform into it)."""
        for index, node in enumerate(self.nodes):
            if node.id == node_id:
                self.nodes[index] = dataclasses.replace(node, **changes)
                for i, current in enumerate(self._current):
                    if current.id == node_id:
                        self._current[i] = self.nodes[index]
                return
        raise KeyError(node_id)

    def node(self, node_id: str) -> Node:
        return next(node for node in self.nodes if node.id == node_id)

    def coin(self, base: str, probability: float) -> Ref:
        """A per-sample boolean, true with `probability`, seeded."""
        return self.add(
            base,
            "random.coin_flip",
            {"probability": float(probability), "dtype": "BOOL"},
            image=False,
            seed=True,
        )

    def port_children(
        self, children: Iterable[TransformCall], clauses: Sequence[Clause] = ()
    ) -> None:
        """Port transforms (a group's) under the given clauses added to the current ones."""
        outer = self.clauses
        self.clauses = (*outer, *clauses)
        try:
            for child in children:
                self.port(child)
        finally:
            self.clauses = outer

    def choice(self, base: str, weights: Sequence[float]) -> list[Clause]:
        """Draw one of ``len(weights)`` indices per sample (with those weights) and return, for
        each index, the clause that holds where it was drawn."""
        count = len(weights)
        total = float(sum(weights))
        if total <= 0:
            raise Refuse("the transforms' probabilities add up to 0, so none is ever picked")
        from ..expressions.nodes import constant

        values = constant(self.fresh_id(f"{base}_indices"), list(range(count)), "INT32")
        pick = self.add(
            base,
            "random.choice",
            {"p": [float(w) / total for w in weights]},
            inputs=(self.add_node(values),),
            image=False,
            seed=True,
        )
        return [
            Clause(self.add_expression(f"{pick.node}_is_{index}", f"{pick.node} == {index}"))
            for index in range(count)
        ]

    # ---- the walk ------------------------------------------------------------------------------
    def port(self, call: TransformCall) -> None:
        """Port one transform (a group's transforms in turn), recording its step or refusal."""
        group = self.mapping.groups.get(call.name) if call.library == self.mapping.library else None
        if group is not None:
            self._port_group(call, group)
            return
        handler = (
            self.mapping.handlers.get(call.name) if call.library == self.mapping.library else None
        )
        own = self.mapping.own_classes.get(call.own.kind) if call.own is not None else None
        if handler is None and own is not None:
            # a class of the file's own read as a known transform: no signature of the
            # library's to check it against
            self._port_with(call, own)
            return
        if handler is None:
            self.refusals.append(Refusal(call, self._unsupported(call)))
            return
        rejected = self.mapping.rejects(call) if self.mapping.rejects else None
        if rejected is not None:
            self.refusals.append(Refusal(call, rejected))
            return
        # a class whose code argument its handler reads as written (a Lambda's lambda)
        unknown = {} if call.name in self.mapping.reads_code else call.unknowns()
        if unknown:
            self.refusals.append(Refusal(call, explain_unknown(call)))
            return
        self._port_with(call, handler)

    def _port_with(self, call: TransformCall, handler: Handler) -> None:
        """Run `handler` on `call`: its step, or its refusal with the graph as it was."""
        saved_nodes, saved_image, saved_state = list(self.nodes), self.image, dict(self.state)
        outer, self._current = self._current, []
        try:
            grade = handler(call, self)
        except Refuse as refused:
            self.nodes, self.image, self.state = saved_nodes, saved_image, saved_state
            self.refusals.append(Refusal(call, refused.reason))
            return
        except (ValueError, TypeError, KeyError, IndexError) as error:
            # an argument the mapping did not expect: this transform is left out, the rest of
            # the pipeline is still ported
            self.nodes, self.image, self.state = saved_nodes, saved_image, saved_state
            reason = f"its arguments could not be ported ({type(error).__name__}: {error})"
            self.refusals.append(Refusal(call, reason))
            return
        finally:
            made, self._current = self._current, outer
        self._finish(call, grade, made)

    def _port_group(self, call: TransformCall, group: GroupHandler) -> None:
        rejected = self.mapping.rejects(call, group=True) if self.mapping.rejects else None
        if rejected is not None:
            self.refusals.append(Refusal(call, rejected))
            return
        unread = _unread_transforms(call)
        if unread is not None:
            # ported without its transforms, a group would gate or pick nothing: refused
            self.refusals.append(unread)
            return
        saved_nodes, saved_image, saved_state = list(self.nodes), self.image, dict(self.state)
        steps_before, refusals_before = len(self.steps), len(self.refusals)
        outer, self._current = self._current, []
        refusal: Refusal | None = None
        try:
            grade = group(call, self)
        except Refuse as refused:
            refusal = Refusal(call, refused.reason)
        except (ValueError, TypeError, KeyError, IndexError) as error:
            # an argument the mapping did not expect, as for a single transform
            reason = f"its arguments could not be ported ({type(error).__name__}: {error})"
            refusal = Refusal(call, reason)
        finally:
            helpers, self._current = self._current, outer
        if refusal is not None:
            self.nodes, self.image, self.state = saved_nodes, saved_image, saved_state
            del self.steps[steps_before:]
            del self.refusals[refusals_before:]
            self.refusals.append(refusal)
            return
        helpers = self._drop_unread(helpers)
        if len(self.steps) == steps_before and len(self.refusals) > refusals_before:
            # every transform it holds was refused (their refusals say why): nothing of the
            # group is left, so it is no step of its own, and is listed as refused itself
            # (before them, as the file writes it), so that every transform shows once
            self.refusals.insert(refusals_before, Refusal(call, EMPTIED))
            return
        origin = self._origin(call, grade)
        self._tag(helpers, origin)
        self.steps.insert(steps_before, PortedStep(call, tuple(self._nodes_of(helpers)), origin))

    def _drop_unread(self, made: list[Node]) -> list[Node]:
        """Leave out a group's own nodes (its coin, its pick and the tests on it) that no node
        reads, where the transforms they were to gate were refused or there were none: a coin
        that gates nothing would show as ported what is not. Returns those kept."""
        candidates = {node.id for node in made}
        while True:
            read = {ref.node for node in self.nodes for ref in node.reads()}
            unread = candidates - read
            if not unread:
                break
            self.nodes = [node for node in self.nodes if node.id not in unread]
            self.helpers -= unread
            candidates -= unread
        return [node for node in made if node.id in candidates]

    def _origin(self, call: TransformCall, grade: Grade) -> Origin:
        text = call.text()
        return Origin(self.mapping.library, text, grade.fidelity, call.line, grade.differences)

    def _finish(self, call: TransformCall, grade: Grade, made: list[Node]) -> None:
        origin = self._origin(call, grade)
        if self.clauses:
            made = made + self._condition(made, self.clauses)
        self._tag(made, origin)
        folded = self.state.pop("folded_into", None)
        nodes = tuple(self._nodes_of(made))
        self.steps.append(PortedStep(call, nodes, origin, folded, grade.ignored))

    def _nodes_of(self, made: Iterable[Node]) -> list[Node]:
        ids = [node.id for node in made]
        return [node for node in self.nodes if node.id in ids]

    def _tag(self, made: Iterable[Node], origin: Origin) -> None:
        for node in made:
            current = self.node(node.id)
            if current.origin is None:
                self.replace(node.id, origin=origin)

    def _condition(self, made: Iterable[Node], clauses: Sequence[Clause]) -> list[Node]:
        """Run the nodes that read the image only where `clauses` hold; helpers (draws,
        matrices) run on every sample, which changes nothing that is seen. Returns the coins
        added for nodes whose own apply probability becomes a clause."""
        added: list[Node] = []
        for node in list(made):
            current = self.node(node.id)
            if not current.inputs or node.id in self.helpers:
                continue
            if current.probability is not None:
                # a node has either an apply probability or a condition: its own coin becomes
                # one more clause
                coin = self.coin(f"{node.id}_apply", current.probability.p)
                added.append(self.node(coin.node))
                self.replace(node.id, probability=None, when=(*clauses, Clause(coin)))
            else:
                self.replace(node.id, when=(*clauses, *current.when))
        return added

    def apply_with_probability(self, p: float, made: Sequence[Ref] | None = None) -> None:
        """Apply the nodes of the transform being ported with probability `p`: a single node
        through its own apply probability, several under one coin flip."""
        if p >= 1:
            return
        targets = [self.node(r.node) for r in made] if made else list(self._current)
        targets = [n for n in targets if n.inputs and n.id not in self.helpers]
        if not targets:  # a transform of no node (albumentations' NoOp): nothing to gate
            return
        if len(targets) == 1 and not self.clauses:
            self.replace(targets[0].id, probability=Probability(float(p)))
            return
        coin = self.coin(f"{targets[0].id}_apply", p)
        self.run_under([Ref(node.id) for node in targets], [Clause(coin)])

    def run_under(self, made: Sequence[Ref], clauses: Sequence[Clause]) -> None:
        """Run the nodes `made` only where `clauses` hold too (coins a transform shares between
        its steps)."""
        for ref in made:
            node = self.node(ref.node)
            self.replace(ref.node, when=(*node.when, *clauses))

    def _unsupported(self, call: TransformCall) -> str:
        nearest = self.mapping.nearest.get(call.name)
        removed = self.mapping.removed.get(call.name)
        if removed and call.library == self.mapping.library:
            return removed
        if call.expression == "comprehension":
            return (
                "a comprehension of transforms is not read: its loop runs only when the file "
                "runs (fix: write the transforms out, one call each)"
            )
        own = call.name.rsplit(".", 1)[-1]
        other = other_library_refusal(own, call.module, self.mapping.library)
        if call.library == "custom" and other is not None:  # timm's RandomErasing
            return other
        if call.library == "custom" and own in self.mapping.handlers:
            # MoCo's and DINO's GaussianBlur: a class of the file's own, of the library's name
            return (
                f"{call.name} is a class of your own, not {self.mapping.library}'s {own}, so "
                "it cannot be read without running it (fix: where it does what "
                f"{self.mapping.library}'s {own} does, use that, which is ported; else write it "
                "as a DALI node, or a python_function node)"
            )
        if call.expression.startswith("conditional on "):
            test = call.expression.removeprefix("conditional on ")
            named = all(part.isidentifier() for part in test.split("."))
            given = f"give it with --param {test}=VALUE, or " if named else ""
            return (
                f"which transform this is depends on {test}, known only when the file runs "
                f"(fix: {given}write the transform the file takes)"
            )
        near = near_transform(own, self.mapping.handlers) if call.library == "custom" else None
        if near is not None:  # DINO's Solarization: torchvision's RandomSolarize
            return near_refusal(call.name, self.mapping.library, near)
        if call.library == "custom":
            return (
                f"{call.name} is not one of {self.mapping.library}'s transforms (a custom class or "
                "function), so it cannot be read without running it (fix: write it as a DALI "
                "node, or a python_function node)"
            )
        known = {*self.mapping.handlers, *self.mapping.groups, *self.mapping.nearest}
        typo = misspelled(call, frozenset({*known, *self.mapping.removed}))
        if typo is not None:  # no such class: the file fails on it
            return typo
        if nearest:
            return f"DALI has no equivalent of {call.name}; the nearest operator is {nearest}"
        return (
            f"{call.name} is not ported yet (fix: add the DALI operator by hand in the "
            "explorer, or a python_function node)"
        )


# Why a group is refused whose transforms were all refused
EMPTIED = (
    "none of the transforms it holds could be ported (each is listed with its reason), so it "
    "has nothing to apply"
)


def annotations_left_out(what: str) -> str:
    """Why a pipeline's `what` (boxes, keypoints) are not ported, and the way to them."""
    return (
        f"the port carries the images, not their {what}: the graph reads images and class "
        "labels (fix: open the graph on annotated data, a COCO file or a YOLO folder, "
        f"where the panel carries {what} through flips, resizes and rotations with DALI's "
        "companion operators and names the nodes it cannot carry them through: "
        "docs/annotations.md)"
    )


# The attribute (and keyword) a group holds its transforms in.
TRANSFORMS = "transforms"


def _unread_transforms(call: TransformCall) -> Refusal | None:
    """The refusal of a group whose transforms were not read (a live object holding them in
    something other than a sequence of transforms: the reading keeps it as an argument), else
    None. The refused call shows that value on one line."""
    if TRANSFORMS not in call.kwargs:
        return None
    held = call.kwargs[TRANSFORMS]
    text = held.text if isinstance(held, Unknown) else repr(held)
    shown = " ".join(text.split()) or "?"  # a module's repr spans lines
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    reason = (
        f"the transforms it holds ({shown}) could not be read as a sequence of transforms, so "
        f"what it applies is unknown (fix: give them as a list, {call.name}([...]), or a "
        "torch.nn.ModuleList of transforms)"
    )
    kwargs = {**call.kwargs, TRANSFORMS: Unknown(shown, call.line)}
    return Refusal(dataclasses.replace(call, kwargs=kwargs), reason)


@dataclass(frozen=True)
class DataSource:
    """Which data a ported graph reads: the bundled samples, a folder or a file list."""

    kind: str = "samples"
    path: str | None = None
    shuffle: bool = True


def build_graph(
    compose: TransformCall,
    mapping: LibraryMapping,
    *,
    name: str = "ported",
    data: DataSource | None = None,
    batch_size: int = 8,
    seed: int = 0,
    finish: Callable[[PortContext], None] | None = None,
) -> PortResult:
    """The graph of a library's compose: reader, RGB decoder, the ported transforms in order.
    `finish` lets the library's mapping close the graph (a pending layout change)."""
    data = data or DataSource()
    source = Source(
        "reader",
        kind=data.kind,  # type: ignore[arg-type]
        path=data.path,
        shuffle=data.shuffle,
        seed=derive_seed(seed, "port", "reader"),
    )
    decode = Node("decode", "decoders.image", (Ref("reader"),), {"output_type": "RGB"})
    context = PortContext(mapping, seed)
    # a Compose's transforms in turn; anything else (a RandomApply or RandomChoice given as the
    # whole pipeline, an albumentations Compose with p < 1) as the one transform it is, so that
    # its coin or pick is kept
    p = compose.kwargs.get("p", 1.0)
    readable = isinstance(p, int | float) and not isinstance(p, bool)
    always = not readable or p >= 1
    whole = compose.name in COMPOSES.get(compose.library, ()) and compose.children and always
    context.port_children(compose.children if whole else [compose])
    if whole and not readable:  # p=args.p: ported as always applied, and said
        call = TransformCall(compose.library, compose.name, kwargs={"p": p}, line=compose.line)
        reason = (
            f"its p={getattr(p, 'text', p)} is not a number the file gives, so its transforms "
            "are ported as applied to every image (fix: write the number in the file)"
        )
        context.refusals.append(Refusal(call, reason))
    if finish is not None:
        finish(context)
    nodes: tuple[Any, ...] = (source, decode, *context.nodes)
    outputs = {"images": context.image, "labels": Ref("reader", 1)}
    # the transforms left out stay with the graph: its JSON and its export name them
    left_out = tuple(refusal.left_out(mapping.library) for refusal in context.refusals)
    spec = GraphSpec(
        nodes, outputs, batch_size=batch_size, seed=seed, name=name, not_ported=left_out
    )
    return PortResult(spec, tuple(context.steps), tuple(context.refusals))
