"""torchvision's hue shift (``ColorJitter(hue=...)`` on PIL images) as expression nodes.

DALI's ``hue``, ``hsv`` and ``color_twist`` turn hue in YIQ space; torchvision converts to PIL's
8-bit HSV, adds ``uint8(hue * 255)`` to H (wrapping) and converts back. These nodes compute
that conversion as PIL does it (H and S floored to 0..255, the RGB values of the way back
rounded), so the same hue factor gives the same pixels to within a few grey levels on rare
ties. The nodes compute on every sample; only the last one, which reads the image first, runs
under the transform's conditions.
"""

from __future__ import annotations

from ...spec import Ref
from ..build import PortContext
from .expression_steps import helper, image_from

R, G, B = "{f}[:, :, 0]", "{f}[:, :, 1]", "{f}[:, :, 2]"


def hue_shift(context: PortContext, factor: Ref | float) -> list[Ref]:
    """Shift the image's hue by `factor` (torchvision's, -0.5..0.5; a per-sample draw or a
    number) as torchvision does on PIL images; returns the steps that make the image."""
    image = context.image
    f = context.add("hue_float", "cast", {"dtype": "FLOAT"}, inputs=(image,), image=False).node
    r, g, b = (c.format(f=f) for c in (R, G, B))
    mx = helper(context, "hue_max", f"math.max({r}, math.max({g}, {b}))").node
    mn = helper(context, "hue_min", f"math.min({r}, math.min({g}, {b}))").node
    spread = f"math.max({mx} - {mn}, 1.0)"
    raw = helper(
        context,
        "hue_raw",
        f"({r} == {mx}) * ({g} - {b}) / {spread}"
        f" + (({g} == {mx}) & ({r} != {mx})) * (2.0 + ({b} - {r}) / {spread})"
        f" + (({r} != {mx}) & ({g} != {mx})) * (4.0 + ({r} - {g}) / {spread})",
    ).node
    turn = f"({raw} / 6.0 + 1.0)"
    hue = helper(
        context,
        "hue_h",
        f"math.clamp(math.floor(({turn} - math.floor({turn})) * 255.0), 0.0, 255.0)"
        f" * ({mx} > {mn})",
    ).node
    saturation = helper(
        context,
        "hue_s",
        f"math.clamp(math.floor(({mx} - {mn}) / math.max({mx}, 1.0) * 255.0), 0.0, 255.0)"
        f" * ({mx} > {mn})",
    ).node
    if isinstance(factor, Ref):
        # numpy's uint8(hue * 255): truncated toward zero, then wrapped
        t = f"{factor.node} * 255.0"
        shift = helper(
            context,
            "hue_shift",
            f"math.floor({t}) + ({factor.node} < 0) * (math.floor({t}) != {t}) + 256.0",
        ).node
    else:
        shift = str(float((int(factor * 255.0) + 256) % 256))
    total = f"({hue} + {shift})"
    sextant = helper(
        context, "hue_sextant", f"({total} - math.floor({total} / 256.0) * 256.0) * 6.0 / 255.0"
    ).node
    k = helper(
        context,
        "hue_k",
        f"math.floor({sextant}) - math.floor(math.floor({sextant}) / 6.0) * 6.0",
    ).node
    frac = f"({sextant} - math.floor({sextant}))"
    fs = f"({saturation} / 255.0)"
    p = helper(context, "hue_p", f"math.floor({mx} * (1.0 - {fs}) + 0.5)").node
    q = helper(context, "hue_q", f"math.floor({mx} * (1.0 - {fs} * {frac}) + 0.5)").node
    t_ = helper(context, "hue_t", f"math.floor({mx} * (1.0 - {fs} * (1.0 - {frac})) + 0.5)").node
    order = {
        "r": (mx, q, p, p, t_, mx),
        "g": (t_, mx, mx, q, p, p),
        "b": (p, p, t_, mx, mx, q),
    }
    channels = []
    for name, picks in order.items():
        text = " + ".join(f"({k} == {i}) * {pick}" for i, pick in enumerate(picks))
        channels.append(helper(context, f"hue_{name}", text))
    stacked = context.add("hue_rgb", "stack", {"axis": 2}, inputs=tuple(channels), image=False)
    as_bytes = context.add(
        "hue_rgb_uint8", "cast", {"dtype": "UINT8"}, inputs=(stacked,), image=False
    )
    return image_from(context, as_bytes, "hue", "hue_shifted")
