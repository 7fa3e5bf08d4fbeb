"""The crop windows random crops drew over a statistics run: how much of the image they kept and
their aspect ratio, beside the ranges the node declares.

``random_bbox_crop`` returns its windows (outputs 0 and 1). ``random_resized_crop`` and
``decoders.image_random_crop`` do not:
its windows are drawn again by DALI's own generator, which follows the node batch after batch
when it is fed the same images from the same start (:class:`~augexplorer.engine.internal_draws.
WindowGenerator`), and each is counted only where resizing it gives the node's very pixels; the
rest are counted as not known, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.internal_draws import FROM_OUTPUTS, REDRAWN, WindowGenerator
from ..plan import Plan, Step
from ..spec import Ref
from .moments import RunningMoments
from .state import Leaf, ints, moments_of, summed

Host = Callable[[str], list[np.ndarray]]


@dataclass
class WindowStats:
    """The windows `node` drew: the share of the image each kept and its width over height
    (in pixels; in fractions of the image for ``random_bbox_crop``, which draws them so)."""

    node: str
    op: str
    how: str  # "output" or "recovered"
    declared_area: tuple[float, float] | None
    declared_aspect: tuple[float, float] | None
    windows: int = 0  # windows known and counted
    unknown: int = 0  # samples the node ran on whose window could not be known
    area: RunningMoments = field(default_factory=RunningMoments)
    aspect: RunningMoments = field(default_factory=RunningMoments)

    def state(self) -> list[Leaf]:
        return [ints(self.windows, self.unknown), self.area, self.aspect]

    def load_state(self, combined: list[Leaf]) -> None:
        self.windows, self.unknown = (int(v) for v in summed(combined[0]))
        self.area, self.aspect = moments_of(combined[1]), moments_of(combined[2])

    def describe(self) -> str:
        how = (
            "read from its outputs"
            if self.how == "output"
            else f"DALI's generator, each checked on pixels: {self.windows:,} of "
            f"{self.windows + self.unknown:,}"
        )
        if not self.windows:
            return f"crop windows of {self.node} ({how}): none known"
        area = _range(self.area, self.declared_area)
        aspect = _range(self.aspect, self.declared_aspect)
        return f"crop windows of {self.node} ({how}): area share {area}; width/height {aspect}"

    def to_json(self) -> dict[str, Any]:
        def moments(m: RunningMoments) -> dict[str, float | None]:
            if not m.channels:
                return {"mean": None, "std": None, "min": None, "max": None}
            return {
                "mean": float(m.mean[0]),
                "std": float(m.std[0]),
                "min": float(m.min[0]),
                "max": float(m.max[0]),
            }

        return {
            "node": self.node,
            "op": self.op,
            "how": self.how,
            "windows": self.windows,
            "unknown": self.unknown,
            "area_share": moments(self.area),
            "aspect": moments(self.aspect),
            "declared_area": list(self.declared_area) if self.declared_area else None,
            "declared_aspect": list(self.declared_aspect) if self.declared_aspect else None,
        }


class WindowCounter:
    """Counts one window-drawing step's windows, batch by batch; `refs` are the outputs of the
    statistics pipeline it reads."""

    def __init__(self, step: Step, batch_size: int, source: Ref) -> None:
        self.step = step
        # what the step transformed (Plan.first_input: for the first step of an else, its
        # block's input)
        self.input = source
        self.refs: list[Ref] = [self.input]
        if step.op in REDRAWN:
            self.refs.append(Ref(step.id))
            area, aspect = "random_area", "random_aspect_ratio"
            defaults: tuple[Any, Any] = ([0.08, 1.0], [3 / 4, 4 / 3])
            how = "recovered"
            self._generator: WindowGenerator | None = WindowGenerator(step, batch_size)
        else:
            self.refs += [Ref(step.id, 0), Ref(step.id, 1)]
            area, aspect = "scaling", "aspect_ratio"
            defaults = ([1.0, 1.0], [1.0, 1.0])
            how = "output"
            self._generator = None
        if step.apply is not None:
            self.refs.append(step.apply)
        self.stats = WindowStats(
            step.origin,
            step.op,
            how,
            _pair(step.args.get(area, defaults[0]), squared=step.op == FROM_OUTPUTS),
            _pair(step.args.get(aspect, defaults[1])),
        )

    def add(self, host: Host) -> None:
        flags = None
        if self.step.apply is not None:
            flags = [bool(np.asarray(v).reshape(-1)[0]) for v in host(str(self.step.apply))]
        if self._generator is not None:
            self._add_recovered(host, flags)
        else:
            self._add_outputs(host, flags)

    def _add_outputs(self, host: Host, flags: list[bool] | None) -> None:
        shapes = host(str(Ref(self.step.id, 1)))  # only the size is summed up, not where it sat
        areas, aspects = [], []
        for index, shape in enumerate(shapes):
            if flags is not None and not flags[index]:
                continue
            w, h = (float(v) for v in np.asarray(shape).reshape(-1)[:2])
            areas.append(w * h)
            aspects.append(w / h if h > 0 else np.nan)
        self._count(areas, aspects, 0)

    def _add_recovered(self, host: Host, flags: list[bool] | None) -> None:
        assert self._generator is not None
        images, made = host(str(self.input)), host(str(Ref(self.step.id)))
        ran = [i for i in range(len(images)) if flags is None or flags[i]]
        if not ran:
            return
        # the node's generators serve the samples it ran on, in order: so does this one
        _, shapes, resized = self._generator.draw([images[i] for i in ran])
        areas, aspects, unknown = [], [], 0
        for position, sample in enumerate(ran):
            crop = made[sample]
            if resized[position].shape != crop.shape or not np.array_equal(resized[position], crop):
                unknown += 1
                continue
            h, w = (float(v) for v in shapes[position][:2])
            # a decoder reads encoded files: the image's size is the one decoded again
            wholes = self._generator.wholes
            height, width = (wholes[position] if wholes else images[sample]).shape[:2]
            areas.append(w * h / (width * height))
            aspects.append(w / h)
        self._count(areas, aspects, unknown)

    def _count(self, areas: list[float], aspects: list[float], unknown: int) -> None:
        self.stats.unknown += unknown
        if areas:
            self.stats.windows += len(areas)
            self.stats.area.add(np.asarray(areas))
            self.stats.aspect.add(np.asarray(aspects))


def window_counters(plan: Plan, batch_size: int) -> list[WindowCounter]:
    """A counter for every step of `plan` that draws a crop window DALI lets be known: a
    ``random_bbox_crop`` (its windows are outputs), a ``random_resized_crop`` or
    ``decoders.image_random_crop`` on the CPU with no argument drawn per sample (the generator
    here could not be fed them)."""
    counters = []
    for step in plan.steps:
        source = plan.first_input(step)
        if step.role != "node" or source is None:
            continue
        if step.op == FROM_OUTPUTS or (
            step.op in REDRAWN
            and step.seed is not None
            and not step.arg_inputs
            and step.device == "cpu"
        ):
            counters.append(WindowCounter(step, batch_size, source))
    return counters


def _pair(value: Any, squared: bool = False) -> tuple[float, float] | None:
    """A declared [low, high] range; `squared`: random_bbox_crop's scaling is per side, so
    the area it keeps spans the squares (for a square window)."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    low, high = float(value[0]), float(value[1])
    return (low * low, high * high) if squared else (low, high)


def _range(moments: RunningMoments, declared: tuple[float, float] | None) -> str:
    said = (
        f"{moments.mean[0]:.3g} ± {moments.std[0]:.2g} ({moments.min[0]:.3g}..{moments.max[0]:.3g})"
    )
    if declared is not None:
        said += f", declared {declared[0]:.3g}..{declared[1]:.3g}"
    return said
