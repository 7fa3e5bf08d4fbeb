"""What ported albumentations transforms draw, against what real albumentations (2.0.8) draws:
the same image many times through each side, one figure per sample (a crop's area, a hole's
size, the noise's spread, which transform ran), compared by a two-sample Kolmogorov-Smirnov
test (or the counts by their proportions). A port graded "distribution" must pass."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from port_parity import ks_statistic

from augexplorer.engine import Session
from augexplorer.port.albumentations import port
from augexplorer.port.reading import read_source
from augexplorer.spec import Source

A = pytest.importorskip("albumentations")
cv2 = pytest.importorskip("cv2")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning:albumentations.*")

BATCH = 40
ROUNDS = 8  # 320 draws a side
P_VALUE = 0.01  # a real difference in 320 draws shows far below this

Measure = Callable[[np.ndarray], float]


def _coordinates(height: int = 200, width: int = 256) -> np.ndarray:
    """An image whose red channel is x and green channel is y: any crop shows its window."""
    image = np.zeros((height, width, 3), np.uint8)
    image[..., 0] = np.arange(width, dtype=np.uint8)[None, :]
    image[..., 1] = np.arange(height, dtype=np.uint8)[:, None]
    return image


def _ours(code: str, image: np.ndarray, measure: Measure) -> list[float]:
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose, batch_size=BATCH)
    assert not result.refusals, [r.describe() for r in result.refusals]
    spec = result.spec.with_source(Source("reader", "arrays")).remove("decode")
    session = Session(spec, data=([image] * BATCH, [0] * BATCH), device_id=None)
    out = spec.outputs["images"]
    values: list[float] = []
    run = session.run()
    for _ in range(ROUNDS):
        values += [measure(np.asarray(a)) for a in run.arrays(out)]
        run = session.reroll()
    return values


def _theirs(code: str, image: np.ndarray, measure: Measure) -> list[float]:
    transform = A.Compose([eval(code, {"A": A, "cv2": cv2})])  # the test's own literal
    transform.set_random_seed(7)
    return [measure(transform(image=image)["image"]) for _ in range(BATCH * ROUNDS)]


def _same_distribution(code: str, image: np.ndarray, measure: Measure) -> tuple[float, float]:
    ours, theirs = _ours(code, image, measure), _theirs(code, image, measure)
    statistic, p = ks_statistic(ours, theirs)
    assert p > P_VALUE, f"{code}: KS statistic {statistic:.3f}, p {p:.2g}"
    return statistic, p


def _window_area(out: np.ndarray) -> float:
    x0, y0 = int(out[0, 0, 0]), int(out[0, 0, 1])
    x1, y1 = int(out[-1, -1, 0]), int(out[-1, -1, 1])
    return (x1 - x0 + 1) * (y1 - y0 + 1) / (256 * 200)


def _window_aspect(out: np.ndarray) -> float:
    x0, y0 = int(out[0, 0, 0]), int(out[0, 0, 1])
    x1, y1 = int(out[-1, -1, 0]), int(out[-1, -1, 1])
    return (x1 - x0 + 1) / (y1 - y0 + 1)


def test_random_resized_crop_draws_area_and_aspect_as_albumentations() -> None:
    code = (
        "A.RandomResizedCrop(size=(64, 64), scale=(0.08, 1.0), "
        "interpolation=cv2.INTER_NEAREST_EXACT)"
    )
    _same_distribution(code, _coordinates(), _window_area)
    _same_distribution(code, _coordinates(), _window_aspect)


def test_random_crop_places_its_window_as_albumentations() -> None:
    code = "A.RandomCrop(50, 60)"
    _same_distribution(code, _coordinates(), lambda out: float(out[0, 0, 0]))
    _same_distribution(code, _coordinates(), lambda out: float(out[0, 0, 1]))


def test_random_rotate90_turns_as_albumentations() -> None:
    def corner(out: np.ndarray) -> float:  # which corner of the original is top-left now
        return float(out[0, 0, 0] // 128 * 2 + out[0, 0, 1] // 100)

    _same_distribution("A.RandomRotate90(p=1)", _coordinates(), corner)


def test_gauss_noise_spreads_as_albumentations() -> None:
    grey = np.full((64, 64, 3), 128, np.uint8)

    def spread(out: np.ndarray) -> float:
        return float(out.astype(np.float64).std())

    _same_distribution("A.GaussNoise(std_range=(0.05, 0.15), p=1)", grey, spread)


def test_coarse_dropout_erases_as_much_as_albumentations() -> None:
    white = np.full((200, 300, 3), 255, np.uint8)

    def erased(out: np.ndarray) -> float:
        return float((out[..., 0] == 0).mean())

    code = (
        "A.CoarseDropout(num_holes_range=(1, 4), hole_height_range=(0.1, 0.2), "
        "hole_width_range=(0.1, 0.3), p=1)"
    )
    _same_distribution(code, white, erased)


def test_coarse_dropout_in_pixels_erases_as_much_as_albumentations() -> None:
    white = np.full((200, 300, 3), 255, np.uint8)
    code = (
        "A.CoarseDropout(num_holes_range=(2, 2), hole_height_range=(10, 30), "
        "hole_width_range=(20, 40), p=1)"
    )

    def erased(out: np.ndarray) -> float:
        return float((out[..., 0] == 0).mean())

    _same_distribution(code, white, erased)


def test_channel_dropout_picks_channels_as_albumentations() -> None:
    image = np.full((8, 8, 3), 200, np.uint8)

    def dropped(out: np.ndarray) -> float:
        return float(np.argmin(out[0, 0]))

    _same_distribution("A.ChannelDropout(p=1)", image, dropped)


def _rate(values: list[float]) -> float:
    return float(np.mean(values))


def _close_rates(ours: float, theirs: float, draws: int) -> None:
    """Two proportions of `draws` each agree within four standard errors."""
    pooled = (ours + theirs) / 2
    error = np.sqrt(max(pooled * (1 - pooled), 1e-9) * 2 / draws)
    assert abs(ours - theirs) < 4 * error + 1e-9, (ours, theirs)


def test_p_applies_a_transform_as_often_as_albumentations() -> None:
    code = "A.HorizontalFlip(p=0.3)"
    image = _coordinates()

    def flipped(out: np.ndarray) -> float:
        return float(out[0, 0, 0] == 255)

    ours, theirs = _rate(_ours(code, image, flipped)), _rate(_theirs(code, image, flipped))
    _close_rates(ours, theirs, BATCH * ROUNDS)
    assert 0.2 < ours < 0.4


def test_one_of_picks_by_the_normalized_p_and_applies_the_pick() -> None:
    code = "A.OneOf([A.HorizontalFlip(p=0.2), A.VerticalFlip(p=0.6), A.Transpose(p=0.05)], p=0.8)"
    image = _coordinates(200, 256)

    def which(out: np.ndarray) -> float:
        if out.shape[0] == 256:
            return 3.0
        if out[0, 0, 0] == 255:
            return 1.0
        if out[0, 0, 1] == 199:
            return 2.0
        return 0.0

    ours, theirs = _ours(code, image, which), _theirs(code, image, which)
    for kind in (0.0, 1.0, 2.0, 3.0):
        _close_rates(
            _rate([v == kind for v in ours]), _rate([v == kind for v in theirs]), len(ours)
        )


def test_some_of_picks_n_with_equal_chances_each_with_its_own_p() -> None:
    code = "A.SomeOf([A.HorizontalFlip(p=1), A.VerticalFlip(p=0.5), A.InvertImg(p=1)], n=2, p=1)"
    image = _coordinates()

    def which(out: np.ndarray) -> float:
        values = out.astype(np.int32)
        inverted = values[0, 0, 2] == 255
        if inverted:
            values = 255 - values
        h = values[0, 0, 0] == 255
        v = values[0, 0, 1] == 199
        return float(h) + 2 * float(v) + 4 * float(inverted)

    ours, theirs = _ours(code, image, which), _theirs(code, image, which)
    for kind in sorted(set(theirs) | set(ours)):
        _close_rates(
            _rate([v == kind for v in ours]), _rate([v == kind for v in theirs]), len(ours)
        )


def test_sequential_applies_its_children_together_with_its_p() -> None:
    code = "A.Sequential([A.HorizontalFlip(p=1), A.VerticalFlip(p=1)], p=0.4)"
    image = _coordinates()

    def both(out: np.ndarray) -> float:
        return float(out[0, 0, 0] == 255 and out[0, 0, 1] == 199)

    ours, theirs = _rate(_ours(code, image, both)), _rate(_theirs(code, image, both))
    _close_rates(ours, theirs, BATCH * ROUNDS)


def test_random_sized_crop_draws_its_window_as_albumentations() -> None:
    code = (
        "A.RandomSizedCrop((60, 150), size=(64, 64), w2h_ratio=1.25, "
        "interpolation=cv2.INTER_NEAREST_EXACT)"
    )
    _same_distribution(code, _coordinates(), _window_area)
    _same_distribution(code, _coordinates(), lambda out: float(out[0, 0, 0]))


def test_erasing_erases_rectangles_as_albumentations() -> None:
    white = np.full((200, 300, 3), 255, np.uint8)

    def erased(out: np.ndarray) -> float:
        return float((out[..., 0] == 0).mean())

    def aspect(out: np.ndarray) -> float:
        rows = np.flatnonzero((out[..., 0] == 0).any(axis=1))
        cols = np.flatnonzero((out[..., 0] == 0).any(axis=0))
        return float(len(cols) / max(len(rows), 1))

    _same_distribution("A.Erasing(p=1)", white, erased)
    _same_distribution("A.Erasing(scale=(0.05, 0.2), ratio=(0.5, 2.0), p=1)", white, aspect)


def test_pixel_dropout_drops_as_many_pixels_as_albumentations() -> None:
    white = np.full((40, 50, 3), 255, np.uint8)

    def dropped(out: np.ndarray) -> float:
        return float((out == 0).mean())

    _same_distribution("A.PixelDropout(dropout_prob=0.1, p=1)", white, dropped)
    _same_distribution("A.PixelDropout(dropout_prob=0.05, per_channel=True, p=1)", white, dropped)


def test_salt_and_pepper_salts_as_albumentations() -> None:
    grey = np.full((40, 50, 3), 128, np.uint8)

    def salt(out: np.ndarray) -> float:
        return float((out[..., 0] == 255).mean())

    def pepper(out: np.ndarray) -> float:
        return float((out[..., 0] == 0).mean())

    _same_distribution("A.SaltAndPepper(p=1)", grey, salt)
    _same_distribution("A.SaltAndPepper(p=1)", grey, pepper)


def test_d4_and_channel_shuffle_draw_each_outcome_as_often_as_albumentations() -> None:
    image = _coordinates()

    def symmetry(out: np.ndarray) -> float:  # the corner now top-left, and the turn's sense
        return float(out[0, 0, 0] // 128 * 2 + out[0, 0, 1] // 100) * 2 + float(out.shape[0] == 256)

    ours, theirs = _ours("A.D4()", image, symmetry), _theirs("A.D4()", image, symmetry)
    for kind in sorted(set(ours) | set(theirs)):
        _close_rates(
            _rate([v == kind for v in ours]), _rate([v == kind for v in theirs]), len(ours)
        )
    colours = np.zeros((8, 8, 3), np.uint8)
    colours[...] = (10, 20, 30)

    def order(out: np.ndarray) -> float:
        return float(int(out[0, 0, 0]) * 10000 + int(out[0, 0, 1]) * 100 + int(out[0, 0, 2]))

    code = "A.ChannelShuffle(p=1)"
    ours, theirs = _ours(code, colours, order), _theirs(code, colours, order)
    assert len(set(ours)) == 6
    for kind in sorted(set(ours) | set(theirs)):
        _close_rates(
            _rate([v == kind for v in ours]), _rate([v == kind for v in theirs]), len(ours)
        )


def test_random_scale_draws_sizes_as_albumentations() -> None:
    _same_distribution(
        "A.RandomScale(scale_limit=0.3, p=1)", _coordinates(), lambda out: float(out.shape[0])
    )


def test_shift_scale_rotate_scales_each_axis_on_its_own_as_albumentations() -> None:
    """albumentations 2.x draws ShiftScaleRotate's scale per axis (keep_ratio=False)."""
    image = _coordinates(200, 256)
    code = (
        "A.ShiftScaleRotate(shift_limit=0, scale_limit=0.3, rotate_limit=0, "
        "interpolation=cv2.INTER_NEAREST, p=1)"
    )

    def aspect(out: np.ndarray) -> float:  # x scale over y scale, from where 60 px land
        sx = 60 / max(abs(int(out[100 + 60, 128 + 60, 0]) - 128), 1)
        sy = 60 / max(abs(int(out[100 + 60, 128 + 60, 1]) - 100), 1)
        return sx / sy

    _same_distribution(code, image, aspect)


def test_one_or_other_applies_the_first_with_its_p_as_albumentations() -> None:
    code = "A.OneOrOther(A.HorizontalFlip(), A.VerticalFlip(), p=0.3)"
    image = _coordinates()

    def first(out: np.ndarray) -> float:
        return float(out[0, 0, 0] == 255)

    ours, theirs = _rate(_ours(code, image, first)), _rate(_theirs(code, image, first))
    _close_rates(ours, theirs, BATCH * ROUNDS)
    assert 0.2 < ours < 0.4


def test_random_tone_curve_draws_its_control_points_as_albumentations() -> None:
    dark = np.full((8, 8, 3), 64, np.uint8)
    _same_distribution("A.RandomToneCurve(scale=0.1, p=1)", dark, lambda out: float(out[0, 0, 0]))
    light = np.full((8, 8, 3), 200, np.uint8)
    _same_distribution(
        "A.RandomToneCurve(scale=0.2, per_channel=True, p=1)",
        light,
        lambda out: float(out[0, 0, 2]),
    )


def test_motion_blur_draws_its_line_as_albumentations() -> None:
    """A single white dot shows the kernel itself: its length and where it leans."""
    dot = np.zeros((15, 15, 3), np.uint8)
    dot[7, 7] = 255
    code = "A.MotionBlur(p=1)"

    def cells(out: np.ndarray) -> float:
        return float((out[..., 0] > 0).sum())

    def lean(out: np.ndarray) -> float:
        weights = out[..., 0].astype(np.float64)
        return float((weights * np.arange(15)[None, :]).sum() / max(weights.sum(), 1))

    _same_distribution(code, dot, cells)
    _same_distribution(code, dot, lean)


def _port_values(code: str, node: str) -> list[float]:
    """The values a ported node draws among, each entry as likely (read from a file's text,
    as `augexplorer import` and `Explorer(port="file.py:name")` read it)."""
    (found,) = read_source(f"import cv2\nimport albumentations as A\nt = A.Compose([{code}])\n")
    result = port(found.compose, batch_size=BATCH)
    assert not result.refusals, [r.describe() for r in result.refusals]
    return [float(v) for v in result.spec.node(node).args["values"]]


def _same_sizes(ours: list[float], theirs: list[int]) -> None:
    """The port's sizes (entries of a uniform draw: exact chances) against albumentations' own
    draws, each size's share within four standard errors."""
    for size in sorted(set(ours) | set(theirs)):
        share = ours.count(size) / len(ours)
        _close_rates(share, float(np.mean([s == size for s in theirs])), len(theirs))


@pytest.mark.parametrize(
    ("code", "sigma_sized"),
    [
        ("A.GaussianBlur(blur_limit=(3, 7), sigma_limit=(1.0, 1.0), p=1)", None),
        # a single number v is (0, v): 0 sizes the kernel from sigma (7 for sigma 1), 1 is 1
        ("A.GaussianBlur(blur_limit=7, sigma_limit=(1.0, 1.0), p=1)", 7.0),
        # GaussianBlur sorts a reversed pair, where Blur keeps its high end alone
        ("A.GaussianBlur(blur_limit=(7, 3), sigma_limit=(1.0, 1.0), p=1)", None),
    ],
)
def test_gaussian_blur_draws_its_kernel_size_as_albumentations(
    code: str, sigma_sized: float | None
) -> None:
    """randint(low, high), an even size rounded up: 3 of (3, 7) one time in five, 5 and 7 two
    in five each (found in a newcomer's trial: the port drew 3, 5 and 7 alike)."""
    ours = _port_values(code, "blur_pick" if sigma_sized else "blur_size")
    ours = [sigma_sized if v == 0 and sigma_sized else v for v in ours]
    transform = eval(code, {"A": A})  # the test's own literal
    transform.set_random_seed(7)
    theirs = [len(transform.get_params_dependent_on_data({}, {})["kernel"]) for _ in range(5000)]
    _same_sizes(ours, theirs)


def test_gaussian_blur_sorts_a_reversed_sigma_limit_as_albumentations() -> None:
    code = "A.GaussianBlur(blur_limit=(3, 3), sigma_limit=(2.0, 1.0), p=1)"
    assert tuple(eval(code, {"A": A}).sigma_limit) == (1.0, 2.0)  # the test's own literal
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    sigma = port(found.compose).spec.node("blur_sigma")
    assert sigma.args["range"] == [1.0, 2.0]


def test_a_single_blur_limit_is_a_range_from_3_as_albumentations_reads_it() -> None:
    """Blur(blur_limit=7) draws 3, 5 or 7, not only 7 (found in a newcomer's trial: a file's
    single number was read as (7, 7); the live object, already validated, held (3, 7))."""
    box = A.Blur(blur_limit=7, p=1)
    box.set_random_seed(7)
    _same_sizes(_port_values("A.Blur(blur_limit=7, p=1)", "box_size"),
                [box.get_params()["kernel"] for _ in range(5000)])  # fmt: skip
    motion = A.MotionBlur(blur_limit=5, p=1)
    motion.set_random_seed(7)
    _same_sizes(_port_values("A.MotionBlur(blur_limit=5, p=1)", "motion_size"),
                [motion.get_params()["kernel"].shape[0] for _ in range(5000)])  # fmt: skip


@pytest.mark.parametrize("limit", ["(7, 3)", "(8, 6)", "(4, 3)", "(4, 4)", "(4, 6)", "4"])
@pytest.mark.parametrize(("name", "node"), [("Blur", "box_size"), ("MotionBlur", "motion_size")])
def test_blur_limit_is_read_as_albumentations_reads_it(name: str, node: str, limit: str) -> None:
    """Each end made an odd size from 3 ((4, 6) is (5, 7)), then a pair still reversed kept
    as (high, high), with a warning, not sorted: (7, 3) draws 3 alone, (8, 6) 7 alone (the
    port drew the low end, 7 and 9)."""
    code = f"A.{name}(blur_limit={limit}, p=1)"
    transform = eval(code, {"A": A})  # the test's own literal
    transform.set_random_seed(7)
    kernels = [transform.get_params()["kernel"] for _ in range(2000)]
    theirs = [int(np.shape(k)[0]) if np.ndim(k) else int(k) for k in kernels]
    _same_sizes(_port_values(code, node), theirs)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("A.Blur(blur_limit=(7.5, 9))", "blur_limit=(7.5, 9): albumentations takes whole"),
        ("A.MotionBlur(blur_limit=7.5)", "fix: blur_limit=7)"),
        ("A.MotionBlur(angle_range=(90, 10))", "0 <= low <= high <= 360"),
        ("A.MotionBlur(angle_range=(-10, 10))", "0 <= low <= high <= 360"),
        ("A.MotionBlur(direction_range=(0.5, -0.5))", "-1 <= low <= high <= 1"),
    ],
)
def test_what_albumentations_refuses_in_a_blur_is_refused(code: str, said: str) -> None:
    """albumentations' schema fails on these (it sorts none of them); the port truncated the
    fraction and drew the reversed or outlying range as given."""
    with pytest.raises(Exception):  # noqa: B017 (albumentations' own schema error)
        eval(code, {"A": A})  # the test's own literal
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    (refusal,) = port(found.compose).refusals
    assert said in refusal.reason


def test_gaussian_blur_of_size_1_and_of_a_sigma_sized_kernel_runs() -> None:
    """blur_limit=7 draws size 1 (the image as it is) and 0 (sized from sigma): both run."""
    image = _coordinates(40, 48)
    ours = _ours("A.GaussianBlur(blur_limit=7, sigma_limit=(1.0, 1.0), p=1)", image, np.mean)
    assert len(ours) == BATCH * ROUNDS and all(np.isfinite(ours))


def _flipped(out: np.ndarray) -> float:
    return float(out[0, 0, 0] == 255)


@pytest.mark.filterwarnings("ignore:Argument\\(s\\) 'always_apply' are not valid:UserWarning")
@pytest.mark.parametrize(
    "code",
    [
        # albumentations 2.x ignores always_apply (with a warning): p stands
        "A.HorizontalFlip(always_apply=True)",
        "A.HorizontalFlip(p=0.2, always_apply=True)",
        # a compose's own p: every transform in it under one coin
        "A.Compose([A.HorizontalFlip(p=1)], p=0.5)",
    ],
)
def test_a_transform_or_compose_applies_as_often_as_albumentations(code: str) -> None:
    ours = _rate(_ours(code, _coordinates(), _flipped))
    theirs = _rate(_theirs(code, _coordinates(), _flipped))
    _close_rates(ours, theirs, BATCH * ROUNDS)
    assert ours < 0.7


@pytest.mark.parametrize(
    "code", ["A.CoarseDropout(p=1)", "A.CoarseDropout(num_holes_range=(3, 6), p=1)"]
)
def test_coarse_dropout_defaults_are_albumentations_2(code: str) -> None:
    """Holes' sizes and count left out take 2.x's defaults, not 1.x's 8 holes of 8x8."""
    white = np.full((224, 224, 3), 255, np.uint8)

    def erased(out: np.ndarray) -> float:
        return float((out[..., 0] == 0).mean())

    _same_distribution(code, white, erased)


@pytest.mark.filterwarnings("ignore:Argument\\(s\\) .* are not valid:UserWarning")
def test_coarse_dropouts_1x_names_are_ignored_as_2x_ignores_them() -> None:
    """2.x warns that max_holes, max_height and max_width are not valid and erases with its
    defaults; a Python file is ported as 2.x runs it, and the note says so."""
    code = "A.CoarseDropout(max_holes=8, max_height=8, max_width=8, p=1)"
    white = np.full((224, 224, 3), 255, np.uint8)

    def erased(out: np.ndarray) -> float:
        return float((out[..., 0] == 0).mean())

    _same_distribution(code, white, erased)
    (found,) = read_source(f"import albumentations as A\nt = A.Compose([{code}])\n")
    (step,) = port(found.compose).steps
    assert any(
        "max_holes, max_height, max_width are not arguments of albumentations 2.x" in d
        for d in step.origin.differences
    )
    assert step.call.kwargs["max_holes"] == 8  # the origin is the call as written


def test_random_brightness_contrast_draws_its_shift_and_factor_as_albumentations() -> None:
    grey = np.full((32, 32, 3), 100, np.uint8)

    def level(out: np.ndarray) -> float:  # a grey image: its level is 100 * factor + shift
        return float(out.astype(np.float64).mean())

    _same_distribution(
        "A.RandomBrightnessContrast(brightness_limit=0.2, contrast_limit=0, p=1)", grey, level
    )
    _same_distribution(
        "A.RandomBrightnessContrast(brightness_limit=0, contrast_limit=0.3, p=1)", grey, level
    )
