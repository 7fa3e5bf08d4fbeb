"""The arguments albumentations 2.x takes, transform by transform, and those it takes only as
pairs.

albumentations 2.x validates a transform's arguments against its ``__init__`` and ignores any
other name with a warning (``Argument(s) 'var_limit' are not valid for transform GaussNoise``),
its defaults applying; a required argument given only under a 1.x name (``height=``/``width=``
for ``RandomResizedCrop``'s ``size``) makes it fail. A Python file is ported as 2.x runs it, so
the port leaves out what 2.x leaves out (:func:`ignored_in_2x`). The table is each class's
``__init__`` parameters in albumentations 2.0.8 (``strict``, which every transform takes, left
out); ``tests/test_port_albumentations_names.py`` checks it against the library itself.

Some arguments 2.x takes only as a pair (its schema's type is a tuple): a single number there
fails its validation (``RandomResizedCrop(224, 224)``, 1.x's height and width, is 2.x's
``size=224, scale=224``), so the port refuses it as 2.x does rather than widen it
(:func:`single_numbers_2x_refuses`).

Some classes 2.x no longer has at all (``Cutout``, ``JpegCompression``, the ``IAA*`` family):
a file naming one fails there, so the port refuses it naming its 2.x replacement
(:func:`removed_in_2x`); and where a 1.x argument name has an obvious 2.x one, the note on the
names 2.x ignores says which to write instead (:func:`names_2x_for`).
"""

from __future__ import annotations

from typing import Any

from ..model import TransformCall

# The names, space-separated, per class
_NAMES: dict[str, str] = {
    "AdvancedBlur": "beta_limit blur_limit noise_limit p rotate_limit sigma_x_limit sigma_y_limit",
    "Affine": (
        "balanced_scale border_mode fill fill_mask fit_output interpolation keep_ratio "
        "mask_interpolation p rotate rotate_method scale shear translate_percent translate_px"
    ),
    "Blur": "blur_limit p",
    "CLAHE": "clip_limit p tile_grid_size",
    "CenterCrop": "border_mode fill fill_mask height p pad_if_needed pad_position width",
    "ChannelDropout": "channel_drop_range fill p",
    "ChannelShuffle": "p",
    "CoarseDropout": "fill fill_mask hole_height_range hole_width_range num_holes_range p",
    "ColorJitter": "brightness contrast hue p saturation",
    "Crop": "border_mode fill fill_mask p pad_if_needed pad_position x_max x_min y_max y_min",
    "D4": "p",
    "Defocus": "alias_blur p radius",
    "Downscale": "interpolation_pair p scale_range",
    "ElasticTransform": (
        "alpha approximate border_mode fill fill_mask interpolation keypoint_remapping_method "
        "mask_interpolation noise_distribution p same_dxdy sigma"
    ),
    "Emboss": "alpha p strength",
    "Equalize": "by_channels mask mask_params mode p",
    "Erasing": "fill fill_mask p ratio scale",
    "FancyPCA": "alpha p",
    "FromFloat": "dtype max_value p",
    "GaussNoise": "mean_range noise_scale_factor p per_channel std_range",
    "GaussianBlur": "blur_limit p sigma_limit",
    "GlassBlur": "iterations max_delta mode p sigma",
    "GridDistortion": (
        "border_mode distort_limit fill fill_mask interpolation keypoint_remapping_method "
        "mask_interpolation normalized num_steps p"
    ),
    "GridDropout": "fill fill_mask holes_number_xy p random_offset ratio shift_xy unit_size_range",
    "HorizontalFlip": "p",
    "HueSaturationValue": "hue_shift_limit p sat_shift_limit val_shift_limit",
    "ISONoise": "color_shift intensity p",
    "ImageCompression": "compression_type p quality_range",
    "InvertImg": "p",
    "LongestMaxSize": "area_for_downscale interpolation mask_interpolation max_size max_size_hw p",
    "MedianBlur": "blur_limit p",
    "MotionBlur": "allow_shifted angle_range blur_limit direction_range p",
    "MultiplicativeNoise": "elementwise multiplier p per_channel",
    "NoOp": "p",
    "Normalize": "max_pixel_value mean normalization p std",
    "OpticalDistortion": (
        "border_mode distort_limit fill fill_mask interpolation keypoint_remapping_method "
        "mask_interpolation mode p"
    ),
    "PadIfNeeded": (
        "border_mode fill fill_mask min_height min_width p pad_height_divisor pad_width_divisor "
        "position"
    ),
    "Perspective": (
        "border_mode fill fill_mask fit_output interpolation keep_size mask_interpolation p scale"
    ),
    "PiecewiseAffine": (
        "absolute_scale border_mode fill fill_mask interpolation keypoint_remapping_method "
        "mask_interpolation nb_cols nb_rows p scale"
    ),
    "PixelDropout": "drop_value dropout_prob mask_drop_value p per_channel",
    "PlanckianJitter": "mode p sampling_method temperature_limit",
    "Posterize": "num_bits p",
    "RGBShift": "b_shift_limit g_shift_limit p r_shift_limit",
    "RandomBrightnessContrast": (
        "brightness_by_max brightness_limit contrast_limit ensure_safe_range p"
    ),
    "RandomCrop": "border_mode fill fill_mask height p pad_if_needed pad_position width",
    "RandomGamma": "gamma_limit p",
    "RandomResizedCrop": "area_for_downscale interpolation mask_interpolation p ratio scale size",
    "RandomRotate90": "p",
    "RandomScale": "area_for_downscale interpolation mask_interpolation p scale_limit",
    "RandomSizedCrop": (
        "area_for_downscale interpolation mask_interpolation min_max_height p size w2h_ratio"
    ),
    "RandomToneCurve": "p per_channel scale",
    "Resize": "area_for_downscale height interpolation mask_interpolation p width",
    "Rotate": (
        "border_mode crop_border fill fill_mask interpolation limit mask_interpolation p "
        "rotate_method"
    ),
    "SafeRotate": (
        "border_mode fill fill_mask interpolation limit mask_interpolation p rotate_method"
    ),
    "SaltAndPepper": "amount p salt_vs_pepper",
    "Sharpen": "alpha kernel_size lightness method p sigma",
    "ShiftScaleRotate": (
        "border_mode fill fill_mask interpolation mask_interpolation p rotate_limit rotate_method "
        "scale_limit shift_limit shift_limit_x shift_limit_y"
    ),
    "SmallestMaxSize": "area_for_downscale interpolation mask_interpolation max_size max_size_hw p",
    "Solarize": "p threshold_range",
    "SquareSymmetry": "p",
    "ToFloat": "max_value p",
    "ToGray": "method num_output_channels p",
    "ToRGB": "num_output_channels p",
    "ToSepia": "p",
    "Transpose": "p",
    "UnsharpMask": "alpha blur_limit p sigma_limit threshold",
    "VerticalFlip": "p",
    "XYMasking": "fill fill_mask mask_x_length mask_y_length num_masks_x num_masks_y p",
    "ZoomBlur": "max_factor p step_factor",
    # transforms refused with their nearest operator (not_ported.py)
    "AdditiveNoise": "approximation noise_params noise_type p spatial_mode",
    "AtLeastOneBBoxRandomCrop": "erosion_factor height p width",
    "AutoContrast": "cutoff ignore method p",
    "BBoxSafeRandomCrop": "erosion_rate p",
    "ChromaticAberration": (
        "interpolation mode p primary_distortion_limit secondary_distortion_limit"
    ),
    "ConstrainedCoarseDropout": (
        "bbox_labels fill fill_mask hole_height_range hole_width_range mask_indices "
        "num_holes_range p"
    ),
    "CropAndPad": (
        "border_mode fill fill_mask interpolation keep_size mask_interpolation p percent px "
        "sample_independently"
    ),
    "FDA": "beta_limit metadata_key p read_fn reference_images",
    "GridElasticDeform": "interpolation magnitude mask_interpolation num_grid_xy p",
    "HEStain": "augment_background intensity_scale_range intensity_shift_range method p preset",
    "HistogramMatching": "blend_ratio metadata_key p read_fn reference_images",
    "Illumination": "angle_range center_range effect_type intensity_range mode p sigma_range",
    "MaskDropout": "fill fill_mask max_objects p",
    "Morphological": "operation p scale",
    "Mosaic": (
        "cell_shape center_range fill fill_mask fit_mode grid_yx interpolation mask_interpolation "
        "metadata_key p target_size"
    ),
    "OverlayElements": "metadata_key p",
    "PixelDistributionAdaptation": (
        "blend_ratio metadata_key p read_fn reference_images transform_type"
    ),
    "PlasmaBrightnessContrast": "brightness_range contrast_range p plasma_size roughness",
    "PlasmaShadow": "p plasma_size roughness shadow_intensity_range",
    "RandomCropFromBorders": "crop_bottom crop_left crop_right crop_top p",
    "RandomCropNearBBox": "cropping_bbox_key max_part_shift p",
    "RandomFog": "alpha_coef fog_coef_range p",
    "RandomGravel": "gravel_roi number_of_patches p",
    "RandomGridShuffle": "grid p",
    "RandomRain": (
        "blur_value brightness_coefficient drop_color drop_length drop_width p rain_type "
        "slant_range"
    ),
    "RandomShadow": "num_shadows_limit p shadow_dimension shadow_intensity_range shadow_roi",
    "RandomSizedBBoxSafeCrop": "erosion_rate height interpolation mask_interpolation p width",
    "RandomSnow": "brightness_coeff method p snow_point_range",
    "RandomSunFlare": (
        "angle_range flare_roi method num_flare_circles_range p src_color src_radius"
    ),
    "RingingOvershoot": "blur_limit cutoff p",
    "ShotNoise": "p scale_range",
    "Spatter": "color cutout_threshold gauss_sigma intensity mean mode p std",
    "Superpixels": "interpolation max_size n_segments p p_replace",
    "TextImage": (
        "augmentations clear_bg font_color font_path font_size_fraction_range fraction_range "
        "metadata_key p stopwords"
    ),
    "ThinPlateSpline": (
        "border_mode fill fill_mask interpolation keypoint_remapping_method mask_interpolation "
        "num_control_points p scale_range"
    ),
}


def _split(table: dict[str, str]) -> dict[str, frozenset[str]]:
    """A table of space-separated names as sets."""
    return {name: frozenset(names.split()) for name, names in table.items()}


PARAMETERS_2X = _split(_NAMES)
EVERY_TRANSFORM = frozenset({"strict"})

# The arguments whose type in 2.0.8's schema is a tuple and nothing else (None aside)
_PAIRS: dict[str, str] = {
    "CLAHE": "tile_grid_size",
    "ChannelDropout": "channel_drop_range",
    "CoarseDropout": "hole_height_range hole_width_range num_holes_range",
    "Downscale": "scale_range",
    "Emboss": "alpha strength",
    "Erasing": "ratio scale",
    "GaussNoise": "mean_range std_range",
    "GridDropout": "shift_xy",
    "ISONoise": "color_shift intensity",
    "ImageCompression": "quality_range",
    "LongestMaxSize": "max_size_hw",
    "MotionBlur": "angle_range direction_range",
    "MultiplicativeNoise": "multiplier",
    "RandomResizedCrop": "ratio scale size",
    "RandomSizedCrop": "size",
    "SaltAndPepper": "amount salt_vs_pepper",
    "Sharpen": "alpha lightness",
    "SmallestMaxSize": "max_size_hw",
    "Solarize": "threshold_range",
    # transforms refused with their nearest operator (not_ported.py)
    "ConstrainedCoarseDropout": "hole_height_range hole_width_range num_holes_range",
    "GridElasticDeform": "num_grid_xy",
    "HEStain": "intensity_scale_range intensity_shift_range",
    "HistogramMatching": "blend_ratio",
    "Illumination": "angle_range center_range intensity_range sigma_range",
    "Mosaic": "cell_shape center_range grid_yx target_size",
    "PixelDistributionAdaptation": "blend_ratio",
    "PlasmaBrightnessContrast": "brightness_range contrast_range",
    "PlasmaShadow": "shadow_intensity_range",
    "RandomFog": "fog_coef_range",
    "RandomGravel": "gravel_roi",
    "RandomGridShuffle": "grid",
    "RandomRain": "drop_color slant_range",
    "RandomShadow": "num_shadows_limit shadow_intensity_range shadow_roi",
    "RandomSnow": "snow_point_range",
    "RandomSunFlare": "angle_range flare_roi num_flare_circles_range src_color",
    "RingingOvershoot": "cutoff",
    "ShotNoise": "scale_range",
    "TextImage": "augmentations font_color font_size_fraction_range fraction_range stopwords",
    "ThinPlateSpline": "scale_range",
}
PAIRS_ONLY_2X = _split(_PAIRS)


def ignored_in_2x(call: TransformCall) -> tuple[str, ...]:
    """The names of `call`'s keyword arguments albumentations 2.x ignores (empty for a
    transform outside the table: the port reads what it knows of those)."""
    known = PARAMETERS_2X.get(call.name)
    if known is None:
        return ()
    return tuple(name for name in call.kwargs if name not in known and name not in EVERY_TRANSFORM)


def single_numbers_2x_refuses(
    call: TransformCall, positional: tuple[str, ...]
) -> tuple[tuple[str, Any], ...]:
    """`call`'s arguments (by name, or by place in `positional`, 2.x's order) that 2.x takes
    only as pairs and that are given as a single number: (name, value) each."""
    pairs = PAIRS_ONLY_2X.get(call.name, frozenset())
    given = {**dict(zip(positional, call.args, strict=False)), **call.kwargs}
    return tuple(
        (name, value)
        for name, value in given.items()
        if name in pairs and isinstance(value, (int, float)) and not isinstance(value, bool)
    )


# Classes albumentations 2.x does not have (``hasattr(A, name)`` is False in 2.0.8): the last
# version that had each (in the library's git tags: the next version lacks it) and what
# replaces it
REMOVED_IN_2X: dict[str, tuple[str, str]] = {
    "Flip": ("1.4.24", "HorizontalFlip or VerticalFlip (Flip drew one of the two or both)"),
    "Cutout": (
        "1.4.0",
        "CoarseDropout (Cutout(num_holes, max_h_size, max_w_size, fill_value) is "
        "CoarseDropout(num_holes_range=(n, n), hole_height_range=(h, h), "
        "hole_width_range=(w, w), fill=fill_value))",
    ),
    "RandomBrightness": (
        "1.4.0",
        "RandomBrightnessContrast (RandomBrightness(limit) is "
        "RandomBrightnessContrast(brightness_limit=limit, contrast_limit=0))",
    ),
    "RandomContrast": (
        "1.4.0",
        "RandomBrightnessContrast (RandomContrast(limit) is "
        "RandomBrightnessContrast(brightness_limit=0, contrast_limit=limit))",
    ),
    "JpegCompression": (
        "1.4.0",
        "ImageCompression (JpegCompression(quality_lower, quality_upper) is "
        "ImageCompression(quality_range=(quality_lower, quality_upper)))",
    ),
    "IAAAdditiveGaussianNoise": ("1.4.0", "GaussNoise"),
    "IAAAffine": ("1.4.0", "Affine"),
    "IAACropAndPad": ("1.4.0", "CropAndPad"),
    "IAAEmboss": ("1.4.0", "Emboss"),
    "IAAFliplr": ("1.4.0", "HorizontalFlip"),
    "IAAFlipud": ("1.4.0", "VerticalFlip"),
    "IAAPerspective": ("1.4.0", "Perspective"),
    "IAAPiecewiseAffine": ("1.4.0", "PiecewiseAffine"),
    "IAASharpen": ("1.4.0", "Sharpen"),
    "IAASuperpixels": ("1.4.0", "Superpixels"),
    # albumentations.pytorch's; 1.0.0 kept the name only to raise on it
    "ToTensor": (
        "1.0.0",
        "ToTensorV2 (which keeps the values: ToTensor divided uint8 images by 255; put "
        "Normalize or ToFloat before it)",
    ),
}


def removed_in_2x(name: str) -> str | None:
    """Why class `name` is refused where albumentations 2.x has no such class, naming its
    replacement; None for a class 2.x has."""
    removed = REMOVED_IN_2X.get(name)
    if removed is None:
        return None
    version, replacement = removed
    return (
        f"{name} does not exist in albumentations 2.x (its last version was {version}); its "
        f"replacement is {replacement}"
    )


# 1.x argument names whose 2.x name is plain (2.x ignores the old name, so the port does too;
# these only say what to write instead), with how the value changes where it does
_RENAMED_1X: dict[str, str] = {
    "max_holes": "num_holes_range",
    "min_holes": "num_holes_range",
    "max_height": "hole_height_range",
    "min_height": "hole_height_range",
    "max_width": "hole_width_range",
    "min_width": "hole_width_range",
    "fill_value": "fill",
    "mask_fill_value": "fill_mask",
    "value": "fill",
    "mask_value": "fill_mask",
    "cval": "fill",
    "cval_mask": "fill_mask",
    "pad_cval": "fill",
    "pad_cval_mask": "fill_mask",
    "pad_val": "fill",
    "mask_pad_val": "fill_mask",
    "pad_mode": "border_mode",
    "mode": "border_mode",  # Affine's; a class taking mode in 2.x keeps it (never ignored)
    "var_limit": "std_range (std = sqrt(var)/255)",
    "quality_lower": "quality_range",
    "quality_upper": "quality_range",
    "scale_min": "scale_range",
    "scale_max": "scale_range",
    "holes_number_x": "holes_number_xy",
    "holes_number_y": "holes_number_xy",
    "unit_size_min": "unit_size_range",
    "unit_size_max": "unit_size_range",
    "shift_x": "shift_xy",
    "shift_y": "shift_xy",
}


def names_2x_for(name: str, ignored: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """For the 1.x names `ignored` of class `name`'s call, (1.x name, its 2.x name) where the
    2.x one is plain and class `name` takes it in 2.x."""
    known = PARAMETERS_2X.get(name, frozenset())
    found = []
    for old in ignored:
        new = _RENAMED_1X.get(old)
        if new is not None and new.split()[0] in known:
            found.append((old, new))
    return tuple(found)


__all__ = [
    "PAIRS_ONLY_2X",
    "PARAMETERS_2X",
    "REMOVED_IN_2X",
    "ignored_in_2x",
    "names_2x_for",
    "removed_in_2x",
    "single_numbers_2x_refuses",
]
