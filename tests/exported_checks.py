"""Checks on exported module source: every call it makes is the template's own or a catalog
operator, and the graph it carries reads back equal. Shared by the export safety and spec fuzz
tests."""

from __future__ import annotations

import ast
import inspect

from augexplorer import GraphSpec, PythonCode
from augexplorer.catalog import load_catalog
from augexplorer.export.importer import graph_literal
from augexplorer.expressions.syntax import MATH_FUNCTIONS

# Every call the template itself makes; anything else must be `fn.<catalog operator>`.
TEMPLATE_CALLS = {
    "sorted",
    "os.listdir",
    "os.path.isdir",
    "os.path.join",
    "os.path.isfile",
    "os.path.splitext",
    "os.path.dirname",
    "os.path.abspath",
    "enumerate",
    "files.append",
    "labels.append",
    "ValueError",
    "RuntimeError",  # make_loader refuses device="gpu" where PyTorch has no CUDA
    "open",
    "line.split",
    "raw.strip",
    "line.startswith",
    "int",
    "min",
    "max",
    "len",
    "rows.append",
    "read_folder",
    "read_file_list",
    "is_hidden",
    "list",
    "range",
    "torch.tensor",
    "read_data",
    "pipeline_def",
    "super",
    "super().__init__",
    "super().__next__",
    "batch[LABELS].view(-1).long",
    "batch[LABELS].view",
    "labels.cpu",
    "labels.device",
    "self.label_table[labels.cpu()].to",
    "torch.cuda.is_available",
    "os.environ.get",
    "DALIGenericIterator",
    "LabelledIterator",
    "Batches",
    "shapes_differ",
    "unreadable",
    "self.checkpoints",  # Batches.checkpoint(): DALI's checkpoint of the pipeline
    "reads",  # a loader's checkpoint: what it reads, saved and checked
    "loader_state",
    "built",  # the reader's pipeline, with checkpointing where its operators have it
    "self._place",  # a scheduled loader's place: DALI's checkpoint, or why there is none
    "self._rebuild_from",  # where a rebuilt scheduled pipeline starts
    "pipeline",
    "pipe.build",
    "str(error).splitlines",
    "getattr",
    "saved_state",
    "repr",
    "saved.get",
    "named.get",
    "read.items",
    "repr(data).encode",
    "repr(GRAPH).encode",
    # Batches.valid: its shard's own size as DALI's iterator has it
    "self._shard_sizes_per_gpu_initial[self._shards_id].reshape",
    "json.dumps(state).encode",  # a loader's checkpoint (loader_state)
    "self.said",
    "self.unreadable",
    "bad.append",
    "str",
    "argparse.ArgumentParser",
    "parser.add_argument",
    "parser.parse_args",
    "make_loader",
    "time.perf_counter",
    "next",
    "print",
    "main",
    "name.startswith",
    "os.path.splitext(entry)[1].lower",
    # a graph with python_function nodes: their source is compiled from a string literal
    "compile_python_function",
    "compile",
    "exec",
    # a graph that reads COCO: per-object outputs padded, one target per sample
    "tuple",
    "padded.append",
    "pad_per_object",
    "DetectionIterator",
    "batch.pop",
    "shapes[:, 0].long",
    "targets.append",
    # ... and converted to torchvision's form on request (target_format="torchvision")
    "self._to_torchvision",
    "torchvision_images",
    "torchvision_boxes",
    "images.permute",
    "images.float",
    "images.min",
    "images.max",
    "images.contiguous",
    "boxes.float",
    "boxes.new_tensor",
    "torch.cat",
    "target.pop",
    "labels.reshape(-1).long",
    "labels.reshape",
    "zip",
    "float",
    "', '.join",
    # a COCO source with keypoints: tables read from the annotations file, looked up by image id
    "keypoint_tables",
    "keypoints_of",
    "json.load",
    "set",
    "np.zeros",
    "np.asarray(values, np.float32).reshape",
    "np.asarray",
    "xy.reshape",
    "table[:, 2].astype",
    "coco.get",
    "annotation.get",
    "found[annotation['image_id']].append",
    "found.values",
}
# A YOLO source: augexplorer.yolo_folder's conversion, carried as source (os, json, hashlib only).
YOLO_FUNCTIONS = {
    "yolo_image_size",
    "yolo_class_names",
    "yolo_keypoint_shape",
    "yolo_label_file",
    "yolo_box",
    "yolo_images",
    "scan_yolo",
    "yolo_to_coco",
    "yolo_cache_file",
    "yolo_annotations_file",
}
TEMPLATE_CALLS |= YOLO_FUNCTIONS | {
    "' '.join",
    "'/'.join",
    "'; '.join",
    "'\\n'.join",
    "'\\n'.join(stamps).encode",
    "value.strip",
    "item.strip().isdigit",
    "value.strip(' []').split",
    "line[len('kpt_shape:'):].split",
    "annotations.append",
    "boxes.append",
    "candidates.append",
    "d.startswith",
    "dirs.sort",
    "entry.partition",
    "entry.startswith",
    "entry.strip",
    "file.read",
    "file.read().splitlines",
    "float",
    "found.append",
    "hashlib.sha256",
    "hashlib.sha256('\\n'.join(stamps).encode('utf-8')).hexdigest",
    "images.append",
    "inline.startswith",
    "inline.strip",
    "inline.strip('[]').split",
    "int.from_bytes",
    "isinstance",
    "item.strip",
    "item.strip().strip",
    "items.append",
    "json.dump",
    "line.strip",
    "line[len('names:'):].split",
    "line[len('names:'):].split('#')[0].strip",
    "os.getpid",
    "os.makedirs",
    "os.path.expanduser",
    "os.path.relpath",
    "os.path.relpath(root, folder).replace",
    "os.path.splitext(name)[1].lower",
    "os.replace",
    "os.stat",
    "os.walk",
    "parts[-2::-1].index",
    "problems.append",
    "reasons.append",
    "stamps.append",
    "stem.split",
    "str",
    "stream.read",
    "stream.seek",
}


# Every module reading files carries augexplorer.image_check's functions, and every module the
# seed rule for ranks (rank_seed): what they call.
IMAGE_CHECK_FUNCTIONS = {
    "image_header",
    "image_size",
    "jpeg_size",
    "tiff_size",
    "webp_size",
    "jpeg2000_size",
    "pnm_size",
}
TEMPLATE_CALLS |= IMAGE_CHECK_FUNCTIONS | {
    "rank_seed",
    "zlib.crc32",
    "f'{seed}:rank:{rank}'.encode",
    "keep_readable",
    "bad.setdefault",
    "kept.append",
    "bad.items",
    "os.access",
    "stream.read(1024)",
    "abs",
    "head.find",
    "line.split(b'#')[0].split",
    "head[2:].split",
    "words[0].isdigit",
    "words[1].isdigit",
    "tail.endswith",
}
# A file list read as augexplorer reads it (list_text, split_entry): a byte-order mark left out,
# names with spaces.
FILE_LIST_FUNCTIONS = {"list_text", "split_entry"}
TEMPLATE_CALLS |= FILE_LIST_FUNCTIONS | {
    "data.count",
    "data.decode",
    "data.startswith",
    "digits.isascii",
    "digits.isdigit",
    "labels.insert",
    "list_text(path, stream.read()).splitlines",
    "name.rfind",
    "name[:cut].rstrip",
    "os.path.exists",  # read_data: no such folder or file list
}

# A graph with schedules: the table, schedule_value, Strengths and ScheduledLoader
# (augexplorer.export.template_schedules).
SCHEDULE_DEFINITIONS = {"schedule_value", "Strengths", "ScheduledLoader"}
TEMPLATE_CALLS |= SCHEDULE_DEFINITIONS | {
    "KeyError",
    "Pipeline.current",
    "cos",
    "getattr",
    "name.endswith",
    "np.full",
    "round",
    "schedule.get",
    "base64.b64decode",  # ScheduledLoader's checkpoint: DALI's, inside its own state
    "base64.b64encode",
    "base64.b64encode(pipeline).decode",
    "dict",
    "json.dumps",
    "json.loads",
    "self._begin",
    "self._restore",
    "self._built_values",
    "self._end_epoch",
    "self._epoch_taken",
    "self._next_epoch",
    "self._check_in_run",
    "self._start",
    "self.asked.get",
    "self.epoch_of",
    "self.iterator.checkpoints",
    "self.iterator.reset",
    "self.make_iterator",
    "self.strengths.overrides.pop",
    "self.strengths.restart",
    "self.strengths.value",
    "self.value",
    "strengths.feed",
    "strengths.value",
    "float",
    "warnings.warn",  # an epoch past the run the schedules were made for
}

# Every module the template imports; a graph can add none.
IMPORTED_MODULES = {
    "math",  # a graph with schedules: cos and pi for a cosine schedule
    "nvidia.dali.pipeline",  # ... and Pipeline.current() for the batch size it feeds
    "__future__",
    "zlib",
    "argparse",
    "base64",  # a graph with schedules: its loader's checkpoint
    "hashlib",
    "json",
    "os",
    "time",
    "numpy",
    "torch",
    "nvidia.dali",
    "nvidia.dali.plugin.pytorch",
    "nvidia.dali.auto_aug",
    # a graph with a policy node: its draws seeded apart (augexplorer.policy_seeds), and the
    # torchvision policy's functions (augexplorer.auto_aug_torchvision)
    "threading",
    "typing",
    "warnings",
    "nvidia.dali.auto_aug.core",
    "nvidia.dali.data_node",
}
# Calls a graph may add besides `fn.<operator>`: DALI's auto_aug policies, constants and the
# functions of nvidia.dali.math that expressions call.
GRAPH_CALLS = {
    "auto_augment.auto_augment",
    "rand_augment.rand_augment",
    "trivial_augment.trivial_augment_wide",
    "types.Constant",
    "independent_draws",
    "torchvision_auto_augment",
} | {f"math.{name}" for name in MATH_FUNCTIONS}


def _carried_policy_code() -> tuple[set[str], set[str]]:
    """The functions augexplorer's policy code carries into a module, and the calls they make
    (read from their source as it is)."""
    from augexplorer import auto_aug_torchvision, policy_seeds

    functions = [
        getattr(f, "op", f) for f in (*policy_seeds.CARRIED, *auto_aug_torchvision.CARRIED)
    ]
    calls = {
        ast.unparse(node.func)
        for function in functions
        for node in ast.walk(ast.parse(inspect.getsource(function)))
        if isinstance(node, ast.Call)
    }
    calls.add("threading.RLock")  # the module's one lock for defining a policy
    return {function.__name__ for function in functions} | {"seeded_apart"}, calls


POLICY_FUNCTIONS, POLICY_CALLS = _carried_policy_code()
TEMPLATE_CALLS |= POLICY_FUNCTIONS | POLICY_CALLS


def _call_name(call: ast.Call) -> str:
    return ast.unparse(call.func)


def check_module(source: str, spec: GraphSpec) -> None:
    tree = ast.parse(source)
    operators = set(load_catalog().names()) | {"readers.file", "readers.coco", "external_source"}
    pipelines = [
        n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("_pipeline")
    ]
    assert len(pipelines) == 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert {alias.name for alias in node.names} <= IMPORTED_MODULES, ast.unparse(node)
        elif isinstance(node, ast.ImportFrom):
            assert node.module in IMPORTED_MODULES, ast.unparse(node)
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name.startswith("fn."):
                assert name[3:] in operators, name
            elif name.endswith(".shape") and isinstance(node.func, ast.Attribute):
                assert isinstance(node.func.value, ast.Name) and not node.args, name  # x.shape()
            else:
                assert name in TEMPLATE_CALLS | GRAPH_CALLS or name == pipelines[0], name
        # no statement kinds beyond what the template writes
        assert not isinstance(
            node,
            (ast.Lambda, ast.Global, ast.Nonlocal, ast.Delete, ast.Await, ast.AsyncFunctionDef),
        )
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert defined <= {
        "read_folder",
        "read_file_list",
        "is_hidden",
        "read_data",
        "keep_readable",
        "rank_seed",
        *IMAGE_CHECK_FUNCTIONS,
        *FILE_LIST_FUNCTIONS,
        "LabelledIterator",
        "Batches",
        "shapes_differ",
        "unreadable",
        "ArrayBatches",
        "make_loader",
        "main",
        "compile_python_function",
        "reads",  # a loader's checkpoint: what it reads, saved and checked
        "loader_state",
        "saved_state",
        "built",  # the reader's pipeline built, with checkpointing where DALI has it
        "pipeline",  # make_loader's maker of that pipeline, which built() calls
        "pad_per_object",
        "DetectionIterator",
        "torchvision_images",
        "torchvision_boxes",
        "keypoint_tables",
        "keypoints_of",
        *YOLO_FUNCTIONS,
        *SCHEDULE_DEFINITIONS,
        *POLICY_FUNCTIONS,
        pipelines[0],
    }
    # python sources travel as one literal and come back exactly
    code = {
        node.id: (value.name, value.source)
        for node in spec.operators()
        for value in node.args.values()
        if isinstance(value, PythonCode)
    }
    written = [
        n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "PYTHON_SOURCES"
    ]
    assert [ast.literal_eval(v) for v in written] == ([code] if code else [])
    # the graph travels as a literal and comes back exactly
    assert graph_literal(source) == spec
