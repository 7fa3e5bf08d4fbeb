"""DALI's run-time errors said in our words: which argument of the failing node, what is wrong
with it, and what to try. DALI's own text is kept beside the sentence, never shown alone.

Each rule reads one family of DALI 2.4 messages (found by trying unusual argument combinations
on every image operator of the catalog, ``tests/arg_probe.py``); a message no rule reads still
gets a sentence naming the node and the argument DALI's text mentions, if any.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from ..catalog import PYTHON_FUNCTION
from ..errors import RunError
from ..plan import Step


@dataclass(frozen=True)
class Explained:
    """One DALI error, in our words."""

    sentence: str  # what is wrong, said of the node's arguments
    argument: str | None  # the argument to change, where one is to blame
    fix: str  # what to try
    known: bool = True  # False: no rule read DALI's message (the sentence is the general one)
    # True: this fix replaces the engine's own (runners.suggest_fix), which is kept otherwise
    replaces_fix: bool = False


_D = TypeVar("_D", bound=str | None)  # the default: a name, or None


@dataclass(frozen=True)
class _Failing:
    """What the rules read: the operator, its arguments (constants and fed ones) and DALI's
    cleaned message."""

    op: str
    args: Mapping[str, Any]  # constants as set
    fed: frozenset[str]  # arguments fed per sample (a draw or another node's output)
    names: tuple[str, ...]  # every argument the operator has
    message: str

    def given(self, name: str) -> bool:
        return name in self.args or name in self.fed

    def first_given(self, names: Iterable[str], default: _D) -> str | _D:
        """The first of `names` the node was given (a constant or fed), else `default`."""
        return next((name for name in names if self.given(name)), default)

    def named(self) -> list[str]:
        """The operator's arguments DALI's message names, in the order it names them."""
        found = []
        for match in re.finditer(r"[A-Za-z_]\w*", self.message):
            word = match.group().rstrip("_")
            if word in self.names and word not in found:
                found.append(word)
        return found

    def shown(self, name: str) -> str:
        if name in self.fed:
            return f"{name} (fed per sample)"
        value = self.args.get(name)
        return f"{name}={value!r:.40}" if name in self.args else name


Rule = Callable[[re.Match[str], _Failing], Explained]


def _together(match: re.Match[str], failing: _Failing) -> Explained:
    names = failing.named()
    given = [n for n in names if failing.given(n)]
    missing = [n for n in names if not failing.given(n)]
    if not given or not missing:
        given, missing = names[:1], names[1:]
    return Explained(
        f"{' and '.join(names)} go together, but only {', '.join(given)} is given",
        given[0] if given else None,
        f"give {' and '.join(missing)} a value too, or leave {' and '.join(given)} out",
    )


def _exclusive(match: re.Match[str], failing: _Failing) -> Explained:
    named = failing.named()
    given = [n for n in named if failing.given(n)] or named
    shown = ", ".join(failing.shown(n) for n in given)
    return Explained(
        f"{shown} cannot be given together: {failing.op} takes only one way of saying this",
        given[0] if given else None,  # the one DALI names first, as the engine's fix does
        f"keep one of {', '.join(given)} and leave the others out"
        if len(given) > 1
        else f"leave {given[0] if given else 'the conflicting argument'} out",
    )


_SIZE_ARGS = ("resize_shorter", "resize_longer", "size", "resize_x", "resize_y", "resize_z")


def _one_size(match: re.Match[str], failing: _Failing) -> Explained:
    given = [n for n in _SIZE_ARGS if failing.given(n)] + (
        ["mode"] if failing.given("mode") else []
    )
    shown = ", ".join(failing.shown(n) for n in given) or "no output size"
    return Explained(
        f"{failing.op} needs exactly one way of giving the output size (a value of 0 means "
        f"not given); here: {shown}",
        given[0] if given else "resize_shorter",
        "set one of resize_shorter, resize_longer, size (or resize_x and resize_y) above 0 and "
        "leave the others out",
    )


def _count(match: re.Match[str], failing: _Failing) -> Explained:
    name = match.group("arg")
    wanted = match.group("wanted")
    wanted = f"one value or a list of {wanted}" if match.group("single") else f"{wanted} values"
    return Explained(
        f"{failing.shown(name)}: {name} takes {wanted} here, not {match.group('given')}",
        name,
        f"give {name} {wanted}",
    )


def _shape(match: re.Match[str], failing: _Failing) -> Explained:
    name = match.group("arg")
    return Explained(
        f"{name} has {match.group('given')} value(s), but DALI reads {match.group('wanted')} "
        "here (one per axis it works on)",
        name,
        f"give {name} {match.group('wanted')} values, or name as many axes (axis_names or axes)",
    )


def _dims(match: re.Match[str], failing: _Failing) -> Explained:
    """ "1-element tensor cannot describe an 2D shape": a vector argument (a region's start or
    end) whose length is not the image's number of spatial axes; the message names none."""
    given, dims = int(match.group("given")), match.group("dims")
    sized = [
        name
        for name, value in failing.args.items()
        if isinstance(value, (list, tuple)) and len(value) == given
    ]
    name = sized[0] if sized else failing.first_given(("roi_start", "roi_end"), None)
    where = f"{failing.shown(name)} has" if name else "a vector argument has"
    return Explained(
        f"{where} {given} value(s) where a {dims}D image needs {dims}, one per spatial axis",
        name,
        f"give {name or 'it'} {dims} values, one per spatial axis",
    )


def _uniform(match: re.Match[str], failing: _Failing) -> Explained:
    name = match.group("arg")
    return Explained(
        f"{name} must have one value per output axis",
        name,
        f"give {name} as many values as the image has spatial axes (2: height and width)",
    )


_DTYPE_ARGS = ("dtype", "output_dtype", "output_type")


def _dtype(match: re.Match[str], failing: _Failing) -> Explained:
    name = failing.first_given(_DTYPE_ARGS, None)
    given = re.search(
        r"Unsupported type: (\w+)\.(?: Supported types are: ([^.\n]+))?", failing.message
    )
    if name is None and given is not None:
        # no output type was asked for: the input's own type is what the operator refuses
        # (resize and paste on int32 masks, as a COCO reader gives pixelwise masks)
        kind, takes = given.groups()
        said = f" (it takes {takes})" if takes else ""
        return Explained(
            f"{failing.op} does not take {kind} data, the type its input has here{said}",
            None,
            "cast its input before it (fn.cast(..., dtype=types.UINT8) for class ids or "
            "masks, types.FLOAT for values) and, for masks, resize with "
            "interp_type=types.INTERP_NN",
        )
    name = name or "dtype"
    return Explained(
        f"{failing.op} cannot write {failing.args.get(name, 'this type')} data from this input",
        name,
        f"leave {name} out (the input's type) or set it to FLOAT",
    )


_INTERP_ARGS = ("interp_type", "mag_filter", "min_filter")


def _interpolation(match: re.Match[str], failing: _Failing) -> Explained:
    name = failing.first_given(_INTERP_ARGS, "interp_type")
    return Explained(
        f"{failing.op} does not interpolate with {failing.args.get(name, 'this method')}",
        name,
        f"set {name} to INTERP_LINEAR or INTERP_NN",
    )


def _choice(match: re.Match[str], failing: _Failing) -> Explained:
    name = match.group("arg").strip("`")
    supported = match.groupdict().get("supported")
    value = failing.args.get(name, "")
    return Explained(
        f"{value!r:.40} is not a value {name} takes",
        name,
        f"use {supported.rstrip('.')}" if supported else f"leave {name} out (its default)",
    )


_CHANNEL_ARGS = ("fill_value", "fill_values", "mean", "std")


def _channels(match: re.Match[str], failing: _Failing) -> Explained:
    name = next((n for n in _CHANNEL_ARGS if isinstance(failing.args.get(n), list)), None)
    name = name or failing.first_given(_CHANNEL_ARGS, None)
    return Explained(
        f"{name or 'a per-channel argument'} gives a number of values that is neither 1 nor "
        "the images' channel count",
        name,
        f"give {name or 'it'} one value, or one per channel (3 for RGB)",
    )


def _axis_missing(match: re.Match[str], failing: _Failing) -> Explained:
    name = failing.first_given(("axis_names", "axes"), "axis_names")
    return Explained(
        f"{name} names axis {match.group('axis')!r}, which the images do not have",
        name,
        f"name axes of the images' layout in {name} (H, W or C for HWC images)",
    )


def _axis_range(match: re.Match[str], failing: _Failing) -> Explained:
    return Explained(
        f"axes holds {match.group('axis')}, outside the images' axes {match.group('range')}",
        "axes",
        f"use axes from {match.group('range').replace('..', ' to ')}",
    )


def _range(match: re.Match[str], failing: _Failing) -> Explained:
    name = match.group("arg").strip("`_")
    name = name if name in failing.names else (failing.named() or [name])[0]
    return Explained(
        f"{failing.shown(name)} is out of the range {failing.op} takes ({match.group('rule')})",
        name,
        f"give {name} a value {match.group('rule')}",
    )


def _window(match: re.Match[str], failing: _Failing) -> Explained:
    name = "smoothing_size" if match.group("kind") else "window_size"
    low, high = match.group("low"), match.group("high")
    return Explained(
        f"{failing.shown(name)}: a window is an odd size from {low} to {high}",
        name,
        f"give {name} an odd value from {low} to {high}",
    )


def _both_zero(match: re.Match[str], failing: _Failing) -> Explained:
    first, second = match.group("first"), match.group("second")
    return Explained(
        f"{first} and {second} are both 0, so the blur has no size",
        first,
        f"give {first} a value above 0 (or {second} an odd size)",
    )


def _permutation(match: re.Match[str], failing: _Failing) -> Explained:
    return Explained(
        f"{failing.shown('perm')} is not an order of the images' axes",
        "perm",
        "give perm each axis once, such as [2, 0, 1] (HWC to CHW)",
    )


def _anchor_shape(match: re.Match[str], failing: _Failing) -> Explained:
    name = failing.first_given(("shape", "anchor"), "shape")
    return Explained(
        "anchor and shape must give the same number of values, a multiple of the axes named "
        "in axis_names",
        name,
        "give one anchor and one shape value per named axis (2 each for axis_names 'HW')",
    )


def _layout_order(match: re.Match[str], failing: _Failing) -> Explained:
    return Explained(
        f"{failing.shown('output_layout')} is not the images' axes in another order",
        "output_layout",
        "give output_layout the letters of the input's layout in the order wanted, such as "
        "'CHW' for HWC images, or leave it out",
    )


def _no_axes(match: re.Match[str], failing: _Failing) -> Explained:
    name = failing.first_given(("axes", "axis_names"), "axes")
    return Explained(
        f"{failing.shown(name)} names no axis to compute the mean and deviation over",
        name,
        f"name at least one axis in {name} (such as axis_names 'HW'), or leave it out",
    )


def _parameter_rank(match: re.Match[str], failing: _Failing) -> Explained:
    fed = [n for n in ("mean", "stddev") if n in failing.fed]
    name = (fed or [n for n in ("mean", "stddev") if failing.given(n)] or ["mean"])[0]
    return Explained(
        f"{failing.shown(name)}: {failing.op} reads {name} per sample as an array with the "
        "images' number of dimensions, and a drawn or fed number has none",
        name,
        f"give {name} a constant, or compute it per sample with the images' rank "
        "(batch=False, axes set)",
    )


def _reduced_shape(match: re.Match[str], failing: _Failing) -> Explained:
    axes = failing.first_given(("axes", "axis_names"), "axes")
    given = [n for n in ("mean", "stddev") if failing.given(n)] or ["mean"]
    listed = failing.args.get(axes)
    listed = list(listed) if isinstance(listed, list | tuple | str) else []
    shapes = (
        f"the means over it come out of shape {match['reduced']}, "
        f"{' and '.join(failing.shown(n) for n in given)} of shape {match['given']}"
    )
    if len(set(listed)) < len(listed):  # DALI reads a repeated axis as a wrong shape
        return Explained(
            f"{failing.shown(axes)} names an axis more than once: {shapes}",
            axes,
            f"name each axis once in {axes} (axis_names 'HW' for each channel's mean)",
        )
    return Explained(
        f"{failing.shown(given[0])} does not fit {failing.shown(axes)}: {shapes}",
        given[0],
        f"give {given[0]} one number, or as many as the means over {axes} make "
        f"({match['reduced']})",
    )


def _batch_parameters(match: re.Match[str], failing: _Failing) -> Explained:
    name = next((n for n in ("stddev", "mean") if n in failing.fed), "mean")
    return Explained(
        f"{failing.shown(name)}: with batch=True {failing.op} takes one {name} for the whole "
        "batch, so it cannot be drawn or fed per sample",
        name,
        f"give {name} a constant, or set batch off to normalize each sample on its own",
    )


def _axes_with_scalars(match: re.Match[str], failing: _Failing) -> Explained:
    axes = failing.first_given(("axis_names", "axes"), "axes")
    return Explained(
        f"{failing.shown(axes)} names axes to compute the mean and deviation over, and both "
        "are given as numbers: there is nothing left to compute",
        axes,
        f"leave {axes} out to use the numbers given, or leave mean or stddev out to have it "
        f"computed over {axes}",
    )


def _excluded_by(match: re.Match[str], failing: _Failing) -> Explained:
    name, other = match["arg"], match["other"]
    return Explained(
        f"{failing.shown(name)} cannot be given while {other} is {match['value']}",
        name,
        f"leave {name} out, or set {other} to another value",
    )


def _empty_window(match: re.Match[str], failing: _Failing) -> Explained:
    sizes = ("rel_shape", "shape", "rel_end", "end")
    name = failing.first_given(sizes, "rel_shape")
    return Explained(
        f"{failing.shown(name)} makes an empty window: it ends where it starts",
        name,
        f"give {name} values above 0 (or an end after the start)",
    )


def _permutation_length(match: re.Match[str], failing: _Failing) -> Explained:
    return Explained(
        f"{failing.shown('perm')} does not name every axis of the images "
        f"({match.group('ndim')} of them)",
        "perm",
        "give perm each axis once, such as [2, 0, 1] (HWC to CHW)",
    )


def _empty_layout(match: re.Match[str], failing: _Failing) -> Explained:
    return Explained(
        "output_layout is empty",
        "output_layout",
        "leave output_layout out, or give the new layout's letters (such as 'CHW')",
    )


def _save_attrs(match: re.Match[str], failing: _Failing) -> Explained:
    if not failing.given("save_attrs"):
        return _general(failing)
    return Explained(
        f"{failing.shown('save_attrs')}: DALI 2.4 fails when save_attrs is given as false",
        "save_attrs",
        "leave save_attrs out (false is its default)",
    )


def _out_of_bounds(match: re.Match[str], failing: _Failing) -> Explained:
    windows = ("crop", "crop_w", "crop_h", "rel_shape", "shape", "rel_start", "start", "end")
    name = failing.first_given(windows, None)
    return Explained(
        f"the window{' ' + failing.shown(name) if name else ''} reaches outside the image",
        name,
        f"make {name or 'the window'} fit the smallest image, or set out_of_bounds_policy to "
        "'pad' (fills with fill_values) or 'trim_to_shape'",
    )


# A setting this large can be what fills memory (an output size, a canvas ratio); below it, the
# batch and the images are the likelier cause.
_LARGE_SETTING = 4096


def _memory(match: re.Match[str], failing: _Failing) -> Explained:
    numbers = [
        (abs(float(v)), n)
        for n, v in failing.args.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) > _LARGE_SETTING
    ]
    if not numbers:  # the engine's own fix (how far to lower the batch) is kept
        return Explained(f"{failing.op} ran out of memory", None, "", known=False)
    name = max(numbers)[1]
    return Explained(
        f"{failing.op} ran out of memory: {failing.shown(name)} asks for a very large output",
        name,
        f"lower {name}, or the batch size",
        replaces_fix=True,  # the engine would blame the batch size alone
    )


def _not_written(match: re.Match[str], failing: _Failing) -> Explained:
    return Explained(
        f"{failing.op} could not open a file to write in the current folder"
        + (f" ({failing.shown('suffix')})" if failing.given("suffix") else ""),
        "suffix",
        "run from a folder you can write to, and give suffix letters, digits, '-', '_' or '.'",
    )


def _unreadable(match: re.Match[str], failing: _Failing) -> Explained:
    texts = [n for n, v in failing.args.items() if isinstance(v, str) and not v.isascii()]
    name = texts[0] if texts else None
    return Explained(
        "DALI's message could not be read (it was cut in the middle of a character"
        + (f" of {name}" if name else "")
        + ")",
        name,
        f"write {name} with ASCII letters only" if name else "use ASCII text in the arguments",
    )


def _fed_shape(match: re.Match[str], failing: _Failing) -> Explained:
    name = match.groupdict().get("arg") or ""
    if name not in failing.names:  # DALI names none, or names it its own way: the fed one
        name = next(iter(sorted(failing.fed)), name or "the fed argument")
    return Explained(
        f"{name} is fed arrays of the wrong size (or of a different size per sample); "
        f"{failing.op} reads one value per sample there",
        name,
        f"feed {name} from a node that gives one number per sample (a random draw, or a "
        "reduction such as reductions.mean), or give it a constant",
    )


def _mean_std(match: re.Match[str], failing: _Failing) -> Explained:
    shown = ", ".join(failing.shown(n) for n in ("mean", "std") if failing.given(n))
    return Explained(
        f"mean and std give different numbers of values ({shown})",
        "mean" if failing.given("mean") else "std",
        "give mean and std as many values each (1, or one per channel)",
    )


def _conversion(match: re.Match[str], failing: _Failing) -> Explained:
    pair = ", ".join(failing.shown(n) for n in ("image_type", "output_type") if failing.given(n))
    return Explained(
        f"{failing.op} cannot convert {pair or 'between these image types'}",
        "output_type" if failing.given("output_type") else "image_type",
        "pick image types DALI converts between (RGB, BGR, GRAY, YCbCr); image_type must be "
        "what the images are",
    )


def _tiles(match: re.Match[str], failing: _Failing) -> Explained:
    name = failing.first_given(("tiles_x", "tiles_y"), "tiles_x")
    return Explained(
        f"{failing.shown(name)} leaves no tile to equalize", name, f"give {name} a value from 1"
    )


_RULES: tuple[tuple[re.Pattern[str], Rule], ...] = tuple(
    (re.compile(pattern, re.I), rule)
    for pattern, rule in (
        (r"must be (?:provided|specified) together", _together),
        (r"Exactly one method of specifying size", _one_size),
        (r"mutually exclusive|not compatible with|incompatible with", _exclusive),
        (r'Argument "?(?P<arg>\w+)"? expects (?P<single>either a single value or )a list of '
         r"(?P<wanted>\d+) elements\. (?P<given>\d+) given", _count),
        (r"Argument (?P<arg>\w+) for sample \d+ is expected to have (?P<single>1 or )?"
         r"(?P<wanted>\d+) elements, got: (?P<given>\d+)", _count),
        (r'Unexpected shape for argument "(?P<arg>\w+)"\. Expected \{(?P<wanted>\d+)[^}]*\} '
         r"or empty, but got \{(?P<given>\d+)", _shape),
        (r'Expected uniform shape for argument "(?P<arg>\w+)"', _uniform),
        (r"(?P<given>\d+)-element tensor cannot describe an? (?P<dims>\d+)D shape", _dims),
        (r"(Unsupported|Not supported|unsupported|Invalid) output ?type|must output original "
         r"type|Unsupported input/output types|Output data type must be|Unexpected data type "
         r"argument|Unsupported type: ", _dtype),
        (r"interpolation", _interpolation),
        (r"``(?P<arg>\w+)`` value .* is not supported\.(?: Supported values are "
         r"(?P<supported>.*))?", _choice),
        (r"Not supported (?P<arg>\w+):", _choice),
        (r"fill value does not match|per-channel arguments should match|fill_value should "
         r"match the number of channels", _channels),
        (r"Axis '(?P<axis>\w)' is not present in the input layout", _axis_missing),
        (r"axis index (?P<axis>-?\d+) is out of valid range (?P<range>\d+\.\.\d+)",
         _axis_range),
        (r"(?P<kind>Smoothing )?window size must be an odd integer between (?P<low>\d+) and "
         r"(?P<high>\d+)", _window),
        (r"`(?P<first>\w+)` and `(?P<second>\w+)` shouldn't be 0 at the same time",
         _both_zero),
        (r"(?P<arg>`?\w+`?)(?: argument)? must be (?P<rule>in range \[[^\]]*\]|positive)",
         _range),
        (r"(?P<arg>\w+) of (?P<rule>(?:less|more) than \S+) is not supported", _range),
        (r"Invalid permutation|Unexpected dimensionality of output", _permutation),
        (r"different dimensionality \((?P<ndim>\d+)\) than the length of the permutation",
         _permutation_length),
        (r"output layout is not a permutation of input layout", _layout_order),
        (r"empty output layout", _empty_layout),
        (r"must specify at least one reduction axis", _no_axes),
        (r"Normalization parameters' shape must have extent|When providing both `mean` and "
         r"`stddev`, their shapes must match", _parameter_rank),
        (r"Parameter ``(?P<arg>\w+)`` cannot be specified when ``(?P<other>\w+)`` is set to "
         r"(?P<value>\w+)", _excluded_by),
        (r"Axes must not be specified when both mean and standard deviation are scalars",
         _axes_with_scalars),
        (r"Batch normalization cannot be used with parameters specified as TensorList",
         _batch_parameters),
        (r"parameter shape: (?P<given>[\d x]+?) does not match the reduced input sample "
         r"shape which is : (?P<reduced>[\d x]+)", _reduced_shape),
        (r"end coordinates can't be before start coordinates", _empty_window),
        (r"Invalid (?P<arg>\w+) argument: ?(?P<value>.*)", _choice),
        (r"roi_anchor\.size\(\) == roi_shape\.size\(\)|args_len % naxes == 0", _anchor_shape),
        (r"codec can't decode", _unreadable),
        (r'file\.is_open\(\)', _not_written),
        (r"Index \d+ out of range \[0, \d+\)", _save_attrs),
        (r"out of bounds with current policy", _out_of_bounds),
        (r"bad_alloc|out of memory|Can't allocate|allocation failed", _memory),
        (r'Argument "(?P<arg>\w+)" is not uniform', _fed_shape),
        (r"Unexpected number of elements in argument `(?P<arg>\w+)`", _fed_shape),
        (r"`(?P<arg>\w+)` must be a 1xN or Nx1 \(N = \d+\) tensor list", _fed_shape),
        (r"Argument (?P<arg>\w+) for sample \d+ is expected to be a scalar or a 1D tensor",
         _fed_shape),
        (r"Input with dimension \(\d+\) cannot be converted to dimension", _fed_shape),
        (r"Output (?P<arg>size)s must be passed as uniform", _fed_shape),
        (r"Affine mapping parameters must be", _fed_shape),
        (r"``mean`` and ``std`` must either be of the same size", _mean_std),
        (r"conversion not supported|Expected -?\d+\. Got \d+|Input size less than zero",
         _conversion),
        (r"OpenCV.*(copyMakeBorder|Insufficient memory)", _tiles),
    )
)  # fmt: skip


def explain_run_error(
    op: str,
    args: Mapping[str, Any],
    fed: frozenset[str],
    names: tuple[str, ...],
    message: str,
) -> Explained:
    """DALI's (cleaned) `message` about a node of `op` with constant `args` and per-sample `fed`
    arguments, in our words; `names` are every argument `op` has."""
    failing = _Failing(op, args, fed, names, message)
    for pattern, rule in _RULES:
        found = pattern.search(message)
        if found is not None:
            explained = rule(found, failing)
            # a rule may name an argument the node does not have (Tile -> tile): keep it only
            # if it is one of the operator's
            if explained.argument is not None and explained.argument not in names:
                explained = _with_argument(explained, _matching(explained.argument, names))
            return explained
    return _general(failing)


def _general(failing: _Failing) -> Explained:
    """The sentence for a message no rule reads: the node, and the argument DALI names."""
    named = failing.named()
    argument = failing.first_given(named, named[0] if named else None)
    about = f" about {failing.shown(argument)}" if argument else ""
    op = failing.op
    catalog = f"`augexplorer catalog {op}` lists what each argument takes"
    if argument in failing.fed:  # a value drawn (or computed) for one sample, not an edit
        fix = (
            f"{argument} is given per sample and one value was refused: narrow the draw (or what "
            f"computes it) to values {op} takes; {catalog}"
        )
    elif argument:
        fix = f"change {argument} (or undo the last edit); {catalog}"
    else:
        fix = f"undo the last edit, or set the arguments back to their defaults one at a time; {catalog}"
    return Explained(
        f"DALI refused to run {op} with the arguments set{about}", argument, fix, known=False
    )


def _matching(name: str, names: tuple[str, ...]) -> str | None:
    lowered = name.lower()
    return next((n for n in names if n.lower() == lowered), None)


def _with_argument(explained: Explained, argument: str | None) -> Explained:
    return dataclasses.replace(explained, argument=argument)


def explained_run_error(step: Step, message: str, *, fix: str | None, files: list[str]) -> RunError:
    """The :class:`RunError` of `step` failing with DALI's (cleaned) `message`: where the failure
    is the node's own (not a file's, not its Python code's), with our sentence naming the
    argument and what to try, DALI's text beside it."""
    if files or step.info is None or step.role == "source" or step.op == PYTHON_FUNCTION:
        return RunError(step.origin, message, fix=fix, files=files)
    if step.role in ("random", "apply"):  # the draw feeding an argument (or the coin) failed
        argument = step.bound_arg
        what = argument or "the apply probability"
        return RunError(
            step.origin,
            message,
            fix=fix or f"change the distribution of {what}",
            argument=argument,
            explanation=f"drawing {what} per sample failed",
        )
    explained = explain_run_error(
        step.op,
        step.args,
        frozenset(step.arg_inputs),
        tuple(arg.name for arg in step.info.args),
        message,
    )
    # the engine's own fix, where it has one for DALI's words, is the curated one
    chosen = (explained.fix or fix) if explained.replaces_fix or fix is None else fix
    return RunError(
        step.origin,
        message,
        fix=chosen,
        argument=explained.argument,
        explanation=explained.sentence,
    )
