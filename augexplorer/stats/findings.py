"""Plain-language warnings where a figure says something is probably wrong, each naming the node
and the argument to change."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .fill import FIX as FILL_FIX

if TYPE_CHECKING:
    from ..plan import Plan
    from .pixels import OutputStats
    from .report import Stats

RARE = 0.01  # a branch that runs on fewer samples than this is called out
FILL_MEAN = 0.35  # mean share of fill a geometric node may introduce before a warning
MOSTLY_FILL = 0.10  # share of samples more than half fill before a warning
CLIPPED_MORE = 0.10  # extra share of values clipped by a node before a warning
STARVED = 0.2  # a class read less than this fraction of the largest class's count
MIN_SAMPLES_FOR_BALANCE = 50
NORMALIZERS = {"normalize": ("mean", "stddev"), "crop_mirror_normalize": ("mean", "std")}
FAR_FROM_UNIT = 10.0  # |mean| or std of a normalized output beyond this is on the wrong scale
COLOUR_ARGS = {
    "brightness_contrast": "`brightness`/`contrast`",
    "brightness": "`brightness`",
    "contrast": "`contrast`",
    "hsv": "`value`/`saturation`",
    "saturation": "`saturation`",
    "color_twist": "`brightness`/`contrast`/`saturation`",
}


@dataclass(frozen=True)
class StatsWarning:
    node: str
    argument: str | None
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.message} (fix: {self.fix})"

    def to_json(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "argument": self.argument,
            "message": self.message,
            "fix": self.fix,
        }


def find_warnings(stats: Stats, plan: Plan) -> list[StatsWarning]:
    found: list[StatsWarning] = []
    found += _rate_warnings(stats)
    found += _fill_warnings(stats)
    found += _clipping_warnings(stats, plan)
    found += _normalization_warnings(stats, plan)
    found += _label_warnings(stats)
    return found


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%" if share >= 0.01 or share == 0 else f"{share * 100:.2g}%"


def _rate_warnings(stats: Stats) -> list[StatsWarning]:
    found = []
    for rate in stats.rates:
        if not rate.trials or rate.argument not in ("probability", "when"):
            continue
        subject = f"`{rate.node}`"
        if rate.together_with:
            subject += " together with " + " and ".join(f"`{n}`" for n in rate.together_with)
        ran = f"ran on {rate.successes:,} of {rate.trials:,} samples"
        if rate.together_with and (rate.argument == "when" or rate.agrees()):
            # Nodes running together rarely is no finding of its own (the branches of a OneOf
            # never do): only coins that disagree with the product of their probabilities are.
            continue
        if rate.argument == "when":
            if rate.successes < RARE * rate.trials:
                found.append(
                    StatsWarning(
                        rate.node,
                        "when",
                        f"{subject} {ran}",
                        f"its condition almost never holds: check the predicates of `{rate.node}`",
                    )
                )
            continue
        if rate.successes < RARE * rate.trials:
            found.append(
                StatsWarning(
                    rate.node,
                    "probability",
                    f"{subject} {ran}",
                    f"raise `probability` of `{rate.node}` (declared {rate.expected:g}) if it "
                    "should matter in training, or remove the node",
                )
            )
        elif not rate.agrees():
            found.append(
                StatsWarning(
                    rate.node,
                    "probability",
                    f"{subject} {ran} ({_percent(rate.rate)}), but its probability is "
                    f"{rate.expected:g}",
                    "re-run with more batches; if it persists, the draws are not what the graph "
                    "declares: report it with the spec",
                )
            )
    return found


def _fill_warnings(stats: Stats) -> list[StatsWarning]:
    """Too much fill where the graph passes it on: at the end of the pixel-moving chain after
    the filling node where there is one (a crop after a rotation may cut its corners away),
    else where it is made."""
    found = []
    for fill in stats.fills:
        fix = FILL_FIX.get(fill.op, "make the operator's arguments milder")
        passed_on = fill.passed_on()
        if passed_on is None:
            where, mean, mostly = f"after `{fill.node}`", fill.mean_share, fill.mostly_fill_share
            counted = fill.samples
        else:
            node, mean, mostly = passed_on
            where, counted = f"at `{node}` (the fill of `{fill.node}`)", fill.reached_samples
        if counted and mostly >= MOSTLY_FILL:
            message = f"{_percent(mostly)} of samples {where} are more than half fill"
        elif counted and mean >= FILL_MEAN:
            message = f"on average {_percent(mean)} of each sample {where} is fill"
        else:
            continue
        found.append(StatsWarning(fill.node, _first_argument(fix), message, fix))
    return found


def _first_argument(fix: str) -> str | None:
    start = fix.find("`")
    end = fix.find("`", start + 1)
    return fix[start + 1 : end] if start >= 0 and end > start else None


def _clipping_warnings(stats: Stats, plan: Plan) -> list[StatsWarning]:
    found = []
    filling = {fill.node for fill in stats.fills}  # their zeros are fill, counted on their own
    for output in stats.outputs:
        if output.histograms is None or output.op.startswith(("decoders.", "source")):
            continue
        if output.node in filling:
            continue
        before = _input_of(stats, plan, output)
        if before is None or before.histograms is None:
            continue
        for end, now, was in (
            (255, output.high_share, before.high_share),
            (0, output.low_share, before.low_share),
        ):
            if now is None or was is None or now - was < CLIPPED_MORE:
                continue
            arguments = COLOUR_ARGS.get(output.op, "its arguments")
            found.append(
                StatsWarning(
                    output.node,
                    _first_argument(arguments),
                    f"`{output.node}` clips {_percent(now)} of values at {end} "
                    f"(its input: {_percent(was)})",
                    f"make {arguments} of `{output.node}` milder",
                )
            )
    return found


def _input_of(stats: Stats, plan: Plan, output: OutputStats) -> OutputStats | None:
    try:
        step = plan.step(output.node)
    except KeyError:
        return None
    return stats.output(str(step.inputs[0])) if step.inputs else None


def _normalization_warnings(stats: Stats, plan: Plan) -> list[StatsWarning]:
    found = []
    for output in stats.outputs:
        if output.op not in NORMALIZERS or output.histograms is not None:
            continue
        moments = output.moments
        if not moments.channels:
            continue
        before = _input_of(stats, plan, output)
        problem = scale_problem(
            output.node,
            output.op,
            float(sum(moments.mean) / moments.channels),
            float(sum(moments.std) / moments.channels),
            plan.step(output.node).args,
            float(max(before.moments.max)) if before and before.moments.channels else None,
        )
        if problem is not None:
            found.append(problem)
    return found


def scale_problem(
    node: str,
    op: str,
    mean: float,
    std: float,
    args: Mapping[str, Any],
    input_max: float | None,
) -> StatsWarning | None:
    """Whether normalizing node `node` (operator `op`, arguments `args`) put its output on the
    wrong scale, from the output's `mean` and `std` and its input's largest value: mean and std
    meant for 0-1 values applied to 0-255 pixels (or the reverse). The statistics report says it
    over many batches; the grid of one batch says it too (:mod:`augexplorer.render.value_scale`),
    as its pictures undo the normalization and look right whatever the scale."""
    mean_arg, std_arg = NORMALIZERS[op]
    given = [abs(v) for name in (mean_arg, std_arg) for v in _numbers(args.get(name))]
    pixels_255 = input_max is not None and input_max > 1.5
    if abs(mean) > FAR_FROM_UNIT or std > FAR_FROM_UNIT:
        if pixels_255 and given and max(given) <= 1.0:
            message = (
                f"`{node}` output mean is {mean:.3g}: `{mean_arg}`/`{std_arg}` look like "
                "0-1 values applied to 0-255 pixels"
            )
            fix = (
                f"multiply `{mean_arg}` and `{std_arg}` by 255 (ImageNet: {mean_arg} "
                "[123.7, 116.3, 103.5], std [58.4, 57.1, 57.4])"
            )
        else:
            message = f"`{node}` output mean is {mean:.3g} and std {std:.3g}, far from 0 and 1"
            fix = f"check `{mean_arg}` and `{std_arg}` against the input's value range"
        return StatsWarning(node, mean_arg, message, fix)
    if std < 1.0 / FAR_FROM_UNIT**2 and not pixels_255 and given and max(given) > 1.5:
        return StatsWarning(
            node,
            mean_arg,
            f"`{node}` output std is {std:.3g}: `{mean_arg}`/`{std_arg}` look like "
            "0-255 values applied to 0-1 pixels",
            f"divide `{mean_arg}` and `{std_arg}` by 255",
        )
    return None


def _numbers(value: Any) -> list[float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value if isinstance(v, (int, float))]
    return []


def _label_warnings(stats: Stats) -> list[StatsWarning]:
    found = []
    for counts in stats.labels:
        missing = counts.never_read()
        if missing and counts.samples:
            shown = ", ".join(f"`{name}`" for name in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            found.append(
                StatsWarning(
                    counts.source,
                    None,
                    f"classes {shown}{more} never appeared in the {counts.samples:,} samples read",
                    "read more batches (--batches), or check the source's shuffle and data",
                )
            )
        if counts.samples < MIN_SAMPLES_FOR_BALANCE or len(counts.columns) != 1:
            continue
        column = counts.columns[0]
        if len(column) < 2:
            continue
        (rare, fewest), (common, most) = (
            min(column.items(), key=lambda kv: kv[1]),
            max(column.items(), key=lambda kv: kv[1]),
        )
        if fewest < STARVED * most:
            found.append(
                StatsWarning(
                    counts.source,
                    None,
                    f"class `{counts.name(rare)}` is {_percent(fewest / counts.samples)} of the "
                    f"{counts.samples:,} samples read (`{counts.name(common)}`: "
                    f"{_percent(most / counts.samples)})",
                    "rebalance the data or sample it with weights, if the class matters",
                )
            )
    return found


def is_near_unit(output: OutputStats) -> bool | None:
    """For a normalizing node: whether its output's mean is near 0 and its std near 1."""
    if output.op not in NORMALIZERS or output.histograms is not None:
        return None
    moments = output.moments
    if not moments.channels:
        return None
    means, stds = moments.mean, moments.std
    return bool(
        all(abs(m) <= 1.0 for m in means) and all(0.5 <= s <= 2.0 for s in stds)
    ) and not any(math.isnan(s) for s in stds)
