"""Augmentation that follows training: a curriculum over epochs and a probability driven by a
metric, with a loader exported by augexplorer.

The graph (made below with augexplorer, or in the explorer's panel) has two kinds of values that
change over the run:

- a schedule: the rotate angle's range grows from +-5 to +-30 degrees over the run's epochs
  (curriculum augmentation: weak early, strong late). The loader draws each epoch's values once
  `loader.set_epoch(epoch)` is called, as a sampler's set_epoch is.
- an adaptive strength: the probability that an image's colours are jittered is set between
  iterations with `loader.set_strength("jitter.apply", p)`, from a signal of overfitting, the
  way StyleGAN2-ADA adapts its augmentation probability: every few batches, if the signal is
  above its target, p goes up by a step, else down, kept within [0, 1].

Run it (CPU is fine; it trains a toy classifier on the bundled samples for a few epochs):

    python examples/adaptive_strength.py [--epochs 8] [--target 0.2]

It writes `adaptive_pipeline.py` (the exported module) in the current folder and imports it;
a training script would import that module alone (DALI and PyTorch only).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import torch
from torch import nn

from augexplorer import Probability, Random, Source
from augexplorer.export import export
from augexplorer.spec import Schedule, chain

MODULE = "adaptive_pipeline"
SIDE = 64
CLASSES = 5
ADJUST_EVERY = 2  # batches between two adjustments of the probability


def graph(epochs: int):
    """Decode, resize, rotate (range on a schedule) and a colour jitter applied with a
    probability that the training loop drives (its schedule is only its starting value)."""
    spec = chain(
        Source("source"),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"size": [float(SIDE), float(SIDE)]}),
        ("rotate", "rotate", {"angle": Random.uniform(-5, 5), "keep_size": True}),
        ("jitter", "color_twist", {"saturation": 1.6, "hue": 25.0}),
        ("normalize", "crop_mirror_normalize", {"dtype": "FLOAT", "output_layout": "CHW"}),
        batch_size=8,
        name="adaptive",
    )
    return (
        spec.set_probability("jitter", Probability(0.0))
        .with_epochs(epochs)
        .with_schedule("rotate.angle.low", Schedule.linear(-5, -30))
        .with_schedule("rotate.angle.high", Schedule.linear(5, 30))
        .with_schedule("jitter.apply", Schedule.constant(0.0))
    )


def overfitting_signal(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """ADA's r_t in miniature: the mean sign of how far the true class's logit stands above the
    others' mean on training batches (1: the model is sure of every training image)."""
    true = logits.gather(1, labels.view(-1, 1)).squeeze(1)
    return torch.sign(true - logits.mean(dim=1)).mean().item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--target", type=float, default=0.2, help="r_t the loop aims for")
    parser.add_argument("--step", type=float, default=0.1, help="p's change per adjustment")
    args = parser.parse_args()

    export(graph(args.epochs), Path(f"{MODULE}.py"), overwrite=True)
    sys.path.insert(0, str(Path.cwd()))
    pipeline = importlib.import_module(MODULE)

    loader = pipeline.make_loader(device="cpu")
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()
    )
    model.append(nn.Linear(8, CLASSES))
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    p, signals = 0.0, []
    for epoch in range(args.epochs):
        loader.set_epoch(epoch)  # the curriculum: this epoch's rotate range
        for index, batch in enumerate(loader):
            images, labels = batch[0]["images"], batch[0]["labels"]
            logits = model(images)
            loss = nn.functional.cross_entropy(logits, labels)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            signals.append(overfitting_signal(logits.detach(), labels))
            if (index + 1) % ADJUST_EVERY == 0:  # ADA: push p toward the target signal
                r_t = sum(signals) / len(signals)
                p = min(1.0, max(0.0, p + (args.step if r_t > args.target else -args.step)))
                loader.set_strength("jitter.apply", p)
                signals.clear()
        high = pipeline.schedule_value("rotate.angle.high", epoch)
        print(
            f"epoch {epoch}: rotate within +-{high:.1f} degrees, jitter p={p:.2f}, loss {loss:.3f}"
        )


if __name__ == "__main__":
    main()
