"""AutoGraph's source maps made when read (augexplorer/engine/autograph_maps.py): DALI's errors
name the same lines of the user's code, and a policy's build makes a fraction of the maps."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from nvidia.dali import fn, pipeline_def, types
from nvidia.dali._autograph.impl import api

from augexplorer import GraphSpec, Node, Ref, Session, Source
from augexplorer.engine import autograph_maps, dali_builds

IMAGES = [np.full((8, 8, 3), 40 * i, np.uint8) for i in range(2)]


@pytest.fixture
def dalis_own_maps(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], None]]:
    """Switches DALI's own behaviour on for the rest of a test; the engine's is back after it."""

    def dalis() -> None:
        monkeypatch.setattr(dali_builds, "maps_when_read", False)
        autograph_maps.uninstall()

    autograph_maps.install()
    yield dalis
    autograph_maps.install()


def _crop_too_large(images: Any) -> Any:
    return fn.crop(images, crop=(64, 64))  # larger than the 8x8 images: fails when run


@pipeline_def(enable_conditionals=True, batch_size=2, num_threads=1, device_id=None)
def _failing_under_an_if() -> Any:
    images = fn.external_source(source=lambda: IMAGES, layout="HWC")
    if fn.random.coin_flip(probability=1.0, dtype=types.BOOL):
        images = _crop_too_large(images)
    return images


def _dalis_error() -> str:
    pipe = _failing_under_an_if()
    pipe.build()
    with pytest.raises(RuntimeError) as raised:
        pipe.run()
    return str(raised.value)


def test_the_engine_makes_the_maps_when_read_on_this_dali() -> None:
    autograph_maps.uninstall()
    with dali_builds.engine_build():
        # on a DALI whose private module changed shape nothing is patched: this says so
        assert autograph_maps.installed()


def test_dalis_errors_name_the_same_lines_of_the_users_code(
    dalis_own_maps: Callable[[], None],
) -> None:
    ours = _dalis_error()
    # the generated code's lines are mapped back to the code above, through the `if`
    assert "in _failing_under_an_if\n    images = _crop_too_large(images)" in ours
    assert "in _crop_too_large\n    return fn.crop(images, crop=(64, 64))" in ours
    assert "__autograph_generated" not in ours
    dalis_own_maps()
    assert _dalis_error() == ours


def _maps_made_in_a_policy_build(monkeypatch: pytest.MonkeyPatch) -> tuple[int, np.ndarray]:
    made = 0
    dalis = api.StackTraceMapper.get_effective_source_map

    def counted(self: Any) -> Any:
        nonlocal made
        made += 1
        return dalis(self)

    monkeypatch.setattr(api.StackTraceMapper, "get_effective_source_map", counted)
    spec = GraphSpec(
        (
            Source("source", "arrays"),
            Node("policy", "auto_aug.trivial_augment_wide", (Ref("source"),), {}, seed=5),
        ),
        batch_size=len(IMAGES),
    )
    result = Session(spec, IMAGES, device_id=None).run()
    return made, np.stack(result.arrays("policy"))


def test_a_policy_builds_with_a_fraction_of_the_maps_and_the_same_pixels(
    monkeypatch: pytest.MonkeyPatch, dalis_own_maps: Callable[[], None]
) -> None:
    when_read, ours = _maps_made_in_a_policy_build(monkeypatch)
    dalis_own_maps()
    at_every_call, dalis = _maps_made_in_a_policy_build(monkeypatch)
    assert np.array_equal(ours, dalis)
    # measured 119 against 5,175: each converted call had copied its map
    assert when_read * 10 < at_every_call, (when_read, at_every_call)


def test_install_is_idempotent_and_uninstall_gives_dalis_back(
    dalis_own_maps: Callable[[], None],
) -> None:
    from nvidia.dali._autograph.utils import tf_stack

    assert autograph_maps.install() and autograph_maps.install()
    patched = tf_stack.StackTraceMapper.update
    dalis_own_maps()
    assert tf_stack.StackTraceMapper.update is not patched
    assert not autograph_maps.installed()


def test_a_map_is_made_once_on_first_read_and_then_held_by_its_mapper() -> None:
    class Mapper:
        made = 0

        def get_effective_source_map(self) -> dict[str, int]:
            self.made += 1
            return {"a": 1}

    mapper = Mapper()
    lazy = autograph_maps.SourceMapWhenRead(mapper)
    assert not lazy.made and not mapper.made
    assert lazy["a"] == 1 and "a" in lazy and len(lazy) == 1 and lazy.get("b") is None
    assert lazy.made and mapper.made == 1
    assert mapper.internal_map == {"a": 1} and type(mapper.internal_map) is dict
