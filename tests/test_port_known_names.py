"""Names users know from torchvision and albumentations find the DALI operators their ports make,
in Catalog.search and in the panel's operator picker; the names come from the mappings."""

from __future__ import annotations

import importlib

import pytest

from augexplorer.catalog import Catalog
from augexplorer.port.door import PORTED_LIBRARIES
from augexplorer.port.known_names import known_names, ops_known_as


def _names(ops: list) -> list[str]:  # type: ignore[type-arg]
    return [op.name for op in ops]


@pytest.mark.parametrize(
    ("text", "op"),
    [
        ("RandomResizedCrop", "random_resized_crop"),
        ("random resized crop", "random_resized_crop"),
        ("HorizontalFlip", "flip"),
        ("RandomHorizontalFlip", "flip"),
        ("ColorJitter", "color_twist"),
        ("ColorJitter", "brightness_contrast"),
        ("GaussianBlur", "gaussian_blur"),
        ("RandomAffine", "warp_affine"),
        ("CoarseDropout", "erase"),
    ],
)
def test_catalog_search_finds_the_operator_a_transform_is_ported_to(
    catalog: Catalog, text: str, op: str
) -> None:
    assert op in _names(catalog.search(text))


def test_a_whole_name_ranks_its_operator_first(catalog: Catalog) -> None:
    assert _names(catalog.search("RandomResizedCrop")) == ["random_resized_crop"]
    assert _names(catalog.search("HorizontalFlip"))[0] == "flip"
    assert _names(catalog.search("rot"))[0] == "rotate"  # names still first, as before
    assert catalog.search("xyzzy") == [] and len(catalog.search("")) == len(catalog.names())


def test_the_names_come_from_every_mapping_and_name_no_plumbing() -> None:
    names = known_names()
    every = {name for ported in names.values() for name in ported}
    for library in PORTED_LIBRARIES:
        examples = importlib.import_module(f"augexplorer.port.{library}").EXAMPLES
        assert len(every & set(examples)) > 20, library
    assert not any(op.startswith(("random.", "source.", "decoders.")) for op in names)
    assert "cast" not in names and "expression" not in names
    assert ops_known_as("RandomInvert") == []  # arithmetic only: no operator to find
    assert ops_known_as("ab") == []


def test_the_picker_finds_operators_by_the_names_users_know(catalog: Catalog) -> None:
    from augexplorer_widgets.op_picker import OpPicker

    picker = OpPicker(catalog, lambda op: None)
    assert [i["name"] for i in picker.matches("HorizontalFlip")] == ["flip"]
    assert "color_twist" in [i["name"] for i in picker.matches("colorjitter")]
    flip = next(i for i in picker.items if i["name"] == "flip")
    assert {"HorizontalFlip", "RandomHorizontalFlip", "VerticalFlip"} <= set(flip["known"])


def test_words_in_an_operators_own_name_rank_before_ported_names(catalog: Catalog) -> None:
    from augexplorer_widgets.op_picker import OpPicker

    picker = OpPicker(catalog, lambda op: None)
    found = [i["name"] for i in picker.matches("random crop")]
    # `crop` is found too (torchvision's RandomCrop is ported to it), after DALI's own name
    assert found.index("random_resized_crop") < found.index("crop")
    assert next(i["name"] for i in picker.matches("randomcrop")) != "random_resized_crop"
