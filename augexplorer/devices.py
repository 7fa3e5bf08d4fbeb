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


def gpu_loader_missing() -> str | None:
    """Why a DALI loader cannot hand GPU batches to PyTorch in this Python (None where it can):
    DALI must see a GPU, and PyTorch must be a CUDA build, as DALI's iterator puts each batch
    into CUDA tensors."""
    if not has_gpu():
        return "no GPU here"
    try:
        import torch
    except ImportError:
        return "PyTorch is not installed in this Python"
    if not torch.cuda.is_available():
        return (
            f"PyTorch {torch.__version__} here has no CUDA (fix: install a CUDA build of "
            "PyTorch to time the GPU loader)"
        )
    return None
