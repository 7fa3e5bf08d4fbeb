"""The DALI contenders: the graph's fused pipeline (what an exported module runs), the exported
module itself, and the same recipe written by hand with `nvidia.dali.fn`.

All read the same list of files with `fn.readers.file` and run with DALI's default executor
(asynchronous, prefetching), as a training job would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..builder import build_pipeline
from ..data import SourceData
from ..plan import Plan
from ..spec import GraphSpec
from .recipe import Recipe


def fused_pipeline(
    plan: Plan,
    files: Sequence[str],
    labels: Sequence[int],
    *,
    batch_size: int,
    num_threads: int,
    device_id: int | None,
) -> Any:
    """The graph from :func:`~augexplorer.builder.build_pipeline`, reading `files`."""
    sources = [step for step in plan.steps if step.role == "source"]
    if len(sources) != 1:
        raise ValueError("a throughput run needs a graph with exactly one data source")
    data = {sources[0].id: SourceData(kind="file_list", files=tuple(files), labels=tuple(labels))}
    return build_pipeline(
        plan, data, batch_size=batch_size, num_threads=num_threads, device_id=device_id
    )


def exported_pipeline(
    spec: GraphSpec,
    files: Sequence[str],
    labels: Sequence[int],
    *,
    device: str,
    batch_size: int,
    num_threads: int,
    device_id: int | None,
) -> Any:
    """The pipeline of the module `augexplorer.export.generate` writes for `spec`."""
    from ..export import generate
    from ..export.importer import pipelines_in
    from .module_file import module_from_source

    name = f"exported_{spec.name or 'graph'}"
    name = name if name.isidentifier() else "exported_graph"
    with module_from_source(name, generate(spec)) as module:
        definitions = list(pipelines_in(module.__dict__).values())
        if len(definitions) != 1:
            raise ValueError(f"the exported module defines {len(definitions)} pipelines, not one")
        pipeline = definitions[0](
            list(files),
            list(labels),
            device=device,
            batch_size=batch_size,
            num_threads=num_threads,
            device_id=device_id,
        )
        pipeline.build()  # while its source is there to read
    return pipeline


def handwritten_pipeline(
    recipe: Recipe,
    files: Sequence[str],
    labels: Sequence[int],
    *,
    device: str,
    batch_size: int,
    num_threads: int,
    device_id: int | None,
    seed: int = 0,
) -> Any:
    """The recipe as a person writes it with `nvidia.dali.fn`, without augexplorer."""
    from nvidia.dali import fn, pipeline_def
    from nvidia.dali import types as dali_types

    types: Any = dali_types  # enums the stubs do not list
    decoder = "mixed" if device == "gpu" else "cpu"

    options: dict[str, Any] = {
        "batch_size": batch_size,
        "num_threads": num_threads,
        "device_id": device_id,
        "seed": seed,
    }

    @pipeline_def(**options)
    def recipe_pipeline() -> Any:
        images: Any
        mirror: Any
        jpegs, label = fn.readers.file(files=list(files), labels=list(labels), name="reader")
        if recipe.kind == "train":
            images = fn.decoders.image_random_crop(
                jpegs,
                device=decoder,
                output_type=types.RGB,
                random_area=list(recipe.scale),
                random_aspect_ratio=list(recipe.ratio),
            )
            images = fn.resize(images, resize_x=recipe.size, resize_y=recipe.size)
            mirror = fn.random.coin_flip(probability=recipe.flip_probability)
        else:
            images = fn.decoders.image(jpegs, device=decoder, output_type=types.RGB)
            images = fn.resize(images, resize_shorter=recipe.resize_shorter)
            mirror = 0
        images = fn.crop_mirror_normalize(
            images,
            crop=(recipe.size, recipe.size),
            mean=list(recipe.mean),
            std=list(recipe.std),
            dtype=types.FLOAT,
            output_layout="CHW",
            mirror=mirror,
        )
        return images, label

    return recipe_pipeline()
