"""The fixed text of an exported module; ``@@name@@`` marks where codegen puts checked names and
literals. Kept apart from the code generator so the module reads as one piece."""

from __future__ import annotations

HEADER = '''"""@@function@@: a DALI augmentation pipeline and its PyTorch loader.

Exported by augexplorer @@version@@ on @@date@@, with DALI @@dali_version@@.
It needs only DALI and PyTorch (an older DALI may lack an operator or argument it uses).
The graph it was made from is GRAPH below: `augexplorer import THIS_FILE.py -o graph.json`
restores it as an editable graph (reading GRAPH, without running this file).

- `@@function@@(...)`: the pipeline (`@pipeline_def`); every random operator has its seed.
- `make_loader(data)`: a PyTorch DALIGenericIterator over a folder or a file list. Under
  `torchrun` each process reads its own shard (RANK, WORLD_SIZE) on its own GPU (LOCAL_RANK)
  and draws its own random values (rank_seed); rank 0 draws what augexplorer showed.
- `python THIS_FILE.py --help`: a short throughput run.
@@python_note@@@@fusion_note@@"""

'''

IMPORTS = """from __future__ import annotations

import argparse
import base64
import json
import os
import time
import zlib

@@numpy_import@@import torch
from nvidia.dali import fn@@math_import@@, pipeline_def, types
@@auto_aug_import@@from nvidia.dali.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

"""

CONSTANTS = """# The graph this module was made from (augexplorer.graph format).
GRAPH = @@graph@@

# The data the graph was explored on; pass your own to make_loader().
DATA = @@data@@
BATCH_SIZE = @@batch_size@@
OUTPUTS = @@outputs@@
"""

PYTHON_FUNCTIONS = '''
# Python code from the graph's python_function nodes, kept as text (function name, source).
# It is compiled and run below, when this module is imported: read it first.
PYTHON_SOURCES = @@python_sources@@


def compile_python_function(node):
    """The function of python_function node `node`, compiled from its source into a fresh
    namespace that holds NumPy as np (as augexplorer runs it)."""
    name, source = PYTHON_SOURCES[node]
    namespace = {"np": np, "numpy": np, "__name__": "augexplorer_python_function"}
    exec(compile(source, f"<python_function {node}>", "exec"), namespace)  # noqa: S102, RUF100
    return namespace[name]


PYTHON_FUNCTIONS = {node: compile_python_function(node) for node in PYTHON_SOURCES}
'''

RANK_SEEDS = """
# Under torchrun each rank draws its own values: the pipeline gives every random operator
# rank_seed(its seed in the graph, rank), and make_loader passes its shard id as the rank.
@@rank_seed@@"""

LABELS_CONSTANT = """LABELS = @@labels_name@@  # the output that carries each image's label(s)
"""

FILE_SOURCES = '''# The folder a file list's relative entries are read from, as DALI's file_root; None: the
# list's own folder.
FILE_ROOT = @@file_root@@
# Leave out the images DALI cannot read (the graph's "skip bad files"), saying which, as
# augexplorer does: image_header() below is augexplorer's own check. Without it every listed
# file goes to DALI, and a bad one stops the pipeline in its decoder.
SKIP_BAD = @@skip_bad@@
IMAGE_SUFFIXES = @@image_suffixes@@
# Never classes nor images, as in augexplorer: these names and every name starting with ".".
HIDDEN_NAMES = @@hidden_names@@
LABEL_MAX = 2**31 - 1  # DALI's readers carry labels as int32


def is_hidden(name):
    return name.startswith(".") or name in HIDDEN_NAMES


@@image_check@@
def keep_readable(where, candidates, skip_bad):
    """The (path, label) of `candidates` (path, label, why-prefix) that DALI can read, each file
    looked at once. Bad files raise one error naming them, or with `skip_bad` are left out and
    named once (on rank 0 under torchrun)."""
    kept, bad, seen = [], {}, {}
    for path, label, prefix in candidates:
        if path not in seen:
            seen[path] = image_header(path)
        if isinstance(seen[path], str):
            bad.setdefault(path, prefix + seen[path])
        else:
            kept.append((path, label))
    if not bad:
        return kept
    named = "; ".join(f"{path}: {why}" for path, why in bad.items())
    if not skip_bad or not kept:
        raise ValueError(
            f"{where}: {len(bad)} file(s) DALI cannot read: {named} (fix: remove or replace "
            "them, or pass skip_bad=True to leave them out)"
        )
    if os.environ.get("RANK", "0") == "0":
        total = len(kept) + len(bad)
        print(f"{where}: {len(bad)} of {total} images left out (skip_bad): {named}", flush=True)
    return kept


def unreadable(files, most=5):
    """The first `most` of `files` DALI cannot read, (path, why) each: looked for only when the
    decoder has failed, since DALI's error names no file."""
    bad = []
    for path in files:
        found = image_header(path)
        if isinstance(found, str):
            bad.append((path, found))
            if len(bad) == most:
                break
    return bad


def read_folder(root, skip_bad=SKIP_BAD):
    """Files and labels of a folder with one sub-folder of images per class (sorted names).

    Hidden folders are not classes; a class holds the images directly in its folder. Without
    class sub-folders, the images of `root` are one class. With `skip_bad`, files DALI cannot
    read are left out (see keep_readable).
    """
    classes = sorted(
        name
        for name in os.listdir(root)
        if not is_hidden(name) and os.path.isdir(os.path.join(root, name))
    )
    found = []  # (path, label)
    for label, name in enumerate(classes or [""]):
        folder = os.path.join(root, name)
        for entry in sorted(os.listdir(folder)):
            path = os.path.join(folder, entry)
            suffix = os.path.splitext(entry)[1].lower()
            if not is_hidden(entry) and suffix in IMAGE_SUFFIXES and os.path.isfile(path):
                found.append((path, label))
    if not found:
        raise ValueError(f"{root}: no images found")
    if skip_bad:
        found = keep_readable(root, [(path, label, "") for path, label in found], True)
    return [path for path, _ in found], [label for _, label in found]


def list_text(path, data):
    """The text of file list `path`'s bytes: UTF-8, a leading byte-order mark left out (as
    augexplorer reads it)."""
    if data.startswith((b"\\xff\\xfe", b"\\xfe\\xff")):
        raise ValueError(f"{path}: is UTF-16 text; save the list as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\\n", 0, error.start) + 1
        raise ValueError(
            f"{path}, line {line}: not UTF-8 text (byte 0x{data[error.start]:02x}); save the "
            "list as UTF-8"
        ) from None


def split_entry(line, label_count=None):
    """(name, labels) of a list's line, as augexplorer (and DALI's readers.file) reads it: the
    labels are the integers that end the line (`label_count` of them when given) and the name
    is everything before them, spaces included; where no integer ends it, its last field."""
    name, labels = line, []
    while label_count is None or len(labels) < label_count:
        cut = max(name.rfind(" "), name.rfind("\\t"))
        field = name[cut + 1 :]
        digits = field[1:] if field[:1] in ("+", "-") else field
        if cut < 0 or not (digits.isascii() and digits.isdigit()):
            break
        labels.insert(0, field)
        name = name[:cut].rstrip()
    cut = max(name.rfind(" "), name.rfind("\\t"))
    if not labels and cut >= 0:
        return name[:cut].rstrip(), [name[cut + 1 :]]
    return name, labels


def read_file_list(path, file_root=None, skip_bad=SKIP_BAD):
    """Files and label rows of a list with one `image label [label ...]` per line.

    Blank lines and lines starting with # are skipped; relative image paths are read from
    `file_root` when given (as DALI's readers.file reads them), else from the list's folder.
    With `skip_bad`, missing files and files DALI cannot read are left out (see keep_readable).
    """
    base = file_root if file_root is not None else os.path.dirname(os.path.abspath(path))
    files, rows = [], []
    with open(path, "rb") as stream:
        for number, raw in enumerate(list_text(path, stream.read()).splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            image, label_text = split_entry(line, len(rows[0]) if rows else None)
            if not label_text:
                raise ValueError(f"{path}, line {number}: expected an image and its label(s)")
            try:
                row = [int(text) for text in label_text]
            except ValueError:
                raise ValueError(
                    f"{path}, line {number}: labels must be integers, got "
                    f"{' '.join(label_text)!r:.80} (the label(s) end the line, after the file "
                    "name, which may hold spaces: 'my photo.jpg 3')"
                ) from None
            if min(row) < 0 or max(row) > LABEL_MAX:
                raise ValueError(f"{path}, line {number}: labels must be from 0 to {LABEL_MAX}")
            if rows and len(row) != len(rows[0]):
                raise ValueError(f"{path}, line {number}: every line needs the same label count")
            image = os.path.join(base, image)
            if not os.path.isfile(image) and not skip_bad:
                raise ValueError(
                    f"{path}, line {number}: image {image} not found (entries are read from "
                    f"{base}; set FILE_ROOT to the folder they are relative to)"
                )
            files.append((image, len(rows), f"line {number}: "))
            rows.append(row)
    if not files:
        raise ValueError(f"{path}: the file list names no images")
    if not skip_bad:
        return [image for image, _, _ in files], rows
    kept = keep_readable(path, files, True)
    return [image for image, _ in kept], [rows[index] for _, index in kept]


def read_data(data, file_root=FILE_ROOT, skip_bad=SKIP_BAD):
    """(files, labels, label_table) of a folder or a file list (its entries read from
    `file_root`, see read_file_list); with `skip_bad`, without the files DALI cannot read.

    A DALI reader carries one integer label per file, so for a list with several labels per
    image the reader's label is the file's index and label_table holds the label rows.
    """
    if not os.path.exists(data):
        raise ValueError(
            f"{data}: no such folder or file list (give a folder of class sub-folders, or a "
            "file list with one 'image label' per line)"
        )
    if os.path.isdir(data):
        files, labels = read_folder(data, skip_bad)
        return files, labels, None
    files, rows = read_file_list(data, file_root, skip_bad)
    if len(rows[0]) == 1:
        return files, [row[0] for row in rows], None
    return files, list(range(len(files))), torch.tensor(rows, dtype=torch.int64)

'''

ARRAY_SOURCE = '''class ArrayBatches:
    """Batches of in-memory HWC uint8 images and their labels, for `fn.external_source`.

    Each shard takes its contiguous part of the arrays, in order, and every epoch starts again
    at its first image. On several shards an epoch is the largest shard's length on every rank
    (a smaller shard repeats from its first image), so that every rank runs as many batches:
    DDP steps them together. The epoch's last batch is filled with its last sample, which the
    loader drops on one rank (PARTIAL) and keeps on several (FILL).
    """

    def __init__(self, images, labels, batch_size, shard_id=0, num_shards=1):
        start = len(images) * shard_id // num_shards
        stop = len(images) * (shard_id + 1) // num_shards
        if stop <= start:
            raise ValueError(
                f"shard {shard_id} of {num_shards} holds no image: {len(images)} images for "
                f"{num_shards} ranks (fix: give at least as many images as ranks)"
            )
        self.length = -(-len(images) // num_shards)
        self.images = [image if image.ndim == 3 else image[:, :, None] for image in images]
        self.images = self.images[start:stop]
        labels = labels if labels is not None else [0] * len(images)
        self.labels = [torch.tensor([int(label)], dtype=torch.int32).numpy() for label in labels]
        self.labels = self.labels[start:stop]
        self.batch_size = batch_size
        self.batches = -(-self.length // batch_size)  # an epoch's
        self.batch = 0  # batches given in this epoch

    def __len__(self):
        return self.length

    def __iter__(self):
        return self

    def __next__(self):
        first = self.batch * self.batch_size
        positions = [min(first + i, self.length - 1) for i in range(self.batch_size)]
        indices = [position % len(self.images) for position in positions]
        self.batch = (self.batch + 1) % self.batches
        return [self.images[i] for i in indices], [self.labels[i] for i in indices]

'''

PIPELINE = '''
@@decorator@@
def @@function@@(@@data_params@@, device="cpu", shard_id=@@shard_id@@, num_shards=@@num_shards@@, rank=0):
    """The augmentation graph as DALI calls.

    @@device_doc@@
    Every random operator draws with rank_seed(its seed, rank): rank 0 draws what augexplorer
    showed, every other rank values of its own.
    """
@@decoder_device@@@@body@@    return @@returns@@

'''

BATCHES = '''# DALI's PyTorch iterator makes each output of a batch one tensor, so every image of a batch must
# have one shape; its own error for images of several sizes names neither the cause nor a fix.
ONE_SHAPE_PER_BATCH = (
    "the graph's images differ in shape within this batch, and PyTorch takes a batch as one "
    "tensor of one shape (fix: end the graph with a node that gives every image one size: a "
    "crop, a resize with both resize_x and resize_y, or random_resized_crop; the explorer "
    "shows each image's size)"
)


def shapes_differ(error):
    """Whether `error` is DALI's for a batch it cannot make one tensor of."""
    return "IsDenseTensor" in str(error)


NO_ARRAYS_CHECKPOINT = (
    "a loader over in-memory arrays has no checkpoint: DALI does not save where a Python source "
    "stands (fix: read the images from a folder or a file list, or give the arrays from where "
    "the run stopped)"
)


def reads(data, shard_id, num_shards, batch_size):
    """What a loader reads, as its checkpoint records it: the graph, the data (digests), its
    shard and its batch size. A checkpoint resumes only a loader that reads the same."""
    return {
        "graph": zlib.crc32(repr(GRAPH).encode()),
        "data": zlib.crc32(repr(data).encode()),
        "shard": [shard_id, num_shards],
        "batch_size": batch_size,
    }


def loader_state(pipeline, read, **kept):
    """A loader's checkpoint as bytes: DALI's checkpoint of its pipeline (None before the
    first), what it reads and what else it keeps."""
    pipeline = None if pipeline is None else base64.b64encode(pipeline).decode()
    state = {"reads": read, "pipeline": pipeline, **kept}
    return json.dumps(state).encode()


def saved_state(checkpoint, read):
    """What a loader's checkpoint() saved, DALI's checkpoint as bytes under "pipeline", after
    checking it was taken by a loader that reads as this one (`read`)."""
    try:
        state = json.loads(checkpoint)
        saved = state["reads"]
        pipeline = state["pipeline"]
        state["pipeline"] = None if pipeline is None else base64.b64decode(pipeline)
    except (ValueError, TypeError, KeyError):
        raise ValueError(
            "not the checkpoint of an exported loader (fix: pass the bytes loader.checkpoint() "
            "returned)"
        ) from None
    named = {"graph": "the graph", "data": "the data", "shard": "shard [id, count]"}
    differs = [
        f"{named.get(key, key)} {saved.get(key)} there, {value} here"
        for key, value in read.items()
        if saved.get(key) != value
    ]
    if differs:
        raise ValueError(
            "this checkpoint was taken by a loader that reads otherwise: "
            + "; ".join(differs)
            + " (fix: resume each rank from its own checkpoint, with the module, data, number "
            "of ranks and batch size it was taken with)"
        )
    return state


def built(pipeline, saved):
    """The pipeline `pipeline(checkpointing)` makes, built with DALI's checkpointing (a loader
    then resumes from its checkpoint), or without it where an operator of the graph has none in
    this DALI, which DALI names: that loader trains as any other and says so if asked for a
    checkpoint (`unresumable`)."""
    pipe = pipeline(True)
    try:
        pipe.build()
        return pipe
    except RuntimeError as error:
        if "Checkpointing is not implemented" not in str(error):
            raise
        why = (
            f"this graph's loader has no checkpoint: {str(error).splitlines()[0]} (fix: remove "
            "that operator from the graph to resume a job's loader, or let a resumed job start "
            "its epoch over with a new loader)"
        )
    if saved is not None:
        raise ValueError(why)
    pipe = pipeline(False)
    pipe.unresumable = why
    return pipe


class Batches(DALIGenericIterator):
    """DALI's PyTorch iterator, whose errors say what DALI's do not: the fix for images of
    several sizes, and, given the `files` read and `unreadable` (which finds the bad ones), the
    files its decoder could not read.

    After each batch, `valid` is how many of its samples, from the first, are the epoch's own;
    the rest are padding (with FILL, repeats that give every rank as many whole batches), to
    leave out of a validation metric: `outputs[: loader.valid]`.
    """

    def __init__(self, *args, files=None, unreadable=None, shard_samples=None, reading=None, **kwargs):
        self.files, self.unreadable = files, unreadable
        self.shard_samples = shard_samples  # an epoch's own samples; None: the reader's shard
        self.reading = reading  # reads()'s arguments: digested only when a checkpoint is taken
        self.valid = None
        try:
            super().__init__(*args, **kwargs)  # it runs the first batch
        except RuntimeError as error:
            said = self.said(error)
            if said is None:
                raise
            raise said from error

    def __next__(self):
        try:
            batches = super().__next__()
        except RuntimeError as error:
            said = self.said(error)
            if said is None:
                raise
            raise said from error
        given = len(batches[0][OUTPUTS[0]])
        # As DALI's iterator counts what a PARTIAL batch keeps (_remove_padded): the samples of
        # the epoch given before this batch, against the shard's own size.
        own = self.shard_samples
        if own is None:
            own = self._shard_sizes_per_gpu_initial[self._shards_id].reshape(-1)[0]
        before = self._counter - self.batch_size
        self.valid = int(max(0, min(given, own - before)))
        return batches

    def checkpoint(self):
        """Where this loader stands, after the batches it has given: bytes for
        make_loader(..., checkpoint=...), which goes on from here (save them beside the model's
        weights)."""
        if self.reading is None:
            raise RuntimeError(NO_ARRAYS_CHECKPOINT)
        unresumable = getattr(self._pipes[0], "unresumable", None)
        if unresumable is not None:
            raise RuntimeError(unresumable)
        return loader_state(self.checkpoints()[0], reads(*self.reading))

    def said(self, error):
        """`error` in words that name its cause and fix, or None to keep DALI's."""
        if shapes_differ(error):
            return RuntimeError(ONE_SHAPE_PER_BATCH)
        if self.unreadable is None or "decoders." not in str(error):
            return None
        bad = self.unreadable(self.files)
        if not bad:
            return None
        named = "; ".join(f"{path}: {why}" for path, why in bad)
        return RuntimeError(
            f"the decoder could not read an image, and these files cannot be read: {named} "
            "(fix: remove or replace them, or set SKIP_BAD = True at the top of this module to "
            "leave them out, named)"
        )

'''

LABELLED_ITERATOR = '''class LabelledIterator(Batches):
    """A DALIGenericIterator whose labels are what PyTorch's losses take: one int64 class per
    image, shape (N,) as ImageFolder's (DALI's readers give int32 of shape (N, 1)); for
    multi-label file lists each reader label (the file's index) becomes the file's row of
    labels, (N, k)."""

    def __init__(self, pipelines, output_map, label_table, **kwargs):
        self.label_table = label_table
        super().__init__(pipelines, output_map, **kwargs)

    def __next__(self):
        batches = super().__next__()
        for batch in batches:
            labels = batch[LABELS].view(-1).long()
            if self.label_table is not None:
                labels = self.label_table[labels.cpu()].to(labels.device)
            batch[LABELS] = labels
        return batches

'''

_LOADER_START = '''
def make_loader(
    data=DATA,
    batch_size=BATCH_SIZE,
    device=None,
    num_threads=4,
    last_batch_policy=None,
    shard_id=None,
    num_shards=None,
    checkpoint=None,
):
    """A PyTorch iterator of batches (dicts keyed by OUTPUTS) that resets itself every epoch.

    `data` is @@data_doc@@.
    `device` is "gpu" or "cpu" (default: "gpu" when PyTorch sees one).
    Shard id and count default to RANK and WORLD_SIZE, the GPU to LOCAL_RANK, as torchrun
    sets them: one pipeline per GPU.
    @@epoch_doc@@
    `last_batch_policy` defaults to PARTIAL on one rank (the last batch as it is) and to FILL on
    several, where every rank then runs the same number of full batches: with PARTIAL a rank's
    last batch can be padding only, empty, and its NaN loss would reach every rank through the
    gradients' all-reduce. After each batch, `loader.valid` is how many of its samples, from
    the first, are not padding (where the reader pads an epoch's end: pad_last_batch=True).@@checkpoint_doc@@
    """
    if device is None:
        device = "gpu" if torch.cuda.is_available() else "cpu"
    if device == "gpu" and not torch.cuda.is_available():
        raise RuntimeError(
            'device="gpu" needs PyTorch with CUDA and a GPU (DALI hands over CUDA tensors); '
            f"PyTorch {torch.__version__} here sees none (fix: a CUDA build, or device='cpu')"
        )
    if shard_id is None:
        shard_id = int(os.environ.get("RANK", "0"))
    if num_shards is None:
        num_shards = int(os.environ.get("WORLD_SIZE", "1"))
    if last_batch_policy is None:
        last_batch_policy = LastBatchPolicy.FILL if num_shards > 1 else LastBatchPolicy.PARTIAL
@@drop_check@@    device_id = int(os.environ.get("LOCAL_RANK", "0")) if device == "gpu" else None
'''

# A reader's loader only: in-memory arrays have no reader, and DROP reads them whole batches.
_DROP_CHECK = """    if num_shards > 1 and last_batch_policy == LastBatchPolicy.DROP:
        # DALI's iterator would end every rank's epoch at the smaller shards' whole batches and
        # leave the rest of its reader's shard to open the next epoch (padding copies, files
        # read twice while others are not read)
        raise ValueError(
            "last_batch_policy=DROP cannot be used on several ranks: DALI's iterator leaves "
            "part of each epoch in the reader, to open the next one (fix: FILL, the default on "
            "several ranks, or PARTIAL)"
        )
"""
# A reader's loader goes on from a checkpoint; DALI saves no place in a Python source (arrays).
_CHECKPOINT_DOC = """
    `checkpoint`: what `loader.checkpoint()` returned (DALI's checkpoint of the pipeline: where
    its reader stands and the state of every random operator): the new loader gives the batches
    and draws the old one would have given next, as a training job resumed from a checkpoint
    needs. Under torchrun each rank saves and restores its own."""
_NO_CHECKPOINT_DOC = """
    `checkpoint`: only None: DALI saves no place in a Python source (a loader over a folder or
    a file list resumes from its checkpoint)."""
READER_LOADER_START = _LOADER_START.replace("@@drop_check@@", _DROP_CHECK).replace(
    "@@checkpoint_doc@@", _CHECKPOINT_DOC
)

_PIPELINE_OPTIONS = """        device=device,
        shard_id=shard_id,
        num_shards=num_shards,
        rank=shard_id,
        batch_size=batch_size,
        num_threads=num_threads,
        device_id=device_id,
    )
"""
# Every reader's pipeline can give its checkpoint (DALI: no cost until one is taken); one
# given is checked against what this loader reads (@@data@@: the data as reads() digests it).
_RESUMED = """    reading = (@@data@@, shard_id, num_shards, batch_size)
    saved = None if checkpoint is None else saved_state(checkpoint, reads(*reading))["pipeline"]
"""
_READER_PIPELINE_OPTIONS = _PIPELINE_OPTIONS.replace("        ", "            ").replace(
    "    )\n",
    "            enable_checkpointing=checkpointing,\n"
    "            checkpoint=saved if checkpointing else None,\n"
    "        )\n\n    pipe = built(pipeline, saved)\n",
)
# The reader's pipeline, made by a function that built() calls with checkpointing on, and
# again without it where an operator of the graph has none (@@arguments@@: its data).
_READER_PIPELINE = """    def pipeline(checkpointing):
        return @@function@@(
@@arguments@@"""
# The reader's iterator: resumable, and a restored one prepares nothing ahead, so that an epoch
# saved after its last batch ends as it would have (StopIteration), not in the next epoch's
# first batch.
_RESUMABLE = """        reading=reading,
        prepare_first_batch=saved is None,
"""

LOADER_FILES = (
    READER_LOADER_START.replace("@@data_doc@@", "a folder of class sub-folders, or a file list")
    + """    files, labels, _ = read_data(data)
"""
    + _RESUMED.replace("@@data@@", "files")
    + _READER_PIPELINE.replace("@@arguments@@", "            files,\n            labels,\n")
    + _READER_PIPELINE_OPTIONS
    + """    return Batches(
        [pipe],
        OUTPUTS,
        files=files,
        unreadable=unreadable,
        reader_name=@@reader@@,
        last_batch_policy=last_batch_policy,
        auto_reset=True,
"""
    + _RESUMABLE
    + """    )

"""
)

LOADER_LABELLED = (
    READER_LOADER_START.replace("@@data_doc@@", "a folder of class sub-folders, or a file list")
    + """    files, labels, label_table = read_data(data)
"""
    + _RESUMED.replace("@@data@@", "files")
    + _READER_PIPELINE.replace("@@arguments@@", "            files,\n            labels,\n")
    + _READER_PIPELINE_OPTIONS
    + """    return LabelledIterator(
        [pipe],
        OUTPUTS,
        label_table,
        files=files,
        unreadable=unreadable,
        reader_name=@@reader@@,
        last_batch_policy=last_batch_policy,
        auto_reset=True,
"""
    + _RESUMABLE
    + """    )

"""
)

LOADER_ARRAYS = (
    _LOADER_START.replace("@@drop_check@@", "")
    .replace("@@checkpoint_doc@@", _NO_CHECKPOINT_DOC)
    .replace("@@data_doc@@", "(images, labels): HxWxC uint8 arrays and one integer label each")
    + """    if checkpoint is not None:
        raise ValueError(NO_ARRAYS_CHECKPOINT)
    images, labels = data
    arrays = ArrayBatches(images, labels, batch_size, shard_id, num_shards)
    # FILL keeps the epoch's last batch whole, its padding included: sized so, DALI counts no
    # sample of it into the next epoch (which it would shorten by as many)
    size = len(arrays)
    if last_batch_policy == LastBatchPolicy.FILL:
        size = arrays.batches * batch_size
    pipe = @@function@@(
        arrays,
"""
    + _PIPELINE_OPTIONS
    + """    return @@arrays_iterator@@(
        [pipe],
        OUTPUTS,@@arrays_label_table@@
        size=size,
        shard_samples=len(arrays.images),
        last_batch_policy=last_batch_policy,
        auto_reset=True,
    )

"""
)

_MAIN = """
def main():
    parser = argparse.ArgumentParser(description="Measure the throughput of @@function@@.")
@@data_argument@@    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    parser.add_argument("--batches", type=int, default=50, help="batches to time")
    parser.add_argument("--device", choices=["gpu", "cpu"], help="default: gpu if there is one")
    args = parser.parse_args()
    loader = make_loader(@@data_value@@, batch_size=args.batch_size, device=args.device)
    rank = os.environ.get("RANK", "0")
    images = 0
    start = time.perf_counter()
    for index in range(1, args.batches + 1):
        try:
            batch = next(loader)[0]
        except StopIteration:  # end of an epoch: the loader has reset itself
            batch = next(loader)[0]
        images += len(batch[OUTPUTS[0]])
        if index % 10 == 0 or index == args.batches:
            rate = images / (time.perf_counter() - start)
            print(f"[rank {rank}] batch {index}/{args.batches}: {rate:.1f} images/s", flush=True)
    elapsed = time.perf_counter() - start
    print(f"[rank {rank}] {images} images in {elapsed:.2f} s: {images / elapsed:.1f} images/s")


if __name__ == "__main__":
    main()
"""

MAIN_FILES = _MAIN.replace(
    "@@data_argument@@",
    '    parser.add_argument("--data", default=DATA, help="a folder or a file list")\n',
).replace("@@data_value@@", "args.data")

MAIN_ARRAYS = _MAIN.replace(
    "@@data_argument@@",
    '    parser.add_argument("--size", type=int, default=256, help="side of the random test images")\n',
).replace(
    "@@data_value@@",
    "(torch.randint(0, 256, (64, args.size, args.size, 3), dtype=torch.uint8).numpy(), None)",
)
