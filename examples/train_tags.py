"""Train a small multi-label model on a DALI loader exported by augexplorer.

Notebook 04 (notebooks/04_notebook_to_training.py) exports its graph as ``tags_pipeline.py``
and copies this script next to it. Then:

One process:    python train_tags.py --data tags.txt
Several GPUs:   torchrun --nproc_per_node=4 train_tags.py --data tags.txt
"""

import argparse
import os

import tags_pipeline  # the module exported from the explorer
import torch
from torch import nn

TAGS = 7


def small_model():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, TAGS),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=tags_pipeline.DATA)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()

    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if torch.cuda.is_available():
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    if distributed:
        torch.distributed.init_process_group("nccl" if device.type == "cuda" else "gloo")

    # Shard, GPU and device come from torchrun's environment (CPU when there is no GPU).
    loader = tags_pipeline.make_loader(args.data)
    model = small_model().to(device)
    if distributed:
        model = nn.parallel.DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None
        )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()

    for step in range(1, args.steps + 1):
        try:
            batch = next(loader)[0]
        except StopIteration:  # end of an epoch: the loader has reset itself
            batch = next(loader)[0]
        images = batch["images"].to(device)
        rows = batch["labels"].to(device).long()
        targets = torch.zeros(len(rows), TAGS, device=device).scatter_(1, rows, 1.0)
        loss = loss_fn(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0 or step == args.steps:
            print(f"[rank {os.environ.get('RANK', '0')}] step {step}: loss {loss.item():.3f}")

    if distributed:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
