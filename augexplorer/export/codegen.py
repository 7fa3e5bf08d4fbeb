"""A validated graph written out as a plain Python training module (DALI + PyTorch only).

The module holds one ``@pipeline_def`` function with exactly the calls of the plan (the same
constants, seeds, random draws and conditionals as the live engine), a ``make_loader`` that
returns a PyTorch ``DALIGenericIterator`` sharded for ``torchrun``, a small throughput run under
``if __name__ == "__main__":`` and the graph itself as a ``GRAPH`` literal, so it can be imported
back. Only checked identifiers and typed literals from the spec reach the text
(:mod:`.literals`); the code of python_function nodes too is a string literal, which the module
compiles when imported (its header says so, naming the nodes). Where the graph allows, decoding
is fused with the crop after it (:mod:`.fusion`); ``GRAPH`` is always the graph as it was drawn.
"""

from __future__ import annotations

import datetime
import functools
import re
import textwrap
from collections.abc import Iterable
from typing import Any

from .. import image_check, yolo_folder
from ..builder import (
    CHOICE_DATA,
    WEIGHTED_CHOICE,
    choice_values,
    dali_value,
    reader_args_as_called,
)
from ..catalog import load_catalog
from ..catalog.auto_aug import POLICY_MODULES, is_auto_aug
from ..catalog.readers import SHARDING
from ..conditions import is_boolean
from ..errors import AugExplorerError, GraphInvalid
from ..expressions import GRAPH_OPS
from ..folder_listing import HIDDEN_NAMES, IMAGE_SUFFIXES
from ..plan import Plan, Step
from ..spec import GraphSpec, PythonCode, Ref, Source
from ..spec.io import to_json
from ..validate import validate
from . import layout, template, template_detection, template_readers, template_schedules
from .annotations_note import left_behind_note
from .auto_aug_source import (
    CARRIED_NAMES,
    carried_policy_source,
    carries_policy,
    carries_seeds,
    policy_imports,
    policy_source,
    with_carried_imports,
)
from .branches import write_branches
from .carried import RANK, image_check_source, rank_seed_source, seed_source
from .detection import GraphForm, coco_data, graph_form, per_object_outputs
from .expression_source import math_import
from .expression_source import source as expression_source
from .fusion import FUSE_MODES, FuseMode, fuse_decoders
from .literals import ENUM_TYPES, dotted, enum_member, identifier, is_plain, literal
from .placement import device_doc, device_expression, gpu_only_check
from .port_note import port_note
from .schedule_source import NUMPY_TYPES, ScheduledArguments, scheduled_arguments
from .several_readers import several_readers_problem
from .starting_note import starting_note
from .yolo_source import yolo_functions_source


class ExportError(AugExplorerError):
    """A graph that cannot be written as a training module; says which node and why."""


# Names the generated module defines or imports; node variables never take them.
MODULE_NAMES = frozenset(
    {
        "argparse",
        "os",
        "time",
        "zlib",
        "torch",
        "fn",
        "types",
        "pipeline_def",
        "DALIGenericIterator",
        "Batches",
        "ONE_SHAPE_PER_BATCH",
        "shapes_differ",
        "LastBatchPolicy",
        "GRAPH",
        "DATA",
        "FILE_ROOT",
        "BATCH_SIZE",
        "OUTPUTS",
        "LABELS",
        "IMAGE_SUFFIXES",
        "HIDDEN_NAMES",
        "LABEL_MAX",
        "is_hidden",
        "SKIP_BAD",
        "keep_readable",
        "rank_seed",
        RANK,
        "read_folder",
        "read_file_list",
        "read_data",
        "READERS",
        "FILE_ROOTS",
        "read_readers",
        "ArrayBatches",
        "np",
        "PYTHON_SOURCES",
        "PYTHON_FUNCTIONS",
        "compile_python_function",
        "LabelledIterator",
        "make_loader",
        "main",
        # parameters and locals of the pipeline function
        "files",
        "labels",
        "arrays",
        "device",
        "decoder_device",
        "shard_id",
        "num_shards",
        # what a module reading a COCO source adds (template_detection)
        "ANNOTATIONS_FILE",
        "IMAGES",
        "PER_OBJECT",
        "PAD_VALUE",
        "LOADER_OUTPUTS",
        "pad_per_object",
        "DetectionIterator",
        "IMAGES_OUTPUT",
        "IMAGES_LAYOUT",
        "BOXES_OUTPUT",
        "BOXES_LTRB",
        "BOXES_RATIO",
        "LABELS_OUTPUT",
        "TARGET_FORMATS",
        "torchvision_images",
        "torchvision_boxes",
        "target_format",
        "annotations_file",
        "file_root",
        "images",
        "padded",
    }
    # what a module reading a YOLO folder adds (augexplorer.yolo_folder's functions)
    | {"hashlib", "json", *yolo_folder.CARRIED_CONSTANTS}
    | {function.__name__ for function in yolo_folder.CARRIED}
    # what every module reading files carries of augexplorer.image_check
    | {*image_check.CARRIED_CONSTANTS, *(function.__name__ for function in image_check.CARRIED)}
    | POLICY_MODULES  # nvidia.dali.auto_aug modules, imported where a graph calls a policy
    | CARRIED_NAMES  # what a module carrying torchvision's AutoAugment defines and imports
    | {"math"}  # nvidia.dali.math, imported where an expression calls its functions
    # what a module of a graph with schedules adds (template_schedules)
    | {
        "cos",
        "pi",
        "np",
        "Pipeline",
        "EPOCHS",
        "SCHEDULES",
        "ROUNDED",
        "FED",
        "BUILT",
        "NUMPY_TYPES",
        "schedule_value",
        "Strengths",
        "ScheduledLoader",
        "strengths",
        "make_iterator",
    }
)


def generate(
    spec: GraphSpec,
    *,
    data_path: str | None = None,
    fuse_decoders: FuseMode = "exact",
    formatted: bool = True,
) -> str:
    """The training module for `spec`, formatted (ruff's formatter, black's style).

    `data_path` is the default data of the module (a folder or file list); it defaults to the
    graph's source path (the bundled samples for a ``samples`` source).
    `fuse_decoders`: ``"exact"`` fuses a decoder with the crop after it where the outputs stay
    identical to the explorer's; ``"all"`` also where they do not (the module's header says
    which and how); ``"none"`` writes every node as its own call.
    `formatted=False` skips the formatter: the same code, laid out plainly.
    """
    if fuse_decoders not in FUSE_MODES:
        raise ExportError(
            f"fuse_decoders must be one of {', '.join(FUSE_MODES)}; got {fuse_decoders!r}"
        )
    source = _Writer(spec, data_path, fuse_decoders).module()
    if not formatted:
        return source
    return layout.formatted(source)


# ---- placement ----------------------------------------------------------------------------------


def _gpu_plan(spec: GraphSpec) -> Plan:
    """The plan as it runs with ``device="gpu"``: the validator's own placement rules with a GPU
    catalog. Its steps, constants and seeds are the same as on the CPU; only devices differ."""
    try:
        return validate(spec, load_catalog(gpu=True))
    except GraphInvalid as error:
        raise ExportError(
            f"the graph cannot be exported: {error}{_gpu_only_note(spec, error)}"
        ) from None


def _gpu_only_note(spec: GraphSpec, on_gpu: GraphInvalid) -> str:
    """A line naming the nodes whose problems come only from running on a GPU (as an
    exported module also does); empty where every problem is the graph's own, on any device."""
    try:
        validate(spec, load_catalog(gpu=False))
        on_cpu: set[str] = set()
    except GraphInvalid as error:
        on_cpu = {str(problem) for problem in error.problems}
    nodes = sorted({p.node for p in on_gpu.problems if str(p) not in on_cpu and p.node})
    if not nodes:
        return ""
    named = ", ".join(map(repr, nodes))
    return (
        f"\n(the problems of {named} come from running on a GPU, as an exported module also "
        "does: set their device to cpu if they must stay there)"
    )


def _form_fields(form: GraphForm) -> dict[str, str]:
    """The constants a COCO module's loader converts to torchvision's form from."""
    return {
        "images_output": literal(form.images),
        "images_layout": literal(form.layout),
        "boxes_output": literal(form.boxes),
        "boxes_ltrb": literal(form.ltrb),
        "boxes_ratio": literal(form.ratio),
        "labels_output": literal(form.labels),
    }


# ---- writer -----------------------------------------------------------------------------------


def sources_problem(spec: GraphSpec) -> str | None:
    """Why `spec` cannot be exported for its data sources, or None: an exported module reads
    one source, or several folders and file lists (:mod:`.several_readers`)."""
    sources = spec.sources()
    if len(sources) == 1:
        return None
    if not sources:
        return "an exported module reads a data source; this graph has none (fix: add one)"
    return several_readers_problem(spec)


class _Writer:
    def __init__(self, spec: GraphSpec, data_path: str | None, fuse: FuseMode) -> None:
        problem = sources_problem(spec)
        if problem is not None:
            raise ExportError(problem)
        self.spec = spec
        self.plan = _gpu_plan(spec)
        self.sources: list[Source] = [
            s.source for s in self.plan.steps if s.role == "source" and s.source is not None
        ]
        self.source = self.sources[0]  # the one, or the first of several readers: its epoch
        if self.several and data_path is not None:
            raise ExportError(
                f"a graph of {len(self.sources)} readers has no one data path to export with "
                "(fix: export it without one; make_loader takes each reader's data by name)"
            )
        self.data_path = data_path
        # Where the schedules' values reach the pipeline (fed per iteration, or read at build).
        self.scheduled: ScheduledArguments = scheduled_arguments(spec, self.plan)
        if spec.schedules and (self.source.kind == "arrays" or self.source.reads_coco):
            raise ExportError(
                "a graph with schedules is exported for a folder or file list source; this one "
                f"reads {self.source.kind} (fix: export it with the schedules removed, or read "
                "the images from a folder)"
            )
        expressions = sorted(
            {a.step for a in self.scheduled.arguments.values()}
            & {step.id for step in self.plan.steps if step.op in GRAPH_OPS}
        )
        if expressions:
            raise ExportError(
                f"node(s) {', '.join(map(repr, expressions))}: a schedule on an expression or a "
                "constant node is not exported (fix: schedule an operator's argument instead)"
            )
        # What the module writes: the plan's steps, with decoders fused where allowed; a
        # scheduled node keeps its own call, where its values are fed.
        self.steps, self.fusions = fuse_decoders(self.plan, fuse)
        if any(
            {fusion.decoder.origin, fusion.consumer.origin} & self.scheduled.nodes
            for fusion in self.fusions
        ):
            self.steps, self.fusions = fuse_decoders(self.plan, "none")
        self.fused_at = {fusion.steps[0].id: fusion for fusion in self.fusions}
        self.function = self._function_name()
        self.names = self._variable_names()

    # ---- names --------------------------------------------------------------------------------
    def _function_name(self) -> str:
        stem = re.sub(r"[^0-9A-Za-z_]+", "_", self.spec.name).strip("_").lower()[:40] or "graph"
        if stem[0].isdigit():
            stem = f"graph_{stem}"
        return identifier(f"{stem}_pipeline")

    def _variable_names(self) -> dict[tuple[str, int], str]:
        taken = set(MODULE_NAMES) | {self.function}
        taken |= {step.id for step in self.plan.steps}
        names: dict[tuple[str, int], str] = {}

        def claim(base: str, own: bool) -> str:
            if own and is_plain(base) and base not in MODULE_NAMES and base != self.function:
                return base
            index = 1
            candidate = f"{base}_node" if own else base
            while candidate in taken or not is_plain(candidate):
                index += 1
                candidate = f"{base}_{index}"
            taken.add(candidate)
            return identifier(candidate)

        for step in self.plan.steps:
            # a reader keeps the name the user's code gave it ("Reader": iterators pass it as
            # reader_name=), and its variables are lower case, as that code's were
            base = step.id.lower() if step.role == "source" else step.id
            names[(step.id, 0)] = claim(base, own=base == step.id)
            names_of_outputs = self._output_suffixes(step)
            for output in range(1, step.output_count):
                suffix = names_of_outputs[output]
                names[(step.id, output)] = claim(f"{base}_{suffix}", own=False)
        return names

    @staticmethod
    def _output_suffixes(step: Step) -> tuple[str, ...]:
        """How a step's output variables end: a source's by what they hold (``labels``;
        ``boxes``, ``polygons``, ... for COCO), an operator's by their index."""
        if step.role == "source" and step.source is not None:
            return step.source.output_names()
        return tuple(str(output) for output in range(step.output_count))

    def var(self, ref: Ref) -> str:
        return self.names[(ref.node, ref.output)]

    # ---- pieces -------------------------------------------------------------------------------
    @property
    def arrays(self) -> bool:
        return self.source.kind == "arrays"

    @property
    def several(self) -> bool:
        """Reads several folders or file lists (their data by reader name)."""
        return len(self.sources) > 1

    @property
    def coco(self) -> bool:
        return self.source.reads_coco

    @property
    def labels_output(self) -> str | None:
        """The output name that carries the source's labels (looked up for multi-label lists);
        None for a COCO source, whose labels are one per box."""
        if self.coco or self.several:  # several readers' labels are given as DALI gives them
            return None
        for name, ref in self.plan.outputs.items():
            if self._as_whole_numbers(ref) == Ref(self.source.id, 1):
                return name
        return None

    def _as_whole_numbers(self, ref: Ref) -> Ref:
        """What `ref` holds where it is casts to integer types of another output (labels cast
        to INT64 for PyTorch, in code written for DALI): that output; else `ref`."""
        while True:
            step = self.plan.step(ref.node)
            dtype = str(step.args.get("dtype", ""))
            if step.op != "cast" or not step.inputs or not dtype.startswith(("INT", "UINT")):
                return ref
            ref = step.inputs[0]

    @property
    def _carries_policy(self) -> bool:
        return carries_policy(step.op for step in self.steps)

    @property
    def _carries_seeds(self) -> bool:
        """Whether the module carries augexplorer.policy_seeds (and maybe the torchvision
        policy, which calls it)."""
        return self._carries_policy or carries_seeds(self.steps)

    def module(self) -> str:
        from .. import __version__

        uses_mixed = any(device_expression(s) == "decoder_device" for s in self.steps)
        fields = {
            "version": __version__,
            "dali_version": _dali_version(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "function": self.function,
            "graph": literal(to_json(self.spec)),
            "data": literal(
                {s.id: _source_data(s) for s in self.sources}
                if self.several
                else self._default_data()
            ),
            "batch_size": literal(self.spec.batch_size),
            "outputs": literal(list(self.plan.outputs)),
            "labels_name": literal(self.labels_output),
            "reader": literal(self.source.id),
            "decorator": (
                "@pipeline_def(enable_conditionals=True)"
                if self.plan.uses_conditionals
                else "@pipeline_def"
            ),
            "data_params": "arrays" if self.arrays else "files, labels",
            "decoder_device": gpu_only_check(self.steps)
            + (
                '    decoder_device = "mixed" if device == "gpu" else "cpu"\n' if uses_mixed else ""
            ),
            "device_doc": device_doc(self.steps),
            "body": self._body(),
            "fusion_note": self._fusion_note(),
            "python_note": left_behind_note(self.spec)
            + self._python_note()
            + self._side_effect_note()
            + port_note(self.spec)
            + starting_note(self.spec),
            "python_sources": self._python_sources(),
            "numpy_import": "import numpy as np\n" if self.python_steps else "",
            "auto_aug_import": policy_imports([step.op for step in self.steps]),
            # the carried torchvision policy rounds offsets with nvidia.dali.math
            "math_import": ", math" if self._carries_policy else math_import(self.steps),
            "returns": ", ".join(self.var(ref) for ref in self.plan.outputs.values()),
            # the folder rule of augexplorer.folder_listing, written into the module
            "image_suffixes": literal(sorted(IMAGE_SUFFIXES)),
            "hidden_names": literal(list(HIDDEN_NAMES)),
            "file_root": literal(self.source.file_root),
            "skip_bad": literal(bool(self.source.skip_bad)),
            "image_check": image_check_source(),
            "rank_seed": rank_seed_source(),
            "shard_id": literal(int(self.source.reader_args.get("shard_id", 0))),
            "num_shards": literal(int(self.source.reader_args.get("num_shards", 1))),
            "epoch_doc": self._epoch_doc(),
        }
        if self.coco:
            return self._coco_module(fields)
        imports = template.IMPORTS
        if self.spec.schedules:
            fields = self._schedule_fields(fields)
            imports = imports.replace(
                "import zlib\n", "import warnings\nimport zlib\nfrom math import cos, pi\n"
            )
            imports = imports.replace(
                "from nvidia.dali.plugin.pytorch",
                "from nvidia.dali.pipeline import Pipeline\nfrom nvidia.dali.plugin.pytorch",
            )
        if self._carries_seeds:
            imports = with_carried_imports(imports, self._carries_policy)
        parts = [template_readers.HEADER_READERS if self.several else template.HEADER, imports]
        parts += [template.CONSTANTS, template.RANK_SEEDS]
        if self.spec.schedules:
            parts.append(template_schedules.SCHEDULES)
        if self.labels_output is not None:
            parts.append(template.LABELS_CONSTANT)
        if self.python_steps:
            parts.append(template.PYTHON_FUNCTIONS)
        parts.append(template.ARRAY_SOURCE if self.arrays else template.FILE_SOURCES)
        if self.several:
            parts.append(template_readers.READERS_CONSTANTS)
            fields["readers"] = literal([s.id for s in self.sources])
            fields["file_roots"] = literal({s.id: s.file_root for s in self.sources})
            fields["file_root"] = literal(None)  # each reader's is in FILE_ROOTS
        if self._carries_seeds:
            parts.append(carried_policy_source(self._carries_policy))
        pipeline = template.PIPELINE
        if self.spec.schedules:
            pipeline = pipeline.replace("rank=0):", "rank=0, strengths=None):")
        parts.append(pipeline)
        parts.append(template.BATCHES)
        if self.labels_output is not None:
            parts.append(template.LABELLED_ITERATOR)
        parts.append(self._loader_template())
        if self.several:
            parts.append(template_readers.MAIN_READERS)
        else:
            parts.append(template.MAIN_ARRAYS if self.arrays else template.MAIN_FILES)
        return "".join(_fill(part, fields) for part in parts)

    def _epoch_doc(self) -> str:
        """What an epoch of the loader reads, as its reader is called (make_loader's docstring):
        whole epochs, or DALI's default as imported code had it, which the docstring must not
        call whole."""
        if self.arrays:
            text = (
                "Every epoch gives each of the rank's arrays once (on several ranks a smaller "
                "shard repeats its first array, so every rank runs as many batches)."
            )
        elif reader_args_as_called(self.source.reader_args, self.source.kind).get("pad_last_batch"):
            text = (
                "Every epoch reads each file once (its reader pads a shard's last batch with its "
                "last sample)."
            )
        else:
            text = (
                "The reader keeps pad_last_batch=False (DALI's default, which graphs imported "
                "from DALI code keep): a shard's last batch is filled from the start of the next epoch, "
                "so an epoch may read some files twice and miss others. pad_last_batch=True on "
                "the reader (in augexplorer, then export again) makes every epoch read each "
                "file once."
            )
        return "\n    ".join(textwrap.wrap(text, 92))

    def _coco_module(self, fields: dict[str, Any]) -> str:
        """The module of a graph that reads a COCO source (:mod:`.template_detection`)."""
        data = coco_data(self.source, self.data_path)
        per_object = per_object_outputs(self.spec, dict(self.plan.outputs))
        loader_outputs: list[str] = []
        for name in self.plan.outputs:
            loader_outputs += [name, f"{name}_shape"] if name in per_object else [name]
        fields = {
            **fields,
            "annotations_file": literal(data.annotations_file),
            "file_root": literal(data.file_root),
            "images": literal(data.images),
            "per_object": literal(per_object),
            **_form_fields(graph_form(self.spec, dict(self.plan.outputs), per_object)),
            "loader_outputs": literal(loader_outputs),
            "returns_tuple": f"({fields['returns']}{',' if len(self.plan.outputs) == 1 else ''})",
        }
        imports = template.IMPORTS
        parts = [template_detection.DETECTION_HEADER]
        if self.source.keypoints:  # the keypoint tables are read from the file with numpy
            fields["numpy_import"] = "import numpy as np\n"
            fields["keypoints_ratio"] = literal(bool(self.source.reader_args.get("ratio")))
        yolo = self.source.kind == "yolo"
        if yolo:  # the folder is converted with os, json and hashlib
            imports = imports.replace("import argparse\n", "import argparse\nimport hashlib\n")
        parts += [
            imports,
            template_detection.CONSTANTS_YOLO if yolo else template_detection.CONSTANTS,
            template.RANK_SEEDS,
        ]
        if yolo:
            parts += [template_detection.YOLO_HEADER, yolo_functions_source()]
        if self.source.keypoints:
            parts.append(template_detection.KEYPOINTS)
        if self.python_steps:
            parts.append(template.PYTHON_FUNCTIONS)
        if self._carries_seeds:
            parts[1] = with_carried_imports(parts[1], self._carries_policy)
            parts.append(carried_policy_source(self._carries_policy))
        parts += [
            template_detection.PIPELINE_COCO,
            template.BATCHES,
            template_detection.DETECTION_ITERATOR,
            template_detection.LOADER_YOLO if yolo else template_detection.LOADER_COCO,
            template_detection.MAIN_COCO,
        ]
        return "".join(_fill(part, fields) for part in parts)

    def _schedule_fields(self, fields: dict[str, Any]) -> dict[str, Any]:
        """The fields of a module whose graph has schedules (:mod:`.template_schedules`)."""
        scheduled = self.scheduled
        kinds = {kind for kind, _ in scheduled.fed.values()}
        return {
            **fields,
            "numpy_import": "import numpy as np\n",
            "epochs": literal(self.spec.epochs),
            "schedules": literal({str(t): s.to_json() for t, s in self.spec.schedules.items()}),
            "rounded": (
                "{" + ", ".join(map(literal, scheduled.rounded)) + "}"
                if scheduled.rounded
                else "set()"
            ),
            "fed": "{"
            + ", ".join(
                f"{literal(key)}: ({literal(kind)}, {literal(values)})"
                for key, (kind, values) in scheduled.fed.items()
            )
            + "}",
            "built": literal(scheduled.built),
            "numpy_types": literal({k: v for k, v in NUMPY_TYPES.items() if k in kinds}),
            "decoder_device": template_schedules.PIPELINE_STRENGTHS + fields["decoder_device"],
            "python_note": _schedules_note(self.spec.epochs) + fields["python_note"],
        }

    def _loader_template(self) -> str:
        if self.spec.schedules:
            return template_schedules.loader(
                template.READER_LOADER_START.replace(
                    "@@data_doc@@", "a folder of class sub-folders, or a file list"
                ),
                labelled=self.labels_output is not None,
            )
        if self.several:
            return template_readers.LOADER_READERS
        if self.arrays:
            labelled = self.labels_output is not None
            return template.LOADER_ARRAYS.replace(
                "@@arrays_iterator@@", "LabelledIterator" if labelled else "Batches"
            ).replace("@@arrays_label_table@@", "\n        None," if labelled else "")
        if self.labels_output is not None:
            return template.LOADER_LABELLED
        return template.LOADER_FILES

    def _default_data(self) -> str | None:
        if self.arrays:
            return None
        if self.data_path is not None:
            return str(self.data_path)
        return _source_data(self.source)

    @property
    def python_steps(self) -> list[Step]:
        """The steps that run Python code from the graph."""
        return [
            step
            for step in self.plan.steps
            if any(isinstance(value, PythonCode) for value in step.args.values())
        ]

    def _python_note(self) -> str:
        """A header paragraph saying plainly that the module runs Python code from the graph."""
        if not self.python_steps:
            return ""
        # Node names are validated identifiers; written as string literals, soft keywords such
        # as `_` or `match` are fine too.
        nodes = ", ".join(literal(step.origin) for step in self.python_steps)
        text = (
            "THIS MODULE RUNS PYTHON CODE THAT CAME FROM THE GRAPH: the function of the "
            f"python_function node(s) {nodes}, kept as text in PYTHON_SOURCES and compiled when "
            "the module is imported. Read it before you run or import this module. With "
            'device="gpu" a function placed on the GPU receives CuPy arrays instead of NumPy ones.'
        )
        return "\n" + "\n".join(textwrap.wrap(text, 96)) + "\n"

    def _side_effect_note(self) -> str:
        """A header paragraph naming the nodes that write files when the module runs, as the
        explorer names them before it asks for trust."""
        from ..trust import side_effect

        effects = [
            f"{literal(node.id)} {effect}"
            for node in self.spec.operators()
            if (effect := side_effect(node)) is not None
        ]
        if not effects:
            return ""
        text = (
            f"THIS MODULE WRITES FILES WHEN IT RUNS: node(s) {'; '.join(effects)}. Run it where "
            "those files are wanted."
        )
        return "\n" + "\n".join(textwrap.wrap(text, 96)) + "\n"

    def _python_sources(self) -> str:
        """PYTHON_SOURCES as literals only: node -> (function name, source), the source written
        as one string literal per line so that it reads as code."""
        items = []
        for step in self.python_steps:
            code = next(v for v in step.args.values() if isinstance(v, PythonCode))
            lines = "\n".join(literal(line) for line in code.source.splitlines(keepends=True))
            items.append(f"{literal(step.origin)}: (\n{literal(code.name)},\n(\n{lines}\n),\n),")
        return "{\n" + "\n".join(items) + "\n}"

    def _fusion_note(self) -> str:
        """A header paragraph naming each fused decoder and, for inexact ones, how the
        outputs differ from the explorer's."""
        if not self.fusions:
            return ""
        exact = all(fusion.exact for fusion in self.fusions)
        intro = (
            "Decoding is fused with the operator after it, so DALI decodes only the part of each "
            "image that is kept. "
            + (
                "The outputs are the same as in augexplorer."
                if exact
                else "NOT every fusion keeps augexplorer's outputs: this module was exported with "
                'fuse_decoders="all" (fuse_decoders="exact" keeps them).'
            )
        )
        lines = textwrap.wrap(intro, 96)
        for fusion in self.fusions:
            pair = f"{self.var(Ref(fusion.decoder.id))} + {self.var(Ref(fusion.consumer.id))}"
            ops = f"{dotted(fusion.decoder.op)} + {dotted(fusion.consumer.op)}"
            item = f"- {pair} ({ops}) -> {fusion.calls}: "
            item += (
                "identical outputs."
                if fusion.exact
                else f"outputs DIFFER from augexplorer's: {fusion.difference}."
            )
            lines.extend(textwrap.wrap(item, 96, subsequent_indent="  ", break_long_words=False))
        return "\n" + "\n".join(lines) + "\n"

    # ---- the pipeline body --------------------------------------------------------------------
    def _body(self) -> str:
        lines: list[str] = []
        block: list[Step] = []  # consecutive steps under conditions, written as one if-block
        before: list[str] = []  # steps met inside the block that need none of it
        for step in self.steps:
            if step.role == "when":
                continue  # the exported `if` blocks select the same samples
            if step.when:
                block.append(step)
                continue
            if block and not set(step.upstream_nodes) & {s.id for s in block}:
                before.extend(self._step_lines(step))
                continue
            if block:
                lines += before + self._condition_block(block)
                block, before = [], []
            fusion = self.fused_at.get(step.id)
            if fusion is not None:
                pair = f"{self.var(Ref(fusion.decoder.id))} + {self.var(Ref(fusion.consumer.id))}"
                lines.append(
                    f"# fused: {pair} -> {fusion.calls}"
                    + ("" if fusion.exact else " (not exact: see the header)")
                )
            lines.extend(self._step_lines(step))
        if block:
            lines += before + self._condition_block(block)
        return "\n".join(f"    {line}" if line else "" for line in lines) + "\n"

    def _condition_block(self, steps: list[Step]) -> list[str]:
        """Steps under conditions as nested ``if``/``elif``/``else`` blocks: on each path every
        step is either called or passes its input through, in the graph's order."""
        by_id = {step.id: step for step in self.plan.steps}
        return write_branches(
            [(step.when, step) for step in steps],
            self._branch_line,
            self.var,
            negatable=lambda ref: is_boolean(ref, by_id),
        )

    def _branch_line(self, step: Step, applied: bool) -> str:
        targets = ", ".join(self.names[(step.id, i)] for i in range(step.output_count))
        return f"{targets} = {self._call(step) if applied else self.var(step.inputs[0])}"

    def _step_lines(self, step: Step) -> list[str]:
        if step.role == "source":
            return self._source_line(step).split("\n")
        targets = ", ".join(self.names[(step.id, i)] for i in range(step.output_count))
        call = self._call(step)
        if step.apply is None:
            return [f"{targets} = {call}"]
        # DALI's autograph turns this `if` on a DataNode into a per-sample split and merge:
        # where the coin flip is 0 the sample passes through unchanged.
        return [
            f"{targets} = {self.var(step.inputs[0])}",
            f"if {self.var(step.apply)}:",
            f"    {targets} = {call}",
        ]

    def _source_line(self, step: Step) -> str:
        images, labels = self.names[(step.id, 0)], self.names[(step.id, 1)]
        if self.arrays:
            return (
                f"{images}, {labels} = fn.external_source(source=arrays, num_outputs=2, "
                "dtype=[types.DALIDataType.UINT8, types.DALIDataType.INT32], "
                "layout=['HWC', ''])"
            )
        assert step.source is not None
        if self.coco:
            return self._coco_source_line(step)
        # the reader's other arguments, typed as the builder passes them (sharding is the
        # function's parameters, which default to the graph's values)
        extra = "".join(
            f", {identifier(name)}={literal(value)}"
            for name, value in reader_args_as_called(step.source.reader_args).items()
            if name not in SHARDING
        )
        data, data_labels = "files", "labels"
        if self.several:  # each reader's own, by its name
            data, data_labels = f"files[{literal(step.id)}]", f"labels[{literal(step.id)}]"
        return (
            f"{images}, {labels} = fn.readers.file(files={data}, labels={data_labels}, "
            f"random_shuffle={literal(step.source.shuffle)}, seed={self._seed(step)}, "
            f"shard_id=shard_id, num_shards=num_shards, name={literal(step.id)}{extra})"
        )

    def _coco_source_line(self, step: Step) -> str:
        """``fn.readers.coco`` as :func:`builder.coco_reader_kwargs` calls it: the data are the
        function's parameters (the graph's values by default)."""
        assert step.source is not None
        read = {ref for other in self.plan.steps for ref in other.upstream()}
        read |= {clause.ref for other in self.plan.steps for clause in other.when}
        read |= set(self.plan.outputs.values())
        # the reader's outputs the graph does not read are named as unused (linters accept it)
        names = [
            self.names[(step.id, i)] if Ref(step.id, i) in read else f"_{self.names[(step.id, i)]}"
            for i in range(step.output_count)
        ]
        keypoints = step.source.keypoints
        reader_names = names[:-2] if keypoints else names  # the last two are looked up
        reader_args = reader_args_as_called(step.source.reader_args, step.source.kind)
        if keypoints:
            reader_args["image_ids"] = True  # the keypoints are looked up by image id
            reader_names[-1] = self.names[(step.id, step.output_count - 3)]  # read below
        extra = "".join(
            f", {identifier(name)}={literal(value)}"
            for name, value in reader_args.items()
            if name not in SHARDING
        )
        line = (
            f"{', '.join(reader_names)} = fn.readers.coco(file_root=file_root, "
            "annotations_file=annotations_file, images=images, "
            f"random_shuffle={literal(step.source.shuffle)}, seed={self._seed(step)}, "
            f"shard_id=shard_id, num_shards=num_shards, name={literal(step.id)}{extra})"
        )
        if keypoints:
            line += (
                f"\n{', '.join(names[-2:])} = keypoints_of({reader_names[-1]}, "
                "keypoint_tables(annotations_file, images))"
            )
        if step.source.kind == "yolo":  # file_root is a YOLO folder: read its COCO form
            line = (
                "if annotations_file is None:\n"
                "    annotations_file = yolo_annotations_file(file_root)\n" + line
            )
        return line

    def _call(self, step: Step) -> str:
        if is_auto_aug(step.op):  # DALI's own policy call; its device is its images'
            fed = [(name, self.var(ref)) for name, ref in step.arg_inputs.items()]
            return policy_source(step, self.var(step.inputs[0]), [*self._constants(step), *fed])
        if step.op in GRAPH_OPS:  # plain DataNode arithmetic, or types.Constant
            return expression_source(step, self.var)
        arguments = [self.var(ref) for ref in step.inputs]
        choice = choice_values(step)
        if choice is not None:  # the values to draw from are random.choice's input
            values, dtype = choice
            arguments.insert(
                0, f"types.Constant({literal(values)}, dtype={enum_member('DATA_TYPE', dtype)})"
            )
        device = device_expression(step)
        if device is not None:
            arguments.append(f"device={device}")
        arguments.extend(f"{identifier(name)}={text}" for name, text in self._constants(step))
        arguments.extend(
            f"{identifier(name)}={self.var(ref)}" for name, ref in step.arg_inputs.items()
        )
        if step.seed is not None:
            arguments.append(f"seed={seed_source(step.seed)}")
        return f"fn.{dotted(step.op)}({', '.join(arguments)})"

    @staticmethod
    def _seed(step: Step) -> str:
        assert step.seed is not None  # lowering gives every source its seed
        return seed_source(step.seed)

    def _constants(self, step: Step) -> Iterable[tuple[str, str]]:
        """Each constant argument as source text, typed as :func:`builder.dali_value` types it."""
        info = step.info
        for name, value in step.args.items():
            if step.op == WEIGHTED_CHOICE and name in CHOICE_DATA:
                continue  # written as the call's input
            arg = info.arg(name) if info is not None else None
            if arg is None:
                raise ExportError(f"node {step.origin!r}: unknown argument {name!r}")
            if isinstance(value, PythonCode):  # compiled from PYTHON_SOURCES at import
                yield name, f"PYTHON_FUNCTIONS[{literal(step.origin)}]"
                continue
            scheduled = self.scheduled.text(step, name)
            if scheduled is not None:  # fed per iteration, or read when the pipeline is built
                yield name, scheduled
                continue
            if arg.kind in ENUM_TYPES:
                if arg.is_vector:
                    yield name, "[" + ", ".join(enum_member(arg.kind, v) for v in value) + "]"
                else:
                    yield name, enum_member(arg.kind, value)
                continue
            yield name, literal(dali_value(arg, value))


def _source_data(source: Source) -> str | None:
    """The data a folder or file list source was explored on (the bundled samples' folder)."""
    if source.kind == "samples":
        from ..data import samples_dir

        return str(samples_dir())
    return source.path


def _schedules_note(epochs: int | None) -> str:
    """A header paragraph: some values follow the training run, and how to drive them."""
    text = (
        f"Some of the graph's values follow a training run of {epochs} epochs (SCHEDULES): call "
        "loader.set_epoch(epoch) before each epoch, as with a sampler, and "
        "loader.set_strength(name, value) to set one between iterations."
    )
    return "\n" + "\n".join(textwrap.wrap(text, 96)) + "\n"


@functools.cache
def _dali_version() -> str:
    """The installed DALI's version, from its package's metadata (importing DALI costs a
    second; its wheel is named for its CUDA: nvidia-dali-cuda120, ...)."""
    from importlib import metadata

    for distribution in metadata.distributions():
        if (distribution.metadata["Name"] or "").lower().startswith("nvidia-dali"):
            return distribution.version
    return "unknown"


def _fill(text: str, fields: dict[str, Any]) -> str:
    # Plain replacement of @@name@@ markers: the templates hold braces of their own.
    def replace(match: re.Match[str]) -> str:
        return str(fields[match.group(1)])

    return re.sub(r"@@(\w+)@@", replace, text)


# ---- pieces of the module, for teaching and review ----------------------------------------------


def pipeline_source(spec: GraphSpec, *, fuse_decoders: FuseMode = "exact") -> str:
    """The ``@pipeline_def`` function of the module :func:`generate` writes for `spec`, alone and
    formatted as there: what the graph is in DALI calls."""
    import ast

    module = generate(spec, fuse_decoders=fuse_decoders)
    lines = module.splitlines()
    for statement in ast.parse(module).body:
        if isinstance(statement, ast.FunctionDef) and statement.decorator_list:
            start = statement.decorator_list[0].lineno - 1
            assert statement.end_lineno is not None
            return "\n".join(lines[start : statement.end_lineno]) + "\n"
    raise AssertionError("an exported module always defines its @pipeline_def function")


def node_source(spec: GraphSpec, node_id: str) -> str:
    """The lines the exported module writes for graph node `node_id` (its random draws first,
    then its call), formatted as there. Decoders are written unfused, as their own call; a node
    with a probability is written as the module writes it, under ``if`` its coin."""
    writer = _Writer(spec, None, "none")
    steps = [step for step in writer.steps if step.origin == node_id and step.role != "when"]
    if not steps:
        known = ", ".join(repr(node.id) for node in spec.nodes)
        raise ExportError(f"the graph has no node {node_id!r} (its nodes: {known})")
    lines = [line for step in steps for line in writer._step_lines(step)]
    return layout.formatted("\n".join(lines) + "\n")
