"""Class colours: the curated twelve first, then colours of their own for later classes."""

from __future__ import annotations

import itertools

import numpy as np

from augexplorer.render.palette import PALETTE, class_colour, class_rgb, text_colour


def _cielab(rgb: np.ndarray) -> np.ndarray:
    """sRGB (0-255) to CIELAB under D65."""
    linear = rgb / 255.0
    linear = np.where(linear <= 0.04045, linear / 12.92, ((linear + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
    )
    xyz = linear @ to_xyz.T / np.array([0.9505, 1.0, 1.089])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1
    )


def _closest(labels: range) -> float:
    lab = _cielab(np.array([class_rgb(label) for label in labels], np.float64))
    return min(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(lab, 2))


def test_the_first_twelve_classes_keep_the_curated_colours() -> None:
    assert [class_colour(label) for label in range(1, 13)] == list(PALETTE)


def test_no_two_of_the_first_255_classes_share_a_colour() -> None:
    # a VOC horse (13) was drawn as its aeroplane (1), a class interpolated between two ids
    # could take a real class's colour; sources counting from 0 (and below) too
    assert len({class_colour(label) for label in range(-255, 256)}) == 511


def test_the_first_classes_differ_to_the_eye() -> None:
    # CIELAB distance: about 2.3 is the least a person notices; 10 is plainly another colour
    assert _closest(range(1, 22)) > 15
    assert _closest(range(1, 41)) > 10


def test_every_class_colour_is_a_colour_with_readable_text() -> None:
    for label in (0, 13, 40, 91, 255):
        colour = class_colour(label)
        assert len(colour) == 7 and int(colour[1:], 16) >= 0
        assert text_colour(label) in ("#000000", "#ffffff")
