"""A serialized DALI pipeline (``Pipeline.serialize()``) turned into an editable graph.

Operators become nodes (named after the operator, ``resize``, ``resize_2``, ...), constant
arguments are typed from the operator schemas (enums restored by name), positional and argument
inputs become references, constants and arithmetic on data nodes become constant and
expression nodes (:mod:`.expression_import`), and DALI conditionals become node conditions
(:mod:`.branch_import`); the simplest, ``if coin_flip(p): x = op(x)``, becomes the node's apply
probability. What a graph cannot hold is refused with an error naming it.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..catalog import ArgInfo, Catalog, load_catalog
from ..catalog.readers import EPOCH_AS_DALI_DOES, READER, SOURCE_OWNED
from ..crop_search import EndlessCropSearch
from ..errors import AugExplorerError
from ..plan import Step
from ..spec import GraphSpec, Node, Probability, Ref, Source
from ..validate import RESERVED_IDS
from . import refusals
from .alias_import import current_names, replacement_of
from .auto_aug_import import NotRecovered, PolicyCall, escaping, policy_calls, recover
from .box_formats import BoxFormatMismatch, box_format_mismatches
from .branch_import import BranchesRefused, BranchImport
from .coco_import import CocoRefused, coco_source, output_names
from .crop_searches import endless_searches
from .derived_seeds import seed_operators, takes_random_seed
from .expression_import import ExpressionImport
from .inline_lists import InlineListRefused, ListWriter, in_cache, list_text
from .literals import ENUM_TYPES
from .logic_import import LogicImport, LogicRefused
from .mask_types import int32_masks, int32_masks_refused
from .protobuf import Argument, OpRecord, Port, read_pipeline
from .transfer_import import Transfers, moves_to_gpu, written_devices


class ReaderRenamed(UserWarning):
    """A reader whose ``name=`` is no Python name has another in the graph and its export."""


class ImportRefused(AugExplorerError):
    """A pipeline (or a part of one) that an augexplorer graph cannot represent."""


# Arguments every operator carries that are execution details, not graph content.
_PLUMBING = {"device", "preserve", "preserve_name", "bytes_per_sample_hint", "name", "seed"}

# Arguments that only add outputs after the operator's first, which stays the same without them
# (DALI 2.4): a graph node of the operator gives one output, so where the code reads none of what
# they add the graph leaves them out.
_EXTRA_OUTPUTS_ONLY = {"resize": "save_attrs", "experimental.resize": "save_attrs"}


@dataclass
class _Split:
    source: Ref  # what the split data node stands for
    predicate: str  # output name of the predicate


def graph_from_serialized(
    data: bytes,
    name: str = "imported",
    write_list: ListWriter = in_cache,
    values: Mapping[str, Any] | None = None,
) -> GraphSpec:
    """An editable graph from the bytes of ``Pipeline.serialize()``; a reader given its files in
    code reads them from a file list that `write_list` writes (:mod:`.inline_lists`). `values`
    are those the pipeline function's parameters had, for reading policy calls written with
    them (:func:`.auto_aug_import.recover`)."""
    return _Converter(load_catalog(), name, write_list, values).convert(data)


def _fn_name(op: OpRecord) -> str:
    module = str(op.args["_module"].value()) if "_module" in op.args else "nvidia.dali.fn"
    display = str(op.args["_display_name"].value()) if "_display_name" in op.args else ""
    prefix = module.removeprefix("nvidia.dali.fn").lstrip(".")
    if not display:
        from ..catalog.schema import fn_name

        return fn_name(op.schema)
    return f"{prefix}.{display}" if prefix else display


def _shortest_float(value: float) -> float:
    # floats travel as float32: keep the shortest decimal that gives the same float32 back
    import numpy as np

    return float(repr(np.float32(value)).removeprefix("np.float32(").removesuffix(")"))


class _Converter:
    def __init__(
        self,
        catalog: Catalog,
        name: str,
        write_list: ListWriter = in_cache,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        self.catalog = catalog
        self.name = name
        self.write_list = write_list
        self.values = dict(values or {})
        self.refs: dict[str, Ref] = {}  # DALI output name -> graph reference
        self.splits: dict[str, _Split] = {}
        self.nodes: list[Any] = []
        self.ids: set[str] = set()
        self.predicates: dict[str, OpRecord] = {}  # output name -> coin flip op
        self.coin_flips: dict[str, tuple[OpRecord, str]] = {}

    def convert(self, data: bytes) -> GraphSpec:
        record = read_pipeline(data)
        # old names (the ops API, fn aliases, deprecated arguments) as the current operators
        record = dataclasses.replace(record, ops=current_names(record.ops))
        self.record = record
        for op in record.ops:
            _refuse_negative_seed(op)
        # boxes read in another layout than the reader gives: DALI runs it, and so does the graph
        for said in box_format_mismatches(record.ops, _fn_name, refusals.where):
            warnings.warn(BoxFormatMismatch(said), stacklevel=2)
        # a crop whose search may never end: imported as written (the graph's check refuses
        # to run it until it is changed), and said here with the line
        for said in endless_searches(record.ops, _fn_name, refusals.where):
            warnings.warn(EndlessCropSearch(said), stacklevel=2)
        # pixel masks resized as read (int32): DALI fails the first batch
        int32 = int32_masks(record.ops, _fn_name)
        if int32 is not None:
            raise ImportRefused(refusals.refusal(int32_masks_refused(int32[1]), int32[0]))
        # auto_aug policy calls become one node each (their operators are not converted)
        self.policy_calls = policy_calls(record.ops)
        if record.seed is not None:  # the seeds DALI derived from the pipeline's seed=
            seed_operators(record.ops, record.seed, skip=set(self.policy_calls))
        consumers = self._plain_consumers(record.ops)
        self.expressions = ExpressionImport(
            _calls_as_one(record.ops, self.policy_calls),
            [port.name for port in record.outputs],
            self._ref,
            self._fresh_id,
            self._add,
            lambda: self.ids,
        )
        # a coin flip read only by one merge (and its splits) can become an apply probability
        self.predicate_uses = {
            name: sum(
                1
                for op in record.ops
                for port in op.inputs
                if port.name == name and _fn_name(op) != "_conditional.split"
            )
            + sum(1 for port in record.outputs if port.name == name)
            for name in self.coin_flip_names(record.ops)
        }
        self.logic = LogicImport(
            record.ops,
            [port.name for port in record.outputs],
            _fn_name,
            self._ref,
            self._node,
            self._fresh_id,
            self._add,
            self._remove,
            self._alias,
        )
        self.branches = BranchImport(self._ref, self._node, self._replace, self.logic.clause)
        self.written = written_devices(record.ops)
        self.transfers = Transfers(
            self._node, self._replace, self._fresh_id, lambda node: self.nodes.append(node)
        )
        for op in record.ops:
            self._op(op, consumers)
            self.branches.record(op, self.refs)
        used = {ref.node for node in self.nodes if isinstance(node, Node) for ref in node.inputs}
        used |= {
            clause.ref.node for node in self.nodes if isinstance(node, Node) for clause in node.when
        }
        used |= {
            v.node
            for node in self.nodes
            if isinstance(node, Node)
            for v in node.args.values()
            if isinstance(v, Ref)
        }
        refs = [self._read(port, "pipeline output") for port in record.outputs]
        used |= {ref.node for ref in refs}
        # coin flips that only served as `if` predicates became node probabilities
        self.nodes = [
            n for n in self.nodes if n.id in used or n.id not in self._predicate_node_ids()
        ]
        # named by what they hold: labels, and a COCO reader's boxes, polygons, ...
        names = output_names(tuple(self.nodes), self.transfers.sources_of(refs))
        outputs = dict(zip(names, refs, strict=True))
        return GraphSpec(nodes=tuple(self.nodes), outputs=outputs, name=self.name)

    # ---- helpers ------------------------------------------------------------------------------
    def _node(self, node_id: str) -> Any:
        return next(node for node in self.nodes if node.id == node_id)

    def _replace(self, node: Node) -> None:
        self.nodes[self.nodes.index(self._node(node.id))] = node

    def _remove(self, node_id: str) -> None:
        self.nodes.remove(self._node(node_id))

    def _alias(self, output_name: str, data_name: str) -> None:
        """Output `output_name` of a split stands for the value it split."""
        self.splits[output_name] = _Split(self._ref(data_name, "a conditional"), "")

    def _add(self, node: Node, op: OpRecord) -> None:
        self.nodes.append(node)
        for index, port in enumerate(op.outputs):
            self.refs[port.name] = Ref(node.id, index)

    @staticmethod
    def coin_flip_names(ops: list[OpRecord]) -> list[str]:
        return [op.outputs[0].name for op in ops if _fn_name(op) == "random.coin_flip"]

    def _predicate_node_ids(self) -> set[str]:
        return {self.refs[name].node for name in self.predicates if name in self.refs}

    def _feeds_arguments(self, op: OpRecord) -> bool:
        """Whether every operator that reads `op` reads it as an argument (an angle, a
        factor), not as data."""
        outputs = {port.name for port in op.outputs}
        read = [port for other in self.record.ops for port in other.inputs if port.name in outputs]
        return bool(read) and all(port.is_argument for port in read)

    def _plain_consumers(self, ops: list[OpRecord]) -> dict[str, int]:
        """How many non-conditional operators read each output."""
        counts: dict[str, int] = {}
        for op in ops:
            if _fn_name(op).startswith("_conditional."):
                continue
            for port in op.inputs:
                counts[port.name] = counts.get(port.name, 0) + 1
        return counts

    def _fresh_id(self, base: str, *, keep_case: bool = False) -> str:
        """An id not taken yet, from `base`; lower case unless `keep_case` (a reader's name,
        which the user's own iterators pass as ``reader_name=``)."""
        stem = re.sub(r"\W+", "_", base).strip("_") or "node"
        stem = stem if keep_case else stem.lower()
        if stem[0].isdigit() or keyword.iskeyword(stem) or stem in RESERVED_IDS:
            stem = f"{stem}_node"
        candidate, index = stem, 2
        while candidate in self.ids:
            candidate, index = f"{stem}_{index}", index + 1
        self.ids.add(candidate)
        return candidate

    def _reader_id(self, name: str) -> str:
        """A reader's node id: the ``name=`` the code gave it (its iterators look it up by that
        name), said where it is no Python name and so changes; "source" where it gave none
        (DALI's own names begin with "_")."""
        if not name or name.startswith("_"):
            return self._fresh_id("source")
        node_id = self._fresh_id(name, keep_case=True)
        if node_id != name:
            warnings.warn(
                ReaderRenamed(
                    f"the reader named {name!r} is {node_id!r} in the graph and in a module "
                    f"exported from it (a node's name is a Python name): pass "
                    f"reader_name={node_id!r} to your iterator, or rename the node"
                ),
                stacklevel=2,
            )
        return node_id

    def _read(self, port: Port, what: str) -> Ref:
        """What reading `port` reads: through a copy node where the code moved it onto the GPU
        (``.gpu()``; :mod:`.transfer_import`). Inside a conditional the move is not kept (the
        copy would need the branch's condition too)."""
        ref = self._ref(port.name, what)
        if port.name in self.splits or not moves_to_gpu(port, self.written):
            return ref
        return self.transfers.onto_gpu(ref)

    def _ref(self, output_name: str, what: str) -> Ref:
        if output_name in self.splits:
            return self.splits[output_name].source
        if output_name not in self.refs:
            raise ImportRefused(f"{what} reads {output_name!r}, which the pipeline never made")
        return self.refs[output_name]

    # ---- operators ----------------------------------------------------------------------------
    def _op(self, op: OpRecord, consumers: dict[str, int]) -> None:
        name = _fn_name(op)
        label = f"fn.{name}{refusals.where(op)}"
        call = self.policy_calls.get(op.instance)
        if call is not None:
            if op is call.ops[-1]:  # the call's result: every operator it reads is converted
                self._policy(call)
            return
        policy = refusals.auto_aug_policy(op)
        if policy is not None:
            raise ImportRefused(refusals.refusal(refusals.auto_aug(policy), op))
        if self.expressions.handles(op):  # constants, arithmetic, .shape(), subscripts
            self.expressions.convert(op)
            return
        refused = refusals.construct(op, name, feeds_arguments=self._feeds_arguments(op))
        if refused is not None:
            raise ImportRefused(refusals.refusal(refused, op))
        if self.logic.handles(op):  # and, or, not
            try:
                self.logic.convert(op)
            except LogicRefused:
                raise ImportRefused(refusals.refusal(refusals.logical(op), op)) from None
            return
        if name == "_conditional.split":
            self._split(op)
            return
        if name == "_conditional.merge":
            self._merge(op)
            return
        if name == "readers.file":
            self._reader(op, label)
            return
        if name == "readers.coco":
            self._coco_reader(op, label)
            return
        if name.startswith("_conditional."):
            raise ImportRefused(refusals.refusal(refusals.conditional(op), op))
        info = self.catalog.get(name)
        replacement = replacement_of(op)
        if info is None and replacement is not None:
            raise ImportRefused(
                f"{label}: DALI deprecates it in favour of {replacement}, which takes other "
                f"inputs or arguments, so the explorer has no {name!r} (fix: rewrite the call "
                f"with {replacement})"
            )
        if info is None:
            raise ImportRefused(
                f"{label}: the explorer has no operator {name!r} (it offers the public fn "
                "operators of the installed DALI; fix: replace it with one of those, see "
                "`augexplorer catalog`)"
            )
        device = op.args["device"].value() if "device" in op.args else None
        if device == "cpu" and "cpu" not in info.backends:
            refused = refusals.gpu_only_on_cpu(name, op.schema, op.called)
            raise ImportRefused(refusals.refusal(refused, op))
        node_id = self._fresh_id(name.rsplit(".", 1)[-1])
        inputs: list[Ref] = []
        args: dict[str, Any] = {}
        for port in op.inputs:
            ref = self._read(port, f"{label} input")
            if port.is_argument:
                args[port.argument] = ref
            else:
                inputs.append(ref)
        for arg_name, arg in op.args.items():
            if arg_name.startswith("_") or arg_name in _PLUMBING:
                continue
            arg_info = info.arg(arg_name)
            if arg_info is None:
                raise ImportRefused(
                    f"{label}: argument {arg_name!r} is not in {name}'s schema (fix: leave it "
                    f"out, or see the arguments it takes: augexplorer catalog {name})"
                )
            args[arg_name] = _constant(arg_info, arg)
        args = self._outputs_as_in_graph(op, name, label, tuple(inputs), args)
        seed = int(op.args["seed"].value()) if info.random and "seed" in op.args else None
        node = Node(
            id=node_id,
            op=name,
            inputs=tuple(inputs),
            args=args,
            device=device if device in ("gpu", "mixed") else None,
            seed=seed,
        )
        self.nodes.append(node)
        for index, port in enumerate(op.outputs):
            self.refs[port.name] = Ref(node_id, index)
        if name == "random.coin_flip" and op.outputs:
            self.coin_flips[op.outputs[0].name] = (op, node_id)

    def _outputs_as_in_graph(
        self, op: OpRecord, name: str, label: str, inputs: tuple[Ref, ...], args: dict[str, Any]
    ) -> dict[str, Any]:
        """`args`, where the graph's node of `op` gives the outputs DALI made for it; an argument
        that only adds an output nobody reads left out. Else refused: the export would unpack
        another number of outputs than DALI returns (``fn.resize(save_attrs=True)`` gives two)."""
        made = len(op.outputs)
        if made == _output_count(name, inputs, args):
            return args
        extra = {port.name for port in op.outputs[1:]}
        read = any(port.name in extra for other in self.record.ops for port in other.inputs)
        read = read or any(port.name in extra for port in self.record.outputs)
        adds = _EXTRA_OUTPUTS_ONLY.get(name)
        if not read and adds in args:
            trimmed = {k: v for k, v in args.items() if k != adds}
            if _output_count(name, inputs, trimmed) == 1:
                return trimmed
        count = _output_count(name, inputs, args)
        given = f" with {adds}=True" if adds in args else " with the arguments written"
        fix = (
            f"leave out {adds}, and read the input's size it gives from the input's .shape(): "
            "fn.cast(images.shape()[0:2], dtype=types.INT32) for HWC images"
            if adds in args
            else f"leave out the arguments that change how many outputs it gives ({count} by "
            "default), and compute what you need from those"
        )
        raise ImportRefused(
            f"{label}: DALI gives it {made} output{'s' if made != 1 else ''}{given}, and a "
            f"graph node of {name} gives {count} (fix: {fix})"
        )

    def _policy(self, call: PolicyCall) -> None:
        """One auto_aug policy call as a policy node, its arguments read from the call."""
        label = f"{call.function}{refusals.where(call.ops[0])}"
        try:
            outputs = escaping(call, self.record.ops, self.record.outputs)
            if len(outputs) != 1:
                raise NotRecovered(
                    "what it made is read in more than one place (a line that calls it more "
                    "than once, in a loop or a helper, makes one expansion of several calls)"
                )
            made = recover(call, self.values)
        except NotRecovered as error:
            construct = refusals.auto_aug(call.function, str(error))
            raise ImportRefused(refusals.refusal(construct, call.ops[0])) from None
        args = dict(made.args)
        if made.shape is not None:
            args["shape"] = self._ref(made.shape, f"{label} shape")
        node = Node(
            id=self._fresh_id(call.function),
            op=made.op,
            inputs=(self._ref(made.images, label),),
            args=args,
            seed=made.seed,
        )
        self.nodes.append(node)
        self.refs[outputs[0]] = Ref(node.id)

    def _coco_reader(self, op: OpRecord, label: str) -> None:
        node_id = self._reader_id(op.instance)
        try:
            source = coco_source(op, self.catalog, node_id, _constant, self.write_list)
        except CocoRefused as error:
            raise ImportRefused(f"{label}: {error}") from None
        self.nodes.append(source)
        for index, port in enumerate(op.outputs):
            self.refs[port.name] = Ref(node_id, index)

    def _reader(self, op: OpRecord, label: str) -> None:
        args = {k: a.value() for k, a in op.args.items()}
        file_root = str(args["file_root"]) if args.get("file_root") else None
        node_id = self._reader_id(op.instance)
        if file_root and not args.get("file_list") and not args.get("files"):
            if args.get("dir_filters"):
                # the explorer and the exported module list a folder's classes themselves and
                # hand DALI the files, where DALI applies no filter: every class would be read,
                # and numbered otherwise
                raise ImportRefused(
                    f"{label}: dir_filters={list(args['dir_filters'])!r} keeps only some class "
                    "folders, which a folder source cannot do: it reads every class folder "
                    "(fix: list the files wanted in a file list, one 'path label' a line, and "
                    "read it with file_list=, or move those folders into a folder of their own)"
                )
            kind, path = "folder", file_root
            file_root = None
        elif args.get("file_list"):
            kind, path = "file_list", str(args["file_list"])
        elif args.get("files"):
            # entries relative to file_root, else (as DALI reads them) to the working folder
            files = [str(f) if file_root else os.path.abspath(str(f)) for f in args["files"]]
            try:
                text = list_text(files, args.get("labels") or None)
            except InlineListRefused as error:
                raise ImportRefused(f"{label}: {error}") from None
            kind, path = "file_list", self.write_list(f"{node_id}.txt", text)
        else:
            raise ImportRefused(
                f"{label}: a reader with no files cannot be imported (fix: read a folder with "
                "file_root=, a list with file_list=, or give files=)"
            )
        info = self.catalog.get(READER)
        assert info is not None, f"{READER} is not in the catalog"
        # every other argument the code gave the reader, typed by its schema; where it set none,
        # what DALI then does (EPOCH_AS_DALI_DOES): the graph runs the code's batches
        reader_args = {
            name: _constant(arg_info, op.args[name])
            for name in op.args
            if name not in SOURCE_OWNED
            and not name.startswith("_")
            and (arg_info := info.arg(name)) is not None
        }
        reader_args = {**EPOCH_AS_DALI_DOES, **reader_args}
        self.nodes.append(
            Source(
                id=node_id,
                kind=kind,  # type: ignore[arg-type]
                path=path,
                shuffle=bool(args.get("random_shuffle", False)),
                seed=int(args["seed"]) if "seed" in args else None,
                file_root=file_root,
                reader_args=reader_args,
            )
        )
        for index, port in enumerate(op.outputs):
            self.refs[port.name] = Ref(node_id, index)

    # ---- conditionals -------------------------------------------------------------------------
    def _split(self, op: OpRecord) -> None:
        data = [p for p in op.inputs if not p.is_argument]
        predicate = next((p.name for p in op.inputs if p.is_argument), "")
        source = self._ref(data[0].name, "a conditional")
        for port in op.outputs:
            self.splits[port.name] = _Split(source, predicate)
        self.branches.split(op)

    def _merge(self, op: OpRecord) -> None:
        try:
            branches = self.branches.branches(op)
        except BranchesRefused:
            raise ImportRefused(refusals.refusal(refusals.conditional(op), op)) from None
        predicate = next(port.name for port in op.inputs if port.is_argument)
        flip = self.coin_flips.get(predicate)
        if (
            flip is not None
            and self.predicate_uses.get(predicate) == 1
            and not branches.outer
            and len(branches.true_side) == 1
            and not branches.false_side
            and branches.predicate.output == 0
        ):
            merged = self._with_probability(branches.true_side[0], flip[0])
        else:
            merged = self.branches.join(branches)
        for port in op.outputs:
            self.refs[port.name] = merged

    def _with_probability(self, node_id: str, flip_op: OpRecord) -> Ref:
        """``if coin_flip(p): x = op(x)``: the node's apply probability, with the flip's seed."""
        args = {k: a.value() for k, a in flip_op.args.items() if not k.startswith("_")}
        p = float(args.get("probability", 0.5))
        seed = int(args["seed"]) if "seed" in args else None
        self.predicates[flip_op.outputs[0].name] = flip_op
        node = self._node(node_id)
        self._replace(dataclasses.replace(node, probability=Probability(_shortest_float(p), seed)))
        return Ref(node_id)


def _refuse_negative_seed(op: OpRecord) -> None:
    """Refuse an operator the code gave a negative seed. DALI 2.4 draws with it as a seed of its
    own (measured: ``seed=-1`` draws other values than no seed, and the same ones whatever the
    pipeline's seed), and a graph's seeds are whole numbers from 0: the graph would not run."""
    own = op.args.get("seed")
    seed = own.value() if own is not None else None
    if not isinstance(seed, int) or seed >= 0 or not takes_random_seed(op.schema):
        return
    raise ImportRefused(
        f"fn.{_fn_name(op)}{refusals.where(op)}: seed={seed} is a seed of its own in DALI (it "
        "draws other values than an operator given no seed, and the same ones whatever the "
        "pipeline's seed), and a graph's seeds are whole numbers from 0 (fix: leave seed= out "
        "where it means no seed, and DALI derives one from the pipeline's seed=; or give a seed "
        "from 0 up)"
    )


def _output_count(name: str, inputs: tuple[Ref, ...], args: dict[str, Any]) -> int:
    """How many outputs a graph node of operator `name` gives (as the plan and the export count
    them)."""
    info = load_catalog().get(name)
    step = Step(
        id="_", op=name, device="cpu", role="node", origin="_", inputs=inputs, args=args, info=info
    )
    return step.output_count


def _calls_as_one(ops: list[OpRecord], calls: dict[str, PolicyCall]) -> list[OpRecord]:
    """`ops` with each policy call's operators as one operator that reads what the call read
    (who reads a value decides how an expression is written)."""
    found: list[OpRecord] = []
    for op in ops:
        call = calls.get(op.instance)
        if call is None:
            found.append(op)
        elif op is call.ops[-1]:
            inputs = [Port(name) for name in call.inputs()]
            found.append(OpRecord(op.schema, inputs, op.outputs, {}, op.instance))
    return found


def _constant(info: ArgInfo, arg: Argument) -> Any:
    value = arg.value()
    if info.kind in ENUM_TYPES:
        from nvidia.dali import types

        enum = getattr(types, ENUM_TYPES[info.kind])
        if isinstance(value, list):
            return [enum(int(v)).name for v in value]
        return enum(int(value)).name
    if isinstance(value, list):
        return [_scalar(info, v) for v in value]
    return _scalar(info, value)


def _scalar(info: ArgInfo, value: Any) -> Any:
    if info.kind == "BOOL":
        return bool(value)
    if isinstance(value, float):
        return _shortest_float(value)
    return value
