"""What this machine can run: whether DALI sees a GPU."""

from __future__ import annotations

import functools


@functools.cache
def gpu_count() -> int:
    """Number of CUDA devices DALI can use (0 on a machine without a driver or GPU)."""
    try:
        import importlib

        backend = importlib.import_module("nvidia.dali.backend")
        return int(backend.GetCUDADeviceCount())
    except Exception:  # no driver, no device, or a broken CUDA install: all mean "CPU only"
        return 0


def has_gpu() -> bool:
    return gpu_count() > 0


class GpuNodesOnCpu(UserWarning):
    """A graph written for a GPU runs on the CPU on this machine, which has none (said once)."""


def default_device_id() -> int | None:
    """The `device_id` for DALI pipelines: 0 where there is a GPU, else None (CPU only)."""
    return 0 if has_gpu() else None
