"""Is the model starved: a loader's rate against a training step's, alone and together, with
real DALI on the CPU (notebook 05, section 5)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

from augexplorer import preset
from augexplorer.bench.starvation import Rate, Starvation, fused_cpu_batches, measure_starvation


def rate(images_per_s: float, batch_size: int = 8) -> Rate:
    return Rate(batch_size, (1000.0 * batch_size / images_per_s,))


def test_the_bounds_and_the_verdict_follow_from_the_two_rates() -> None:
    slow_loader = Starvation(rate(100.0), rate(400.0), rate(90.0), device="cpu")
    assert slow_loader.waiting_share == pytest.approx(0.75)
    assert slow_loader.overlapped_images_per_s == pytest.approx(100.0)
    assert slow_loader.serial_images_per_s == pytest.approx(80.0)
    summary = slow_loader.summary()
    assert "measured on the CPU" in summary
    assert "waits for data 75% of the time: the loader limits" in summary

    slow_step = Starvation(rate(400.0), rate(100.0), rate(90.0), device="cpu")
    assert slow_step.waiting_share == 0.0
    assert "the loader keeps up: the step limits" in slow_step.summary()

    # batches whose ranges overlap give no verdict (one flipped from run to run)
    loader = Rate(8, (1000 * 8 / 500.0, 1000 * 8 / 1100.0))
    step = Rate(8, (1000 * 8 / 200.0, 1000 * 8 / 900.0))
    close = Starvation(loader, step, rate(300.0), device="cpu").summary()
    assert "too close to call" in close and "limits" not in close


def test_a_rate_is_the_median_batch() -> None:
    measured = Rate(8, (10.0, 40.0, 20.0))
    assert measured.median_ms == 20.0
    assert measured.images_per_s == pytest.approx(400.0)


def test_the_loader_yields_the_graphs_batches_as_arrays() -> None:
    batches = fused_cpu_batches(preset("imagenet_val"), images=8, batch_size=4)
    for _ in range(3):  # more batches than the files hold: the files are looped over
        images, labels = next(batches)
        assert images.shape == (4, 3, 224, 224) and images.dtype == np.float32
        assert labels.shape == (4,)


def test_a_step_slower_than_the_loader_is_found_to_limit() -> None:
    stepped: list[int] = []

    def sleepy_step(images: Any, labels: Any) -> None:
        time.sleep(0.05)  # 8 images in 50 ms: 160 images/s at most
        stepped.append(len(images))

    measured = measure_starvation(
        preset("imagenet_val"), sleepy_step, lambda batch: batch, batch_size=8, batches=3, warmup=1
    )
    assert measured.device == "cpu"
    assert len(measured.loader.batch_ms) == len(measured.step.batch_ms) == 3
    assert 50.0 < measured.step.images_per_s <= 160.0  # a busy machine oversleeps
    # the loop pays for the step at least, and can never beat the step alone by much
    assert measured.together.images_per_s <= 1.1 * measured.step.images_per_s
    assert stepped == [8] * len(stepped) and len(stepped) == 1 + 3 + 1 + 3


def test_the_loop_is_placed_between_its_bounds_or_found_outside_them() -> None:
    loader, step = rate(100.0), rate(400.0)  # bounds: 80 (one after the other) to 100
    assert (
        "nearer to the 'overlapped' bound" in Starvation(loader, step, rate(97.0), "cpu").overlap()
    )
    near_serial = Starvation(loader, step, rate(82.0), "cpu").overlap()
    assert "nearer to the 'one after the other' bound" in near_serial
    outside = Starvation(loader, step, rate(150.0), "cpu").overlap()
    assert "outside both bounds" in outside and "run it again" in outside
    assert Rate(8, (10.0, 40.0, 20.0)).describe() == "   400.0 images/s (batches 200.0 to 800.0)"
