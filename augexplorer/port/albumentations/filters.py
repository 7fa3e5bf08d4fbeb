"""albumentations' kernel filters (Blur, Sharpen, Emboss) as DALI's ``filter`` with a kernel
made per image from the drawn parameters: a box of a drawn odd size (``full``), or
albumentations' 3x3 matrices blended by the drawn alpha (an expression on constant matrices).
OpenCV filters with a mirrored border (BORDER_REFLECT_101), as ``filter`` does by default.
Grades measured by ``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8."""

from __future__ import annotations

from ...expressions.nodes import constant
from ...spec import Node, Ref
from .arguments import Args, NotPorted
from .nodes import expr, step, to_uint8, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping

NO_CHANGE = [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0]
SHARPEN = [-1.0, -1.0, -1.0, -1.0, 8.0, -1.0, -1.0, -1.0, -1.0]
EMBOSS = [-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
EMBOSS_STRENGTH = [-1.0, -1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 1.0, 1.0]


def blur_sizes(args: Args, name: str, default: tuple[int, int]) -> list[float]:
    """The kernel sizes Blur, MotionBlur and UnsharpMask draw among, each as likely, read as
    albumentations' process_blur_limit reads them: a single number v is (3, v), each end is
    raised to 3 and an even one rounded up, and a pair still reversed after that is its high
    end alone ((7, 3) is (3, 3), (8, 6) is (7, 7)): albumentations warns and keeps that, it
    does not sort. A live object holds the range already."""
    low, high = _kernel_ends(args, name, default)
    low = min(low, high)  # still reversed: (high, high), as albumentations keeps it
    return [float(k) for k in range(low, high + 1, 2)]


def odd_sizes(args: Args, name: str, default: tuple[int, int]) -> list[float]:
    """GaussianBlur's kernel sizes where its sigma follows the size (blur_noise.py): odd, from
    3, an even end rounded up, each as likely; a reversed pair sorted, as albumentations'
    GaussianBlur sorts it ((7, 3) is (3, 7), where Blur's is 3 alone: blur_sizes)."""
    low, high = sorted(_kernel_ends(args, name, default))
    return [float(k) for k in range(low, high + 1, 2)]


def _kernel_ends(args: Args, name: str, default: tuple[int, int]) -> tuple[int, int]:
    """`name`'s two ends as kernel sizes: a single number v is (3, v); each end below 3 is 3
    and an even one the odd size above. albumentations' schema takes whole numbers only (7.0
    is 7; 7.5 fails there), so a fraction is refused, not truncated into a size."""
    low, high = args.pair(name, default, least=3)
    if low != int(low) or high != int(high):
        given = args.get(name, default)
        fix = f"({int(low)}, {int(high)})" if isinstance(given, (tuple, list)) else int(high)
        raise NotPorted(
            f"{name}={given!r}: albumentations takes whole kernel sizes and fails on a "
            f"fraction (fix: {name}={fix})"
        )
    return _odd_from_3(int(low)), _odd_from_3(int(high))


def _odd_from_3(size: int) -> int:
    """A kernel size as albumentations adjusts it: raised to 3 first, then an even one up."""
    size = max(3, size)
    return size + (size % 2 == 0)


def _matrix(node_id: str, values: list[float]) -> Node:
    return constant(node_id, values, "FLOAT", shape=[3, 3])


@mapping("Blur", positional=("blur_limit",))
def blur(args: Args) -> Mapped:
    sizes = blur_sizes(args, "blur_limit", (3, 7))
    nodes = (
        values_node("box_size", sizes, dtype="INT32"),
        constant("box_square", [1, 1], "INT32"),
        expr("box_shape", "box_size * box_square", ["box_size", "box_square"]),
        expr("box_weight", "1.0 / (box_size * box_size)", ["box_size"]),
        Node("box_kernel", "full", inputs=(Ref("box_weight"),), args={"shape": Ref("box_shape")}),
        Node("blur", "filter", inputs=(Ref(IMAGE), Ref("box_kernel"))),
    )
    return Mapped(
        nodes,
        "exact",
        ("a box of the same odd size (drawn uniformly, by DALI's generator), mirrored border",),
    )


@mapping("Sharpen", positional=("alpha", "lightness"))
def sharpen(args: Args) -> Mapped:
    if args.get("method", "kernel") != "kernel":
        raise NotPorted("method='gaussian' (unsharp masking) is not ported; use method='kernel'")
    alpha = args.pair("alpha", (0.2, 0.5))
    lightness = args.pair("lightness", (0.5, 1.0))
    nodes = (
        uniform_node("sharpen_alpha", *alpha),
        uniform_node("sharpen_lightness", *lightness),
        _matrix("no_change", NO_CHANGE),
        _matrix("sharpen_effect", SHARPEN),
        # (1 - a) * I + a * (effect + lightness * I), as albumentations blends them
        expr(
            "sharpen_kernel",
            "(1 - sharpen_alpha) * no_change + sharpen_alpha * "
            "(sharpen_effect + sharpen_lightness * no_change)",
            ["sharpen_alpha", "no_change", "sharpen_effect", "sharpen_lightness"],
        ),
        Node("sharpen", "filter", inputs=(Ref(IMAGE), Ref("sharpen_kernel"))),
    )
    return Mapped(nodes, "exact", _kernel_note("alpha and lightness"))


@mapping("Emboss", positional=("alpha", "strength"))
def emboss(args: Args) -> Mapped:
    alpha = args.pair("alpha", (0.2, 0.5))
    strength = args.pair("strength", (0.2, 0.7))
    nodes = (
        uniform_node("emboss_alpha", *alpha),
        uniform_node("emboss_strength", *strength),
        _matrix("no_change", NO_CHANGE),
        _matrix("emboss_effect", EMBOSS),
        _matrix("emboss_slope", EMBOSS_STRENGTH),
        expr(
            "emboss_kernel",
            "(1 - emboss_alpha) * no_change + emboss_alpha * "
            "(emboss_effect + emboss_strength * emboss_slope)",
            ["emboss_alpha", "no_change", "emboss_effect", "emboss_strength", "emboss_slope"],
        ),
        Node("emboss", "filter", inputs=(Ref(IMAGE), Ref("emboss_kernel"))),
    )
    return Mapped(nodes, "exact", _kernel_note("alpha and strength"))


@mapping("MotionBlur", positional=("blur_limit",))
def motion_blur(args: Args) -> Mapped:
    """albumentations 2.x's line kernel, built per image: k points along a line through the
    kernel's centre at the drawn angle (biased forward or back by the drawn direction, shifted
    by the drawn shift), rounded to cells; the cells hit share the weight. The kernel is laid
    in a square of the largest size, centred, which filters alike (its other cells weigh 0)."""
    sizes = blur_sizes(args, "blur_limit", (3, 7))
    largest = int(sizes[-1])
    # albumentations' schema refuses these reversed or out of bounds (it does not sort them)
    angle = _bounded_range(args, "angle_range", (0.0, 360.0), 0.0, 360.0)
    direction = _bounded_range(args, "direction_range", (-1.0, 1.0), -1.0, 1.0)
    shifted = bool(args.get("allow_shifted", True))
    grid = range(largest)
    half = "math.floor(motion_size / 2)"
    start = f"-{half} * (1 - math.max(motion_direction, 0))"
    end = f"{half} * (1 + math.min(motion_direction, 0))"
    offset = f"({largest} - motion_size) / 2"
    rad = "motion_angle * 0.017453292519943295"
    nodes = (
        values_node("motion_size", sizes),
        uniform_node("motion_angle", *angle),
        uniform_node("motion_direction", *direction),
        uniform_node("motion_shift", -1.0, 1.0, shape=2)
        if shifted
        else uniform_node("motion_shift", 0.0, 0.0, shape=2),
        constant("motion_steps", [float(m) for m in grid], "FLOAT"),
        constant(
            "motion_gx", [float(j) for _ in grid for j in grid], "FLOAT", [largest, largest, 1]
        ),
        constant(
            "motion_gy", [float(i) for i in grid for _ in grid], "FLOAT", [largest, largest, 1]
        ),
        expr(
            "motion_t",
            f"{start} + motion_steps * ({end} - ({start})) / (motion_size - 1)",
            ["motion_size", "motion_direction", "motion_steps"],
        ),
        expr(
            "motion_xf",
            f"{half} + math.cos({rad}) * motion_t + motion_shift[0] * {half} / 2",
            ["motion_size", "motion_angle", "motion_t", "motion_shift"],
        ),
        expr(
            "motion_yf",
            f"{half} + math.sin({rad}) * motion_t + motion_shift[1] * {half} / 2",
            ["motion_size", "motion_angle", "motion_t", "motion_shift"],
        ),
        expr(
            "motion_x",
            f"math.clamp({_half_to_even('motion_xf')}, 0, motion_size - 1) + {offset}",
            ["motion_xf", "motion_size"],
        ),
        expr(
            "motion_y",
            f"math.clamp({_half_to_even('motion_yf')}, 0, motion_size - 1) + {offset}",
            ["motion_yf", "motion_size"],
        ),
        expr(
            "motion_hits",
            "((motion_gx == motion_x) & (motion_gy == motion_y) & (motion_steps < motion_size))"
            " * 1.0",
            ["motion_gx", "motion_x", "motion_gy", "motion_y", "motion_steps", "motion_size"],
        ),
        Node("motion_cells", "reductions.max", inputs=(Ref("motion_hits"),), args={"axes": [2]}),
        Node("motion_total", "reductions.sum", inputs=(Ref("motion_cells"),)),
        expr("motion_kernel", "motion_cells / motion_total", ["motion_cells", "motion_total"]),
        Node("motion_blur", "filter", inputs=(Ref(IMAGE), Ref("motion_kernel"))),
    )
    return Mapped(
        nodes,
        "exact",
        (
            "the same kernel for the same size, angle, direction and shift, drawn as "
            "albumentations draws them, by DALI's generator (a dot's blur, KS over 320 draws: "
            "p 0.33 length, 1.00 lean)",
        ),
    )


def _bounded_range(
    args: Args, name: str, default: tuple[float, float], least: float, most: float
) -> tuple[float, float]:
    """A (low, high) range that albumentations validates as given: low <= high, both within
    [least, most]; anything else fails there, so it is refused here."""
    low, high = args.pair(name, default)
    if not least <= low <= high <= most:
        raise NotPorted(
            f"{name}=({low:g}, {high:g}): albumentations takes {least:g} <= low <= high <= "
            f"{most:g} and fails on this (fix: a (low, high) pair within {least:g}..{most:g}, "
            "low first)"
        )
    return low, high


def _half_to_even(name: str) -> str:
    """`name` rounded as numpy's round rounds it, halves to the even neighbour: a line at 0 or
    90 degrees puts its points on halves (1.5, 4.5), where rounding half up moves a cell."""
    up = f"math.floor({name} + 0.5)"
    return f"({up} - (({up} - {name}) == 0.5) * ({up} - 2 * math.floor({up} / 2)))"


def _kernel_note(drawn: str) -> tuple[str, ...]:
    return (f"the same 3x3 kernel for the same {drawn} (drawn uniformly, by DALI's generator)",)


@mapping("UnsharpMask", positional=("blur_limit", "sigma_limit", "alpha", "threshold"))
def unsharp_mask(args: Args) -> Mapped:
    """albumentations' unsharp mask in [0, 1] floats: the image plus alpha times what a Gaussian
    blur takes away, clipped, blended in where a blurred mask of the large differences (over
    threshold/255) says so; sigma 0 is OpenCV's for the kernel size."""
    sizes = blur_sizes(args, "blur_limit", (3, 7))
    # albumentations' to_tuple sorts a pair: (2, 1) is (1, 2), not refused nor drawn reversed
    sigma_low, sigma_high = sorted(args.pair("sigma_limit", 0.0, least=0.0))
    alpha_low, alpha_high = sorted(args.pair("alpha", (0.2, 0.5), least=0.0))
    sigma, alpha = (sigma_low, sigma_high), (alpha_low, alpha_high)
    threshold = args.get("threshold", 10)
    # what albumentations' own schema refuses, refused here too
    if sigma_low < 0:
        raise NotPorted(
            f"sigma_limit={args.get('sigma_limit')!r}: albumentations takes sigmas of 0 or "
            "more (0: OpenCV's for the kernel size) and fails on a negative one (fix: both "
            "ends 0 or more)"
        )
    if not 0 <= alpha_low <= alpha_high <= 1:
        raise NotPorted(
            f"alpha={args.get('alpha')!r}: albumentations takes 0 <= low <= high <= 1 (fix: "
            "both ends within 0..1)"
        )
    if isinstance(threshold, bool) or not isinstance(threshold, int) or not 0 <= threshold <= 255:
        raise NotPorted(f"threshold={threshold!r}: albumentations takes a whole number of 0-255")
    blur = {"window_size": Ref("unsharp_size"), "sigma": Ref("unsharp_sigma")}
    nodes = (
        values_node("unsharp_size", sizes, dtype="INT32"),
        uniform_node("unsharp_sigma_drawn", *sigma),
        # sigma 0: OpenCV's for the size, as cv2.GaussianBlur computes it
        expr(
            "unsharp_sigma",
            "unsharp_sigma_drawn + (unsharp_sigma_drawn <= 0) * "
            "(0.3 * ((unsharp_size - 1) * 0.5 - 1) + 0.8)",
            ["unsharp_sigma_drawn", "unsharp_size"],
        ),
        uniform_node("unsharp_alpha", *alpha),
        # one chain, each node reading the one before first: under a coin (p) the whole
        # chain runs as one conditional block, its float steps inside it
        expr("unsharp_float", f"{IMAGE} / 255.0", [IMAGE]),
        step("unsharp_blur", "gaussian_blur", blur, reads="unsharp_float"),
        expr(
            "unsharp_edges",
            f"(math.abs(unsharp_blur - unsharp_float) * 255 > {threshold}) * 1.0",
            ["unsharp_blur", "unsharp_float"],
        ),
        step("unsharp_soft", "gaussian_blur", blur, reads="unsharp_edges"),
        # sharp * soft + image * (1 - soft), sharp = clip(image + alpha * (image - blur))
        expr(
            "unsharp_blend",
            "(unsharp_soft * math.clamp((0 - (unsharp_blur - unsharp_float)) * unsharp_alpha"
            " + unsharp_float, 0, 1) + unsharp_float * (1 - unsharp_soft)) * 255",
            ["unsharp_soft", "unsharp_blur", "unsharp_float", "unsharp_alpha"],
        ),
        to_uint8("unsharp", "unsharp_blend"),
    )
    return Mapped(
        nodes,
        "approximate",
        (
            "albumentations' arithmetic for the same size, sigma and alpha (drawn as "
            "albumentations draws them, by DALI's generator); DALI's float blur differs from "
            "OpenCV's in the last bits, which moves a few pixels across the threshold of the "
            "mask: mean 0.005-0.03, max 5 grey levels",
        ),
    )
