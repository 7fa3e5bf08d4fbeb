"""Controls for one argument, generated from the catalog's ArgInfo.

Sliders where a curated hint gives a range, number boxes elsewhere, dropdowns for enums, check
boxes for booleans, text for vectors; DALI's own argument doc is the tooltip. Per-sample arguments
get a "random" toggle that swaps the value for a distribution and its parameters. Numbers are typed
into text boxes read here, so a value that is not applied stays typed and says why.
"""

from __future__ import annotations

import contextlib
import html
import json
import math
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
import traitlets

from augexplorer.catalog import ArgInfo, Hint
from augexplorer.catalog.limits import distributions_for
from augexplorer.spec import ArgValue, PythonCode, Random, Ref

from . import sliders
from .box_fit import SHORT, digits_wide, fit_to_text
from .numbers import format_number, parse_in_range, parse_number

OnChange = Callable[[str, ArgValue], None]
LABEL_WIDTH = "112px"
VALUE_WIDTH = "236px"
SLIDER_WIDTH = "150px"
BOX_WIDTH = "80px"
# The digits a list's box shows beside the argument's name and its buttons in the editor's
# 382 px: 115 px of box ("0.5, 2" and "255, 255, 255" fit; six thresholds take a line of
# their own).
LIST_BESIDE_NAME = 11
# The digits a range's two boxes show beside the name and the buttons ("0.75", "1.333333"); a
# longer pair (4/3 written exactly) takes a line of its own under them, as a long list does.
RANGE_BESIDE_NAME = 12
# A number box's arrow-key step, as a class panel_keys.js reads ("ax-step-0.01").
STEP_CLASS = "ax-step-"


def value_kind(value: ArgValue) -> str:
    """What shape of control a value needs: a constant, a distribution, or an argument input."""
    if isinstance(value, Random):
        return f"random.{value.dist}"
    if isinstance(value, Ref):
        return "ref"
    if isinstance(value, PythonCode):
        return "python"
    return "const"


def parse_vector(text: str, integer: bool) -> list[float] | list[int]:
    """``"224, 224"`` -> ``[224.0, 224.0]``; raises ValueError naming the bad element."""
    items = [t for t in text.replace(";", ",").replace(" ", ",").split(",") if t]
    try:
        return [int(t) for t in items] if integer else [float(t) for t in items]
    except ValueError:
        bad = next(t for t in items if not _is_number(t, integer))
        kind = "whole numbers" if integer else "numbers"
        raise ValueError(f"{bad!r} is not a number; write {kind} separated by commas") from None


def _is_number(text: str, integer: bool) -> bool:
    try:
        int(text) if integer else float(text)
        return True
    except ValueError:
        return False


def format_vector(value: Any) -> str:
    values = value if isinstance(value, (list, tuple)) else [value]
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)


def constant_widget(arg: ArgInfo | None, value: ArgValue) -> widgets.ValueWidget:
    """The input for a constant value of `arg` (a JSON text box when the arg is unknown)."""
    if arg is None:
        return widgets.Text(value=text_for(arg, value), continuous_update=False)
    if arg.choices:
        options = list(arg.choices)
        if value not in options:
            options.append(value)
        # wide enough for its longest choice (INTERP_LINEAR...): the row wraps rather than cut it
        longest = max(len(str(option)) for option in options)
        return widgets.Dropdown(
            options=options, value=value, layout={"min_width": f"{min(280, 36 + 8 * longest)}px"}
        )
    if arg.kind == "BOOL" and not arg.is_vector:
        return widgets.Checkbox(value=bool(value), indent=False)
    if is_pair(arg, value):
        low, high = (float(v) for v in value)
        return RangePair(arg, low, high)
    one = one_value(arg, value)
    if arg.is_numeric and (not arg.is_vector or one is not None):
        # a vector argument holding one value (gaussian_blur's sigma: every axis alike) is one
        # number to tune, with the same slider as a scalar's; more values are typed as a list
        number = one if one is not None else 0
        if arg.hint is not None:
            low, high = arg.hint.low, arg.hint.high
            if arg.is_integer:
                return NumberSlider(
                    sliders.IntSlider(
                        min=int(low), max=int(high), step=int(arg.hint.step or 1), readout=False
                    ),
                    number_box(),
                    int(number),
                )
            return NumberSlider(
                sliders.FloatSlider(
                    min=low, max=high, step=arg.hint.step or (high - low) / 100, readout=False
                ),
                number_box(),
                float(number),
            )
        # sized by its row (graph_view.css's .ax-arg-value): never under 72 px
        box = number_box(int(number) if arg.is_integer else float(number), least="72px")
        return arrow_step(box, 1) if arg.is_integer else box
    if arg.is_numeric and arg.is_vector:
        # a list cut at the box's edge reads as a shorter one ("0, 0.1, 0.3, 0.5, 0" of six
        # thresholds): the box widens for it, a long one on a line of its own (_place_list)
        box = widgets.Text(value=format_vector(value), continuous_update=False)
        return fit_to_text(box, "72px")
    return widgets.Text(value=str(value), continuous_update=False)


def one_value(arg: ArgInfo, value: ArgValue) -> float | None:
    """The number a numeric argument holds where it is one: a scalar, or a curated vector
    argument given a single value (which DALI applies to every axis); None otherwise."""
    if isinstance(value, (list, tuple)) and len(value) == 1 and arg.is_vector and arg.hint:
        value = value[0]
    elif arg.is_vector and arg.hint is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None if arg.is_vector else 0


def is_pair(arg: ArgInfo | None, value: ArgValue) -> bool:
    """Whether `value` of `arg` is shown as a range: a curated [low, high] argument holding
    two numbers (random_area's 0.08, 1)."""
    return (
        arg is not None
        and arg.hint is not None
        and arg.hint.pair
        and isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    )


class RangePair(widgets.HBox):
    """A [low, high] argument: one range slider over the curated range and a box for each
    end, which takes any number (the slider then widens to hold it). Text that is not a number
    stays in its box and goes to `on_unparsed` with the reason, as :class:`NumberSlider`'s."""

    value: traitlets.List[float] = traitlets.List()

    def __init__(self, arg: ArgInfo, low: float, high: float) -> None:
        hint = arg.hint
        assert hint is not None
        step = hint.step or (hint.high - hint.low) / 100
        self.slider = sliders.FloatRangeSlider(
            min=_widened(hint.low, low, -step) if low < hint.low else hint.low,
            max=_widened(hint.high, high, step),
            step=step,
            value=(min(low, high), max(low, high)),
            readout=False,
            layout={"width": SLIDER_WIDTH},
        )
        # laid out as a number's slider and box (graph_view.css): the boxes beside the name,
        # the slider on a row of its own below
        self.slider.add_class("ax-range-slider")
        self.slider.add_class("ax-number-slider")
        # 48 px holds "0.08"; a longer value widens its box (box_fit.py), and the name, both
        # boxes (1.333333 included) and the row's buttons share one line of the editor's 382 px
        self.low = arrow_step(number_box(low, "48px"), step)
        self.high = arrow_step(number_box(high, "48px"), step)
        self.low.add_class("ax-range-low")
        self.high.add_class("ax-range-high")
        self.on_unparsed: Callable[[str, str], None] | None = None
        self._syncing = False
        self._typing = False  # a value typed is being applied: the boxes keep their text
        super().__init__([self.slider, self.low, self.high])
        self.add_class("ax-range-pair")
        self.add_class("ax-number")
        self.value = [low, high]
        self.observe(self._show_value, "value")
        self.slider.observe(self._from_slider, "value")
        self.low.observe(self._from_box, "value")
        self.high.observe(self._from_box, "value")

    def set_disabled(self, disabled: bool) -> None:
        for part in (self.slider, self.low, self.high):
            part.disabled = disabled

    def show_text(self, text: str) -> None:
        """Put typed text back (the panel was rebuilt): "low, high" as it was typed."""
        low, _, high = text.partition(",")
        self._syncing = True
        try:
            self.low.value, self.high.value = low.strip(), high.strip()
        finally:
            self._syncing = False

    def typed_text(self) -> str:
        """The boxes' text as :meth:`show_text` takes it back."""
        return f"{self.low.value}, {self.high.value}"

    def hold(self, value: list[float]) -> None:
        """What was typed was refused: `value`, the range in force, is this control's and its
        slider's again (a refused end left on the slider would be where its next move starts
        from); the boxes keep what was typed (see :meth:`_from_box`)."""
        self.value = value

    def _from_slider(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        ends = [
            kept if _same_on_slider(new, old, self.slider) else _from_page(new)
            for new, old, kept in zip(change["new"], change["old"], self.value, strict=True)
        ]
        if ends != list(self.value):
            self.value = ends

    def _from_box(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        try:
            ends = [float(parse_number(box.value, integer=False)) for box in (self.low, self.high)]
        except ValueError as error:
            if self.on_unparsed is not None:
                self.on_unparsed(f"{self.low.value}, {self.high.value}", str(error))
            return
        if ends == list(self.value):
            if self.on_unparsed is not None:
                self.on_unparsed(change["new"], "")
            return
        # The boxes are written once the ends are applied: a refused end stays as typed (one
        # written and written back is lost on the page, which keeps the first of the two).
        self._typing = True
        try:
            self.value = ends
        finally:
            self._typing = False
        if list(self.value) == ends:  # applied: as the panel writes it ("0.50" reads 0.5)
            self._show_value({"new": ends})

    def _show_value(self, change: dict[str, Any]) -> None:
        low, high = change["new"]
        self._syncing = True
        try:
            if not self._typing:
                self.low.value = format_number(low)
                self.high.value = format_number(high)
            _show_range(self.slider, low, high)  # a reversed range stays off it
        finally:
            self._syncing = False


def arrow_step(box: widgets.Text, step: float) -> widgets.Text:
    """The Up and Down arrow keys in `box` step its number by `step`, as its slider's arrows
    step the slider (panel_keys.js reads the step from the class; a box without one steps by
    a unit of its last digit typed: 0.25 by 0.01)."""
    for name in [c for c in box._dom_classes if c.startswith(STEP_CLASS)]:
        box.remove_class(name)
    box.add_class(f"{STEP_CLASS}{format_number(step)}")
    return box


def number_box(
    value: float | None = None, width: str | None = None, *, least: str | None = None
) -> widgets.Text:
    """A text box for one number (see :mod:`.numbers` for why it is not a FloatText), widened
    to show its whole value (see :func:`.box_fit.fit_to_text`). `width`: its width where the
    value fits; `least`: the least width, where the page's CSS sizes it."""
    box = widgets.Text(
        value="" if value is None else format_number(value),
        continuous_update=False,
        layout={"width": width} if width else {},
    )
    box.add_class("ax-number-text")
    return fit_to_text(box, least or width)


class NumberSlider(widgets.HBox):
    """A slider over the curated range and a number box that takes any value.

    The slider is for exploring; the box shows the exact value and accepts values outside the
    slider's range (the slider then rests at its end), and an invalid one stays typed in it with
    its error below, so the user can correct it rather than retype it. Text that is not a number
    is kept in the box and handed to `on_unparsed` with the reason (an empty reason: the text
    was the value already in force).
    """

    value = traitlets.Any()

    def __init__(
        self,
        slider: widgets.FloatSlider | widgets.IntSlider,
        box: widgets.Text,
        value: float,
        *,
        bounds: tuple[float, float] | None = None,
        what: str = "the value",
    ) -> None:
        """`bounds`: limits a typed value must keep (a probability's 0 and 1); without them the
        box takes any number. `what` names the value in the reason a typed one is refused."""
        self.slider = slider
        self.box = box
        self.integer = isinstance(slider, widgets.IntSlider)
        self.bounds = bounds
        self.what = what
        self.on_unparsed: Callable[[str, str], None] | None = None
        self._syncing = False
        self._typing = False  # a number typed is being applied: the box keeps its text
        slider.layout.width = SLIDER_WIDTH
        box.layout.width = BOX_WIDTH
        slider.add_class("ax-number-slider")
        box.add_class("ax-number-box")
        arrow_step(box, slider.step or 1)
        super().__init__([slider, box])
        self.add_class("ax-number")
        self.observe(self._show_value, "value")
        self.value = value
        slider.observe(self._from_slider, "value")
        box.observe(self._from_box, "value")

    def set_disabled(self, disabled: bool) -> None:
        self.slider.disabled = disabled
        self.box.disabled = disabled

    def show_text(self, text: str) -> None:
        """Put typed text back in the box (the panel was rebuilt) without reading it."""
        self._syncing = True
        try:
            self.box.value = text
        finally:
            self._syncing = False

    def typed_text(self) -> str:
        return str(self.box.value)

    def hold(self, value: float) -> None:
        """What was typed was refused: `value`, the one in force, is this control's and its
        slider's again (-5 typed into a 16-1024 slider left its handle at 16, and the slider's
        next step applied 17); the box keeps what was typed (see :meth:`_from_box`)."""
        self.value = value

    def _from_slider(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        new, old = change["new"], change["old"]
        if _same_on_slider(new, old, self.slider):
            # The page put the value on the slider's steps: nothing was moved (and a value
            # beyond the slider's range, which the slider shows at its end, stays).
            return
        nearer = _step_from_between(new, self.value, self.slider)
        if nearer is not None:
            new = round(nearer) if self.integer else nearer
        self.value = new if self.integer else _from_page(new)

    def _from_box(self, change: dict[str, Any]) -> None:
        if self._syncing:
            return
        try:
            if self.bounds is None:
                number = parse_number(change["new"], self.integer)
            else:  # the reason names the limits, whatever was typed
                number = parse_in_range(change["new"], *self.bounds, self.what, self.integer)
        except ValueError as error:
            if self.on_unparsed is not None:
                self.on_unparsed(change["new"], str(error))
            return
        if number == self.value:
            # The value in force typed again (after text that did not parse): nothing changes,
            # but the complaint about the earlier text must go.
            self._show_value({"new": number})
            if self.on_unparsed is not None:
                self.on_unparsed(change["new"], "")
            return
        # The box is written once the number is applied: a refused one stays as typed (text
        # written and written back is lost on the page, which keeps the first of the two).
        typed = number if self.integer else float(number)
        self._typing = True
        try:
            self.value = typed
        finally:
            self._typing = False
        if self.value == typed:  # applied: as the panel writes it ("25.0" reads 25)
            self._show_value({"new": typed})

    def _show_value(self, change: dict[str, Any]) -> None:
        value = change["new"]
        self._syncing = True
        try:
            if not self._typing:
                self.box.value = format_number(value)
            _put_on_slider(self.slider, min(max(value, self.slider.min), self.slider.max))
        finally:
            self._syncing = False


def _same_on_slider(new: float, old: float, slider: widgets.Widget) -> bool:
    """Whether a value the page's slider sent is `old` put on the slider's steps, not a move.

    Drawn, a slider shows `old` on the step nearest to it (JavaScript rounds a half up) and
    sends that back, in floating point (-20 as -19.999999999999986, a probability of 0.3333 as
    0.33). A move by the user lands on another step: a step or more from that one."""
    step = abs(float(slider.step or 0)) or 1.0
    low, high = float(slider.min), float(slider.max)
    tolerance = step * 1e-6
    if math.isclose(new, old, rel_tol=1e-9, abs_tol=tolerance):
        return True
    position = (min(max(old, low), high) - low) / step
    nearest = {math.floor(position + 0.5)}
    if abs(position % 1 - 0.5) < 1e-9:  # exactly between two steps: either, by float noise
        nearest = {math.floor(position), math.ceil(position)}
    return any(
        math.isclose(new, min(low + k * step, high), rel_tol=1e-9, abs_tol=tolerance)
        for k in nearest
    )


def _step_from_between(new: float, value: Any, slider: widgets.Widget) -> float | None:
    """Where one step from `value` lands, where `value` lies between the slider's steps (14.5
    typed on a slider of whole steps) and the page moved its handle one step from where it
    showed it (15): the step next to `value` that way (15 or 14), not a step and a half
    (16 or 14); None for any other move, which lands where the handle went."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    step = abs(float(slider.step or 0)) or 1.0
    low, high = float(slider.min), float(slider.max)
    if not low < value < high:
        return None
    position = (value - low) / step
    if math.isclose(position, round(position), abs_tol=1e-6):
        return None  # on a step: the page moved from the value itself
    shown = low + math.floor(position + 0.5) * step
    moved = (new - shown) / step
    if not math.isclose(abs(moved), 1.0, abs_tol=1e-6):
        return None
    k = math.ceil(position) if moved > 0 else math.floor(position)
    return min(max(low + k * step, low), high)


def _put_on_slider(slider: widgets.Widget, value: float | tuple[float, float]) -> None:
    """Set `slider` to `value` unless it holds it already up to the page's float noise.

    The page sends 14.999999999999998 for 15; putting the clean 15 back would send the page an
    update that lands after the user's next moves and drags the handle back to 15."""
    step = abs(float(slider.step or 0)) or 1.0
    held = slider.value if isinstance(value, tuple) else (slider.value,)
    wanted = value if isinstance(value, tuple) else (value,)
    if len(held) == len(wanted) and all(
        math.isclose(h, w, rel_tol=1e-9, abs_tol=step * 1e-6)
        for h, w in zip(held, wanted, strict=True)
    ):
        return
    slider.value = value


def _from_page(value: float) -> float:
    """A slider's value without the page's floating-point noise (0.30000000000000004 -> 0.3)."""
    return float(f"{value:.12g}")


def read_constant(arg: ArgInfo | None, widget: widgets.ValueWidget) -> ArgValue:
    value = widget.value
    if arg is None:
        import ast

        return ast.literal_eval(value)
    if isinstance(widget, RangePair):
        return [float(v) for v in value]
    if arg.is_numeric and arg.is_vector and isinstance(widget, NumberSlider):
        return value if arg.is_integer else float(value)  # one value for every axis
    if arg.is_numeric and arg.is_vector:
        return parse_vector(value, arg.is_integer)
    if arg.kind == "BOOL" and not arg.is_vector:
        return bool(value)
    if arg.is_numeric and isinstance(value, str):
        number = parse_number(value, arg.is_integer)
        return number if arg.is_integer else float(number)
    if arg.is_numeric and not arg.is_integer and isinstance(value, int):
        return float(value)
    return value


def text_for(arg: ArgInfo | None, value: ArgValue) -> str:
    """What a text box shows for a constant `value` of `arg`."""
    if arg is None:
        return repr(value)
    if isinstance(value, (list, tuple)):
        return format_vector(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_number(value)
    return str(value)


def make_random(arg: ArgInfo | None, value: ArgValue) -> Random:
    """A distribution around the current constant, so turning random on is gentle: a tenth of
    the curated range (else a fifth of the value) either side, kept symmetric inside the
    curated range, so 163 on a -180..180 slider becomes U(146, 180)."""
    if arg is not None and (
        arg.kind == "BOOL"
        or (arg.hint and (arg.hint.low, arg.hint.high) == (0, 1) and arg.is_integer)
    ):
        return Random.coin_flip(0.5)
    values = value if isinstance(value, (list, tuple)) else [value]
    centre = float(values[0]) if values and isinstance(values[0], (int, float)) else 0.0
    shape = len(values) if isinstance(value, (list, tuple)) and len(values) > 1 else None
    if shape is None and arg is not None and arg.is_vector and arg.is_numeric:
        shape = 1  # a vector argument's one value (for every axis) is drawn as a vector of one
    if arg is not None and arg.hint is not None:
        low_end, high_end = arg.hint.low, arg.hint.high
        spread = (high_end - low_end) * 0.1
        if low_end < centre < high_end:
            spread = min(spread, centre - low_end, high_end - centre)
            low, high = centre - spread, centre + spread
        elif centre <= low_end:  # at or past the end: the range starts there, inward
            low, high = centre, centre + spread
        else:
            low, high = centre - spread, centre
        low, high = _on_steps(low, high, arg.hint)
    else:
        spread = abs(centre) * 0.2 or 1.0
        low, high = centre - spread, centre + spread
    if arg is not None and arg.is_integer:
        low, high = float(round(low)), float(round(high))
    return Random.uniform(round(low, 4), round(high, 4), shape=shape)


def _on_steps(low: float, high: float, hint: Hint) -> tuple[float, float]:
    """`low` and `high` on the hint's steps (counted from its low end, as the range slider
    counts them), at least one step apart: what the slider shows is the range. The high end
    mirrors the low one about the centre: each end rounded alone moved both the same way where
    the centre lies between steps (-12.5 +- 18 on whole degrees gave U(-30, 6), centred on -12),
    so the range is centred on the value wherever the steps allow it."""
    if not hint.step:
        return low, high
    step, start = hint.step, hint.low
    last = round((hint.high - start) / step)
    centre = ((low + high) / 2 - start) / step  # in steps from the start
    low_steps = min(max(round(centre - (high - low) / 2 / step), 0), last)
    high_steps = min(max(round(2 * centre - low_steps), low_steps), last)
    low = _from_page(start + low_steps * step)
    high = _from_page(start + high_steps * step)
    if high - low < step / 2:
        low, high = max(hint.low, low - step), min(hint.high, high + step)
    return low, high


def constant_from(arg: ArgInfo | None, random: Random) -> ArgValue:
    """The constant a distribution collapses to when "random" is switched off."""
    if random.dist == "coin_flip":
        one = random.probability >= 0.5
        return one if arg is not None and arg.kind == "BOOL" else int(one)
    if random.dist == "choice":
        return random.values[0] if random.values else 0
    centre = (random.low + random.high) / 2 if random.dist == "uniform" else random.mean
    if arg is not None and arg.is_integer:
        centre = round(centre)
    if random.shape:
        return [centre] * random.shape
    return centre


def choice_values(arg: ArgInfo | None, centre: float) -> list[float] | list[int]:
    """Values a new choice starts with: the centre and the ends of the gentle range that
    "random" starts from, so the first draws already differ (one value would draw it always)."""
    spread = make_random(arg, centre)
    if spread.dist == "coin_flip":
        return [0, 1]
    step = arg.hint.step if arg is not None and arg.hint is not None else None
    if step:  # whole steps either side, so a value the steps keep valid stays valid (odd sizes)
        away = max(1, round((spread.high - spread.low) / 2 / step)) * step
        values = sorted({float(centre) - away, float(centre), float(centre) + away})
    else:
        values = sorted({spread.low, float(centre), spread.high})
    if arg is not None and arg.is_integer:
        return sorted({round(v) for v in values})
    return [round(v, 4) for v in values]


class RandomEditor(widgets.HBox):
    """Distribution and parameters of a random argument."""

    def __init__(
        self,
        arg: ArgInfo | None,
        random: Random,
        on_change: Callable[[Random], None],
        on_error: Callable[[str], None] | None = None,
        check: Callable[[Random], str | None] | None = None,
    ):
        """`check`: why a distribution cannot be applied (a reversed range, draws outside the
        argument's range), for it to be refused as text that is no number is."""
        self.arg = arg
        self._on_change = on_change
        self._on_error = on_error
        self._check = check
        self._quiet = False
        # only what DALI can draw for this argument's type (no coin flip for a float)
        offered = list(distributions_for(arg.kind if arg is not None else None))
        if random.dist not in offered:  # a spec written elsewhere: shown, its error beside it
            offered.append(random.dist)
        self.dist = widgets.Dropdown(options=offered, value=random.dist, layout={"width": "92px"})
        self.dist.add_class("ax-random-dist")
        self.params = self._param_widgets(random)
        self.random = random
        self.dist.observe(self._dist_changed, "value")
        super().__init__([self.dist, *(_labelled(n, w) for n, w in self.params.items())])
        self.add_class("ax-random")

    def _param_widgets(self, random: Random) -> dict[str, widgets.ValueWidget]:
        hint = self.arg.hint if self.arg is not None else None
        out: dict[str, widgets.ValueWidget]
        if random.dist == "uniform":
            if hint is not None:
                # The slider's own readout would drop or clamp typed text without a word: the
                # bounds are typed in boxes read here instead.
                step = hint.step or (hint.high - hint.low) / 100
                low = _widened(hint.low, random.low, -step)
                high = _widened(hint.high, random.high, step)
                out = {
                    "range": sliders.FloatRangeSlider(
                        value=(random.low, random.high),
                        min=low,
                        max=high,
                        step=step,
                        readout=False,
                        layout={"width": "150px"},
                    ),
                    "low": arrow_step(number_box(random.low, "64px"), step),
                    "high": arrow_step(number_box(random.high, "64px"), step),
                }
            else:
                out = {
                    "low": number_box(random.low, "72px"),
                    "high": number_box(random.high, "72px"),
                }
        elif random.dist == "normal":
            out = {
                "mean": number_box(random.mean, "84px"),
                "stddev": number_box(random.stddev, "84px"),
            }
        elif random.dist == "coin_flip":
            probability = NumberSlider(
                sliders.FloatSlider(min=0, max=1, step=0.01, readout=False),
                number_box(),
                random.probability,
            )
            probability.on_unparsed = lambda _, reason: self._refused(f"probability: {reason}")
            out = {"probability": probability}
        else:
            out = {
                "values": fit_to_text(
                    widgets.Text(
                        format_vector(list(random.values)),
                        placeholder="values, comma separated",
                        continuous_update=False,
                        layout={"width": "160px"},
                    ),
                    "160px",
                ),
                # Weights travel to DALI's random.choice as `p`; empty means equal chances.
                "weights": fit_to_text(
                    widgets.Text(
                        format_vector(list(random.p)) if random.p else "",
                        placeholder="weights (optional)",
                        continuous_update=False,
                        layout={"width": "140px"},
                    ),
                    "140px",
                ),
            }
        for name, widget in out.items():
            # a box of widgets (the probability's slider and box) takes no tooltip of its own
            parts = [widget.slider, widget.box] if isinstance(widget, NumberSlider) else [widget]
            for part in parts:
                part.tooltip = name
            widget.add_class(f"ax-random-{name}")
            widget.observe(self._param_changed, "value")
        return out

    def current(self) -> Random:
        """The distribution the editor shows; raises ValueError naming the box that holds text
        that is not a number, or the parameters the distribution refuses."""
        r = self.random
        p: dict[str, Any] = {}
        for name, widget in self.params.items():
            if isinstance(widget, widgets.Text) and name not in ("values", "weights"):
                try:
                    p[name] = float(parse_number(widget.value, integer=False))
                except ValueError as error:
                    raise ValueError(f"{name}: {error}") from None
            else:
                p[name] = widget.value
        if r.dist == "uniform":
            return Random.uniform(p["low"], p["high"], shape=r.shape, seed=r.seed)
        if r.dist == "normal":
            return Random.normal(p["mean"], p["stddev"], shape=r.shape, seed=r.seed)
        if r.dist == "coin_flip":
            return Random.coin_flip(p["probability"], seed=r.seed)
        integer = self.arg is not None and self.arg.is_integer
        values = parse_vector(p["values"], integer)
        try:
            weights = parse_vector(p.get("weights", ""), integer=False)
        except ValueError as error:
            raise ValueError(f"weights: {error}") from None
        return Random.choice(values, weights, shape=r.shape, seed=r.seed)

    def typed_text(self) -> str:
        """What the parameter boxes hold, typed or not, as :meth:`show_text` takes it back."""
        return json.dumps(
            {
                name: box.typed_text() if isinstance(box, NumberSlider) else box.value
                for name, box in self._boxes().items()
            }
        )

    def show_text(self, text: str) -> None:
        """Put text typed in the parameter boxes back (the panel was rebuilt), unread."""
        typed = json.loads(text)
        self._quiet = True
        try:
            for name, box in self._boxes().items():
                if name in typed:
                    if isinstance(box, NumberSlider):
                        box.show_text(typed[name])
                    else:
                        box.value = typed[name]
        finally:
            self._quiet = False

    def _boxes(self) -> dict[str, widgets.Text | NumberSlider]:
        """The parameters typed as text (a probability's box with its slider included)."""
        return {
            name: widget
            for name, widget in self.params.items()
            if isinstance(widget, (widgets.Text, NumberSlider))
        }

    def show(self, random: Random) -> None:
        """Show new values (after undo) without sending an edit back."""
        self.random = random
        self._quiet = True
        try:
            for name, widget in self.params.items():
                if name == "range":
                    _show_range(widget, random.low, random.high)
                elif name == "values":
                    widget.value = format_vector(list(random.values))
                elif name == "weights":
                    widget.value = format_vector(list(random.p)) if random.p else ""
                elif isinstance(widget, widgets.Text):
                    widget.value = format_number(getattr(random, name))
                else:
                    widget.value = getattr(random, name)
        finally:
            self._quiet = False

    def _param_changed(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        slider = self.params.get("range")
        from_slider = slider is not None and change.get("owner") is slider
        if slider is not None and from_slider:
            r = self.random
            low, high = (
                kept if _same_on_slider(new, old, slider) else _from_page(new)
                for new, old, kept in zip(
                    change["new"], change["old"], (r.low, r.high), strict=True
                )
            )
            if (low, high) == (r.low, r.high):
                return  # the page put the range on the slider's steps: nothing was moved
            self._quiet = True  # the boxes follow the slider; they hold what is applied
            try:
                self.params["low"].value = format_number(low)
                self.params["high"].value = format_number(high)
            finally:
                self._quiet = False
        try:
            new = self.current()
        except ValueError as error:
            # the text box keeps what was typed; the user is told why it was not applied
            self._refused(str(error))
            return
        problem = self._check(new) if self._check is not None else None
        if problem:
            self._refused(problem)
            self._hold()
            return
        if slider is not None and not from_slider:
            self._quiet = True
            try:
                _show_range(slider, new.low, new.high)
            finally:
                self._quiet = False
        self.random = new
        if self._on_error is not None:
            self._on_error("")  # applied: an earlier refusal no longer stands
        self._on_change(new)

    def _hold(self) -> None:
        """A refused value typed into a parameter's box with a slider (a coin flip's
        probability): the slider goes back to the value in force, as an argument's does
        (:meth:`NumberSlider.hold`), and the box keeps what was typed."""
        self._quiet = True
        try:
            for name, widget in self.params.items():
                if isinstance(widget, NumberSlider):
                    widget.hold(getattr(self.random, name))
        finally:
            self._quiet = False

    def _refused(self, reason: str) -> None:
        if self._on_error is None:
            return
        if not reason.split(":", 1)[-1].strip():  # the value in force typed again
            self._on_error("")
            return
        what = self.arg.name if self.arg is not None else "the argument"
        self._on_error(f"Not applied: {reason}. {what} stays {self.random.short()}.")

    def _dist_changed(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        r = self.random
        centre = constant_from(self.arg, r)
        base = centre[0] if isinstance(centre, list) else centre
        # six significant digits: a centre such as 7.1e-15 (float noise) starts as 0
        base = float(f"{float(base):.6g}") if isinstance(base, (int, float)) else 0.0
        base = 0.0 if abs(base) < 1e-9 else base
        if change["new"] == "uniform":
            new = make_random(self.arg, base)
            new = Random.uniform(new.low, new.high, shape=r.shape, seed=r.seed)
        elif change["new"] == "normal":
            # a quarter of the range it replaces: about 95% of the draws stay within it
            spread = r if r.dist == "uniform" else make_random(self.arg, base)
            stddev = float(f"{(float(spread.high) - float(spread.low)) / 4:.3g}") or 1.0
            new = Random.normal(base, stddev, shape=r.shape, seed=r.seed)
        elif change["new"] == "coin_flip":
            new = Random.coin_flip(0.5, seed=r.seed)
        else:
            new = Random.choice(choice_values(self.arg, base), shape=r.shape, seed=r.seed)
        self._on_change(new)  # the inspector rebuilds this row for the new distribution


# What each parameter box of a distribution is called on screen (the range slider needs none).
PARAM_LABELS = {
    "low": "low",
    "high": "high",
    "mean": "mean",
    "stddev": "stddev",
    "probability": "p",
    "values": "values",
    "weights": "weights",
}


def _labelled(name: str, widget: widgets.Widget) -> widgets.Widget:
    """A distribution parameter with its visible name in front of it."""
    if name not in PARAM_LABELS:
        return widget
    label = widgets.HTML(f"<span class='ax-param-label'>{PARAM_LABELS[name]}</span>")
    box = widgets.HBox([label, widget])
    box.add_class("ax-param")
    box.add_class(f"ax-param-{name}")
    return box


def _widened(end: float, value: float, step: float) -> float:
    """`end` of a slider's scale, moved by whole steps (`step` < 0 downwards) until it holds
    `value`: the scale's steps stay where they were, so values on them stay on them."""
    beyond = (value - end) / step
    if beyond <= 0:
        return end
    return _from_page(end + math.ceil(beyond - 1e-9) * step)


def _show_range(slider: widgets.FloatRangeSlider, low: float, high: float) -> None:
    """Put (low, high) on the slider, widening its scale to hold a typed value beyond it. A
    reversed range stays off it (a range slider cannot hold one): the graph's check refuses
    it on the argument, naming the fix, and the boxes keep what was typed."""
    if low > high:
        return
    step = float(slider.step)
    if low < slider.min:
        slider.min = _widened(slider.min, low, -step)
    if high > slider.max:
        slider.max = _widened(slider.max, high, step)
    _put_on_slider(slider, (low, high))


class ArgControl(widgets.VBox):
    """One argument's row: name (DALI's doc as tooltip), value, random toggle, reset.

    A distribution's controls take a second line, so a range slider keeps a readable width.
    """

    def __init__(
        self,
        name: str,
        arg: ArgInfo | None,
        value: ArgValue,
        *,
        on_change: OnChange,
        on_reset: Callable[[str], None],
        unset_start: ArgValue | None = None,
        starting: ArgValue | None = None,
        on_select: Callable[[str], None] | None = None,
        read_also_by: Sequence[str] = (),
        check: Callable[[str, ArgValue], str | None] | None = None,
        random_before: Callable[[str], Random | None] | None = None,
    ) -> None:
        """`unset_start`: the argument is not set and has no default (the operator then does
        something no value gives, DALI's doc says what): the row says so instead of showing a
        made-up value, and "set" gives it `unset_start`. An argument another node gives (a
        draw, a coin) shows that node's name as a link (`on_select` selects it); where that
        node gives its value to `read_also_by` too (a box or mask operator following the image
        operator), the row offers no value of its own: one would move the image alone.
        `check` says why a value cannot be applied (out of the argument's range, a reversed
        draw): such a value is refused with that reason before it reaches the graph, as text
        that is no number is, so every control refuses alike. `random_before(name)`: the
        distribution the argument held before "random" was switched off, which switching it on
        brings back (None: a range around the value in force)."""
        self.name = name
        self._check = check
        self._random_before = random_before
        self.arg = arg
        self.kind = value_kind(value)
        self._on_change = on_change
        self._quiet = False
        # Text the user typed that does not parse: kept in the box (with its error) until they
        # fix it or the value changes elsewhere (undo), so nothing typed is lost.
        self._unparsed: tuple[str, str, ArgValue] | None = None
        self._value = value
        self._error: str | None = None  # the graph's own complaint about the value in force
        label = widgets.HTML(arg_label_html(name, _tooltip(arg)), layout={"width": LABEL_WIDTH})
        label.add_class("ax-arg-label")
        per_sample = arg is not None and arg.per_sample
        self.random_toggle = widgets.ToggleButton(
            value=isinstance(value, Random),
            description="random",
            icon="random",
            tooltip=(
                "draw this argument per sample from a distribution"
                if per_sample
                else "DALI takes one value per batch for this argument; it cannot be random"
            ),
            disabled=not per_sample,
            layout={"width": "auto"},
        )
        self.random_toggle.add_class("ax-random-toggle")
        self.random_toggle.observe(self._toggle_random, "value")
        no_default = arg is not None and arg.optional_without_default
        # a required argument cannot be left out: no reset offered (the graph would not run)
        required = arg is not None and arg.required
        reset = widgets.Button(
            icon="times",
            tooltip="leave it out, as DALI has no default for it"
            if no_default
            else "back to DALI's default",
            layout={"width": "28px"},
        )
        reset.add_class("ax-arg-reset")
        self._on_reset = on_reset
        reset.on_click(lambda _: self._reset())
        if required:
            reset.layout.display = "none"
        if isinstance(value, Ref) and read_also_by:
            shared = (
                f"'{value.node}' gives this value to {', '.join(read_also_by)} too: edit "
                f"'{value.node}' so they all get the same value (one of this argument's own "
                "would leave them behind)"
            )
            for button in (self.random_toggle, reset):
                button.disabled = True
                button.tooltip = shared
        self.editor: widgets.Widget
        rows: list[widgets.Widget]
        self._unset_start = unset_start
        if unset_start is not None:
            self.editor = self._set_button(unset_start)
            rows = [widgets.HBox([label, self.editor, self.random_toggle]), self._unset_note()]
        elif isinstance(value, Random):
            self.editor = RandomEditor(
                arg,
                value,
                lambda r: on_change(name, r),
                on_error=self._random_refused,
                check=(lambda r: check(name, r)) if check is not None else None,
            )
            self.editor.add_class("ax-random-row")
            spacer = widgets.HTML("", layout={"width": "auto", "flex": "1 1 auto"})
            rows = [widgets.HBox([label, spacer, self.random_toggle, reset]), self.editor]
        else:
            if isinstance(value, Ref):
                self.editor = _ref_link(value, on_select)
            else:
                self.editor = constant_widget(arg, value)
                if isinstance(self.editor, (NumberSlider, RangePair)):
                    self.editor.on_unparsed = self._typed_number
                else:
                    self.editor.add_class("ax-arg-value")  # sized by the row (graph_view.css)
                self.editor.observe(self._constant_changed, "value")
            rows = [widgets.HBox([label, self.editor, self.random_toggle, reset])]
        rows[0].add_class("ax-arg-row")
        if isinstance(self.editor, widgets.Text) and arg is not None and arg.is_vector:
            self._place_list(rows[0])
        if isinstance(self.editor, RangePair):
            self._place_range(rows[0], self.editor)
        self.message = widgets.HTML("")
        self.message.add_class("ax-arg-message")
        # A new node's curated value (color_twist's hue 20) was picked to show an effect, not
        # by the user: said so while the argument holds it, so it is not exported unseen.
        self._starting = starting
        self.starting_note = widgets.HTML(
            "<span class='ax-muted' title='picked to show the effect when the operator was"
            " added: set your own, or keep it knowingly'>starting value, not chosen yet</span>"
        )
        self.starting_note.add_class("ax-arg-starting-note")
        self._mark_starting(value)
        # A value a schedule drives (augexplorer.schedules): the box holds it as written, the
        # schedule decides what each epoch uses, so the row says which parts follow the run.
        self.schedule_note = widgets.HTML("")
        self.schedule_note.add_class("ax-arg-schedule-note")
        self.schedule_note.layout.display = "none"
        super().__init__([*rows, self.starting_note, self.schedule_note, self.message])
        self.add_class(f"ax-arg-{name}")
        self.add_class("ax-arg")

    def _place_list(self, row: widgets.HBox) -> None:
        """A list longer than the room beside the name takes a line of its own under it (as a
        slider does): widened beside the name, it pushed the reset button onto a line alone."""
        editor = self.editor
        assert isinstance(editor, widgets.Text)

        def place(_: Any = None) -> None:
            if digits_wide(editor.value) > LIST_BESIDE_NAME:
                row.add_class("ax-arg-long")
            else:
                row.remove_class("ax-arg-long")

        editor.observe(place, "value")
        place()

    @staticmethod
    def _place_range(row: widgets.HBox, pair: RangePair) -> None:
        """A range whose ends are too long to read beside the name takes a line of its own
        under it: its boxes widened beside the name pushed the random and reset buttons onto a
        line alone, between the boxes and the slider."""

        def place(_: Any = None) -> None:
            ends = (digits_wide(box.value) for box in (pair.low, pair.high))
            if sum(max(SHORT, digits) for digits in ends) > RANGE_BESIDE_NAME:
                row.add_class("ax-arg-long-range")
            else:
                row.remove_class("ax-arg-long-range")

        pair.low.observe(place, "value")
        pair.high.observe(place, "value")
        place()

    def show_scheduled(self, parts: list[str]) -> None:
        """Say which parts of this argument follow the run (``["high", "low"]``, ``[""]`` for
        the constant itself); none hides the note."""
        self.schedule_note.layout.display = "" if parts else "none"
        if not parts:
            return
        what = "follows" if parts == [""] else " and ".join(parts) + " follow"
        self.schedule_note.value = (
            f"<span class='ax-muted' title='the box holds the value as written; the schedule "
            f"gives each epoch its own (Follow the run)'>⏱ {html.escape(what)} the run: "
            "the box holds the value as written</span>"
        )

    def _set_button(self, start: ArgValue) -> widgets.Button:
        button = widgets.Button(
            description="set",
            tooltip=f"give {self.name} a value ({_in_force(self.arg, start)}), then tune it",
            layout={"width": "auto"},
        )
        button.add_class("ax-arg-set")
        button.add_class("ax-arg-unset")
        button.on_click(lambda _: self._on_change(self.name, start))
        return button

    def _unset_note(self) -> widgets.HTML:
        """What the operator does without the argument, in DALI's words."""
        when = self.arg.when_unset() if self.arg is not None else ""
        if self.arg is not None and self.arg.required:
            when = "required, the node does not run until it has a value"
        elif not when and self.arg is not None and self.arg.default_is_placeholder:
            when = f"DALI's default {_in_force(self.arg, self.arg.default)} stands for not given"
        note = widgets.HTML(
            "not set" + (f": {_escape(_unset_summary(when))}" if when else ""),
            layout={"min_width": "0"},
        )
        note.add_class("ax-arg-unset-note")
        return note

    @property
    def unparsed(self) -> tuple[str, str, ArgValue] | None:
        """(typed text, its error, the value it did not replace), while there is one."""
        return self._unparsed

    def keep_unparsed(self, unparsed: tuple[str, str, ArgValue]) -> None:
        """Carry text the user typed over to this control (the panel was rebuilt)."""
        if unparsed[2] != self._value:
            return
        if isinstance(self.editor, (NumberSlider, RangePair, RandomEditor)):
            self.editor.show_text(unparsed[0])
        elif isinstance(self.editor, widgets.Text):
            self._quiet = True
            try:
                self.editor.value = unparsed[0]
            finally:
                self._quiet = False
        else:
            return
        self._unparsed = unparsed
        self._say(unparsed[1])

    def show(self, value: ArgValue, error: str | None) -> None:
        if self._unparsed is not None and value != self._unparsed[2]:
            self._unparsed = None  # the value changed elsewhere (undo, reset): show it
        self._value = value
        self._error = error
        if self._unparsed is not None:
            self._say(self._unparsed[1])
            return
        self._quiet = True
        try:
            if isinstance(self.editor, RandomEditor) and isinstance(value, Random):
                self.editor.show(value)
            elif not isinstance(value, (Random, Ref)) and hasattr(self.editor, "value"):
                shown = self._shown(value)
                if self.editor.value != shown:
                    # A value the control cannot hold is left to the error message below.
                    with contextlib.suppress(Exception):
                        self.editor.value = shown
        finally:
            self._quiet = False
        self._mark_starting(value)
        self._say(error)

    def _shown(self, value: ArgValue) -> Any:
        """`value` as the editor holds it."""
        if isinstance(self.editor, widgets.Text):
            return text_for(self.arg, value)
        if isinstance(self.editor, NumberSlider) and isinstance(value, (list, tuple)):
            return value[0] if len(value) == 1 else value  # one value for every axis
        if isinstance(self.editor, RangePair) and isinstance(value, (list, tuple)):
            return [float(v) for v in value]
        return value

    def _reset(self) -> None:
        """The reset button: back to DALI's default. Text typed and refused goes with it, even
        where the default is the value in force already (the box read 'abc' after a reset)."""
        self._drop_typed()
        self._on_reset(self.name)

    def _drop_typed(self) -> None:
        """Text typed and refused goes: the editor shows the value in force, and its error (the
        graph's own, if any) replaces the refusal."""
        if self._unparsed is None:
            return
        self._unparsed = None
        self._quiet = True
        try:
            if isinstance(self.editor, RandomEditor):
                self.editor.show(self.editor.random)
            elif isinstance(self.editor, NumberSlider):
                self.editor.show_text(format_number(self.editor.value))
            elif isinstance(self.editor, RangePair):
                self.editor.show_text(", ".join(format_number(v) for v in self.editor.value))
            elif isinstance(self.editor, widgets.Text) and not isinstance(self._value, Random):
                self.editor.value = self._shown(self._value)
        finally:
            self._quiet = False
        self._say(self._error)

    def _mark_starting(self, value: ArgValue) -> None:
        starting = self._starting is not None and value == self._starting
        self.starting_note.layout.display = "" if starting else "none"
        if starting:
            self.add_class("ax-arg-starting")
        else:
            self.remove_class("ax-arg-starting")

    def _say(self, error: str | None) -> None:
        self.message.value = f"⚠ {_escape(error)}" if error else ""
        if error:
            self.add_class("ax-arg-error")
        else:
            self.remove_class("ax-arg-error")

    def _constant_changed(self, _: Any) -> None:
        if self._quiet:
            return
        try:
            value = read_constant(self.arg, self.editor)
        except (ValueError, SyntaxError) as error:
            self._typed_number(str(getattr(self.editor, "value", "")), str(error))
            return
        problem = self._check(self.name, value) if self._check is not None else None
        if problem:
            if isinstance(self.editor, (NumberSlider, RangePair)):
                self._typed_number(self.editor.typed_text(), problem)
                self._quiet = True
                try:  # the value in force back on the slider, what was typed left in the box
                    self.editor.hold(self._shown(self._value))
                finally:
                    self._quiet = False
            else:
                self._typed_number(str(getattr(self.editor, "value", value)), problem)
            return
        self._unparsed = None
        self._starting = None  # typed or slid here: chosen, whatever the value
        self._on_change(self.name, value)

    def _typed_number(self, typed: str, reason: str) -> None:
        """Text typed into the control was not applied because of `reason` (empty: it was the
        value in force, so there is nothing to complain about any more)."""
        if not reason:
            self._unparsed = None
            self._say(self._error)
            return
        message = f"Not applied: {reason}. {self.name} stays {_in_force(self.arg, self._value)}."
        self._unparsed = (typed, message, self._value)
        self._say(message)

    def _random_refused(self, message: str) -> None:
        """The distribution's editor refused what was typed in it (`message`, "Not applied:
        ..."; empty: the values in force typed again): kept like a number's refused text,
        through edits of other arguments and a rebuilt editor."""
        if not message or not isinstance(self.editor, RandomEditor):
            self._unparsed = None
            self._say(self._error)
            return
        self._unparsed = (self.editor.typed_text(), message, self._value)
        self._say(message)

    def _toggle_random(self, change: dict[str, Any]) -> None:
        if self._quiet:
            return
        if change["new"]:
            try:
                if self._unset_start is not None:
                    current = self._unset_start
                elif hasattr(self.editor, "value"):
                    current = read_constant(self.arg, self.editor)
                else:
                    current = 0
            except (ValueError, SyntaxError):
                current = self._value if not isinstance(self._value, (Random, Ref)) else 0
            self._unparsed = None
            earlier = self._random_before(self.name) if self._random_before else None
            self._on_change(
                self.name, earlier if earlier is not None else make_random(self.arg, current)
            )
        elif isinstance(self.editor, RandomEditor):
            self._on_change(self.name, constant_from(self.arg, self.editor.random))


def _ref_link(ref: Ref, on_select: Callable[[str], None] | None) -> widgets.Widget:
    """The node an argument reads, as a link that selects it (its value is edited there)."""
    if on_select is None:
        return widgets.Label(f"← {ref}", layout={"width": VALUE_WIDTH})
    link = widgets.Button(
        description=f"← {ref}",
        tooltip=f"edit '{ref.node}', the node this argument reads",
        layout={"width": "auto"},
    )
    link.add_class("ax-ref-link")
    link.on_click(lambda _: on_select(ref.node))
    return link


def arg_label_html(name: str, tooltip: str) -> str:
    """An argument's name as its row's label: breakable after each "_" (graph_view.css wraps
    it), so `random_aspect_ratio` reads whole in the label's 112 px on two lines rather than
    cut; the hover text starts with the full name."""
    title = html.escape(f"{name}: {tooltip}", quote=True)
    text = "_<wbr>".join(html.escape(part) for part in name.split("_"))
    return f'<span title="{title}">{text}</span>'


def _tooltip(arg: ArgInfo | None) -> str:
    if arg is None:
        return "not an argument of this operator"
    text = " ".join(arg.doc.split())
    head = f"{arg.describe_type()}" + (", per sample" if arg.per_sample else "")
    if arg.has_default:
        head += f", default {arg.default!r}"
    return f"{head}. {text}"[:900]


def _unset_summary(when: str) -> str:
    """DALI's "If a value is not specified, the border pixel is repeated." as "the border pixel
    is repeated": what happens, without the condition the row already states."""
    head, comma, rest = when.partition(", ")
    text = rest if comma and head.lower().startswith(("if ", "when ")) else when
    return text.rstrip(".")


def _in_force(arg: ArgInfo | None, value: ArgValue) -> str:
    if isinstance(value, Random):
        return value.short()
    if isinstance(value, Ref):
        return f"← {value}"
    return text_for(arg, value) if arg is not None else repr(value)


def _escape(text: str) -> str:
    return html.escape(text)
