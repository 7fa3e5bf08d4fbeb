"""Augmentation that follows the training run: a graph's schedules, read at one epoch.

The graph keeps plain values and, beside them, the schedules that override some of them
(:attr:`~augexplorer.spec.GraphSpec.schedules`). :func:`at_epoch` writes the schedules' values for
one epoch into the graph; everything downstream (checks, lowering, the live engine, the export)
then sees an ordinary graph, with the same seeds at every epoch, so moving the epoch changes
only what the schedules drive.
"""

from .resolve import (
    ScheduledValue,
    as_written,
    at_epoch,
    check_epoch,
    epoch_count,
    rounded_targets,
    scheduled_values,
    values_over_run,
)
from .targets import SetUnderSchedule, held_value, schedulable, set_under_schedule

__all__ = [
    "ScheduledValue",
    "SetUnderSchedule",
    "as_written",
    "at_epoch",
    "check_epoch",
    "epoch_count",
    "held_value",
    "rounded_targets",
    "schedulable",
    "scheduled_values",
    "set_under_schedule",
    "values_over_run",
]
