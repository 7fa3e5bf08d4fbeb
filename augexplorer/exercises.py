"""The check cells of the teaching notebooks' exercises.

Every check takes the learner's answer. ``None`` (the placeholder the notebooks ship with) is
not attempted yet: the check says what to do and passes, so a notebook runs top to bottom as
committed. A wrong answer raises :class:`WrongAnswer` with a hint; a right one returns a line
saying why it is right. Each check works out the expected value itself, from the same data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .spec.schedule import Schedule
from .spec.seeds import rank_seed


class WrongAnswer(AssertionError):
    """The answer is not right yet; the message is the hint."""


def _unattempted(answer: object, task: str) -> str | None:
    if answer is None:
        return f"Not attempted yet: {task}"
    return None


# ---- one seed per GPU ---------------------------------------------------------------------------


def check_seed_per_rank(seed_for: Callable[[int], int] | None, seed: int = 42) -> str:
    """`seed_for(rank)`: the seed rank `rank` of a torchrun job draws with, for a graph whose
    random node has `seed`. Rank 0 keeps `seed` (what the explorer showed); no two of 8 ranks
    share one."""
    pending = _unattempted(seed_for, "replace None with a function seed_for(rank) -> int.")
    if pending:
        return pending
    assert seed_for is not None
    seeds = [seed_for(rank) for rank in range(8)]
    if not all(isinstance(value, int) and 0 <= value < 2**31 for value in seeds):
        raise WrongAnswer(f"seeds must be integers from 0 to 2**31 - 1; got {seeds}")
    if seeds[0] != seed:
        raise WrongAnswer(
            f"rank 0 should draw with the graph's own seed {seed} (what you saw in the "
            f"explorer); yours gives {seeds[0]}"
        )
    if len(set(seeds)) != len(seeds):
        raise WrongAnswer(
            f"some ranks share a seed ({seeds}): those GPUs draw the same angles for their k-th "
            "images, so the job sees fewer different augmentations. Hint: derive each rank's "
            "seed from the graph's seed and the rank, e.g. with augexplorer's rank_seed."
        )
    same_rule = seeds == [rank_seed(seed, rank) for rank in range(8)]
    return "Right: every rank draws its own values" + (
        ", with the rule the exported module uses (rank_seed)." if same_rule else "."
    )


# ---- boxes --------------------------------------------------------------------------------------


def check_boxes_in_pixels(
    to_pixels: Callable[[Any, int, int], Any] | None,
) -> str:
    """`to_pixels(boxes, width, height)`: boxes as fractions of the image, ``[l, t, r, b]`` per
    row, to pixel corners as a torchvision detection model takes them (``boxes`` in ``x1, y1,
    x2, y2`` pixels)."""
    pending = _unattempted(to_pixels, "replace None with to_pixels(boxes, width, height).")
    if pending:
        return pending
    assert to_pixels is not None
    fractions = np.array([[0.1, 0.2, 0.5, 0.9], [0.0, 0.0, 1.0, 1.0]], dtype=np.float32)
    width, height = 640, 480
    expected = fractions * np.array([width, height, width, height], dtype=np.float32)
    got = np.asarray(to_pixels(fractions.copy(), width, height), dtype=np.float64)
    if got.shape != expected.shape:
        raise WrongAnswer(
            f"expected one row of 4 numbers per box {expected.shape}; got {got.shape}"
        )
    if np.allclose(got, fractions):
        raise WrongAnswer(
            "these are still fractions: a torchvision model reads them as boxes under one "
            "pixel in size. Multiply x by the width and y by the height."
        )
    if np.allclose(got, fractions * np.array([height, width, height, width])):
        raise WrongAnswer("x and y are swapped: x (l, r) goes with the width, y with the height")
    if not np.allclose(got, expected, atol=1e-3):
        raise WrongAnswer(f"for a {width} x {height} image expected {expected.tolist()}; got {got}")
    return "Right: l and r times the width, t and b times the height."


def rotated_box(box: Sequence[float], degrees: float, centre: Sequence[float]) -> list[float]:
    """The axis-aligned box (``l, t, r, b``) around `box` turned by `degrees` about `centre`:
    what a box becomes when its image is rotated."""
    left, top, right, bottom = box
    cx, cy = centre
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    turned = [
        (cx + (x - cx) * c - (y - cy) * s, cy + (x - cx) * s + (y - cy) * c) for x, y in corners
    ]
    xs, ys = [x for x, _ in turned], [y for _, y in turned]
    return [min(xs), min(ys), max(xs), max(ys)]


def check_inflated_box(area_ratio: float | None) -> str:
    """`area_ratio`: how many times larger than the original the axis-aligned box of a 100 x 100
    square becomes when the image turns by 45 degrees."""
    pending = _unattempted(area_ratio, "replace None with the area ratio (a number).")
    if pending:
        return pending
    assert area_ratio is not None
    left, top, right, bottom = rotated_box([0.0, 0.0, 100.0, 100.0], 45.0, (50.0, 50.0))
    expected = (right - left) * (bottom - top) / (100.0 * 100.0)
    if math.isclose(float(area_ratio), 1.0, abs_tol=0.01):
        raise WrongAnswer(
            "the object keeps its area, but its box does not: the box must hold the turned "
            "square's corners. Work out the box of the four rotated corners."
        )
    if not math.isclose(float(area_ratio), expected, rel_tol=0.01):
        raise WrongAnswer(
            f"not quite ({area_ratio}): at 45 degrees the square's diagonal, 100 * sqrt(2), "
            "becomes the box's width and its height"
        )
    return f"Right: {expected:.2f} times the area, so a rotated box holds much background."


# ---- rotation corners ---------------------------------------------------------------------------


def check_no_black_corners(images: Sequence[np.ndarray] | None, size: tuple[int, int]) -> str:
    """`images`: the batch of a rotation (HWC uint8) that keeps each image's `size` (height,
    width) and leaves no black corner: no 4 x 4 corner patch is all (0, 0, 0)."""
    pending = _unattempted(images, "replace None with your graph's output arrays.")
    if pending:
        return pending
    assert images is not None
    for index, image in enumerate(images):
        if tuple(image.shape[:2]) != tuple(size):
            raise WrongAnswer(
                f"image {index} is {image.shape[1]} x {image.shape[0]}, not {size[1]} x "
                f"{size[0]}: a rotation without keep_size=True grows its canvas to hold the "
                "turned image. Set keep_size=True."
            )
        # a 4 x 4 patch of pure black: no bundled picture has one in any corner
        corners = [image[:4, :4], image[:4, -4:], image[-4:, :4], image[-4:, -4:]]
        if any(not np.any(patch) for patch in corners):
            raise WrongAnswer(
                f"image {index} still has a black corner: fill_value=0 paints what the turn "
                "uncovers black. Leave fill_value unset (DALI repeats the edge pixels), or crop "
                "the centre after the turn."
            )
    return "Right: the size is kept and no corner is black."


# ---- loaders ------------------------------------------------------------------------------------


def check_last_batch(sizes: Sequence[int] | None, images: int, batch_size: int) -> str:
    """`sizes`: the number of images in each batch of one epoch over `images` images, with the
    last batch partial (as ``LastBatchPolicy.PARTIAL`` gives it)."""
    pending = _unattempted(sizes, "replace None with the list of batch sizes of one epoch.")
    if pending:
        return pending
    assert sizes is not None
    full, rest = divmod(images, batch_size)
    expected = [batch_size] * full + ([rest] if rest else [])
    if list(sizes) == [batch_size] * math.ceil(images / batch_size):
        raise WrongAnswer(
            f"{images} images do not fill {math.ceil(images / batch_size)} batches of "
            f"{batch_size}: the last one is partial (or, with LastBatchPolicy.FILL, padded with "
            "repeated images a training step would count twice)"
        )
    if list(sizes) != expected:
        raise WrongAnswer(f"{images} images in batches of {batch_size}: expected {expected}")
    return f"Right: {expected}; code that assumes {batch_size} rows per batch breaks on the last."


def check_normalized_once(images: Any | None, loader_images: Any | None = None) -> str:
    """`images`: what the model gets from a batch of an ImageNet-normalized loader (float, about
    zero mean and unit spread per channel); `loader_images`: that batch's images as the loader
    gave them, which the answer must leave as they are. Normalizing a second time squeezes the
    values to a spread of about 1/58 (the std of 0.229 * 255), or, with torchvision's own
    mean and std, shifts and widens them: either is caught by comparing with the loader's."""
    pending = _unattempted(images, "replace None with the model's input tensor or array.")
    if pending:
        return pending
    assert images is not None
    values = _float_array(images)
    spread = float(values.std())
    if loader_images is not None:
        given = _float_array(loader_images)
        if values.shape == given.shape and np.allclose(values, given, atol=1e-5):
            return f"Right: one normalization, values spread by {spread:.2f}, as the loader gave."
        raise WrongAnswer(
            f"the model would get values other than the loader's (spread {spread:.3g}, mean "
            f"{float(values.mean()):.3g}, where the loader's spread {float(given.std()):.3g}, mean "
            f"{float(given.mean()):.3g}): they were normalized again, but the loader's "
            "crop_mirror_normalize already subtracted the mean and divided by the std. Feed the "
            "loader's images as they are."
        )
    if spread < 0.1:
        raise WrongAnswer(
            f"the values spread by only {spread:.3f}: they were normalized twice (the loader's "
            "crop_mirror_normalize already subtracts the mean and divides by the std). Feed "
            "the loader's images as they are."
        )
    if spread > 10:
        raise WrongAnswer(
            f"the values spread by {spread:.1f}: these look like 0-255 pixels, not normalized"
        )
    return f"Right: one normalization, values spread by {spread:.2f}."


def _float_array(images: Any) -> np.ndarray:
    return np.asarray(images.cpu() if hasattr(images, "cpu") else images, dtype=np.float64)


# ---- schedules ----------------------------------------------------------------------------------


def fade_after_hold(epochs: int, start: float = 0.5, hold: int = 2) -> list[float]:
    """`start` for the first `hold` epochs, then a straight line down to 0 at the last epoch."""
    last = epochs - 1
    fall = max(last - (hold - 1), 1)
    return [start if e < hold else start * (1 - (e - (hold - 1)) / fall) for e in range(epochs)]


def check_fade_after_hold(
    schedule: Schedule | None, epochs: int, start: float = 0.5, hold: int = 2
) -> str:
    """`schedule`: a fine-tuning run's apply probability, `start` for the first `hold` epochs,
    then falling in a straight line to 0 at the run's last epoch (the reverse curriculum)."""
    pending = _unattempted(schedule, "replace None with a Schedule, e.g. Schedule.linear(...).")
    if pending:
        return pending
    if not isinstance(schedule, Schedule):
        raise WrongAnswer(
            f"expected a Schedule (Schedule.linear, .cosine, .table, ...); got "
            f"{type(schedule).__name__}"
        )
    expected = fade_after_hold(epochs, start, hold)
    got = [schedule.value_at(epoch, epochs) for epoch in range(epochs)]
    if all(math.isclose(g, e, abs_tol=1e-9) for g, e in zip(got, expected, strict=True)):
        return f"Right: {schedule.describe()} gives {_rounded(got)} over the run."
    if any(not math.isclose(g, start, abs_tol=1e-9) for g in got[:hold]):
        hint = (
            f"the first {hold} epochs (0 to {hold - 1}) should all hold {start}: a linear "
            f"schedule starts changing at its `begin` epoch (begin={hold - 1} keeps the start "
            f"until epoch {hold - 1})"
        )
    elif not math.isclose(got[-1], 0.0, abs_tol=1e-9):
        hint = f"the last epoch ({epochs - 1}) should reach 0"
    elif schedule.curve == "cosine":
        hint = "a cosine eases in and out: the fall should be a straight line (linear)"
    else:
        hint = f"between epoch {hold - 1} and the last the value should fall in a straight line"
    raise WrongAnswer(f"your schedule gives {_rounded(got)}, expected {_rounded(expected)}: {hint}")


def _rounded(values: Sequence[float]) -> list[float]:
    return [round(value, 3) for value in values]


# ---- arithmetic inside the graph ----------------------------------------------------------------


def clean_crop_side(degrees: Any, size: float) -> Any:
    """The side of the largest square, centred on a `size` x `size` image turned by `degrees`
    (its canvas grown to hold it, no `keep_size`), that holds only picture: size / (|cos| +
    |sin|). The turned image's own corners touch the grown canvas's edges; the square sits
    inside them."""
    radians = np.radians(np.asarray(degrees, dtype=np.float64))
    return size / (np.abs(np.cos(radians)) + np.abs(np.sin(radians)))


def check_clean_crop_side(text: str | None, size: int = 256) -> str:
    """`text`: an expression (a node's text) of the per-image angle `angle`, in degrees, giving
    the side of the largest centred square crop with no uncovered corner after a turn without
    `keep_size` (:func:`clean_crop_side`). The check runs it inside a DALI graph on angles from
    -40 to 40 degrees and crops the turned pictures with it."""
    pending = _unattempted(text, "replace None with the expression's text, a string.")
    if pending:
        return pending
    # the engine imports DALI: only a check that runs a graph pays for it
    from .engine import Session
    from .errors import AugExplorerError

    try:
        result = Session(_clean_crop_graph(str(text), float(size))).run()
    except (AugExplorerError, ValueError) as error:
        raise WrongAnswer(
            f"the expression does not run in a graph: {error}. Name the angle `angle` and use "
            "numbers, + - * / and math.cos, math.sin, math.abs (angles in radians)."
        ) from None
    angles = np.array([float(np.asarray(a).ravel()[0]) for a in result.arrays("angle")])
    sides = np.array([float(np.asarray(s).ravel()[0]) for s in result.arrays("side")])
    expected = clean_crop_side(angles, float(size))
    if not np.allclose(sides, expected, rtol=2e-3):
        raise WrongAnswer(_side_hint(angles, sides, expected, float(size)))
    for index, image in enumerate(result.arrays("crop")):
        corners = [image[:4, :4], image[:4, -4:], image[-4:, :4], image[-4:, -4:]]
        if any(not np.any(patch) for patch in corners):
            raise WrongAnswer(f"crop {index} still has a black corner; check the formula")
    return (
        f"Right: for angles from {angles.min():.0f} to {angles.max():.0f} degrees the crops "
        f"measure {sides.min():.0f} to {sides.max():.0f} pixels a side and no corner is black."
    )


def _clean_crop_graph(text: str, size: float) -> Any:
    """Pictures turned by random angles (-40 to 40 degrees) and cropped by `text`'s side."""
    from .expressions.nodes import expression
    from .spec import GraphSpec, Node, Ref, Source

    return GraphSpec(
        (
            Source("source", seed=3),
            Node("decode", "decoders.image", (Ref("source"),), {"output_type": "RGB"}),
            Node("resize", "resize", (Ref("decode"),), {"resize_x": size, "resize_y": size}),
            Node("angle", "random.uniform", args={"range": [-40.0, 40.0]}, seed=11),
            expression("side", text),
            Node("turn", "rotate", (Ref("resize"),), {"angle": Ref("angle"), "fill_value": 0.0}),
            Node(
                "crop",
                "crop",
                (Ref("turn"),),
                # a side too large pads with black rather than failing: the hint can say why
                {"crop_w": Ref("side"), "crop_h": Ref("side"), "out_of_bounds_policy": "pad"},
            ),
        ),
        {"images": Ref("crop"), "labels": Ref("source", 1)},
        batch_size=6,
    )


def _side_hint(angles: Any, sides: Any, expected: Any, size: float) -> str:
    """What a wrong side most likely got wrong, from the usual mistakes' values."""
    if np.allclose(sides, size * size / expected, rtol=2e-3):
        return (
            "that is the side of the grown canvas that holds the turned image; the clean square "
            "sits inside the turned picture: divide the size by (|cos| + |sin|), don't multiply"
        )
    as_if_radians = size / (np.abs(np.cos(angles)) + np.abs(np.sin(angles)))
    if np.allclose(sides, as_if_radians, rtol=2e-3):
        return "math.cos and math.sin take radians: multiply the angle by pi / 180 (0.0174533)"
    positive = angles > 0
    if np.allclose(sides[positive], expected[positive], rtol=2e-3):
        return (
            "right for positive angles only: for a negative angle sin is negative, and the "
            "square's size depends on the turn, not its direction. Take math.abs of each term."
        )
    return (
        f"for angles {np.round(angles, 1).tolist()} expected sides "
        f"{np.round(expected, 1).tolist()}; got {np.round(sides, 1).tolist()}"
    )


# ---- fill where the graph passes it on ----------------------------------------------------------

FILL_LIMIT = 0.05  # the exercise's budget: at most this share of each sample fill, on average


def rotate_after_crop(degrees: float) -> Any:
    """The statistics notebook's graph: the bundled pictures resized, centre-cropped to 128 px,
    then turned by up to `degrees` either way on their own canvas (`keep_size`), so every corner
    the turn uncovers is passed on."""
    from .spec import Random, Source, chain

    return chain(
        Source("source", seed=1),
        ("decode", "decoders.image", {"output_type": "RGB"}),
        ("resize", "resize", {"resize_shorter": 160.0}),
        ("crop", "crop", {"crop": [128.0, 128.0]}),
        (
            "rotate",
            "rotate",
            {"angle": Random.uniform(-degrees, degrees), "keep_size": True, "fill_value": 0.0},
        ),
        ("flip", "flip", {"horizontal": Random.coin_flip(0.5)}),
        batch_size=8,
        name="rotate_after_crop",
    )


def fill_passed_on(degrees: float, batches: int = 8) -> float:
    """The mean share of each sample that is fill where :func:`rotate_after_crop`'s graph passes
    it on, over `batches` batches (the graph's seeds: the same figure every time)."""
    from .stats import collect_stats

    fill = collect_stats(rotate_after_crop(degrees), batches=batches, device_id=None).fill("rotate")
    assert fill is not None  # the graph's rotation fills with 0
    passed_on = fill.passed_on()
    return passed_on[1] if passed_on is not None else fill.mean_share


def check_widest_rotation(degrees: float | None, limit: float = FILL_LIMIT) -> str:
    """`degrees`: the widest whole number of degrees for which :func:`rotate_after_crop` passes
    on at most `limit` of each sample as fill, on average. One degree more is over it."""
    pending = _unattempted(degrees, "replace None with a whole number of degrees.")
    if pending:
        return pending
    if isinstance(degrees, bool) or not isinstance(degrees, (int, float)) or not 0 < degrees < 90:
        raise WrongAnswer(f"give the range's half-width in degrees, from 1 to 89; got {degrees!r}")
    share = fill_passed_on(float(degrees))
    if share > limit:
        raise WrongAnswer(
            f"at ±{degrees:g} degrees {share:.1%} of each sample is fill where the graph passes "
            f"it on, over the {limit:.0%} budget: narrow the range (the statistics' fill line "
            "says how much each try passes on)"
        )
    wider = fill_passed_on(float(degrees) + 1)
    if wider <= limit:
        raise WrongAnswer(
            f"±{degrees:g} passes on {share:.1%}, and ±{degrees + 1:g} still only {wider:.1%}: "
            "there is room for a wider rotation"
        )
    return (
        f"Right: ±{degrees:g} degrees passes on {share:.1%} fill, ±{degrees + 1:g} already "
        f"{wider:.1%}. Put before the crop, a rotation of ±45 passes on less than that."
    )
