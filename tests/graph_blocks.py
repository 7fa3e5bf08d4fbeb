"""A graph with every shape of conditional block the graph view draws: ``if``/``elif``/``else``
on one predicate and another, an ``if`` nested in a branch, a node after the merge, and a node
applied with a probability (no block)."""

from __future__ import annotations

from augexplorer.expressions.nodes import expression
from augexplorer.spec import Clause, GraphSpec, Node, Probability, Ref, Source


def blocks_graph(batch_size: int = 4) -> GraphSpec:
    """``if coin: flip / elif negative: rotate, brighten / else: vertical flip``, then the
    crop after the merge, then ``if tilt: if coin: hsv``, then a blur applied with p = 0.5."""
    coin, negative, tilt = Ref("coin"), Ref("negative"), Ref("tilt")
    return GraphSpec(
        nodes=(
            Source("source", "samples", shuffle=True, seed=1),
            Node("decode", "decoders.image", inputs=(Ref("source"),), device="cpu"),
            Node(
                "small",
                "resize",
                inputs=(Ref("decode"),),
                args={"resize_x": 64.0, "resize_y": 48.0},
            ),
            Node("coin", "random.coin_flip", args={"dtype": "BOOL"}, seed=3),
            Node("flip", "flip", inputs=(Ref("small"),), when=(Clause(coin),)),
            # computed between the branches, as DALI code computes an elif's predicate
            Node("angle", "random.uniform", args={"range": [-10.0, 10.0]}, seed=4),
            expression("negative", "angle < 0"),
            Node(
                "rotate",
                "rotate",
                inputs=(Ref("flip"),),
                args={"angle": Ref("angle")},
                when=(Clause(coin, False), Clause(negative)),
            ),
            Node(
                "brighten",
                "brightness",
                inputs=(Ref("rotate"),),
                args={"brightness": 1.4},
                when=(Clause(coin, False), Clause(negative)),
            ),
            Node(
                "vflip",
                "flip",
                inputs=(Ref("brighten"),),
                args={"vertical": 1, "horizontal": 0},
                when=(Clause(coin, False), Clause(negative, False)),
            ),
            Node("crop", "crop", inputs=(Ref("vflip"),), args={"crop": [40.0, 40.0]}),
            Node("tilt", "random.coin_flip", args={"dtype": "BOOL"}, seed=5),
            Node(
                "hsv",
                "hsv",
                inputs=(Ref("crop"),),
                args={"saturation": 0.5},
                when=(Clause(tilt), Clause(coin)),
            ),
            Node(
                "blur",
                "gaussian_blur",
                inputs=(Ref("hsv"),),
                args={"window_size": 3},
                probability=Probability(0.5, seed=6),
            ),
        ),
        outputs={"images": Ref("blur"), "labels": Ref("source", 1)},
        batch_size=batch_size,
    )
