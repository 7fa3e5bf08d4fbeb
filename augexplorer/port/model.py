"""What a port is made of: the transforms read from the user's pipeline, and what each became.

A port reads a pipeline of another library (torchvision, albumentations) without running it,
into :class:`TransformCall` trees; each library's mapping turns one call into a
:class:`PortedStep` (graph nodes, each carrying its :class:`~augexplorer.spec.Origin`) or a
:class:`Refusal`; :class:`PortResult` holds the graph and the summary a person reads.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..spec import GraphSpec, Node, NotPorted, Origin

if TYPE_CHECKING:
    from .own_blurs import OwnClass

# the key under which a call holds a ``**mapping`` it could not read (its arguments unknown)
SPREAD = "**"
SHOWN_CHILDREN = 4  # a wrapper's call names this many of the transforms it holds
# The version a library's port follows where it ignores arguments (PortedStep.ignored)
IGNORING = {"albumentations": "albumentations 2.x"}


@dataclass(frozen=True)
class Unknown:
    """An argument whose value the source does not give as a literal (``size=args.size``)."""

    text: str
    line: int | None
    # where the value comes from, where the reading knows (a checkpoint's settings), said
    hint: str = ""

    def explain(self, argument: str, *, with_line: bool = True, position: int | None = None) -> str:
        """Why the argument stops the port, and the fix. `position`: the argument was given by
        position (``RandomCrop(crop_size)``), said beside its name; an `argument` of ``#0``
        (:meth:`TransformCall.unknowns`, no name known) is said by its position alone."""
        where = f"line {self.line}: " if self.line is not None and with_line else ""
        if argument == SPREAD:  # Resize(**size): which arguments it gives is not known
            return (
                f"{where}**{self.text} is known only when the file runs, and with it which "
                "arguments it gives; write them in the call"
            )
        # a name or an attribute (args.size, CFG.img_size) can be given as it is written
        named = all(part.isidentifier() for part in self.text.split("."))
        fix = f", or give it with --param {self.text}=VALUE" if named else ""
        if position is None and argument.startswith("#") and argument[1:].isdigit():
            position, argument = int(argument[1:]), ""
        said = f"{argument}={self.text}" if argument else self.text
        if position is not None:
            said += f" (its {ordinal(position)} argument)"
        hint = f" ({self.hint})" if self.hint else ""
        return (
            f"{where}{said} is known only when the file runs{hint}; write the value in the "
            f"call{fix}"
        )


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def ordinal(index: int) -> str:
    """``first`` for 0: a positional argument as a person counts it."""
    return _ORDINALS[index] if 0 <= index < len(_ORDINALS) else f"number {index + 1}"


@dataclass(frozen=True)
class Symbol:
    """A library constant named in the source or held by a live object, by its dotted name
    with the import alias resolved (``torchvision.transforms.InterpolationMode.BICUBIC``,
    ``InterpolationMode.BICUBIC``, ``cv2.BORDER_REFLECT``, ``torch.float32``)."""

    text: str

    @property
    def last(self) -> str:
        """The constant's own name: ``BICUBIC``, ``float32``."""
        return self.text.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class TransformCall:
    """One transform as the user wrote it: its class name (as the library names it, e.g.
    ``RandomResizedCrop``), its positional and keyword arguments (literals, or :class:`Unknown`),
    its line (None for a live object) and, for composes (``RandomApply``, ``OneOf``), the
    transforms it holds."""

    library: str
    name: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None
    children: tuple[TransformCall, ...] = ()
    # the module the class was named from, as written (``torchvision.transforms.v2``); empty
    # where it is not known. Not compared: a class is the same transform from either name
    module: str = field(default="", compare=False)
    # where the list holds no call but an expression (`name` is its text): what it is
    # ("comprehension", "expression"); empty for a call
    expression: str = field(default="", compare=False)
    # a class of the file's own whose source reads as a transform the port knows (MoCo's
    # GaussianBlur: own_blurs.OwnBlur); None for the others
    own: OwnClass | None = field(default=None, compare=False)
    # a class or function of the project's other files: where it is defined ("defined in
    # moco/loader.py, line 9"), or where the reading looked for its module; said with its
    # refusal, as the call's own line is the file's
    defined_at: str = field(default="", compare=False)
    # the project's other file the call is written in, where not the file read (a builder
    # function imported from it): "data/augment.py (get_train_transform, called at line 12)"
    written_in: str = field(default="", compare=False)

    def text(self) -> str:
        """The call as a person would write it: ``RandomResizedCrop(224, scale=(0.08, 1.0))``;
        an item of the list that is no call (a comprehension), as it is written."""
        if self.expression:
            return self.name
        parts = [_literal(value) for value in self.args]
        parts += [f"{name}={_literal(value)}" for name, value in self.kwargs.items()]
        if self.children:  # named, not written out: "OneOf([Blur, MotionBlur], p=0.3)"
            names = [child.name for child in self.children[:SHOWN_CHILDREN]]
            more = len(self.children) - len(names)
            parts.insert(0, f"[{', '.join(names)}{f', {more} more' if more else ''}]")
        return f"{self.name}({', '.join(parts)})"

    def argument(self, index: int, name: str, default: Any = None) -> Any:
        """Argument `name`, given by keyword or as positional argument `index`, else
        `default`."""
        if name in self.kwargs:
            return self.kwargs[name]
        return self.args[index] if index < len(self.args) else default

    def walk(self) -> Iterator[TransformCall]:
        """This call, then every call it holds, depth first in the written order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def unknowns(self) -> dict[str, Unknown]:
        """The arguments known only at run time, by name (positional ones as ``#0``, ...)."""
        found = {f"#{i}": v for i, v in enumerate(self.args) if isinstance(v, Unknown)}
        found.update({k: v for k, v in self.kwargs.items() if isinstance(v, Unknown)})
        return found


def _literal(value: Any) -> str:
    return written(value)


class FactoryDict(dict[Any, Any]):
    """``collections.defaultdict(factory, {...})`` as the file writes it: its written entries,
    and its factory's text. A lookup by ``in`` (torchvision's value per type) never calls the
    factory, so the entries alone are what it finds."""

    def __init__(self, entries: dict[Any, Any], factory: str) -> None:
        super().__init__(entries)
        self.factory = factory


def written(value: Any) -> str:
    """A value as the source writes it: names the reading could not evaluate (an
    :class:`Unknown` ``tv_tensors.Image``, a :class:`Symbol`) by their text, inside dicts,
    lists and tuples too, never as the reader's own objects."""
    if isinstance(value, Unknown | Symbol):
        return value.text
    if isinstance(value, dict):
        entries = "{" + ", ".join(f"{written(k)}: {written(v)}" for k, v in value.items()) + "}"
        if isinstance(value, FactoryDict):
            return f"defaultdict({value.factory}, {entries})"
        return entries
    if isinstance(value, list):
        return "[" + ", ".join(written(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(written(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


@dataclass(frozen=True)
class Refusal:
    """A transform the port cannot express in DALI: `reason` says why and what to use instead
    (the nearest DALI operator, or a python_function node)."""

    call: TransformCall
    reason: str
    # what of the call is left out where the call itself is ported ("boxes": a detection
    # pipeline's Compose, whose images are); empty: the whole transform
    part: str = ""

    @property
    def what(self) -> str:
        """The transform, or the part of it, that is not ported."""
        return f"{self.call.text()}'s {self.part}" if self.part else self.call.text()

    def describe(self) -> str:
        where = f"line {self.call.line}: " if self.call.line is not None else ""
        if self.call.written_in:  # a line of another file: which one, and how it is reached
            where = f"line {self.call.line} of {self.call.written_in}: "
        return f"{where}{self.what} not ported: {self.full_reason}"

    @property
    def full_reason(self) -> str:
        """The reason, with where a class of another file is defined (or was looked for)."""
        return f"{self.reason} ({self.call.defined_at})" if self.call.defined_at else self.reason

    def left_out(self, library: str) -> NotPorted:
        """What the graph keeps of this refusal (`library`: the pipeline's), so that its JSON
        and its export still name the transform it does not run."""
        return NotPorted(library, self.what, self.full_reason, self.call.line)


@dataclass(frozen=True)
class PortedStep:
    """What one transform became: graph nodes in order (each with its Origin)."""

    call: TransformCall
    nodes: tuple[Node, ...]
    origin: Origin
    # a transform that added no node of its own: the node it was folded into
    folded_into: str | None = None
    # the arguments given that the library's version the port follows ignores (albumentations
    # 2.x: 1.x's names), left out of the port as that version leaves them out
    ignored: tuple[str, ...] = ()


@dataclass(frozen=True)
class PortResult:
    """A ported pipeline: the graph, every step in order, and the transforms left out."""

    spec: GraphSpec
    steps: tuple[PortedStep, ...]
    refusals: tuple[Refusal, ...] = ()
    # what the reading took that a run of the file may not (a function parameter's default),
    # one sentence each, said under the first line
    notes: tuple[str, ...] = ()

    @property
    def transforms_not_ported(self) -> int:
        """How many transforms are left out (a part left out, such as a detection pipeline's
        boxes, is not a transform)."""
        return sum(1 for refusal in self.refusals if not refusal.part)

    def _parts_not_ported(self) -> str:
        parts = [refusal.what for refusal in self.refusals if refusal.part]
        return f", and {', '.join(parts)}" if parts else ""

    def _grades(self) -> str:
        """How many steps have each grade, and how many had arguments left out that the
        library ignores: a clean-looking count would hide that the file asks for more."""
        grades = [step.origin.fidelity for step in self.steps]
        counts = ", ".join(
            f"{grades.count(name)} {name}"
            for name in ("exact", "distribution", "approximate")
            if name in grades
        )
        ignoring = [step for step in self.steps if step.ignored]
        if not ignoring:
            return counts or "none"
        versions = sorted({IGNORING.get(s.call.library, s.call.library) for s in ignoring})
        return f"{counts}; {len(ignoring)} with arguments {' or '.join(versions)} ignores"

    def summary(self) -> str:
        """One line per transform: what it became, its fidelity and what differs."""
        lines = [
            f"{transforms(len(self.steps))} ported ({self._grades()}), "
            f"{self.transforms_not_ported} not ported{self._parts_not_ported()}"
        ]
        lines += [f"note: {note}" for note in self.notes]
        for step in self.steps:
            folded = f"(folded into {step.folded_into})" if step.folded_into else "(no node)"
            nodes = ", ".join(node.id for node in step.nodes) or folded
            lines.append(f"{step.origin.describe()} -> {nodes}")
            lines += [f"    {difference}" for difference in step.origin.differences]
        if self.refusals:
            # said apart from the ported steps: the graph (and any module exported from it)
            # runs less than the original pipeline
            # counted as the first line counts them: transforms, then parts of the pipeline
            parts = len(self.refusals) - self.transforms_not_ported
            counted = [transforms(self.transforms_not_ported)] if self.transforms_not_ported else []
            counted += [f"{parts} part{'s' if parts > 1 else ''} of the pipeline"] if parts else []
            lines.append(
                f"NOT PORTED ({' and '.join(counted)}): left out of the graph and of any module "
                "exported from it; the original pipeline runs them:"
            )
            lines += [refusal.describe() for refusal in self.refusals]
        return "\n".join(lines)


def transforms(count: int) -> str:
    """`count` transforms, said in words ("1 transform", "3 transforms")."""
    return f"{count} transform{'' if count == 1 else 's'}"
