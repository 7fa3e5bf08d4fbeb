"""What a Compose given ``seed=`` draws in albumentations 2.x, and the port's draws beside it."""

from __future__ import annotations

from ..model import TransformCall, written


def seeded_notes(compose: TransformCall) -> tuple[str, ...]:
    """The note of a Compose given a seed: albumentations 2.0.8 starts every transform's
    generator from that one seed, so transforms of one p apply together (measured against
    2.0.8: HorizontalFlip(p=0.5) and VerticalFlip(p=0.5) under Compose(seed=42) flipped both
    ways or neither on 1,000 of 1,000 images); the port's coins are drawn apart."""
    seed = compose.kwargs.get("seed")
    if seed is None:
        return ()
    return (
        f"{compose.name}(seed={written(seed)}): albumentations 2.0.8 starts every transform's "
        "random generator from that one seed, so its transforms draw alike (HorizontalFlip(p=0.5)"
        " and VerticalFlip(p=0.5) flip both ways or neither, on 1,000 of 1,000 images); the "
        "port draws each transform's coins and values apart, as albumentations draws them with "
        "no seed, from the graph's seeds (the same draws every run)",
    )
