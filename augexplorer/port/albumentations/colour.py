"""albumentations' colour transforms as DALI nodes.

Point functions with fixed parameters (InvertImg, Solarize, Posterize) become one
``lookup_table`` (exact); random ones become an expression on a per-sample draw. The grades and
bounds are measured by ``tests/test_port_albumentations_parity.py`` (albumentations 2.0.8).
"""

from __future__ import annotations

from typing import Any

from ...spec import Node, Random, Ref
from .arguments import Args, NotPorted, one_fill
from .nodes import const, draw, expr, lookup, step, to_uint8, uniform_node, values_node
from .registry import IMAGE, Mapped, mapping, refused


def _jitter_range(args: Args, name: str, default: tuple[float, float]) -> tuple[float, float]:
    low, high = args.pair(name, default, f"{name}_range", around=1.0)
    return (max(low, 0.0), high)


@mapping("ColorJitter", positional=("brightness", "contrast", "saturation", "hue"))
def color_jitter(args: Args) -> Mapped:
    brightness = _jitter_range(args, "brightness", (0.8, 1.2))
    contrast = _jitter_range(args, "contrast", (0.8, 1.2))
    saturation = _jitter_range(args, "saturation", (0.8, 1.2))
    hue = args.pair("hue", (-0.5, 0.5), "hue_range", symmetric=True)
    node = step(
        "color_jitter",
        "color_twist",
        {
            "brightness": draw(*brightness),
            "contrast": draw(*contrast),
            "saturation": draw(*saturation),
            # albumentations' hue factor is a fraction of the colour wheel; DALI's is degrees
            "hue": draw(hue[0] * 360.0, hue[1] * 360.0),
        },
    )
    return Mapped(
        (node,),
        "approximate",
        (
            "albumentations applies brightness, contrast, saturation and hue as four clamped "
            "steps in a random order, contrast around the image's mean grey; DALI's color_twist "
            "is one colour matrix with contrast around mid-grey",
            "over the 19 sample photos, brightness 1.2 alone: mean 0.37, max 1 grey levels; "
            "saturation 0.5 alone: mean 0.19, max 1; contrast 1.3 alone: mean 6.9, max 33 (0.1 "
            "to 17.9 a photo: the further its mean grey from mid-grey, the more); hue 0.1 alone "
            "(DALI turns hue in YIQ space, OpenCV in HSV): mean 11.6, max 94 (up to 38.5 a "
            "photo)",
        ),
    )


@mapping("RandomBrightnessContrast", positional=("brightness_limit", "contrast_limit"))
def random_brightness_contrast(args: Args) -> Mapped:
    brightness = args.pair("brightness_limit", (-0.2, 0.2), symmetric=True)
    contrast = args.pair("contrast_limit", (-0.2, 0.2), symmetric=True)
    if args.get("ensure_safe_range", False):
        raise NotPorted("ensure_safe_range=True narrows the draws per image; not ported")
    if not args.get("brightness_by_max", True):
        return _brightness_by_mean(brightness, contrast)
    if args.float_image:
        # albumentations: out = img * (1 + contrast) + brightness * max, in floats; DALI: out =
        # brightness_shift * max + brightness * (centre + contrast * (img - centre)), contrast 1
        node = step(
            "brightness_contrast",
            "brightness_contrast",
            {
                "brightness": draw(1.0 + contrast[0], 1.0 + contrast[1]),
                "brightness_shift": draw(*brightness),
            },
        )
        return Mapped(
            (node,),
            "exact",
            ("albumentations' factor is DALI's brightness, its shift DALI's shift",),
        )
    # on 8-bit pixels albumentations looks each value up in a float32 table of
    # v * (1 + contrast) + brightness * 255, clipped and truncated: DALI's brightness_contrast
    # rounds instead (mean 0.59, max 1 grey level off). The shift is drawn in grey levels, so
    # that it is the float32 of albumentations' brightness * 255, added as its table adds it
    nodes = (
        uniform_node("contrast_draw", 1.0 + contrast[0], 1.0 + contrast[1]),
        uniform_node("brightness_draw", 255.0 * brightness[0], 255.0 * brightness[1]),
        expr(
            "brightness_contrast",
            f"math.floor({IMAGE} * contrast_draw + brightness_draw)",
            [IMAGE, "contrast_draw", "brightness_draw"],
        ),
        to_uint8("brightness_contrast_uint8", "brightness_contrast"),
    )
    return Mapped(
        nodes,
        "exact",
        (
            "albumentations' arithmetic: the image times its factor plus the shift (its draw "
            "times 255), clipped and truncated to 8 bits as albumentations' table of values "
            "is: the same pixels (19 photos, brightness 0.1 with contrast 0.2, and -0.15 with "
            "-0.3: max 0 grey levels)",
        ),
    )


def _brightness_by_mean(brightness: tuple[float, float], contrast: tuple[float, float]) -> Mapped:
    """brightness_by_max=False: albumentations shifts by its draw times the image's mean (over
    every pixel and channel): ``img * (1 + contrast) + draw * mean``, clipped and truncated to 8
    bits as albumentations' table of values is. Written as arithmetic on the image:
    brightness_contrast takes its shift as CPU data, which a mean of the image on the GPU is
    not. 8-bit pixels only (library._uint8_only)."""
    nodes = (
        uniform_node("contrast_draw", 1.0 + contrast[0], 1.0 + contrast[1]),
        uniform_node("brightness_draw", *brightness),
        Node("brightness_mean", "reductions.mean", inputs=(Ref(IMAGE),), args={"dtype": "FLOAT"}),
        expr(
            "brightness_contrast",
            f"math.floor({IMAGE} * contrast_draw + brightness_draw * brightness_mean)",
            [IMAGE, "contrast_draw", "brightness_draw", "brightness_mean"],
        ),
        to_uint8("brightness_contrast_uint8", "brightness_contrast"),
    )
    return Mapped(
        nodes,
        "exact",
        (
            "albumentations' arithmetic: the image times its factor, plus the draw times the "
            "image's mean (brightness_by_max=False), clipped and truncated to 8 bits as "
            "albumentations does: the same pixels (19 photos, brightness 0.2 with contrast 0.1, "
            "and -0.3 with -0.2: max 0 grey levels)",
        ),
        measures=frozenset({"brightness_mean"}),
    )


@mapping("RGBShift", positional=("r_shift_limit", "g_shift_limit", "b_shift_limit"))
def rgb_shift(args: Args) -> Mapped:
    limits = [args.pair(f"{c}_shift_limit", (-20.0, 20.0), symmetric=True) for c in ("r", "g", "b")]
    nodes = []
    if all(low == high for low, high in limits):
        nodes.append(const("shift", [low for low, _ in limits]))
    elif len(set(limits)) == 1:
        nodes.append(uniform_node("shift", *limits[0], shape=3))
    else:
        raise NotPorted(
            "per-channel shift ranges that differ are not ported; give the three channels the "
            "same range"
        )
    text = "math.clamp(image + shift, 0, 255)"
    nodes.append(expr("shifted", text, [IMAGE, "shift"]))
    nodes.append(to_uint8("rgb_shift", "shifted"))
    return Mapped(tuple(nodes), "exact", ("one shift per channel, added and clipped",))


@mapping("ToGray")
def to_gray(args: Args) -> Mapped:
    if args.get("num_output_channels", 3) != 3:
        raise NotPorted("num_output_channels=1: use color_space_conversion to GRAY")
    if args.get("method", "weighted_average") != "weighted_average":
        raise NotPorted("only method='weighted_average' (ITU-R 601 luma) is ported")
    node = step("gray", "hsv", {"saturation": 0.0})
    return Mapped((node,), "exact", ("the same luma weights as OpenCV's RGB2GRAY",))


@mapping("RandomGamma", positional=("gamma_limit",))
def random_gamma(args: Args) -> Mapped:
    # a single v is (1, v), as albumentations reads it (not a range about 100); a reversed
    # pair sorted, as it sorts one
    low, high = sorted(args.pair("gamma_limit", (80.0, 120.0), least=1.0))
    # albumentations: 255 * (v / 255) ** (gamma / 100), through an 8-bit table (truncated)
    if low == high:
        gamma = low / 100.0
        table = [int((v / 255.0) ** gamma * 255.0) for v in range(256)]
        return Mapped((lookup("gamma", table),), "exact")
    nodes = (
        uniform_node("gamma_draw", low / 100.0, high / 100.0),
        expr(
            "gamma_curve",
            "math.floor(math.pow(image / 255.0, gamma_draw) * 255.0)",
            [IMAGE, "gamma_draw"],
        ),
        to_uint8("gamma", "gamma_curve"),
    )
    return Mapped(nodes, "exact", ("gamma drawn uniformly, by DALI's generator",))


@mapping("InvertImg")
def invert_img(args: Args) -> Mapped:
    return Mapped((lookup("invert", [255 - v for v in range(256)]),), "exact")


@mapping("Solarize", positional=("threshold_range",))
def solarize(args: Args) -> Mapped:
    if args.has("threshold_range"):
        low, high = (255.0 * t for t in args.pair("threshold_range", (0.5, 0.5)))
    else:  # 1.x: threshold in pixels, a number or a range
        low, high = args.pair("threshold", 128.0)
    if low == high:
        table = [v if v < low else 255 - v for v in range(256)]
        return Mapped((lookup("solarize", table),), "exact")
    nodes = (
        uniform_node("threshold", low, high),
        expr(
            "solarized",
            "image * (image < threshold) + (255 - image) * (image >= threshold)",
            [IMAGE, "threshold"],
        ),
        to_uint8("solarize", "solarized"),
    )
    return Mapped(nodes, "exact", ("threshold drawn uniformly, by DALI's generator",))


@mapping("Posterize", positional=("num_bits",))
def posterize(args: Args) -> Mapped:
    bits = args.get("num_bits", 4)
    if isinstance(bits, int) and not isinstance(bits, bool):
        low = high = bits
    elif (
        isinstance(bits, (tuple, list)) and len(bits) == 2 and all(isinstance(b, int) for b in bits)
    ):
        low, high = bits
    else:
        raise NotPorted("num_bits per channel is not ported; give one number or one range")
    if low == high:
        mask = (0xFF << (8 - low)) & 0xFF
        return Mapped((lookup("posterize", [v & mask for v in range(256)]),), "exact")
    masks = [float((0xFF << (8 - b)) & 0xFF) for b in range(low, high + 1)]
    nodes = (
        values_node("mask", masks, dtype="INT32"),
        expr("posterized", "image & mask", [IMAGE, "mask"]),
        to_uint8("posterize", "posterized"),
    )
    return Mapped(nodes, "exact", ("bits drawn uniformly, by DALI's generator",))


@mapping("Normalize", positional=("mean", "std", "max_pixel_value"), p=1.0)
def normalize(args: Args) -> Mapped:
    normalization = args.get("normalization", "standard")
    if normalization in _PER_IMAGE:
        return _normalize_per_image(normalization)
    if normalization != "standard":
        raise NotPorted(
            f"normalization={normalization!r}: albumentations takes 'standard', 'image', "
            "'image_per_channel', 'min_max' or 'min_max_per_channel'"
        )
    missing = [
        name
        for name in ("mean", "std", "max_pixel_value")
        if args.has(name) and args.values[name] is None
    ]
    if missing:  # albumentations fails on the call itself
        raise NotPorted(
            f"{', '.join(f'{name}=None' for name in missing)}: albumentations fails on it too "
            "('mean, std, and max_pixel_value must be provided for standard normalization'); "
            "fix: give each a value (mean and std per channel, max_pixel_value=255.0 for 8-bit "
            "images)"
        )
    scale = args.number("max_pixel_value", 255.0)
    mean = _per_channel(args.get("mean", (0.485, 0.456, 0.406)))
    std = _per_channel(args.get("std", (0.229, 0.224, 0.225)))
    node = step(
        "normalize",
        "crop_mirror_normalize",
        {
            "mean": [m * scale for m in mean],
            "std": [s * scale for s in std],
            "dtype": "FLOAT",
            "output_layout": "HWC",
        },
    )
    return Mapped((node,), "exact", ("mean and std times max_pixel_value, in DALI's pixel units",))


# albumentations' statistics of each image, as albucore's normalize_per_image computes them
_PER_IMAGE = frozenset({"image", "image_per_channel", "min_max", "min_max_per_channel"})
_EPSILON = 1e-4  # albucore's, added to the spread


def _normalize_per_image(normalization: str) -> Mapped:
    """Normalize(normalization=...) by the image's own statistics: mean and standard deviation
    (population), or its minimum and maximum, over the whole image or per channel (DALI's
    reductions over the rows and columns), then albucore's arithmetic in float, clipped to
    +-20 as albucore clips it (mean and std alone; min_max needs none)."""
    axes: dict[str, Any] = {"axes": [0, 1]} if normalization.endswith("_per_channel") else {}
    if normalization.startswith("image"):
        nodes = (
            Node(
                "norm_mean",
                "reductions.mean",
                inputs=(Ref(IMAGE),),
                args={"dtype": "FLOAT", **axes},
            ),
            Node(
                "norm_std",
                "reductions.std_dev",
                inputs=(Ref(IMAGE), Ref("norm_mean")),
                args=dict(axes),
            ),
            expr(
                "normalize",
                f"math.clamp(({IMAGE} - norm_mean) / (norm_std + {_EPSILON!r}), -20.0, 20.0)",
                [IMAGE, "norm_mean", "norm_std"],
            ),
        )
        said = "its mean and standard deviation"
    else:
        nodes = (
            Node("norm_min", "reductions.min", inputs=(Ref(IMAGE),), args=dict(axes)),
            Node("norm_max", "reductions.max", inputs=(Ref(IMAGE),), args=dict(axes)),
            expr(
                "normalize",
                f"({IMAGE} * 1.0 - norm_min) / (norm_max * 1.0 - norm_min + {_EPSILON!r})",
                [IMAGE, "norm_min", "norm_max"],
            ),
        )
        said = "its minimum and maximum"
    where = "per channel" if axes else "over the whole image"
    return Mapped(
        nodes,
        "exact",
        (
            f"normalization={normalization!r}: each image by {said} {where}, as albumentations "
            "computes them (DALI's reductions), in float32",
        ),
        measures=frozenset(node.id for node in nodes[:2]),
    )


def _per_channel(value: Any) -> list[float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [float(value)] * 3
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, float)) for v in value):
        return [float(v) for v in value]
    raise NotPorted(f"mean/std {value!r} is not a number or one per channel")


@mapping("Equalize", positional=("mode", "by_channels"))
def equalize(args: Args) -> Mapped:
    if args.get("mask") is not None or args.get("mask_params"):
        raise NotPorted("a mask limiting the histogram is not ported")
    if not args.get("by_channels", True):
        raise NotPorted("by_channels=False (equalizing brightness in YCrCb) is not ported")
    node = step("equalize", "equalize", {})
    if args.get("mode", "cv") == "cv":
        return Mapped((node,), "exact", ("the same pixels as OpenCV's equalizeHist per channel",))
    return Mapped(
        (node,),
        "approximate",
        (
            "DALI equalizes as OpenCV does, not as PIL: mode='pil' differs, on the 19 bundled "
            "photos, by mean 3.07 (0.2 to 16.7 a photo), max 34 grey levels",
        ),
    )


@mapping("RandomToneCurve", positional=("scale", "per_channel"))
def random_tone_curve(args: Args) -> Mapped:
    """albumentations' Bezier tone curve through (0, 0), (1/3, low), (2/3, high), (1, 1), with
    low ~ N(0.25, scale) and high ~ N(0.75, scale) clipped to 0-1 (one per channel if
    per_channel), applied to each value."""
    scale = args.number("scale", 0.1)
    shape = [3] if args.get("per_channel", False) else None
    nodes: list[Node] = []
    for name, centre in (("tone_low", 0.25), ("tone_high", 0.75)):
        if scale == 0:
            nodes.append(uniform_node(name, centre, centre, shape=shape[0] if shape else None))
            continue
        draw_args: dict[str, Any] = {"mean": centre, "stddev": scale}
        if shape:
            draw_args["shape"] = shape
        nodes += [
            Node(f"{name}_draw", "random.normal", args=draw_args),
            expr(name, f"math.clamp({name}_draw, 0, 1)", [f"{name}_draw"]),
        ]
    nodes += [
        expr(
            "tone_curve",
            "(3 * (1 - image / 255.0) ** 2 * (image / 255.0) * tone_low + 3 * (1 - image / 255.0)"
            " * (image / 255.0) ** 2 * tone_high + (image / 255.0) ** 3) * 255",
            [IMAGE, "tone_low", "tone_high"],
        ),
        to_uint8("tone", "tone_curve"),
    ]
    return Mapped(
        tuple(nodes),
        "exact",
        (
            "the same curve for the same control points, drawn as albumentations draws them "
            "(a value's curve per image: KS p 0.76 over 320 draws)",
        ),
    )


@mapping("ChannelDropout", positional=("channel_drop_range", "fill"))
def channel_dropout(args: Args) -> Mapped:
    low, high = args.pair("channel_drop_range", (1.0, 1.0))
    if (low, high) != (1.0, 1.0):
        raise NotPorted("only one dropped channel per image (channel_drop_range=(1, 1)) is ported")
    node = step(
        "channel_dropout",
        "erase",
        {
            "anchor": Random.choice([0.0, 1.0, 2.0], shape=1),
            "shape": [1.0],
            "axis_names": "C",
            "fill_value": one_fill(args, "erase"),
        },
    )
    return Mapped((node,), "exact", ("the channel drawn uniformly, by DALI's generator",))


refused("FancyPCA", "color_twist")
refused("PlanckianJitter", "color_twist")
