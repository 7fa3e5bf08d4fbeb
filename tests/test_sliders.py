"""The panel's sliders send no echo of what the page sends them, except the page's first value
after a value of the kernel's own; the kernel's own changes go as ever."""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pytest
from augexplorer_widgets import sliders
from augexplorer_widgets.arg_controls import NumberSlider, number_box


def messages(widget: widgets.Widget) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    widget._send = lambda msg, buffers=None: sent.append(msg)  # type: ignore[method-assign]
    return sent


def methods(sent: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    return [(m["method"], list(m["state"])) for m in sent]


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
    slider.set_state({"value": moved})  # the page's first value (made on the widget's opening)
    sent = messages(slider)
    slider.set_state({"value": moved})  # as the page sends a moved handle
    assert slider.value == (tuple(moved) if isinstance(moved, list) else moved)
    assert sent == []
    slider.value = set_here  # the kernel's own change still reaches the page
    assert methods(sent) == [("update", ["value"])]
    assert slider.trait_metadata("min", "echo_update", True)  # other traits as ever


def test_the_pages_first_value_after_the_kernels_own_is_echoed() -> None:
    """The page may send 17 before the kernel's 15 reaches it, then apply 15 over its 17: the
    echo of 17 puts its handle back where the kernel's value is."""
    slider = sliders.IntSlider(min=0, max=30)
    slider.set_state({"value": 10})
    sent = messages(slider)
    slider.value = 15  # the kernel's own
    slider.set_state({"value": 17})
    slider.set_state({"value": 18})
    assert methods(sent) == [("update", ["value"]), ("echo_update", ["value"])]
    assert sent[1]["state"]["value"] == 17


def test_a_value_put_back_on_the_steps_echoes_the_next_one() -> None:
    """A typed 14.5 on a slider of whole steps: a move to 16 is the step next to it, 15, put
    back by the kernel while the page may already have sent a later value."""
    editor = NumberSlider(sliders.FloatSlider(min=0, max=30, step=1.0), number_box(), 14.0)
    editor.box.value = "14.5"
    slider = editor.slider
    sent = messages(slider)
    slider.set_state({"value": 16})
    # the first value after the kernel's own 14.5 is echoed; then 15 is put back
    assert methods(sent) == [("echo_update", ["value"]), ("update", ["value"])]
    assert editor.value == 15 and sent[1]["state"]["value"] == 15
    slider.set_state({"value": 17})  # sent before the 15 reached the page: echoed
    assert methods(sent)[2:] == [("echo_update", ["value"])] and sent[2]["state"]["value"] == 17
    slider.set_state({"value": 18})
    assert len(sent) == 3 and editor.value == 18
