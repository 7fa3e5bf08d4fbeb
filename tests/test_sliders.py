"""The panel's sliders send no echo of what the page sends them; the kernel's own changes go."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pytest
from augexplorer_widgets import sliders


def messages(widget: widgets.Widget) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    widget._send = lambda msg, buffers=None: sent.append(msg)  # type: ignore[method-assign]
    return sent


@pytest.mark.parametrize(
    ("quiet", "plain", "moved", "set_here"),
    [
        (sliders.FloatSlider, widgets.FloatSlider, 0.3, 0.5),
        (sliders.IntSlider, widgets.IntSlider, 3, 5),
        (sliders.FloatRangeSlider, widgets.FloatRangeSlider, [0.2, 0.4], (0.1, 0.6)),
    ],
)
def test_a_value_from_the_page_is_taken_without_an_echo(
    quiet: type[widgets.Widget], plain: type[widgets.Widget], moved: Any, set_here: Any
) -> None:
    echoed = plain(min=0, max=10)
    echoes = messages(echoed)
    echoed.set_state({"value": moved})
    assert [m["method"] for m in echoes] == ["echo_update"]  # ipywidgets' own slider echoes

    slider = quiet(min=0, max=10)
    sent = messages(slider)
    slider.set_state({"value": moved})  # as the page sends a moved handle
    assert slider.value == (tuple(moved) if isinstance(moved, list) else moved)
    assert sent == []
    slider.value = set_here  # the kernel's own change still reaches the page
    assert [(m["method"], list(m["state"])) for m in sent] == [("update", ["value"])]
    assert slider.trait_metadata("min", "echo_update", True)  # other traits as ever
