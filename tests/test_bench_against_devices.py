"""`bench --against` times the port's exported loader as a training script runs it on each
device: with device="cpu" a pipeline on the CPU; with device="gpu" one on GPU 0 whose decoder is
"mixed" and whose operators after it run on the GPU. The GPU test runs where DALI sees a GPU
(and PyTorch is a CUDA build); its CPU twin, and the case of a GPU that PyTorch cannot use,
run everywhere."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from augexplorer.bench.against import PORTED, AgainstResult, bench_against
from augexplorer.devices import gpu_loader_missing, has_gpu
from augexplorer.export.protobuf import read_pipeline

VAL_TRANSFORM = """\
import albumentations as A
from albumentations.pytorch import ToTensorV2

val_transform = A.Compose([A.Resize(96, 96), A.Normalize(), ToTensorV2()])
"""
# 8 images in batches of 4: two batches, the first not timed
SMALL = {"images": 8, "batch_size": 4, "workers": 1, "threads": 1}


@dataclass(frozen=True)
class Built:
    """A pipeline the exported loader built: its GPU and each operator's device, in order."""

    device_id: int | None
    devices: tuple[tuple[str, str], ...]  # (DALI schema, device)

    def device_of(self, schema: str) -> str:
        return next(device for name, device in self.devices if name == schema)


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[Built]:
    """Every pipeline the exported modules' loaders build here, as DALI serializes it."""
    from nvidia.dali.plugin import pytorch

    found: list[Built] = []

    class Recording(pytorch.DALIGenericIterator):  # type: ignore[misc]
        def __init__(self, pipelines, *args, **kwargs):  # type: ignore[no-untyped-def]
            super().__init__(pipelines, *args, **kwargs)
            for pipe in pipelines:
                ops = read_pipeline(pipe.serialize()).ops
                devices = tuple((op.schema, str(op.args["device"].value())) for op in ops)
                found.append(Built(pipe.device_id, devices))

    # the exported module imports the name when the bench loads it, after this
    monkeypatch.setattr(pytorch, "DALIGenericIterator", Recording)
    return found


def timed(tmp_path: Path) -> AgainstResult:
    path = tmp_path / "val.py"
    path.write_text(VAL_TRANSFORM, encoding="utf-8")
    return bench_against(path, pipeline="val_transform", run_file=True, **SMALL)


def row(result: AgainstResult, device: str):  # type: ignore[no-untyped-def]
    return next(r for r in result.rows if r.name == PORTED and r.device == device)


def test_the_port_on_the_cpu_builds_a_cpu_pipeline(tmp_path: Path, built: list[Built]) -> None:
    result = timed(tmp_path)
    cpu = row(result, "cpu")
    assert cpu.images == 8 and cpu.timed_images == 4 and cpu.images_per_s
    on_cpu = [pipe for pipe in built if pipe.device_id is None]
    assert on_cpu, built
    for pipe in on_cpu:
        assert {device for _schema, device in pipe.devices} == {"cpu"}, pipe
        assert pipe.device_of("decoders__Image") == "cpu"
    if gpu_loader_missing() is not None:  # no GPU pipeline was built, and the row says why
        assert len(on_cpu) == len(built)
        gpu = row(result, "gpu")
        assert gpu.images_per_s is None and gpu_loader_missing() in gpu.note


def test_a_gpu_pytorch_cannot_use_is_named_not_crashed_on(
    tmp_path: Path, built: list[Built], monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    import augexplorer.devices

    # DALI sees a GPU here, PyTorch does not (a CPU build, as augexplorer's own environment)
    monkeypatch.setattr(augexplorer.devices, "has_gpu", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    result = timed(tmp_path)
    gpu = row(result, "gpu")
    assert gpu.images_per_s is None and "has no CUDA" in gpu.note and "fix:" in gpu.note
    assert all(pipe.device_id is None for pipe in built)  # no GPU pipeline was tried
    assert row(result, "cpu").images == 8


@pytest.mark.gpu
def test_the_port_on_the_gpu_decodes_mixed_and_runs_on_gpu_0(
    tmp_path: Path, built: list[Built]
) -> None:
    if not has_gpu():
        pytest.skip("DALI sees no GPU here")
    if gpu_loader_missing() is not None:
        pytest.skip(str(gpu_loader_missing()))
    result = timed(tmp_path)
    gpu = row(result, "gpu")
    assert gpu.images == 8 and gpu.timed_images == 4 and gpu.images_per_s
    assert result.ratio(gpu) == pytest.approx(gpu.images_per_s / result.original.images_per_s)
    on_gpu = [pipe for pipe in built if pipe.device_id is not None]
    assert on_gpu, built
    for pipe in on_gpu:
        assert pipe.device_id == 0  # LOCAL_RANK unset: the first GPU
        assert pipe.device_of("readers__File") == "cpu"
        assert pipe.device_of("decoders__Image") == "mixed"
        assert pipe.device_of("Resize") == pipe.device_of("CropMirrorNormalize") == "gpu"
