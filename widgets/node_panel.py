"""The selected node's controls: its arguments, device, apply-with-probability, inputs, and the
move / duplicate / remove tools. Rebuilt only when the node's shape changes, so a slider being
dragged is never replaced under the pointer."""

from __future__ import annotations

import functools
import html
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

import ipywidgets as widgets

from augexplorer.catalog import Catalog, OpInfo
from augexplorer.catalog.flow import decoder_downstream, input_problems
from augexplorer.catalog.hints import starting_values, tunable_args
from augexplorer.catalog.limits import VECTOR_LENGTHS
from augexplorer.errors import Problem
from augexplorer.spec import ArgValue, GraphSpec, Node, Origin, Random, Ref
from augexplorer.validate import argument_problem, probability_problem

from .arg_controls import (
    ArgControl,
    is_pair,
    one_value,
    value_kind,
)
from .code_view import CodeView
from .failure import Failure
from .hover import describe
from .probability_row import ProbabilityRow

AUTO = "auto"
# Past these lengths an operator's summary and a port's differences are cut at a word, with
# " …", the whole text on hover: the panel's column is narrow.
SUMMARY_CHARS = 220
DIFFERENCES_CHARS = 480
# What text typed in the probability box is kept under, beside the arguments' names (no
# argument is named so: names are identifiers).
APPLY = "apply with probability"
Kept = tuple[str, str, Any]  # (typed text, its reason, the value in force it did not replace)


class HoldsTyped(Protocol):
    """A control that keeps text typed and refused (ArgControl, ProbabilityRow)."""

    @property
    def unparsed(self) -> Kept | None: ...

    def keep_unparsed(self, kept: Kept, /) -> None: ...


@dataclass
class NodeActions:
    """What the panel asks of the explorer; each call is one user edit."""

    set_arg: Callable[[str, str, ArgValue], None]
    unset_arg: Callable[[str, str], None]
    set_device: Callable[[str, str | None], None]
    set_probability: Callable[[str, float | None], None]
    rewire: Callable[[str, int, str], None]
    move: Callable[[str, int], None]
    duplicate: Callable[[str], None]
    remove: Callable[[str], None]
    rename: Callable[[str, str], str | None]  # returns why the name was refused, if it was
    trust: Callable[[str], None]  # trust a python_function node's code, then run
    # the fixes errors suggest, done in the panel
    move_after_decoder: Callable[[str], None] = lambda node: None
    set_skip_bad: Callable[[bool], None] = lambda skip: None
    select: Callable[[str], None] = lambda node: None  # a node an argument reads, to edit it
    # the arguments of a node the user has set (never marked as an unchosen starting value)
    chosen: Callable[[str], frozenset[str]] = lambda node: frozenset()
    # the distribution an argument held before "random" was switched off (node, argument)
    random_before: Callable[[str, str], Random | None] = lambda node, arg: None


class NodePanel(widgets.VBox):
    def __init__(self, catalog: Catalog, actions: NodeActions) -> None:
        super().__init__([])
        self.catalog = catalog
        self.actions = actions
        self.controls: dict[str, ArgControl] = {}
        self._controls_node: str | None = None  # the node whose arguments `controls` are
        # Text typed and refused, per (node, argument), with its reason and the value it did not
        # replace: kept while other nodes are shown, until the user changes the value, resets
        # it, or the graph changes it some other way (undo), so nothing typed is lost.
        self._typed: dict[tuple[str, str], Kept] = {}
        self.probability_row: ProbabilityRow | None = None
        self.code_views: dict[str, CodeView] = {}
        self._shape: tuple[Any, ...] | None = None
        self._quiet = False
        self._node_id: str | None = None
        self._rows: list[str] = []  # the arguments shown, in their order on screen
        self._spec: GraphSpec | None = None
        self._origin: Origin | None = None  # a ported node's, as its title shows it
        self.title = widgets.HTML()
        self.node_error = widgets.HTML()
        self.node_error.add_class("ax-arg-message")
        self.add_class("ax-node-panel")
        self._empty()

    @property
    def shows_node(self) -> bool:
        """Whether a node's editor is shown (else the hint to click one)."""
        return self._shape is not None

    def forget_typed(self) -> None:
        """Another graph replaced this one: text typed for its arguments goes with it."""
        self._typed.clear()
        self._controls_node = None

    def _keep_typed(self, spec: GraphSpec) -> None:
        """Note what the controls on screen hold typed and refused, then let go of what the
        graph no longer holds as it was refused against (undone, reset, the node gone)."""
        shown = self._controls_node
        if shown is not None:
            for name, control in self._holding().items():
                if control.unparsed is not None:
                    self._typed[(shown, name)] = control.unparsed
                else:
                    self._typed.pop((shown, name), None)
        for node_id, name in list(self._typed):
            node = spec.node(node_id) if node_id in spec else None
            if (
                not isinstance(node, Node)
                or self._in_force(node, name) != self._typed[(node_id, name)][2]
            ):
                del self._typed[(node_id, name)]

    def _holding(self) -> dict[str, HoldsTyped]:
        """The controls on screen that keep text typed and refused, by what it is kept under."""
        holding: dict[str, HoldsTyped] = dict(self.controls)
        if self.probability_row is not None:
            holding[APPLY] = self.probability_row
        return holding

    def _in_force(self, node: Node, name: str) -> Any:
        """The value of `node` that text kept under `name` was refused against."""
        if name == APPLY:
            return node.probability.p if node.probability is not None else None
        return node.args.get(name, _default(self.catalog.get(node.op), name))

    def _empty(self) -> None:
        self._shape = None
        self._node_id = None
        self._controls_node = None
        self.controls = {}
        self.probability_row = None
        self.code_views = {}
        hint = widgets.HTML(
            "<span class='ax-muted'>Click a node in the graph to edit it and see its output.</span>"
        )
        self.children = [hint]

    # ---- drawing ----------------------------------------------------------------------------
    def show(self, spec: GraphSpec, node_id: str | None, failure: Failure | None) -> None:
        self._spec = spec  # what a value typed is checked against (its node's other arguments)
        self._keep_typed(spec)
        if node_id is None or node_id not in spec:
            if self._shape is not None:
                self._empty()
            return
        node = spec.node(node_id)
        # An operator that cannot read its input says so once: beside the button that moves it
        # after the decoder where there is one, else with the other problems and their fixes.
        # (a source reads nothing: no flow to work out for it)
        misplaced = (
            input_problems(spec, self.catalog).get(node_id) if isinstance(node, Node) else None
        )
        decoder = decoder_downstream(spec, self.catalog, node_id) if misplaced else None
        said = (misplaced,) if misplaced and decoder else ()
        errors = failure.argument_messages(node_id, said) if failure is not None else {}
        if misplaced and not decoder and _says(failure, node_id, misplaced):
            misplaced = None  # said with its fix in the node's errors
        if not isinstance(node, Node):
            if self._shape != ("source", node_id):
                self._shape = ("source", node_id)
                self._node_id = node_id
                self._controls_node = None
                self.controls = {}
                self.probability_row = None
                self.skip_bad = widgets.Checkbox(value=node.skip_bad, indent=False)
                describe(
                    self.skip_bad,
                    "skip bad files",
                    "leave out files that are not images (they are listed), instead of "
                    "failing on them",
                )
                self.skip_bad.add_class("ax-skip-bad")
                self.skip_bad.observe(
                    lambda c: self._emit(self.actions.set_skip_bad, bool(c["new"])), "value"
                )
                self.children = [self.title, self.node_error, self.skip_bad]
            self.title.value = (
                f"<div class='ax-node-title'>{html.escape(node_id)}</div>"
                f"<div class='ax-muted'>data source: {html.escape(node.kind)}"
                f"{' ' + html.escape(node.path) if node.path else ''} (change it in the toolbar)</div>"
            )
            self._quiet = True
            try:
                self.skip_bad.value = node.skip_bad
            finally:
                self._quiet = False
            self.node_error.value = _errors_html(errors)
            return
        info = self.catalog.get(node.op)
        shown = self._shown_args(node, info)
        read_also_by = _read_also_by(spec, node, shown)
        shape = (
            node_id,
            node.op,
            tuple((name, _shown_kind(node, info, name)) for name in shown),
            node.inputs,
            node.probability is not None,
            node.device,
            tuple(spec.ids()),
            frozenset(spec.downstream(node_id)),  # what its inputs may not come from
            tuple(read_also_by.items()),
        )
        if shape != self._shape:
            self._build(spec, node, info, shown, read_also_by)
            self._shape = shape
        elif node.origin != self._origin:  # a ported node's first edit of an argument
            self._show_title(node, info)
        self._quiet = True
        try:
            scheduled: dict[str, list[str]] = {}
            for target in spec.schedules:
                if target.node == node_id and target.arg is not None:
                    scheduled.setdefault(target.arg, []).append(target.bound or "")
            for name, control in self.controls.items():
                value = node.args.get(name, _default(info, name))
                control.show(value, errors.get(name))
                control.show_scheduled(sorted(scheduled.get(name, [])))
            for name, view in self.code_views.items():
                view.show(node.args.get(name), errors.get(name))
            self._probability.show(node.probability.p if node.probability is not None else None)
        finally:
            self._quiet = False
        self.node_error.value = _errors_html({"": errors[""]} if "" in errors else {})
        self._show_misplaced(misplaced, decoder)

    def _show_misplaced(self, problem: str | None, decoder: str | None) -> None:
        """An operator that cannot read what it is given says so, with the fix as a button."""
        self.misplaced.value = f"⚠ {html.escape(problem)}" if problem else ""
        self.move_after_decoder.description = f"Move after {decoder}" if decoder else ""
        self.fix_row.layout.display = "" if problem else "none"
        self.move_after_decoder.layout.display = "" if decoder else "none"

    def _show_title(self, node: Node, info: OpInfo | None) -> None:
        """The node's name, operator and summary, and where a ported node came from."""
        self._origin = node.origin
        summary = info.summary() if info is not None else "not in the catalog"
        self.title.value = (
            f"<div class='ax-node-title'>{html.escape(node.id)} "
            f"<span class='ax-muted'>· {html.escape(node.op)}</span></div>"
            f"<div class='ax-muted' title='{html.escape(summary, quote=True)}'>"
            f"{html.escape(textwrap.shorten(summary, SUMMARY_CHARS, placeholder=' …'))}</div>"
            f"{origin_html(node)}"
        )

    def _argument_problem(self, node_id: str, name: str, value: ArgValue) -> str | None:
        """Why `value` cannot be given to `name` of `node_id`, by the graph's own checks."""
        if self._spec is None:
            return None
        return _refusal(argument_problem(self._spec, self.catalog, node_id, name, value))

    def _probability_problem(self, node_id: str, p: float) -> str | None:
        """Why `node_id` cannot be applied with probability `p`, by the graph's own checks."""
        if self._spec is None:
            return None
        return _refusal(probability_problem(self._spec, self.catalog, node_id, p))

    def _shown_args(self, node: Node, info: OpInfo | None) -> list[str]:
        names = list(node.args)
        if info is not None:
            names += [a.name for a in info.args if a.required and a.name not in node.args]
            names += [n for n in tunable_args(info) if n not in names]
        if node.id == self._node_id:  # the rows stay where they were: an edited one moves not
            before = [name for name in self._rows if name in names]
            names = before + [name for name in names if name not in before]
        self._rows = names
        return names

    def _build(
        self,
        spec: GraphSpec,
        node: Node,
        info: OpInfo | None,
        shown: list[str],
        read_also_by: dict[str, tuple[str, ...]],
    ) -> None:
        self._node_id = node.id
        self._show_title(node, info)
        tools = widgets.VBox([self._tools(node), self._renamer(node)])
        self.misplaced = widgets.HTML("")
        self.misplaced.add_class("ax-arg-message")
        self.move_after_decoder = widgets.Button(
            description="", icon="arrow-down", button_style="warning", layout={"width": "auto"}
        )
        self.move_after_decoder.add_class("ax-move-after-decoder")
        self.move_after_decoder.on_click(lambda _: self.actions.move_after_decoder(node.id))
        self.fix_row = widgets.VBox([self.misplaced, self.move_after_decoder])
        self.fix_row.add_class("ax-fix-row")
        typed = {name: kept for (at, name), kept in self._typed.items() if at == node.id}
        self.controls = {}
        self._controls_node = node.id
        self.code_views = {}
        chosen = self.actions.chosen(node.id)
        for name in shown:
            arg = info.arg(name) if info is not None else None
            if arg is not None and arg.kind == "PYTHON_OBJECT":  # code: shown, never edited here
                self.code_views[name] = CodeView(node.id, name, self.actions.trust)
                continue
            value = node.args.get(name, _default(info, name))
            self.controls[name] = ArgControl(
                name,
                arg,
                value,
                on_change=lambda n, v: self._emit(self.actions.set_arg, node.id, n, v),
                on_reset=lambda n: self._emit(self.actions.unset_arg, node.id, n),
                unset_start=(
                    starting_value(info, name)
                    if info is not None and _shown_kind(node, info, name) == "unset"
                    else None
                ),
                starting=(
                    starting_values(info.name).get(name)
                    if info is not None and name not in chosen
                    else None
                ),
                on_select=self.actions.select,
                read_also_by=read_also_by.get(name, ()),
                check=functools.partial(self._argument_problem, node.id),
                random_before=functools.partial(self.actions.random_before, node.id),
            )
        adder = self._arg_adder(node, info, shown)
        settings = self._settings(spec, node, info)
        for name, control in self._holding().items():
            if name in typed:
                control.keep_unparsed(typed[name])
        args_title = widgets.HTML("<div class='ax-section-title'>Arguments</div>")
        none = (
            [] if shown else [widgets.HTML("<span class='ax-muted'>No arguments to tune.</span>")]
        )
        self.children = [
            self.title,
            tools,
            self.fix_row,
            self.node_error,
            args_title,
            *none,
            *self.code_views.values(),
            *self.controls.values(),
            adder,
            widgets.HTML("<div class='ax-section-title'>Node</div>"),
            *settings,
        ]

    def _tools(self, node: Node) -> widgets.HBox:
        def button(
            text: str, icon: str, tip: str, css: str, action: Callable[[], None]
        ) -> widgets.Button:
            b = widgets.Button(description=text, icon=icon, tooltip=tip, layout={"width": "auto"})
            b.add_class(css)
            b.on_click(lambda _: action())
            return b

        return widgets.HBox(
            [
                button(
                    "", "arrow-up", "move up", "ax-move-up", lambda: self.actions.move(node.id, -1)
                ),
                button(
                    "",
                    "arrow-down",
                    "move down",
                    "ax-move-down",
                    lambda: self.actions.move(node.id, 1),
                ),
                button(
                    "Rename",
                    "pencil",
                    "give this node another name",
                    "ax-rename",
                    self._open_renamer,
                ),
                button(
                    "Duplicate",
                    "clone",
                    "duplicate this node",
                    "ax-duplicate",
                    lambda: self.actions.duplicate(node.id),
                ),
                button(
                    "Remove",
                    "trash",
                    "remove this node",
                    "ax-remove",
                    lambda: self.actions.remove(node.id),
                ),
            ]
        )

    def _renamer(self, node: Node) -> widgets.VBox:
        """The rename row, hidden until "Rename" is clicked; a refused name stays typed in the
        box with the reason below it."""
        self.rename_box = widgets.Text(
            value=node.id,
            placeholder="new name (letters, digits, _)",
            continuous_update=False,
            layout={"width": "220px"},
        )
        self.rename_box.add_class("ax-rename-input")
        apply = widgets.Button(description="Apply", layout={"width": "auto"})
        apply.add_class("ax-rename-apply")
        cancel = widgets.Button(description="Cancel", layout={"width": "auto"})
        cancel.add_class("ax-rename-cancel")
        self.rename_message = widgets.HTML("")
        self.rename_message.add_class("ax-arg-message")
        self.rename_message.add_class("ax-rename-message")
        self.rename_box.observe(lambda _: self._rename(), "value")
        apply.on_click(lambda _: self._rename())
        cancel.on_click(lambda _: self._close_renamer())
        self.rename_row = widgets.VBox(
            [widgets.HBox([self.rename_box, apply, cancel]), self.rename_message],
            layout={"display": "none"},
        )
        self.rename_row.add_class("ax-rename-row")
        return self.rename_row

    def _open_renamer(self) -> None:
        self.rename_row.layout.display = ""

    def _close_renamer(self) -> None:
        self.rename_row.layout.display = "none"
        self.rename_message.value = ""
        if self._node_id is not None:
            self.rename_box.value = self._node_id

    def _rename(self) -> None:
        node_id = self._node_id
        if self._quiet or node_id is None or self.rename_row.layout.display == "none":
            return
        new = self.rename_box.value.strip()
        if new == node_id:
            self.rename_message.value = ""
            return
        refused = self.actions.rename(node_id, new)
        if refused:
            self.rename_message.value = f"⚠ {html.escape(refused)}"

    def _arg_adder(self, node: Node, info: OpInfo | None, shown: list[str]) -> widgets.Widget:
        if info is None:
            return widgets.HTML("")
        rest = [a.name for a in info.args if a.name not in shown]
        adder = widgets.Dropdown(
            options=[("+ set another argument…", "")] + [(n, n) for n in rest],
            value="",
            layout={"width": "260px"},
        )
        adder.add_class("ax-arg-adder")

        def add(change: dict[str, Any]) -> None:
            name = change["new"]
            if name:
                self._emit(self.actions.set_arg, node.id, name, starting_value(info, name))

        adder.observe(add, "value")
        return adder

    def _settings(self, spec: GraphSpec, node: Node, info: OpInfo | None) -> list[widgets.Widget]:
        backends = [b for b in (info.backends if info else ()) if b == "cpu" or self.catalog.gpu]
        device_options = [(name, name) for name in (AUTO, *backends)]
        if node.device and node.device not in backends and info and node.device in info.backends:
            # written for a GPU this machine lacks: kept, and run on the CPU here
            device_options.append((f"{node.device} (on the CPU here)", node.device))
            backends.append(node.device)
        device = widgets.Dropdown(
            options=device_options,
            value=node.device if node.device in backends else AUTO,
            description="device",
            layout={"width": "220px"},
        )
        device.add_class("ax-device")
        device.observe(
            lambda c: self._emit(
                self.actions.set_device, node.id, None if c["new"] == AUTO else c["new"]
            ),
            "value",
        )
        self.device = device
        row = ProbabilityRow(
            node.probability.p if node.probability is not None else None,
            lambda p: self._emit(self.actions.set_probability, node.id, p),
            check=functools.partial(self._probability_problem, node.id),
        )
        self.probability_row = row
        # the parts by the names the tests and the arrow keys' checks reach them by
        self.apply, self.probability, self.probability_message = row.apply, row.number, row.message
        # an input may come from any node but this one and those that read it (a cycle)
        after = spec.downstream(node.id)
        others = [i for i in spec.ids() if i != node.id and i not in after]
        inputs = []
        for index, ref in enumerate(node.inputs):
            options = list(dict.fromkeys([*others, str(ref)]))
            pick = widgets.Dropdown(
                options=options,
                value=str(ref),
                description=f"input {index}",
                layout={"width": "220px"},
            )
            pick.add_class(f"ax-input-{index}")
            pick.observe(
                lambda c, i=index: self._emit(self.actions.rewire, node.id, i, c["new"]), "value"
            )
            inputs.append(pick)
        self.inputs = inputs
        return [device, row, *inputs]

    @property
    def _probability(self) -> ProbabilityRow:
        assert self.probability_row is not None, "a node's editor is built"
        return self.probability_row

    def _emit(self, action: Callable[..., None], *args: Any) -> None:
        if not self._quiet:
            action(*args)


def _read_also_by(spec: GraphSpec, node: Node, shown: list[str]) -> dict[str, tuple[str, ...]]:
    """For each shown argument that another node gives (a draw, a coin), the nodes besides
    `node` that read that node too: the companions that move boxes and masks as the image moves.
    The graph is walked once, not once an argument."""
    readers: dict[str, list[str]] = {}
    for other in spec.nodes:
        if isinstance(other, Node) and other.id != node.id:
            for read in (*other.args.values(), *other.inputs):
                if isinstance(read, Ref) and other.id not in readers.setdefault(read.node, []):
                    readers[read.node].append(other.id)
    return {
        name: tuple(readers[value.node])
        for name in shown
        if isinstance(value := node.args.get(name), Ref) and value.node in readers
    }


def _shown_kind(node: Node, info: OpInfo | None, name: str) -> str:
    """The kind of control `name` needs: "unset" for an argument left out that is required, has
    no default, or a default that only stands for "not given" (no value shows what the operator
    then does), else the kind of its value."""
    arg = info.arg(name) if info is not None else None
    # a required argument left out (its reset clicked, a graph written so) shows no made-up 0
    unset = arg is not None and (
        arg.optional_without_default or arg.default_is_placeholder or arg.required
    )
    if name not in node.args and unset:
        return "unset"
    kind = value_kind(node.args.get(name))
    if kind == "const" and is_pair(arg, node.args.get(name, arg.default if arg else None)):
        return "const.pair"
    if kind == "const" and arg is not None and arg.is_vector and arg.hint is not None:
        # one value on the curated slider, a list of them in a text box (arg_controls)
        return "const.one" if one_value(arg, node.args.get(name, arg.default)) is not None else kind
    return kind


def _default(info: OpInfo | None, name: str) -> ArgValue:
    arg = info.arg(name) if info is not None else None
    if arg is None or arg.default is None:
        return 0.0 if arg is not None and arg.is_numeric and not arg.is_vector else ""
    return arg.default


def starting_value(info: OpInfo, name: str) -> ArgValue:
    """The value an argument takes when the user sets it: the curated starter, else its
    default (unless it stands for "not given"), else a value from its curated range (a vector's
    as many times as it takes)."""
    curated = starting_values(info.name).get(name)
    if curated is not None:
        return cast(ArgValue, curated)
    arg = info.arg(name)
    value: ArgValue
    unset = arg is not None and (arg.default is None or arg.default_is_placeholder)
    if arg is not None and unset and arg.hint is not None:
        low = min(max(0.0, arg.hint.low), arg.hint.high)
        value = int(low) if arg.is_integer else float(low)
    elif arg is not None and arg.default is None and arg.choices:
        return arg.choices[0]
    else:
        value = _default(info, name)
    if isinstance(value, tuple):
        return list(value)
    if arg is not None and arg.is_integer and isinstance(value, float):
        return int(value)
    if (
        arg is not None
        and arg.is_vector
        and arg.hint is not None
        and isinstance(value, float | int)
    ):
        return value  # one value for every axis, on the curated slider (arg_controls.one_value)
    if arg is not None and arg.is_vector and arg.is_numeric and not isinstance(value, list):
        one = value if isinstance(value, (int, float)) else 0
        one = int(one) if arg.is_integer else float(one)
        return [one] * min(VECTOR_LENGTHS.get((info.name, name), (2,)))
    return value


def _refusal(problem: Problem | None) -> str | None:
    """A graph check's problem as a control's refusal says it: the reason, then its fix."""
    if problem is None:
        return None
    return f"{problem.message} (fix: {problem.fix})" if problem.fix else problem.message


def _says(failure: Failure | None, node_id: str, message: str) -> bool:
    """Whether `failure` holds `message` for the node (validation leaves out a node's input
    problem when the node has another one)."""
    return failure is not None and any(
        problem.node == node_id and problem.message == message for problem in failure.problems
    )


def _errors_html(errors: dict[str, str]) -> str:
    if not errors:
        return ""
    return "".join(f"<div>⚠ {html.escape(msg)}</div>" for msg in errors.values())


def origin_html(node: Node) -> str:
    """Where a ported node came from and its measured grade, with what differs (in full on
    hover): ``torchvision RandomRotation(15) (line 12): approximate``."""
    origin = node.origin
    if origin is None:
        return ""
    differences = " ".join(origin.differences)
    where = f" (line {origin.line})" if origin.line is not None else ""
    return (
        f"<div class='ax-node-origin ax-fidelity-{origin.fidelity}' "
        f"title='{html.escape(differences, quote=True)}'>"
        f"<b>{html.escape(origin.fidelity)}</b> port of "
        f"{html.escape(f'{origin.library} {origin.transform}{where}')}"
        f"{_edited_html(origin.edited)}"
        f"<div class='ax-muted'>"
        f"{html.escape(textwrap.shorten(differences, DIFFERENCES_CHARS, placeholder=' …'))}"
        "</div></div>"
    )


def _edited_html(edited: tuple[str, ...]) -> str:
    """The port's grade is of the transform as ported: an edit since makes it no longer so."""
    if not edited:
        return ""
    return (
        "<div class='ax-node-origin-edited'>edited since the port ("
        f"{html.escape(', '.join(edited))}): the grade is of the transform as ported</div>"
    )
