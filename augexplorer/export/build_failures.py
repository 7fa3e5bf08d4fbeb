"""What a pipeline that failed while the import built it says: the error the user's code raised,
where (DALI's conditionals wrap it as "in user code:"), and what to give where a parameter left
None was read (a script's argparse Namespace, ``args=None``)."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Mapping
from typing import Any, NamedTuple


def defuse_half_built(error: BaseException) -> None:
    """A Pipeline subclass whose __init__ failed before ``super().__init__`` (reading
    ``args.batch_size`` of ``args=None``) has no ``_pipe``: DALI's ``__del__`` then raises
    whenever it is collected, printing "Exception ignored in Pipeline.__del__" after the
    refusal (and, collected while Python builds an AST, breaking that). Give it the ``_pipe``
    a pipeline never built has."""
    from nvidia.dali import Pipeline

    trace = error.__traceback__
    while trace is not None:
        for value in trace.tb_frame.f_locals.values():
            if isinstance(value, Pipeline) and "_pipe" not in vars(value):
                value._pipe = None
        trace = trace.tb_next


def namespace_fix(
    definition: Any, signature: inspect.Signature, arguments: Mapping[str, Any], error: Exception
) -> str:
    """Where building failed reading an attribute of a parameter left None (``args=None``, the
    Namespace a script makes in main()): the --param giving each attribute the code reads of
    it; "" otherwise."""
    if not isinstance(error, AttributeError) or "'NoneType'" not in str(error):
        return ""
    # a class's __init__, as its module is gone once the file ran (getsource reads a class
    # through its module)
    function = definition.__init__ if inspect.isclass(definition) else definition
    try:
        code = inspect.getsource(inspect.unwrap(function))
    except (OSError, TypeError):
        return ""
    tree = ast.parse(textwrap.dedent(code))
    for parameter in signature.parameters.values():
        value = arguments.get(parameter.name, parameter.default)
        if value is not None:
            continue
        read = [
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == parameter.name
        ]
        if read:
            flags = " ".join(f"--param {parameter.name}.{a}=VALUE" for a in dict.fromkeys(read))
            return f"give the attributes the code reads of {parameter.name!r}: {flags}"
    return ""


# An error raised in a pipeline DALI converted for conditionals (enable_conditionals=True): its
# message is a traceback of the user's code, "in user code:", the place, then the error itself.
_IN_USER_CODE = re.compile(r'\s*in user code:\s*File "(?P<file>[^"]+)", line (?P<line>\d+)')


class UserCodeError(NamedTuple):
    """An error DALI's conditionals wrapped: where the user's code raised it, and what."""

    file: str
    line: int
    code: str  # the line's code, "" where DALI does not show it
    error: str  # ``ValueError: the message``


def in_user_code(error: BaseException) -> UserCodeError | None:
    """Where and what the user's code raised, for an error DALI's conditionals wrapped (their
    text's first line is only "in user code:"); None for any other error."""
    text = str(error)
    found = _IN_USER_CODE.match(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if found is None or len(lines) < 3:
        return None
    code = lines[2] if not lines[2].startswith(f"{type(error).__name__}:") else ""
    return UserCodeError(found["file"], int(found["line"]), code, lines[-1])


def raised(error: BaseException) -> str:
    """``ValueError: the message``, and where the user's code raised it when DALI's conditionals
    wrapped it."""
    wrapped = in_user_code(error)
    if wrapped is None:
        return f"{type(error).__name__}: {first_line(error)}"
    shown = f" (`{wrapped.code}`)" if wrapped.code else ""
    return f"{wrapped.error}, at line {wrapped.line} of {wrapped.file}{shown}"


def first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"


def made_without_threads(error: BaseException) -> bool:
    """Whether `error` is DALI 2.4's TypeError on building a pipeline made without
    ``num_threads`` (``'<' not supported between instances of 'NoneType' and 'int'``, where
    DALI means to say that such a pipeline can only be serialized)."""
    if not isinstance(error, TypeError):
        return False
    trace = error.__traceback__  # DALI's build, innermost
    last = None
    while trace is not None:
        last = trace.tb_frame
        trace = trace.tb_next
    if last is None or last.f_code.co_name != "build":
        return False
    from nvidia.dali import Pipeline

    pipeline = last.f_locals.get("self")
    return isinstance(pipeline, Pipeline) and pipeline.num_threads is None
