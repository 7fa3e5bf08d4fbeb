"""albumentations 2.0.8 transforms with no DALI counterpart, each with the nearest operator a
refusal names: said as such, instead of "not ported yet" with a generic fix. Ported ones live
with their kind (geometric, colour, ...); these stay refused until someone ports them."""

from __future__ import annotations

from .registry import refused

# weather and light effects drawn over the picture: no DALI operator draws such shapes
for _name in ("RandomFog", "RandomRain", "RandomSnow", "RandomSunFlare", "RandomShadow"):
    refused(_name, "python_function (DALI draws no weather or light effects)")
refused("RandomGravel", "python_function (DALI draws no gravel)")
refused("Spatter", "python_function (DALI draws no spatter)")
refused("PlasmaBrightnessContrast", "brightness_contrast (no plasma fractal map)")
refused("PlasmaShadow", "python_function (no plasma fractal map)")
refused("Illumination", "python_function (no illumination patterns)")
refused("RandomGridShuffle", "python_function (DALI shuffles no tiles)")
# box-safe crops: DALI's random_bbox_crop draws a window that keeps the boxes, then slice cuts it
for _name in (
    "RandomSizedBBoxSafeCrop",
    "BBoxSafeRandomCrop",
    "AtLeastOneBBoxRandomCrop",
    "RandomCropNearBBox",
):
    refused(_name, "random_bbox_crop and slice (a window that keeps the boxes)")
refused("RandomCropFromBorders", "slice with drawn rel_start and rel_shape")
refused("CropAndPad", "slice with out_of_bounds_policy='pad', then resize")
refused("ShotNoise", "noise.shot")
refused("AdditiveNoise", "noise.gaussian")
refused("MaskDropout", "erase (the mask's objects as its regions)")
refused("ConstrainedCoarseDropout", "erase (regions inside the mask's objects)")
refused("Morphological", "python_function (DALI has no erosion or dilation)")
refused("AutoContrast", "python_function (DALI stretches no per-image range)")
for _name in (
    "ChromaticAberration",
    "RingingOvershoot",
    "Superpixels",
    "ThinPlateSpline",
    "GridElasticDeform",
    "HistogramMatching",
    "PixelDistributionAdaptation",
    "FDA",
    "HEStain",
    "TextImage",
    "OverlayElements",
):
    refused(_name, "none")
refused("Mosaic", "none (it reads several images into one: the batch, not one image)")
