"""Why a part of a DALI pipeline cannot be imported, said in the user's own terms.

DALI records where each operator was made (``_origin_stack_*`` arguments of the serialized
pipeline): the refusal names the construct as the user wrote it (``if``/``else``, an
``auto_aug`` policy, a Python callback, a math function), the line of their code
that made it, and what to write instead; never DALI's internal instance names.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from ..catalog.auto_aug import PRESETS as AUTO_AUG_PRESETS
from ..catalog.auto_aug import node_for_function
from .protobuf import OpRecord

_CONDITION_FIX = (
    "let each branch change the variable the if started from with operators that take it as "
    "their first input (`if p: x = fn.flip(x)` / `else: x = fn.rotate(x, angle=10)`), and "
    "compute other values before the if"
)
_LOGICAL_FIX = (
    "combine the predicates into one boolean expression, such as `if (a != 0) & (b == 0):` for "
    "`if a and not b:`, or nest the ifs"
)
_SOURCE_FIX = (
    "read the images with fn.readers.file from a folder (file_root=) or a file list "
    "(file_list=), or open in-memory arrays in the explorer (Session(..., data=arrays))"
)
_PYTHON_FIX = (
    "import the pipeline without it, then add a python_function node in the explorer "
    "(PythonCode.from_function(my_function))"
)


# The readers a graph's sources stand for; any other reader is a format the explorer cannot read.
READ_AS_SOURCES = frozenset({"readers.file", "readers.coco"})


@dataclass(frozen=True)
class Construct:
    """What a refused operator is, as the user wrote it, and what to do instead."""

    what: str
    fix: str
    why: str = ""  # what stood in the way, when the construct alone does not say


def construct(op: OpRecord, fn_name: str, *, feeds_arguments: bool = False) -> Construct | None:
    """The user's construct behind `op` (named `fn_name` in ``nvidia.dali.fn``) when it is one
    the graph cannot carry; None for an ordinary operator. `feeds_arguments`: every operator
    reading it reads it as an argument (values such as angles, not images)."""
    if op.schema in ("ExternalSource", "_ExternalSource"):
        name = op.called or "fn.external_source"
        if feeds_arguments:
            return Construct(
                f"{name} (values fed from Python, such as angles or factors)",
                "draw them in the pipeline with an fn.random operator (fn.random.uniform("
                "range=[-30, 30]) for an angle), or write them as constants",
            )
        # the ops API feeds it from iter_setup (feed_input) as often as from a callback
        fed = (
            "by feed_input or a source= callback"
            if op.called
            else "from Python: a source= callback or iterator, or feed_input"
        )
        return Construct(f"{name} (data fed {fed})", _SOURCE_FIX)
    if op.schema in ("PythonFunction", "DLTensorPythonFunction"):
        return Construct("fn.python_function (a Python callback)", _PYTHON_FIX)
    is_reader = fn_name.split(".")[-2:-1] == ["readers"] or op.schema.endswith("Reader")
    if is_reader and fn_name not in READ_AS_SOURCES:
        # the public name of a reader DALI registers as readers._tfrecord
        public = ".".join(part.lstrip("_") for part in fn_name.split("."))
        current = f"fn.{public}" if not fn_name.startswith("_") else _favoured(op.schema)
        shown = op.called or current or op.schema.lstrip("_")
        now = f"now {current}, " if op.called and current else ""
        return Construct(
            f"{shown} ({now}a reader of a format the explorer does not read: it reads image "
            "folders, file lists, COCO and YOLO)",
            _FRAMES_FIX if _reads_frames(fn_name) else _IMAGES_FIX,
        )
    return None


_IMAGES_FIX = (
    "write the images out as files in class folders or a file list, read them with "
    "fn.readers.file, and import that"
)
# a video or a sequence of frames: the explorer's graphs work on single images
_FRAMES_FIX = (
    "the explorer works on single images, not on sequences of frames: write frames out as "
    "image files in class folders or a file list, read them with fn.readers.file, and import "
    "that"
)


def gpu_only_on_cpu(fn_name: str, schema: str, called: str = "") -> Construct:
    """An operator DALI has only for the GPU, given CPU data (so placed on the CPU): DALI
    refuses to build that pipeline on any machine, with or without a GPU. `called`: the ops
    class the code made it with (``ops.Jitter``), whose device is set where it is made."""
    short = fn_name.rsplit(".", 1)[-1]
    fix = (
        f"move its input to the GPU first, fn.{fn_name}(images.gpu(), ...), or decode with "
        'device="mixed"'
    )
    if called:
        # an ops object runs on the device it was made with: fn's fix alone would still fail
        fix = (
            f'make it with {called}(device="gpu", ...) and call it on images.gpu(), or '
            'decode with device="mixed"'
        )
    return Construct(
        called or f"fn.{fn_name}",
        fix=f"{fix}; on a machine without a GPU, leave it out",
        why=f"its input is on the CPU, and DALI has {short} only for the GPU, so DALI refuses "
        f'to build this pipeline on any machine (Operator "{schema}" not registered for cpu)',
    )


def _reads_frames(fn_name: str) -> bool:
    """Whether reader `fn_name` gives sequences of frames (readers.video, video_resize,
    sequence)."""
    short = fn_name.rsplit(".", 1)[-1].lstrip("_")
    return short.startswith(("video", "sequence"))


def _favoured(schema_name: str) -> str:
    """The ``fn`` name of the operator DALI's deprecation of `schema_name` points to, or "":
    ``_TFRecordReader`` (``ops.TFRecordReader``, hidden in ``fn``) names ``readers__TFRecord``,
    which DALI registers hidden, so no alias maps it: ``fn.readers.tfrecord``."""
    from ..catalog.schema import _backend, fn_name

    try:
        favoured = str(_backend().GetSchema(schema_name).DeprecatedInFavorOf() or "")
    except (KeyError, RuntimeError):  # a schema this DALI does not register
        return ""
    return f"fn.{fn_name(favoured)}" if favoured else ""


def conditional(_op: OpRecord) -> Construct:
    """An if/else whose branches are not chains of operators on the variable it started from."""
    return Construct(
        "an if/else whose branches do not both continue one variable (a branch that sets it to "
        "another value, or an operator that does not read it as its first input)",
        _CONDITION_FIX,
    )


def logical(_op: OpRecord) -> Construct:
    """``and``/``or``/``not`` in an ``if`` condition (DALI's ``_conditional.not_`` and
    ``validate_logical``)."""
    return Construct("`and`/`or`/`not` in an if condition", _LOGICAL_FIX)


def auto_aug_policy(op: OpRecord) -> str | None:
    """The ``nvidia.dali.auto_aug`` function the user called to make `op`, or None."""
    frames = _frames(op)
    for index, (filename, _line, _name, _code) in enumerate(frames):
        if in_auto_aug(filename):
            return frames[index][2] if index else "auto_aug"
    return None


def in_auto_aug(filename: str) -> bool:
    """Whether `filename` is part of DALI's ``nvidia.dali.auto_aug`` package."""
    return _in_dali(filename) and f"{os.sep}auto_aug{os.sep}" in filename


def auto_aug(policy: str, reason: str = "") -> Construct:
    """A policy call that could not be turned back into a node, `reason` saying why (the
    serialized pipeline holds what the call made, not its arguments: they are read from the
    call's source, see :mod:`.auto_aug_import`)."""
    op = node_for_function(policy)
    if op is None:
        fix = (
            "a graph holds DALI's ready-made policies (auto_augment, rand_augment, "
            "trivial_augment_wide), not a suite of your own: import the pipeline without it and "
            "add the nearest policy node"
        )
    else:
        fix = (
            "import the .py file that calls it (augexplorer import FILE --run-file), with the "
            "call's arguments written as constants or with the pipeline function's parameters "
            "(and seed=... given for the same draws); or import the pipeline "
            f"without it and add an {op} node with the same arguments and seed (it draws the "
            "same values)"
            + (
                f", or start from the '{AUTO_AUG_PRESETS[op]}' preset"
                if op in AUTO_AUG_PRESETS
                else ""
            )
        )
    return Construct(f"DALI's auto_aug policy `{policy}`", fix, reason)


def where(op: OpRecord) -> str:
    """Where the user's code made `op`: ``" at line 12 of pipe.py (`a * b`)"``, or "" when DALI
    recorded no place outside its own package."""
    user = [frame for frame in _frames(op) if not _in_dali(frame[0])]
    if not user:
        return ""
    filename, line, name, code = user[-1]
    shown = f" (`{code.strip()}`)" if code.strip() else ""
    function = f" in {name}()" if name and not name.startswith("<") else ""
    return f" at line {line} of {filename}{function}{shown}"


def refusal(construct_: Construct, op: OpRecord) -> str:
    return refusal_at(construct_, where(op))


def refusal_at(construct_: Construct, place: str) -> str:
    why = f": {construct_.why}" if construct_.why else ""
    return f"{construct_.what}{place} cannot be imported into a graph{why} (fix: {construct_.fix})"


def refusal_text(kind: str, place: str) -> str:
    """The refusal of a construct DALI cannot even serialize: a Python callback, by the name
    DALI's error gives it (``"python_function"``, or ``"PythonFunction"`` of the ops API)."""
    assert kind in ("python_function", "DLTensorPythonFunction", "PythonFunction"), kind
    call = "fn.python_function" if kind == "python_function" else f"ops.{kind}"
    return refusal_at(Construct(f"{call} (a Python callback)", _PYTHON_FIX), place)


def origin_frames(op: OpRecord) -> list[tuple[str, int, str, str]]:
    """The Python frames DALI recorded for `op`, outermost first: (file, line, function,
    code)."""
    return _frames(op)


def _frames(op: OpRecord) -> list[tuple[str, int, str, str]]:
    def values(key: str) -> list[object]:
        argument = op.args.get(key)
        value = argument.value() if argument is not None else None
        return value if isinstance(value, list) else []

    filenames = values("_origin_stack_filename")
    lines = values("_origin_stack_lineno")
    names = values("_origin_stack_name")
    codes = values("_origin_stack_line")
    count = min(len(filenames), len(lines))
    return [
        (
            str(filenames[i]),
            int(lines[i]),  # type: ignore[call-overload]
            str(names[i]) if i < len(names) else "",
            str(codes[i]) if i < len(codes) else "",
        )
        for i in range(count)
    ]


@functools.cache
def _dali_folder() -> str:
    import nvidia.dali

    return os.path.dirname(os.path.abspath(nvidia.dali.__file__)) + os.sep


def _in_dali(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_dali_folder())


_ORIGIN = re.compile(
    r"_origin_stack_filename: \[(?P<files>[^\]]*)\].*?_origin_stack_lineno: \[(?P<lines>[^\]]*)\]"
    r".*?_origin_stack_line: \[(?P<code>[^\n]*)\]",
    re.S,
)


def python_function_place(pipeline: object) -> str:
    """Where a not-yet-serialized pipeline calls fn.python_function (from the operator specs
    DALI keeps while it defines the pipeline): ``" at line 9 of pipe.py (`...`)"`` or ""."""
    for instance in getattr(pipeline, "_ops", None) or []:
        spec = str(getattr(instance, "spec", ""))
        if "PythonFunction" not in spec.split("\n", 1)[0]:
            continue
        found = _ORIGIN.search(spec)
        if found is None:
            return ""
        files = [f.strip() for f in found["files"].split(",") if f.strip()]
        lines = [n.strip() for n in found["lines"].split(",") if n.strip()]
        code = found["code"].rstrip(", ").strip()
        user = [(f, n) for f, n in zip(files, lines, strict=False) if not _in_dali(f)]
        if not user:
            return ""
        filename, line = user[-1]
        shown = f" (`{code}`)" if code and len(files) == 1 else ""
        return f" at line {line} of {filename}{shown}"
    return ""
