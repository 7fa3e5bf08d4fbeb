"""torchvision's colour transforms: ColorJitter, Grayscale, GaussianBlur, invert, solarize."""

from __future__ import annotations

from collections.abc import Callable

from ...spec import Ref
from ..build import Grade, PortContext, Refuse
from ..model import TransformCall, written
from .arguments import BEFORE_FLOAT, size_pair, symmetric_range
from .geometry import uniform
from .grades import ONE_FACTOR, grade
from .hue import hue_shift


def _factor(
    value: object, what: str, *, centre: float, bound: tuple[float, float]
) -> tuple[float, float] | None:
    """torchvision's factor range: ``x`` -> (max(0, centre - x), centre + x) (hue's low end is
    not clipped); None where the factor changes nothing. A range outside `bound` is refused,
    as torchvision fails on it (it was clipped, and ported)."""
    if value is None:
        return None
    low, high = symmetric_range(value, what, centre=centre)
    if isinstance(value, int | float) and what != "hue":
        low = max(low, 0.0)
    if not bound[0] <= low <= high <= bound[1]:
        inside = "(-0.5, 0.5)" if what == "hue" else "(0, inf)"
        raise Refuse(
            f"{what}={written(value)}: torchvision fails on it (ValueError: {what} values should "
            f"be between {inside}, but got [{low}, {high}]) (fix: a range inside {inside}"
            + (", hue=0.5 at most)" if what == "hue" else ", low <= high)")
        )
    if low == high == centre:
        return None
    return low, high


def color_jitter(call: TransformCall, context: PortContext) -> Grade:
    """ColorJitter(brightness, contrast, saturation, hue): one step per factor, each drawn from
    torchvision's range, in the order brightness, contrast, saturation, hue (torchvision
    shuffles the order per image). Contrast is centred on the image's grey mean as
    torchvision centres it; hue turns in degrees (torchvision's factor times 360)."""
    ranges = {
        name: _factor(call.argument(index, name), name, centre=1.0, bound=(0.0, float("inf")))
        for index, name in enumerate(("brightness", "contrast", "saturation"))
    }
    hue = _factor(call.argument(3, "hue"), "hue", centre=0.0, bound=(-0.5, 0.5))

    def draw(name: str, low: float, high: float) -> object:
        return uniform(low, high, context.seed_for(call.name, name, str(len(context.nodes))))

    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"ColorJitter on a float tensor is not ported (fix: put it {BEFORE_FLOAT})")
    if ranges["brightness"]:
        brightness(context, draw("b", *ranges["brightness"]))
    contrast_range = ranges["contrast"]
    if contrast_range:
        contrast(context, lambda: draw("c", *contrast_range))
    if ranges["saturation"]:
        saturation(context, draw("s", *ranges["saturation"]))
    if hue is not None:
        hue_step(context, hue)
    parts = [name for name, found in ranges.items() if found] + (["hue"] if hue else [])
    if not parts:
        return Grade("exact", ("Changes nothing: no factor is set.",))
    if len(parts) == 1:  # no order to differ in; hue differs by a few levels on rare ties
        return Grade("approximate" if parts == ["hue"] else "exact", (ONE_FACTOR,))
    return grade(call.name, factors=len(parts))


def brightness(context: PortContext, factor: object) -> Ref:
    """torchvision's adjust_brightness: the image times `factor`."""
    return context.add("brightness", "brightness_contrast", {"brightness": factor})


def contrast(context: PortContext, factor: Callable[[], object]) -> Ref:
    """torchvision's adjust_contrast: centred on the grey mean of the image as it is here; the
    factor is made once the mean's nodes are (its seed follows them)."""
    gray = context.add(
        "contrast_gray",
        "color_space_conversion",
        {"image_type": "RGB", "output_type": "GRAY"},
        inputs=(context.image,),
        image=False,
    )
    as_float = context.add(
        "contrast_gray_float", "cast", {"dtype": "FLOAT"}, inputs=(gray,), image=False
    )
    mean = context.add("contrast_centre", "reductions.mean", {}, inputs=(as_float,), image=False)
    return context.add(
        "contrast", "brightness_contrast", {"contrast": factor(), "contrast_center": mean}
    )


def saturation(context: PortContext, factor: object) -> Ref:
    """torchvision's adjust_saturation: a blend with the grey image."""
    return context.add("saturation", "color_twist", {"saturation": factor})


def hue_step(context: PortContext, hue: tuple[float, float]) -> list[Ref]:
    """torchvision's adjust_hue with a factor drawn from `hue` (PIL's 8-bit HSV); returns the
    nodes that make the image (the rest compute on every sample)."""
    return hue_shift(context, drawn_once(context, "hue_draw", *hue))


def drawn_once(context: PortContext, base: str, low: float, high: float) -> Ref | float:
    """One value per sample from [low, high], as a node that several steps can read; the
    number itself where the range holds one."""
    if low == high:
        return low
    return context.add(base, "random.uniform", {"range": [low, high]}, image=False, seed=True)


def _gray(context: PortContext, channels: int, name: str) -> None:
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"{name} on a float tensor is not ported (fix: put it {BEFORE_FLOAT})")
    context.add("grayscale", "color_space_conversion", {"image_type": "RGB", "output_type": "GRAY"})
    if channels == 3:
        gray = context.image
        context.add("gray_rgb", "cat", {"axis_name": "C"}, inputs=(gray, gray, gray))
    context.state["channels"] = channels  # what a later ToTensor and Normalize convert


def grayscale(call: TransformCall, context: PortContext) -> Grade:
    channels = int(call.argument(0, "num_output_channels", 1))
    if channels not in (1, 3):
        raise Refuse(f"num_output_channels={channels}: torchvision takes 1 or 3")
    _gray(context, channels, call.name)
    return grade(call.name)


def random_grayscale(call: TransformCall, context: PortContext) -> Grade:
    """RandomGrayscale(p): grey in three channels, with probability p."""
    p = float(call.argument(0, "p", 0.1))
    _gray(context, 3, call.name)
    context.apply_with_probability(p)
    return grade(call.name)


def gaussian_blur(call: TransformCall, context: PortContext) -> Grade:
    """GaussianBlur(kernel_size, sigma=(0.1, 2.0)): one sigma drawn per image for both axes."""
    kx, ky = size_pair(call.argument(0, "kernel_size"), "kernel_size")
    given = call.argument(1, "sigma", (0.1, 2.0))
    if kx <= 0 or ky <= 0 or kx % 2 == 0 or ky % 2 == 0:
        raise Refuse(
            f"kernel_size={written(call.argument(0, 'kernel_size'))}: torchvision fails on it "
            "(ValueError: Kernel size value should be an odd and positive number) (fix: an odd "
            f"size, such as {max(3, abs(max(kx, ky)) // 2 * 2 + 1)})"
        )
    sigma = symmetric_range(given, "sigma", centre=0.0)
    if isinstance(given, int | float):
        sigma = (float(given), float(given))
    if not 0.0 < sigma[0] <= sigma[1]:
        raise Refuse(
            f"sigma={written(given)}: torchvision fails on it (ValueError: sigma must be "
            "positive, a (min, max) pair in order) (fix: such as sigma=(0.1, 2.0))"
        )
    drawn: object = sigma[0]
    if sigma[0] != sigma[1]:  # one sigma for both axes, as torchvision draws it
        drawn = context.add(
            "blur_sigma",
            "random.uniform",
            {"range": list(sigma)},
            image=False,
            seed=True,
        )
    context.add("gaussian_blur", "gaussian_blur", {"window_size": [ky, kx], "sigma": drawn})
    return grade(call.name)


def random_invert(call: TransformCall, context: PortContext) -> Grade:
    """RandomInvert(p): 255 - image, with probability p."""
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"RandomInvert on a float tensor is not ported (fix: put it {BEFORE_FLOAT})")
    p = float(call.argument(0, "p", 0.5))
    context.add("invert", "cast", {"dtype": "UINT8"}, inputs=(_invert(context),))
    context.apply_with_probability(p)
    return grade(call.name)


def _invert(context: PortContext) -> Ref:
    from ...expressions.nodes import expression

    node_id = context.fresh_id("inverted")
    node = expression(node_id, f"255 - {context.image.node}")
    context.add_node(node)
    return Ref(node_id)


def _chain_expression(context: PortContext, base: str, text: str, inputs: tuple[Ref, ...]) -> Ref:
    """An expression step on the image (it becomes the image): `text` names its inputs."""
    from ...expressions.nodes import expression

    node = expression(context.fresh_id(base), text, inputs)
    context.add_node(node)
    context.image = Ref(node.id)
    return context.image


def _uint8_only(context: PortContext, name: str) -> str:
    if context.state.get("layout", "HWC") != "HWC":
        raise Refuse(f"{name} on a float tensor is not ported (fix: put it {BEFORE_FLOAT})")
    return context.image.node


def random_posterize(call: TransformCall, context: PortContext) -> Grade:
    """RandomPosterize(bits, p=0.5): the low bits cleared, with probability p."""
    image = _uint8_only(context, call.name)
    bits = int(call.argument(0, "bits"))
    if not 0 <= bits <= 8:
        raise Refuse(f"bits={bits}: torchvision keeps 0 to 8 bits")
    mask = (0xFF << (8 - bits)) & 0xFF
    _chain_expression(context, "posterized", f"{image} & {mask}", (context.image,))
    context.add("posterize", "cast", {"dtype": "UINT8"})
    context.apply_with_probability(float(call.argument(1, "p", 0.5)))
    return grade(call.name)


def random_solarize(call: TransformCall, context: PortContext) -> Grade:
    """RandomSolarize(threshold, p=0.5): values at or above the threshold inverted."""
    _uint8_only(context, call.name)
    threshold = float(call.argument(0, "threshold"))
    wide = context.add("solarize_int", "cast", {"dtype": "INT32"})
    text = f"{wide.node} + ({wide.node} >= {threshold}) * (255 - 2 * {wide.node})"
    _chain_expression(context, "solarized", text, (wide,))
    context.add("solarize", "cast", {"dtype": "UINT8"})
    context.apply_with_probability(float(call.argument(1, "p", 0.5)))
    return grade(call.name)


def random_equalize(call: TransformCall, context: PortContext) -> Grade:
    """RandomEqualize(p=0.5): DALI's histogram equalization."""
    _uint8_only(context, call.name)
    context.add("equalize", "equalize", {})
    context.apply_with_probability(float(call.argument(0, "p", 0.5)))
    return grade(call.name)


def random_autocontrast(call: TransformCall, context: PortContext) -> Grade:
    """RandomAutocontrast(p=0.5): each channel stretched from its own minimum and maximum."""
    image = context.image
    _uint8_only(context, call.name)
    low = context.add(
        "autocontrast_min",
        "reductions.min",
        {"axes": [0, 1], "keep_dims": True},
        inputs=(image,),
        image=False,
    )
    high = context.add(
        "autocontrast_max",
        "reductions.max",
        {"axes": [0, 1], "keep_dims": True},
        inputs=(image,),
        image=False,
    )
    wide = context.add("autocontrast_float", "cast", {"dtype": "FLOAT"})
    text = (
        f"math.clamp(({wide.node} - {low.node}) * (255.0 / math.max({high.node} - {low.node}, "
        f"1.0)), 0.0, 255.0)"
    )
    _chain_expression(context, "autocontrasted", text, (wide, low, high))
    context.add("autocontrast", "cast", {"dtype": "UINT8"})
    context.apply_with_probability(float(call.argument(0, "p", 0.5)))
    return grade(call.name)
