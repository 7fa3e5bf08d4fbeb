"""Pictures of node outputs: layouts, dtypes, grayscale, ragged batches, normalization."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from augexplorer import Session
from augexplorer.cli import main
from augexplorer.presets import IMAGENET_MEAN, IMAGENET_STD
from augexplorer.render import Normalization, encode, grid, render_node, to_rgb8

RNG = np.random.default_rng(0)
PICTURE = RNG.integers(0, 256, size=(30, 40, 3), dtype=np.uint8)


def test_layouts_give_the_same_picture() -> None:
    assert np.array_equal(to_rgb8(PICTURE, "HWC"), PICTURE)
    assert np.array_equal(to_rgb8(np.transpose(PICTURE, (2, 0, 1)), "CHW"), PICTURE)
    assert np.array_equal(to_rgb8(np.transpose(PICTURE, (2, 0, 1))), PICTURE)  # guessed
    sequence = np.stack([PICTURE, PICTURE // 2])
    assert np.array_equal(to_rgb8(sequence, "FHWC"), PICTURE)


def test_grayscale_and_alpha_become_rgb() -> None:
    gray = PICTURE[:, :, 0]
    out = to_rgb8(gray, "HW")
    assert out.shape == (30, 40, 3) and np.array_equal(out[:, :, 2], gray)
    rgba = np.concatenate([PICTURE, np.full((30, 40, 1), 7, np.uint8)], axis=2)
    assert np.array_equal(to_rgb8(rgba, "HWC"), PICTURE)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_floats_in_unit_range_and_normalized_floats(dtype: type) -> None:
    unit = (PICTURE / 255.0).astype(dtype)
    assert np.abs(to_rgb8(unit).astype(int) - PICTURE).max() <= 1
    norm = Normalization(mean=(120.0, 110.0, 100.0), std=(60.0, 50.0, 40.0))
    normalized = ((PICTURE - np.array(norm.mean)) / np.array(norm.std)).astype(dtype)
    back = to_rgb8(normalized, "HWC", norm).astype(int)
    assert np.abs(back - PICTURE).max() <= (1 if dtype == np.float32 else 2)


def test_wide_integers_are_scaled() -> None:
    wide = PICTURE.astype(np.uint16) * 257
    assert np.abs(to_rgb8(wide).astype(int) - PICTURE).max() <= 1


def test_ragged_batch_grid_with_captions() -> None:
    samples = [PICTURE, PICTURE[:10], np.transpose(PICTURE, (1, 0, 2))]
    plain = grid(samples, cell=64)
    captioned = grid(samples, cell=64, captions=["cat angle=3", "dog", "bird"])
    assert plain.width == captioned.width == 3 * 68 + 4
    assert captioned.height > plain.height
    tile = np.asarray(plain)[4:68, 4:68]
    assert tile.std() > 10  # the first tile holds the picture, not background


def test_non_image_outputs_are_shown_as_values() -> None:
    matrices = [np.eye(2, 3, dtype=np.float32) * k for k in range(3)]
    picture = grid(matrices, cell=96)
    assert picture.size[0] > 96 and np.asarray(picture).min() < 100  # some dark text drawn


def test_normalized_preset_renders_back_to_pixels() -> None:
    session = Session("imagenet_val", batch_size=2, device_id=None)
    result = session.run()
    picture = np.asarray(render_node(result, cell=224, captions=False))
    normalized = result.arrays("normalize")[0]  # CHW float32
    mean, std = np.array(IMAGENET_MEAN), np.array(IMAGENET_STD)
    expected = np.clip(np.transpose(normalized, (1, 2, 0)) * std + mean, 0, 255)
    shown = picture[4 : 4 + 224, 4 : 4 + 224].astype(float)
    assert np.abs(shown - expected).max() <= 1.0
    # ... and those are the resized image's pixels, not a washed-out float picture.
    assert 60 < shown.mean() < 200 and shown.std() > 20


def test_a_padded_channel_is_left_as_it_is_and_the_picture_drawn() -> None:
    """crop_mirror_normalize(pad_output=True) adds a fourth channel of zeros after the three
    normalized ones (DALI's NHWC ResNet recipes): rendering it crashed on broadcasting three
    means over four channels."""
    norm = Normalization(mean=(120.0, 110.0, 100.0), std=(60.0, 50.0, 40.0))
    rng = np.random.default_rng(5)
    rgb = rng.normal(size=(12, 10, 3)).astype(np.float32)
    padded = np.concatenate([rgb, np.zeros((12, 10, 1), np.float32)], axis=2)
    np.testing.assert_array_equal(to_rgb8(padded, "HWC", norm), to_rgb8(rgb, "HWC", norm))
    np.testing.assert_array_equal(
        to_rgb8(np.moveaxis(padded, -1, 0), "CHW", norm), to_rgb8(rgb, "HWC", norm)
    )


def test_any_node_can_be_rendered_and_encoded() -> None:
    result = Session("random_affine", batch_size=3, device_id=None).run()
    for node in ("resize", "scale", "warp"):
        data = encode(render_node(result, node), "png")
        assert Image.open(io.BytesIO(data)).format == "PNG"
    assert Image.open(io.BytesIO(encode(render_node(result)))).format == "JPEG"


def test_cli_render_writes_a_grid_and_never_overwrites(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "grid.png"
    assert main(["render", "basic", "--batch-size", "4", "--node", "rotate", "-o", str(out)]) == 0
    assert Image.open(out).format == "PNG"
    assert main(["render", "basic", "--batch-size", "4", "-o", str(out)]) == 2
    assert main(["render", "basic", "--node", "nope", "-o", str(tmp_path / "x.jpg")]) == 2


def test_captions_outside_latin1_do_not_break_the_grid() -> None:
    picture = grid([PICTURE], captions=["кошка 猫 angle=3"], cell=64)
    assert picture.height > 64


def test_how_values_are_drawn_is_said_for_every_kind_but_8_bit_pixels() -> None:
    from augexplorer.render.display import drawn_as

    assert drawn_as(np.uint8, None) == ""
    norm = Normalization(mean=(120.0,), std=(60.0,), node="cmn")
    assert drawn_as(np.float32, norm) == (
        "float32 values drawn as pixels: cmn's normalization undone (value * std + mean)"
    )
    scaled = Normalization(mean=(120.0,), std=(60.0,), scale=64.0, shift=128.0, node="norm")
    assert "norm's normalization undone ((value - shift) / scale * std + mean)" in drawn_as(
        "float16", scaled
    )
    assert drawn_as(np.float32, None).startswith("float32 values drawn as pixels: times 255")
    assert "divided by 257" in drawn_as(np.uint16, None)
    assert drawn_as(np.bool_, None) == "bool values drawn black (false) and white (true)"


def test_captions_take_as_many_lines_as_asked() -> None:
    """A long caption (a crop window, a flip and an angle) is cut after two lines by default;
    `caption_lines` gives it room."""
    result = Session("reference", batch_size=2, device_id=None).run()
    short = render_node(result, cell=120, reuse=False)
    tall = render_node(result, cell=120, reuse=False, caption_lines=5)
    assert tall.size[0] == short.size[0] and tall.size[1] > short.size[1]
