"""albumentations' blurs, noise and compression as DALI nodes. Grades measured by
``tests/test_port_albumentations_parity.py`` against albumentations 2.0.8."""

from __future__ import annotations

from typing import Any

from ...spec import Node, Random, Ref
from .arguments import Args, NotPorted
from .filters import odd_sizes
from .nodes import draw, expr, step, to_uint8, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping, refused


@mapping("GaussianBlur", positional=("blur_limit", "sigma_limit"))
def gaussian_blur(args: Args) -> Mapped:
    """One size and one sigma for both axes, drawn once per image by nodes the blur reads (a
    random argument of a vector would draw each axis on its own)."""
    # a single v: (0, v); a reversed pair sorted, as albumentations sorts both
    limit = _sorted(args.pair("blur_limit", (0.0, 0.0), least=0))
    sigma = _sorted(args.pair("sigma_limit", (0.5, 3.0)))
    note = (
        "pixels within 1 grey level of albumentations' for the same size and sigma; "
        "size and sigma drawn as albumentations draws them, by DALI's generator"
    )
    if limit == (0.0, 0.0):  # 2.x's default: the size follows sigma, int(3.5 sigma) * 2 + 1
        if sigma[0] <= 0:
            raise NotPorted("blur_limit=(0, 0) needs sigma_limit above 0 to size the kernel")
        nodes: tuple[Node, ...] = (
            uniform_node("blur_sigma", *sigma),
            expr("blur_width", "math.floor(blur_sigma * 3.5) * 2 + 1", ["blur_sigma"]),
            Node("blur_size", "cast", inputs=(Ref("blur_width"),), args={"dtype": "INT32"}),
            step(
                "blur",
                "gaussian_blur",
                {"window_size": Ref("blur_size"), "sigma": Ref("blur_sigma")},
            ),
        )
        return Mapped(nodes, "exact", (note,))
    if sigma == (0.0, 0.0):  # 1.x: OpenCV's sigma for the size drawn
        nodes = (
            values_node("blur_size", odd_sizes(args, "blur_limit", (3, 7)), dtype="INT32"),
            expr("blur_sigma", "0.3 * ((blur_size - 1) * 0.5 - 1) + 0.8", ["blur_size"]),
            step(
                "blur",
                "gaussian_blur",
                {"window_size": Ref("blur_size"), "sigma": Ref("blur_sigma")},
            ),
        )
        return Mapped(
            nodes,
            "approximate",
            (
                "sigma derived from the size as OpenCV derives it (albumentations 1.x); "
                "not measured against 1.x pixel for pixel",
            ),
        )
    return Mapped(_drawn_size_and_sigma(limit, sigma), "exact", (note,))


def _truncated_noise(
    std: tuple[float, float], mean: tuple[float, float], *, per_channel: bool
) -> Mapped:
    """One normal value per pixel and channel (per_channel=True), or per pixel of one channel
    added to every channel alike (False): random.normal shaped as the image or its first
    channel, its spread and mean drawn once per image, added as albumentations adds it: each
    value truncated toward zero, the sum saturated."""
    spread = {"stddev": draw(std[0] * 255.0, std[1] * 255.0), "mean": draw(*_times_255(mean))}
    if per_channel:
        shaped: tuple[Node, ...] = ()
        plane = Node("noise_plane", "random.normal", inputs=(Ref(IMAGE),), args=spread)
    else:
        shaped = (expr("noise_shape", f"{IMAGE}[:, :, 0:1]", [IMAGE]),)
        plane = Node("noise_plane", "random.normal", inputs=(Ref("noise_shape"),), args=spread)
    nodes = (
        *shaped,
        plane,
        # albumentations adds the noise map truncated toward zero (60.7 adds 60, -60.7
        # takes 60), so its noise is a little narrower than drawn: at std 0.1, 25.1 grey
        # levels where DALI's noise.gaussian, which rounds the sum, gives 25.5
        expr(
            "noise_sum",
            f"{IMAGE} + math.floor(math.abs(noise_plane)) * ((noise_plane >= 0) * 2 - 1)",
            [IMAGE, "noise_plane"],
        ),
        to_uint8("noise", "noise_sum"),
    )
    if per_channel:
        said = (
            "a noise value per pixel and channel, each truncated toward zero as albumentations "
            "adds it; spread drawn from std_range times 255, the noise by DALI's generator "
            "(on grey images at std 0.1: spread 25.10 here, 25.09 there, KS over 221,184 noise "
            "values p 0.56; rounded as DALI's noise.gaussian rounds the sum, 25.50: 1.6% wider)"
        )
    else:
        said = (
            "per_channel=False: one noise value per pixel, the same in every channel, each "
            "truncated toward zero as albumentations adds it; spread drawn from std_range "
            "times 255, the noise by DALI's generator (on grey images at std 0.1, KS over "
            "245,760 noise values: 0.0035, p 0.09; the spread per image, std_range=(0.05, "
            "0.2): KS p 0.69 over 80 images)"
        )
    measured = frozenset({"noise_plane", "noise_shape"})  # read for their shape alone
    return Mapped(nodes, "distribution", (said,), measures=measured)


def _times_255(pair: tuple[float, float]) -> tuple[float, float]:
    return pair[0] * 255.0, pair[1] * 255.0


def _sorted(pair: tuple[float, float]) -> tuple[float, float]:
    return (pair[0], pair[1]) if pair[0] <= pair[1] else (pair[1], pair[0])


def _drawn_size_and_sigma(
    limit: tuple[float, float], sigma: tuple[float, float]
) -> tuple[Node, ...]:
    """albumentations 2.x: a size drawn by ``randint(low, high)``, an even one rounded up, 0
    sized from sigma as blur_limit=0 is. Listed once per integer it comes from, so that
    drawing one entry uniformly gives each size its chance (3 of (3, 7) one in five, 5 and 7
    two in five each)."""
    low, high = int(limit[0]), int(limit[1])
    picks = [float(k + (k > 0 and k % 2 == 0)) for k in range(low, max(low, high) + 1)]
    blur = step(
        "blur", "gaussian_blur", {"window_size": Ref("blur_size"), "sigma": Ref("blur_sigma")}
    )
    if 0.0 not in picks:
        return (
            values_node("blur_size", picks, dtype="INT32"),
            uniform_node("blur_sigma", *sigma),
            blur,
        )
    return (
        values_node("blur_pick", picks),
        uniform_node("blur_sigma", *sigma),
        expr(
            "blur_width",
            "blur_pick + (blur_pick == 0) * (math.floor(blur_sigma * 3.5) * 2 + 1)",
            ["blur_pick", "blur_sigma"],
        ),
        Node("blur_size", "cast", inputs=(Ref("blur_width"),), args={"dtype": "INT32"}),
        blur,
    )


@mapping("GaussNoise", positional=("std_range", "mean_range"))
def gauss_noise(args: Args) -> Mapped:
    if args.number("noise_scale_factor", 1.0) != 1.0:
        raise NotPorted(
            "noise_scale_factor below 1 (noise drawn small, then resized) is not ported"
        )
    if args.has("var_limit"):  # 1.x: a variance in pixels squared, drawn uniformly
        if not args.get("per_channel", True):
            raise NotPorted(
                "per_channel=False with 1.x's var_limit is not ported (fix: 2.x's std_range, "
                "a fraction of 255: std_range=(sqrt(low) / 255, sqrt(high) / 255))"
            )
        low, high = args.pair("var_limit", (10.0, 50.0))
        pixel_mean = args.number("mean", 0.0)
        nodes = (
            uniform_node("variance", low, high),
            expr("stddev", "math.sqrt(variance)", ["variance"]),
            step("noise", "noise.gaussian", {"stddev": Ref("stddev"), "mean": pixel_mean}),
        )
        return Mapped(
            nodes,
            "approximate",
            (
                "the variance drawn uniformly in var_limit, as albumentations 1.x draws it, the "
                "noise by DALI's generator; not measured against 1.x",
            ),
        )
    std = args.pair("std_range", (0.2, 0.44))
    mean = args.pair("mean_range", (0.0, 0.0))
    return _truncated_noise(std, mean, per_channel=bool(args.get("per_channel", True)))


@mapping("MultiplicativeNoise", positional=("multiplier", "per_channel", "elementwise"))
def multiplicative_noise(args: Args) -> Mapped:
    if args.get("elementwise", False):
        raise NotPorted("elementwise=True (a factor per pixel) is not ported")
    low, high = args.pair("multiplier", (0.9, 1.1), around=1.0)
    per_channel = bool(args.get("per_channel", False))
    nodes = (
        uniform_node("multiplier", low, high, shape=3 if per_channel else None),
        expr("multiplied", "math.clamp(image * multiplier, 0, 255)", [IMAGE, "multiplier"]),
        to_uint8("multiply", "multiplied"),
    )
    return Mapped(
        nodes,
        "exact",
        ("the same factor (one per image, or per channel) drawn uniformly by DALI's generator",),
    )


@mapping("SaltAndPepper", positional=("amount", "salt_vs_pepper"))
def salt_and_pepper(args: Args) -> Mapped:
    amount = args.pair("amount", (0.01, 0.06))
    salt = args.pair("salt_vs_pepper", (0.4, 0.6))
    node = step(
        "salt_and_pepper",
        "noise.salt_and_pepper",
        {"prob": draw(*amount), "salt_vs_pepper": draw(*salt), "per_channel": False},
    )
    return Mapped(
        (node,),
        "distribution",
        (
            "the share of pixels and of salt among them drawn as albumentations draws them; "
            "which pixels, by DALI's generator (salt per image: KS p 0.56)",
        ),
    )


@mapping("ImageCompression", positional=("compression_type", "quality_range"))
def image_compression(args: Args) -> Mapped:
    kind = args.get("compression_type", "jpeg")
    if kind not in ("jpeg", 0):  # 1.x: ImageCompressionType.JPEG == 0
        raise NotPorted("compression_type='webp' has no DALI equivalent (jpeg only)")
    if args.has("quality_lower"):
        low, high = args.number("quality_lower", 99), args.number("quality_upper", 100)
    else:
        low, high = args.pair("quality_range", (99.0, 100.0))
    qualities = [float(q) for q in range(int(low), int(high) + 1)]
    quality: Any = qualities[0] if len(qualities) == 1 else Random.choice(qualities)
    node = step("jpeg", "jpeg_compression_distortion", {"quality": quality})
    return Mapped(
        (node,),
        "approximate",
        (
            "another JPEG encoder: the same quality gives other artefacts (quality 50: mean "
            "2.0, max 49 grey levels; quality 90: mean 1.1, max 17)",
        ),
    )


refused("GlassBlur", "none")
refused(
    "MedianBlur",
    "experimental.median_blur (GPU only in DALI 2.4, so not measured here; fix: A.Blur with "
    "the same blur_limit in its place, ported exact, or leave it out)",
)
refused("Defocus", "filter with a disc kernel")
refused("ZoomBlur", "none")
refused("AdvancedBlur", "gaussian_blur (no anisotropic or generalized kernels)")
refused("ISONoise", "noise.gaussian and noise.shot (no hue-dependent colour noise)")
