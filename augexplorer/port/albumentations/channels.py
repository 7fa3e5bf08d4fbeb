"""albumentations' transforms across channels and value types: ToSepia (a fixed colour matrix),
ChannelShuffle (a drawn permutation), ToFloat and FromFloat; and NoOp, which changes nothing. DALI has no colour-matrix or
channel-permutation operator: both are built from channel slices (expressions) put back
together (``cat``, ``stack``). Grades measured by ``tests/test_port_albumentations_parity.py``
and ``tests/test_port_albumentations_draws.py`` against albumentations 2.0.8."""

from __future__ import annotations

from ...spec import Node, Ref
from .arguments import Args, NotPorted
from .nodes import expr, to_uint8, values_node
from .registry import IMAGE, Mapped, mapping

SEPIA = ((0.393, 0.769, 0.189), (0.349, 0.686, 0.168), (0.272, 0.534, 0.131))


@mapping("ToSepia")
def to_sepia(args: Args) -> Mapped:
    rows = []
    for index, weights in enumerate(SEPIA):
        terms = " + ".join(f"image[:, :, {c}:{c + 1}] * {w!r}" for c, w in enumerate(weights))
        rows.append(expr(f"sepia_{'rgb'[index]}", terms, [IMAGE]))
    nodes = (
        *rows,
        Node(
            "sepia_rgb",
            "cat",
            inputs=tuple(Ref(row.id) for row in rows),
            args={"axis": 2},
        ),
        to_uint8("sepia", "sepia_rgb"),
    )
    return Mapped(
        nodes,
        "exact",
        ("albumentations' sepia matrix, rounded and clipped to 8 bits",),
        frozenset(row.id for row in rows[1:]),
    )


@mapping("ChannelShuffle")
def channel_shuffle(args: Args) -> Mapped:
    # One of the six orders, drawn uniformly: k in 0..5 gives channel i = (k % 3 + i * (1 +
    # k // 3)) % 3, the three rotations and the three reversed rotations.
    nodes: list[Node] = [values_node("shuffle_pick", [float(k) for k in range(6)], "INT32")]
    for i in range(3):
        nodes.append(
            expr(
                f"shuffle_from_{i}",
                f"(shuffle_pick % 3 + {i} * (1 + shuffle_pick // 3)) % 3",
                ["shuffle_pick"],
            )
        )
    channels = []
    for i in range(3):
        node = expr(f"shuffled_{i}", f"image[:, :, shuffle_from_{i}]", [IMAGE, f"shuffle_from_{i}"])
        channels.append(node)
    nodes += channels
    nodes.append(
        Node(
            "shuffle",
            "stack",
            inputs=tuple(Ref(c.id) for c in channels),
            args={"axis": 2, "axis_name": "C"},
        )
    )
    return Mapped(
        tuple(nodes),
        "exact",
        ("one of the six channel orders, drawn uniformly by DALI's generator",),
        frozenset(c.id for c in channels[1:]),
    )


@mapping("ToFloat", positional=("max_value",), p=1.0)
def to_float(args: Args) -> Mapped:
    _whole_batch(args)
    scale = args.get("max_value")
    scale = 255.0 if scale is None else float(scale)
    node = expr("to_float", f"image / {scale!r}", [IMAGE])
    return Mapped((node,), "exact", (f"8-bit values divided by {scale:g}, float32",))


@mapping("FromFloat", positional=("dtype", "max_value"), p=1.0)
def from_float(args: Args) -> Mapped:
    if args.get("dtype", "uint8") != "uint8":
        raise NotPorted("only dtype='uint8' is ported")
    _whole_batch(args)
    scale = args.get("max_value")
    scale = 255.0 if scale is None else float(scale)
    nodes = (
        expr("from_float_scaled", f"image * {scale!r}", [IMAGE]),
        to_uint8("from_float", "from_float_scaled"),
    )
    return Mapped(nodes, "exact", (f"times {scale:g}, rounded and clipped to 8 bits",))


@mapping("NoOp")
def no_op(args: Args) -> Mapped:
    # albumentations returns the image as it is, whatever its p: no node, nothing to gate
    return Mapped((), "exact", ("no node: albumentations' NoOp returns the image as it is",))


def _whole_batch(args: Args) -> None:
    if args.p < 1.0:
        raise NotPorted(
            f"{args.call.name} with p < 1 changes the value type of some images only, which a "
            "batch cannot hold; give p=1"
        )


@mapping("ToRGB", positional=("num_output_channels",), p=1.0)
def to_rgb(args: Args) -> Mapped:
    # albumentations 2.0.8 returns a 3-channel image as it is (warning "already an RGB"),
    # whatever num_output_channels says; the port's images have 3 channels throughout
    return Mapped(
        (),
        "exact",
        ("no node: albumentations' ToRGB returns a 3-channel image as it is, as the graph's are",),
    )
