"""How much of the time this process's threads were ready to run but waited for a core.

Linux keeps, per thread, the time it ran and the time it sat runnable in a run queue
(``/proc/self/task/<tid>/schedstat``). Their ratio over a profile says whether other programs
shared the cores: wall-clock times are then inflated by waiting, and only CPU times (and ratios
of them) say what the operators cost.
"""

from __future__ import annotations

import os
from pathlib import Path

_TASKS = Path("/proc/self/task")


def _thread_times() -> dict[str, tuple[int, int]] | None:
    """(ran, waited) nanoseconds of every thread of this process; None where the system does not
    say (not Linux, or scheduler statistics off)."""
    if not _TASKS.is_dir():
        return None
    times: dict[str, tuple[int, int]] = {}
    for tid in os.listdir(_TASKS):
        try:
            fields = (_TASKS / tid / "schedstat").read_text().split()
        except OSError:  # the thread ended meanwhile, or no schedstat
            continue
        if len(fields) >= 2:
            times[tid] = (int(fields[0]), int(fields[1]))
    return times or None


class CoreWaits:
    """Measures, between :meth:`start` and :meth:`stop`, the share of this process's runnable
    thread time that was spent waiting for a core (0: the cores were ours; 0.75: our threads
    got a quarter of the time they were ready to run)."""

    def __init__(self) -> None:
        self._start: dict[str, tuple[int, int]] | None = None
        self.share: float | None = None

    def start(self) -> None:
        self._start = _thread_times()

    def stop(self) -> float | None:
        end = _thread_times()
        if self._start is None or end is None:
            return None
        ran = waited = 0
        for tid, (run_ns, wait_ns) in end.items():
            run_0, wait_0 = self._start.get(tid, (0, 0))
            ran += run_ns - run_0
            waited += wait_ns - wait_0
        self.share = waited / (ran + waited) if ran + waited > 0 else None
        return self.share


_STAT = Path("/proc/stat")


def _cpu_ticks() -> tuple[int, int] | None:
    """(stolen, total) ticks of all cores since boot; None where the system does not say."""
    try:
        first = _STAT.read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    # cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is
    # already counted in user and nice
    if first[:1] != ["cpu"] or len(first) < 9:
        return None
    ticks = [int(value) for value in first[1:9]]
    return ticks[7], sum(ticks)


class HostSteal:
    """Measures, between :meth:`start` and :meth:`stop`, the share of the cores' time that the
    hypervisor gave to other virtual machines. This process never sees it as waiting: its
    threads look as if they ran, only slower, so wall-clock times are inflated unseen. The share
    is of all cores, idle ones included: on a mostly idle machine with many cores it understates
    what the busy ones lost."""

    def __init__(self) -> None:
        self._start: tuple[int, int] | None = None
        self.share: float | None = None

    def start(self) -> None:
        self._start = _cpu_ticks()

    def stop(self) -> float | None:
        end = _cpu_ticks()
        if self._start is None or end is None:
            return None
        stolen, total = end[0] - self._start[0], end[1] - self._start[1]
        self.share = stolen / total if total > 0 else None
        return self.share
