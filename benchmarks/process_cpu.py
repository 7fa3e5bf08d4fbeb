"""CPU time of every process on the machine, grouped by the part it plays in a browser benchmark
(the kernel, the Jupyter server, each kind of Chromium process, the benchmark's own driver):
where a round trip's CPU goes when the page, the server and the kernel share a few cores.

Reads ``/proc`` (Linux); elsewhere every snapshot is empty and the split says nothing."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# Chromium's child processes name their kind on their command line.
_CHROMIUM_KINDS = ("renderer", "gpu-process", "zygote")


def role(command: str) -> str:
    """The part a process plays, from its command line."""
    if "chromium" in command or "chrome" in command:
        for kind in _CHROMIUM_KINDS:
            if f"--type={kind}" in command:
                return f"chromium {kind}"
        if "--type=utility" in command:
            return "chromium network" if "network" in command else "chromium utility"
        return "chromium browser"
    if "ipykernel" in command:
        return "kernel"
    if "jupyter" in command:
        return "jupyter server"
    if "playwright" in command:
        return "playwright driver"
    return "other"


def snapshot() -> dict[int, tuple[str, float]]:
    """Every process: its role and the CPU seconds it has used (user and system)."""
    found: dict[int, tuple[str, float]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return found
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # ended meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        pid = int(entry.name)
        kind = "benchmark" if pid == os.getpid() else role(command)
        found[pid] = (kind, (int(fields[11]) + int(fields[12])) / _TICKS)
    return found


def used_between(
    before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]
) -> Counter[str]:
    """CPU seconds each role used between two snapshots (processes that ended are left out;
    one that started counts from zero)."""
    used: Counter[str] = Counter()
    for pid, (kind, seconds) in after.items():
        used[kind] += seconds - (before[pid][1] if pid in before else 0.0)
    return used
