"""What a pipeline really does over many draws and many images.

:func:`collect_stats` runs a graph over N batches and counts, in running sums: the values every
random argument drew beside its declared distribution, how often every apply-with-probability ran
(alone and together with the conditional nodes before it) with a binomial interval, each node's
output shapes, dtype, per-channel moments and clipped values, the fill geometric operators
introduced, and the labels read; then words warnings where a figure looks wrong.
:func:`collect_stats_all` counts every image of the source once, alone or over the processes
of a ``torchrun`` job (each its shard, the sums combined by :mod:`augexplorer.stats.reduce`). Plots
(:meth:`Stats.save_plot`, :mod:`augexplorer.stats.plot`) import matplotlib only when drawn.
"""

from .draws import DrawHistogram
from .fill import FillStats
from .findings import StatsWarning
from .labels import LabelCounts
from .moments import RunningMoments
from .over_run import DrawRange, EpochFigures, RunStats, stats_over_run
from .pixels import OutputStats
from .provenance import Provenance
from .rates import Rate, wilson_interval
from .report import Stats
from .runner import collect_stats
from .whole import collect_stats_all

__all__ = [
    "DrawHistogram",
    "DrawRange",
    "EpochFigures",
    "FillStats",
    "LabelCounts",
    "OutputStats",
    "Provenance",
    "Rate",
    "RunStats",
    "RunningMoments",
    "Stats",
    "StatsWarning",
    "collect_stats",
    "collect_stats_all",
    "stats_over_run",
    "wilson_interval",
]
