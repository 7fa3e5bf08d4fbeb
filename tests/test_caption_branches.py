"""A tile's caption names the values that made its picture: on a sample where a ported
``OneOf`` chose one branch, the other branch's draws (DALI draws them for every sample) made
nothing of the picture and are not named, in the grid's captions, the large view's list and the
A/B comparison's "before" alike. Real DALI on the CPU."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from augexplorer_widgets.snapshot import take_snapshot

from augexplorer.engine import RunResult, Session
from augexplorer.port.door import port_file

PIPELINE = textwrap.dedent(
    """
    import albumentations as A

    train_transform = A.Compose([
        A.Resize(96, 96),
        A.OneOf([
            A.GaussianBlur(blur_limit=(3, 7), sigma_limit=(0.5, 2.0)),
            A.MotionBlur(blur_limit=5),
        ], p=1.0),
        A.HorizontalFlip(p=0.5),
    ])
    """
)
BLUR = ("blur_size", "blur_sigma")  # GaussianBlur's draws
MOTION = ("motion_size", "motion_angle", "motion_direction", "motion_shift")  # MotionBlur's


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    path = Path(tmp_path_factory.mktemp("branches")) / "train.py"
    path.write_text(PIPELINE)
    session = Session(port_file(path).spec, batch_size=8)
    return session.run()


def chosen(result: RunResult) -> list[str]:
    """Per sample, the branch DALI ran: GaussianBlur's condition held, or MotionBlur's."""
    first = [bool(a.reshape(-1)[0]) for a in result.arrays("one_of_is_0")]
    second = [bool(a.reshape(-1)[0]) for a in result.arrays("one_of_is_1")]
    assert all(a != b for a, b in zip(first, second, strict=True))  # exactly one branch each
    return ["blur" if a else "motion" for a in first]


def names(caption: str) -> set[str]:
    # "node.argument=value", or "node=value" for a random node's own draw
    return {part.split("=")[0].split(".")[0] for part in caption.split() if "=" in part}


def test_the_graph_has_both_branches_under_conditions(result: RunResult) -> None:
    branches = chosen(result)
    assert set(branches) == {"blur", "motion"}  # both drawn in this batch: the test means it
    # DALI drew every branch's values for every sample
    drawn = result.draws()
    for node in (*BLUR, *MOTION):
        assert all(v is not None for v in drawn[node]["drawn"])


def test_captions_name_only_the_chosen_branchs_draws(result: RunResult) -> None:
    captions = result.draw_captions(reaching="flip")
    for caption, branch in zip(captions, chosen(result), strict=True):
        shown = names(caption)
        ran, other = (BLUR, MOTION) if branch == "blur" else (MOTION, BLUR)
        assert set(ran) <= shown, caption
        assert not shown & set(other), caption
        assert "one_of" in shown  # the choice itself made the picture
        # the flip's coin is still said, applied or skipped
        assert ("skipped flip" in caption) != ("flip applied" in caption), caption


def test_the_large_views_list_leaves_the_other_branch_out(result: RunResult) -> None:
    for sample, branch in enumerate(chosen(result)):
        listed = set(result.draws_of(sample, reaching="flip"))
        other = MOTION if branch == "blur" else BLUR
        assert not listed & set(other)
        assert set(MOTION if branch == "motion" else BLUR) <= listed


def test_a_node_before_the_choice_names_none_of_it(result: RunResult) -> None:
    captions = result.draw_captions(reaching="resize")
    assert captions == [""] * 8


def test_a_branch_node_names_its_own_draws_where_it_ran(result: RunResult) -> None:
    """At GaussianBlur's own output: its draws where it ran; where MotionBlur ran instead,
    GaussianBlur passed its input on, and its draws made nothing."""
    captions = result.draw_captions(reaching="blur")
    for caption, branch in zip(captions, chosen(result), strict=True):
        shown = names(caption)
        assert (set(BLUR) <= shown) == (branch == "blur"), caption
        assert not shown & set(MOTION), caption


def test_the_ab_comparisons_before_captions_are_the_grids(result: RunResult) -> None:
    kept = take_snapshot(result)
    for node in ("flip", "blur", "motion_blur", "resize"):
        assert kept.draw_captions(node, 8) == result.draw_captions(reaching=node)


def test_every_picture_is_its_branchs(result: RunResult) -> None:
    """The pixels agree with the captions: each branch changed the picture only on the samples
    whose captions name its draws, and passed it on unchanged on the others."""
    resized, blurred, after = (result.arrays(n) for n in ("resize", "blur", "motion_blur"))
    for sample, branch in enumerate(chosen(result)):
        if branch == "blur":
            assert not np.array_equal(blurred[sample], resized[sample])
            assert np.array_equal(after[sample], blurred[sample])
        else:
            assert np.array_equal(blurred[sample], resized[sample])
            assert not np.array_equal(after[sample], blurred[sample])


def test_a_node_named_as_its_argument_is_named_once() -> None:
    """ "brightness.brightness=0.735" said the name twice: a draw of node `brightness`'s own
    `brightness` is "brightness=0.735"; another node's stays "twist.brightness=..."."""
    from augexplorer.engine.result import caption_draws

    draws = {"brightness": {"brightness": [0.735]}, "twist": {"brightness": [1.2]}}
    assert caption_draws(draws, 1, True) == ["brightness=0.735 twist.brightness=1.2"]
