"""Train a small multi-label model on a DALI loader exported by augexplorer.

Notebook 04 (notebooks/04_notebook_to_training.py) exports its graph as ``tags_pipeline.py``
and copies this script next to it. Then:

One process:    python train_tags.py --data tags.txt
Several GPUs:   torchrun --nproc_per_node=4 train_tags.py --data tags.txt
Resumable:      python train_tags.py --data tags.txt --steps 50 --checkpoint run
                python train_tags.py --data tags.txt --steps 100 --checkpoint run
                (the second run goes on from step 51 with the batches and draws an
                uninterrupted run would have had: run.rank0.pt, saved every --save-every steps
                and at the end, holds the model, the optimizer, the step and the loader's
                checkpoint)
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
    parser.add_argument("--checkpoint", help="resume from PREFIX.rankN.pt if there; save it")
    parser.add_argument("--save-every", type=int, default=50, help="steps between saves")
    args = parser.parse_args()
    rank = os.environ.get("RANK", "0")
    path = f"{args.checkpoint}.rank{rank}.pt" if args.checkpoint else None
    saved = torch.load(path) if path and os.path.exists(path) else None

    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if torch.cuda.is_available():
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    if distributed:
        torch.distributed.init_process_group("nccl" if device.type == "cuda" else "gloo")

    # Shard, GPU and device come from torchrun's environment (CPU when there is no GPU).
    # A saved loader goes on where it stood: the same files and draws as without the stop.
    loader = tags_pipeline.make_loader(args.data, checkpoint=saved and saved["loader"])
    torch.manual_seed(0)  # the same starting weights on every rank and every run
    model = small_model().to(device)
    if saved:
        model.load_state_dict(saved["model"])
    if distributed:
        model = nn.parallel.DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None
        )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.BCEWithLogitsLoss()
    if saved:
        optimizer.load_state_dict(saved["optimizer"])
    first = saved["step"] + 1 if saved else 1

    for step in range(first, args.steps + 1):
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
            print(f"[rank {rank}] step {step}: loss {loss.item():.3f}")
        if path and (step % args.save_every == 0 or step == args.steps):
            # a job stopped between saves goes on from the last one
            weights = (model.module if distributed else model).state_dict()
            state = {"model": weights, "optimizer": optimizer.state_dict(), "step": step}
            torch.save({**state, "loader": loader.checkpoint()}, path)

    if distributed:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
