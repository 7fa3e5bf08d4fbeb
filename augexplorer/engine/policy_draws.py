"""What a policy of DALI's ``auto_aug`` chose for each sample: its operations and magnitudes.

DALI returns only the augmented images. Its policies draw their choices with plain
``fn.random.uniform`` calls seeded with the policy's seed (read in DALI 2.4's
``nvidia/dali/auto_aug``): RandAugment draws the operation of each of its `n` levels and, where
an operation may be negated, a sign per level; TrivialAugment a magnitude bin, a sign and an
operation; AutoAugment a sub-policy and, per stage, a number that decides whether the stage runs
(below its probability), and signs. So the choices are known by running DALI's own policy
again, with the node's seed and batch size on the images the node ran on, while those calls are
recorded (the calls themselves are DALI's, only observed), and claimed per sample only where
that run gives the node's very pixels.

Magnitudes are the policy's: ``linspace(low, high, bins)[bin]`` of the operation's range (or
its own list of magnitudes), negated where the drawn sign says so.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..catalog.auto_aug import POLICIES
from ..spec import Ref
from .dali_builds import engine_build

if TYPE_CHECKING:
    from ..plan import Step
    from .result import RunResult

POLICY_OPS = frozenset(POLICIES)
_KEPT = 8
_recording = threading.local()  # the calls of the probe being defined on this thread


@dataclass(frozen=True)
class PolicyDraws:
    """The choices of one policy node, per sample of the batch (None: not known)."""

    node: str
    choices: tuple[str | None, ...]

    @property
    def known(self) -> int:
        return sum(c is not None for c in self.choices)


_known: OrderedDict[int, tuple[Any, PolicyDraws | None]] = OrderedDict()
# a policy's probe pipeline as built, with what its recorded calls were, by step and batch size
_built: OrderedDict[tuple[str, int], tuple[bytes, list[dict[str, Any]], dict[str, Any]]] = (
    OrderedDict()
)


def policy_draws(result: RunResult, step: Step) -> PolicyDraws | None:
    """What `step` (an ``auto_aug`` policy) chose per sample in `result`, where it can be known:
    the first batch (a later one replays the training pipeline, whose generators moved on),
    no argument fed per sample, a CPU node."""
    if step.op not in POLICY_OPS or result.batch_index != 0 or step.seed is None:
        return None
    if step.arg_inputs or step.device != "cpu" or not step.inputs:
        return None
    output = result.steps[step.id].outputs[0]
    kept = _known.get(id(output))
    if kept is not None and kept[0] is output:
        return kept[1]
    draws = _recover(result, step, output)
    _known[id(output)] = (output, draws)  # holding the output keeps its id its own
    while len(_known) > _KEPT:
        _known.popitem(last=False)
    return draws


def _recover(result: RunResult, step: Step, output: Any) -> PolicyDraws | None:
    from .internal_draws import _host, _samples_run

    ran = _samples_run(result, step)
    at_input = [result.position_of(step.inputs[0], s) for s in ran]
    at_output = [result.position_of(Ref(step.id), s) for s in ran]
    if None in at_input or None in at_output or not ran:
        return None
    inputs, outputs = _host(result.output(step.inputs[0])), _host(output)
    images = [np.ascontiguousarray(inputs[p]) for p in at_input if p is not None]
    made = [outputs[p] for p in at_output if p is not None]
    try:
        pixels, calls, applied = _run_policy(step, images, result.plan.spec.batch_size)
        said = _describe(step.op, calls, applied, len(images))
    except Exception:  # choices we cannot recover are choices we do not show
        return None
    choices: list[str | None] = [None] * result.plan.spec.batch_size
    for position, sample in enumerate(ran):
        same = pixels[position].shape == made[position].shape and np.array_equal(
            pixels[position], made[position]
        )
        if same:  # only where DALI's policy, run again, made the node's very pixels
            choices[sample] = said[position]
    draws = PolicyDraws(step.origin, tuple(choices))
    return draws if draws.known else None


def _run_policy(
    step: Step, images: Sequence[np.ndarray], batch_size: int
) -> tuple[list[np.ndarray], list[tuple[dict[str, Any], list[np.ndarray]]], dict[str, Any]]:
    """Run `step`'s policy on `images` as the node runs it, from its first draws; (its pixels,
    the recorded ``fn.random.uniform`` calls in order with what each drew, what the policy was
    applied with: its augmentations or policy, bins, n and m)."""
    probe = PolicyProbe(step, batch_size)
    pixels, calls = probe.run(images)
    return pixels, calls, probe.applied


class PolicyProbe:
    """`step`'s policy set up as the node runs it, with its draws recorded: each :meth:`run` is
    the node's next batch, as long as it is fed the images the node ran on, in the same order
    (statistics keep one for a whole run). A new probe starts from the first draws."""

    def __init__(self, step: Step, batch_size: int) -> None:
        from nvidia.dali import Pipeline, fn, pipeline_def

        from ..auto_aug_calls import call_policy
        from .runners import SYNC_PIPELINE

        options = {
            "batch_size": batch_size,
            "num_threads": 1,
            "device_id": None,
            **SYNC_PIPELINE,
        }
        key = (step.digest, batch_size)
        built = _built.get(key)
        if built is None:

            @pipeline_def(enable_conditionals=True, **options)
            def probe() -> tuple[Any, ...]:
                fed = fn.external_source(name="images", layout="HWC")
                (made,) = call_policy(step, [fed], {})
                return (made, *(node for _, node in record.calls))

            with _recorded() as record, engine_build():
                pipeline = probe()
                pipeline.build()
            # kept as built: a policy takes 0.2-0.3 s to build and a fraction of that to load,
            # and a loaded copy starts from the first draws again, as the node's own run does
            built = (pipeline.serialize(), [kwargs for kwargs, _ in record.calls], record.applied)
            _built[key] = built
            while len(_built) > _KEPT:
                _built.popitem(last=False)
        else:
            _built.move_to_end(key)
            pipeline = Pipeline.deserialize(serialized_pipeline=built[0], **options)
            pipeline.build()
        self.op = step.op
        self._pipeline = pipeline
        self._calls = built[1]
        self.applied = built[2]

    def run(
        self, images: Sequence[np.ndarray]
    ) -> tuple[list[np.ndarray], list[tuple[dict[str, Any], list[np.ndarray]]]]:
        from .internal_draws import _host

        self._pipeline.feed_input("images", [np.ascontiguousarray(i) for i in images])
        pixels, *drawn = self._pipeline.run()
        calls = [(kwargs, _host(out)) for kwargs, out in zip(self._calls, drawn, strict=True)]
        return _host(pixels), calls

    def describe(self, calls: list[tuple[dict[str, Any], list[np.ndarray]]]) -> list[str]:
        """What the policy chose for each sample of a :meth:`run`, in words."""
        count = len(calls[0][1]) if calls else 0
        return _describe(self.op, calls, self.applied, count)


def operations_in(choice: str) -> list[str]:
    """The operations a worded choice applied (``rotate -27, shear_x 9`` -> rotate, shear_x;
    an AutoAugment stage that did not run, ``not rotate``, is left out)."""
    stages = choice.split(": ", 1)[1] if choice.startswith("sub-policy ") else choice
    return [s.split(" ")[0] for s in stages.split(", ") if s and not s.startswith("not ")]


class _Record:
    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], Any]] = []
        self.applied: dict[str, Any] = {}


@contextlib.contextmanager
def _recorded() -> Iterator[_Record]:
    """Observe the ``fn.random.uniform`` calls and the ``apply_*`` call of a policy defined on
    this thread (other threads' pipelines pass through untouched)."""
    import nvidia.dali.fn.random as dali_random
    from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment

    from ..policy_seeds import POLICY_DEFINITION

    record = _Record()
    appliers = [
        (rand_augment, "apply_rand_augment"),
        (trivial_augment, "apply_trivial_augment"),
        (auto_augment, "apply_auto_augment"),
    ]
    # the draw operator is swapped by one thread at a time: what is there is read under the lock
    with POLICY_DEFINITION:
        uniform = dali_random.uniform
        originals = [getattr(module, name) for module, name in appliers]

        def observed_uniform(*args: Any, **kwargs: Any) -> Any:
            node = uniform(*args, **kwargs)
            if getattr(_recording, "record", None) is record:
                record.calls.append((dict(kwargs), node))
            return node

        def observed(name: str, original: Any) -> Any:
            def apply(*args: Any, **kwargs: Any) -> Any:
                if getattr(_recording, "record", None) is record:
                    record.applied = {"function": name, "args": args, "kwargs": kwargs}
                return original(*args, **kwargs)

            return apply

        _recording.record = record
        dali_random.uniform = observed_uniform
        for (module, name), original in zip(appliers, originals, strict=True):
            setattr(module, name, observed(name, original))
        try:
            yield record
        finally:
            dali_random.uniform = uniform
            for (module, name), original in zip(appliers, originals, strict=True):
                setattr(module, name, original)
            _recording.record = None


# ---- the choices in words -------------------------------------------------------------------
def _describe(
    op: str,
    calls: list[tuple[dict[str, Any], list[np.ndarray]]],
    applied: dict[str, Any],
    count: int,
) -> list[str]:
    function = applied.get("function")
    args, kwargs = applied.get("args", ()), applied.get("kwargs", {})
    drawn = [values for _, values in calls]
    if function == "apply_rand_augment":
        augs = list(args[0])
        n, m = _arg(args, kwargs, 2, "n"), _arg(args, kwargs, 3, "m")
        bins = int(kwargs.get("num_magnitude_bins", 31))
        signed = any(a.randomly_negate for a in augs)
        ops, signs = drawn[0], drawn[1] if signed else None
        return [
            ", ".join(
                _applied(augs[int(_at(ops[i], level))], int(m), bins, _sign(signs, i, level))
                for level in range(int(n))
            )
            for i in range(count)
        ]
    if function == "apply_trivial_augment":
        augs = list(args[0])
        bins = int(kwargs.get("num_magnitude_bins", 31))
        signed = any(a.randomly_negate for a in augs)
        magnitude_bins, ops = drawn[0], drawn[2] if signed else drawn[1]
        signs = drawn[1] if signed else None
        return [
            _applied(
                augs[int(_at(ops[i], 0))], int(_at(magnitude_bins[i], 0)), bins, _sign(signs, i, 0)
            )
            for i in range(count)
        ]
    if function == "apply_auto_augment":
        policy = args[0]
        should_run, sub_ids = drawn[0], drawn[1]
        signed = any(a.randomly_negate for a in policy.augmentations.values())
        signs = drawn[2] if signed else None
        said = []
        for i in range(count):
            sub = int(_at(sub_ids[i], 0))
            stages = []
            for stage, (aug, probability, magnitude_bin) in enumerate(policy.sub_policies[sub]):
                ran = float(_at(should_run[i], stage)) < probability
                what = _applied(
                    aug,
                    None if magnitude_bin is None else int(magnitude_bin),
                    policy.num_magnitude_bins,
                    _sign(signs, i, stage),
                )
                stages.append(what if ran else f"not {aug.name}")
            said.append(f"sub-policy {sub}: {', '.join(stages)}")
        return said
    raise ValueError(f"{op}: no recorded policy call")


def _applied(aug: Any, magnitude_bin: int | None, bins: int, negated: bool) -> str:
    """An operation and its magnitude, e.g. ``rotate -27`` (no magnitude where it takes none)."""
    mag_range = aug.mag_range
    if mag_range is None or magnitude_bin is None:
        return str(aug.name)
    if isinstance(mag_range, np.ndarray):
        magnitude = float(mag_range[magnitude_bin])
    else:
        low, high = mag_range
        magnitude = float(np.linspace(low, high, bins, dtype=np.float32)[magnitude_bin])
    if negated and aug.randomly_negate:
        magnitude = -magnitude
    return f"{aug.name} {magnitude:.3g}"


def _arg(args: Sequence[Any], kwargs: dict[str, Any], index: int, name: str) -> Any:
    return kwargs[name] if name in kwargs else args[index]


def _at(values: np.ndarray, index: int) -> Any:
    flat = np.asarray(values).reshape(-1)
    return flat[index] if flat.size > 1 else flat[0]


def _sign(signs: list[np.ndarray] | None, sample: int, level: int) -> bool:
    return signs is not None and bool(_at(signs[sample], level))
