"""Pipelines a file holds other than by a module-level name.

- In a list: DALI's multi-GPU examples build one per GPU (``pipes = [FileReadPipeline(
  device_id=i, num_gpus=N) for i in range(N)]``, then ``pipes[0].build()`` and
  ``DALIGenericIterator(pipes, ...)``), and a DALI iterator at module level holds the pipelines
  it was given. The first is the one read (shard 0; the others differ only by device and
  shard), under the name the code would write for it (``pipes[0]``).
- In a function of the file that DALI stopped for want of a GPU (``pipe.build()`` inside
  ``get_train_loader(...)``, called at the top level): the pipeline it had made, a local of
  that call, named ``get_train_loader.pipe``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple


class FirstOfSeveral(UserWarning):
    """The file built several pipelines in one list; the graph is read from the first."""


class HeldPipeline(NamedTuple):
    name: str  # as the code writes it: pipes[0], train_loader._pipes[0]
    pipeline: Any
    listed: int  # how many pipelines the list holds


def held_pipelines(namespace: Mapping[str, Any]) -> Iterator[HeldPipeline]:
    """The first pipeline of each module-level list or tuple of pipelines, and of each DALI
    iterator's (whose ``_pipes`` are the pipelines it was given)."""
    from nvidia.dali import Pipeline

    for name, value in namespace.items():
        if name.startswith("_"):
            continue
        held, where = value, name
        if type(value).__module__.startswith("nvidia.dali.plugin"):  # a DALI iterator
            held, where = getattr(value, "_pipes", None), f"{name}._pipes"
        if (
            isinstance(held, list | tuple)
            and held
            and all(isinstance(item, Pipeline) for item in held)
        ):
            yield HeldPipeline(f"{where}[0]", held[0], len(held))


def made_in_calls(error: BaseException, path: Path) -> dict[str, Any]:
    """The pipelines of the file's own ``Pipeline`` subclasses (the ops API) that the calls of
    its functions `error` went through had made, as locals (a list of them by its first, as
    :func:`held_pipelines`), by ``function.name``. ``self`` is left out (a pipeline still being
    made), and so is a pipeline a ``@pipeline_def`` function made: its definition is built with
    the values the stopping call writes (:mod:`.stopped_call`), as on a machine where the file
    runs through."""
    found: dict[str, Any] = {}
    trace = error.__traceback__
    while trace is not None:
        frame, trace = trace.tb_frame, trace.tb_next
        code = frame.f_code
        if code.co_name.startswith("<") or Path(code.co_filename) != path:
            continue  # the module's own statements, or code of another file
        module = frame.f_globals.get("__name__")
        values = {
            name: value
            for name, value in frame.f_locals.items()
            if name != "self" and _of_class_in(value, module)
        }
        for name, value in values.items():
            if not isinstance(value, list | tuple):
                found[f"{code.co_name}.{name}"] = value
        for held in held_pipelines(values):
            found[f"{code.co_name}.{held.name}"] = held.pipeline
    return found


def _of_class_in(value: Any, module: str | None) -> bool:
    """Whether `value` is a pipeline of a class `module` defines, or a list of such."""
    from nvidia.dali import Pipeline

    items = value if isinstance(value, list | tuple) and value else [value]
    return all(isinstance(i, Pipeline) and type(i).__module__ == module for i in items)


def first_of_several(held: HeldPipeline) -> str:
    """What the import says of a pipeline read from a list of several."""
    return (
        f"{held.name} is the first of {held.listed} pipelines the file built in one list (one "
        "per GPU or shard, alike but for their device and shard): the graph is read from it, "
        "its reader's shard_id and num_shards as written (fix: to read every file in the "
        "explorer, set num_shards=1 among the source's reader arguments)"
    )
