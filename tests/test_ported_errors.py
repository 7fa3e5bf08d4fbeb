"""A failing node ported from torchvision is explained in torchvision's words."""

from __future__ import annotations

import dataclasses

from augexplorer.engine.ported_errors import in_library_words, transform_class
from augexplorer.errors import RunError
from augexplorer.spec import Origin

OUT_OF_BOUNDS = (
    "Slice can't be placed out of bounds with current policy. Got: input_shape={40 x 48 x 3}, "
    "slice_anchor={0 x 0 x 0}, slice_shape={56 x 56 x 3}"
)
CROP = Origin("torchvision", "RandomCrop(64, padding=4)", "distribution", line=7)


def dali_words(message: str = OUT_OF_BOUNDS) -> RunError:
    return RunError(
        "random_crop_size_check",
        message,
        fix="crop no more than the smallest image",
        argument="shape",
        explanation="the window shape=[56, 56] reaches outside the image",
    )


def test_a_ported_random_crop_on_a_small_image_names_pad_if_needed() -> None:
    said = in_library_words(dali_words(), CROP)
    assert said.node == "random_crop_size_check"
    assert said.fix is not None and said.fix.startswith("pass pad_if_needed=True to RandomCrop")
    assert "torchvision RandomCrop(64, padding=4): an image" in str(said)
    assert said.dali_message == OUT_OF_BOUNDS  # DALI's own text stays beside it
    assert "shape=[56, 56]" not in str(said)  # a window the user never wrote


def test_other_failures_and_other_nodes_keep_dalis_words() -> None:
    other = dali_words("Unexpected number of dimensions")
    assert in_library_words(other, CROP) is other
    plain = dali_words()
    assert in_library_words(plain, None) is plain
    flip = Origin("torchvision", "RandomHorizontalFlip()", "exact")
    assert in_library_words(plain, flip) is plain
    edited = dataclasses.replace(CROP, edited=("shape",))
    assert in_library_words(plain, edited) is plain  # now the user's DALI arguments


def test_the_class_is_read_with_or_without_its_module() -> None:
    assert transform_class(CROP) == "RandomCrop"
    assert transform_class(dataclasses.replace(CROP, transform="v2.RandomCrop(8)")) == "RandomCrop"


def test_an_albumentations_crop_on_a_small_image_names_its_fix() -> None:
    crop = Origin("albumentations", "RandomCrop(64, 64)", "distribution", line=3)
    said = in_library_words(dali_words(), crop)
    assert "albumentations raises here too (CropSizeError)" in str(said)
    assert said.fix is not None and "A.SmallestMaxSize or A.PadIfNeeded" in said.fix
