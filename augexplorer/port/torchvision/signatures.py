"""The arguments torchvision 0.29.1 takes, class by class, and the refusal of a call it rejects.

torchvision's transforms take no ``**kwargs``: an argument name a class does not take (an old
one, ``RandomRotation(resample=...)`` or ``RandomAffine(fillcolor=...)``, renamed
``interpolation`` and ``fill``, or a typo, ``interpolaton=``) raises ``TypeError: unexpected
keyword argument``, and so do more arguments by position than it takes, or one given twice. Read from a file, such a call is
refused as torchvision fails on it (:func:`refusal`), naming the argument and the fix, rather
than ported with its defaults in silence. A live object (no line) was built, so it is read.

The tables are each ported class's ``inspect.signature`` in torchvision 0.29.1, for
``torchvision.transforms`` (``_V1``) and ``torchvision.transforms.v2`` (``_V2``): the names in
order, a name ending in ``=`` having a default. Made with the reference environment's Python
(``make reference``; its path in ``AUGEXPLORER_REFERENCE_PYTHON``), for every name in
``MAPPING.handlers`` and ``MAPPING.groups``::

    for n in names:
        ps = inspect.signature(getattr(module, n)).parameters.values()
        print(n, " ".join(p.name + ("" if p.default is p.empty else "=") for p in ps))

``tests/test_port_torchvision_signatures.py`` checks them against that environment where it is
there. ``Scale`` and ``RandomSizedCrop`` are gone from 0.29.1 (the port keeps the old names):
they are read with the arguments of the classes that replaced them.
"""

from __future__ import annotations

import difflib

from ..library_names import is_v2, misspelled
from ..model import SPREAD, TransformCall

VERSION = "0.29.1"

_V1: dict[str, str] = {
    "Resize": "size interpolation= max_size= antialias=",
    "CenterCrop": "size",
    "RandomCrop": "size padding= pad_if_needed= fill= padding_mode=",
    "RandomResizedCrop": "size scale= ratio= interpolation= antialias=",
    "RandomHorizontalFlip": "p=",
    "RandomVerticalFlip": "p=",
    "Pad": "padding fill= padding_mode=",
    "RandomRotation": "degrees interpolation= expand= center= fill=",
    "RandomAffine": "degrees translate= scale= shear= interpolation= fill= center=",
    "RandomPerspective": "distortion_scale= p= interpolation= fill=",
    "ColorJitter": "brightness= contrast= saturation= hue=",
    "Grayscale": "num_output_channels=",
    "RandomGrayscale": "p=",
    "GaussianBlur": "kernel_size sigma=",
    "RandomInvert": "p=",
    "RandomPosterize": "bits p=",
    "RandomSolarize": "threshold p=",
    "RandomEqualize": "p=",
    "RandomAutocontrast": "p=",
    "RandomAdjustSharpness": "sharpness_factor p=",
    "RandomErasing": "p= scale= ratio= value= inplace=",
    "ToTensor": "",
    "PILToTensor": "",
    "ToPILImage": "mode=",
    "ConvertImageDtype": "dtype",
    "Normalize": "mean std inplace=",
    "AutoAugment": "policy= interpolation= fill=",
    "RandAugment": "num_ops= magnitude= num_magnitude_bins= interpolation= fill=",
    "TrivialAugmentWide": "num_magnitude_bins= interpolation= fill=",
    "RandomApply": "transforms p=",
    "RandomChoice": "transforms p=",
    "RandomOrder": "transforms",
    "Compose": "transforms",
    "Lambda": "lambd",
}
# v2 takes v1's arguments, and has classes of its own (ConvertImageDtype's dtype has a default)
_V2: dict[str, str] = {
    **_V1,
    "RandomPhotometricDistort": "brightness= contrast= saturation= hue= p=",
    "ToImage": "",
    "Identity": "",
    "ToPureTensor": "",
    "Lambda": "lambd types",  # v2's Lambda(lambd, *types): types are optional
    "ToDtype": "dtype scale=",
    "ConvertImageDtype": "dtype=",
    "RandomShortestSize": "min_size max_size= interpolation= antialias=",
    "RandomResize": "min_size max_size interpolation= antialias=",
    "ScaleJitter": "target_size scale_range= interpolation= antialias=",
    "RandomZoomOut": "fill= side_range= p=",
    "GaussianNoise": "mean= sigma= clip=",
}
# The old names the port keeps, by the class that replaced them (their arguments)
REPLACED = {"Scale": "Resize", "RandomSizedCrop": "RandomResizedCrop"}
# Arguments torchvision renamed (the old names are gone from 0.29.1), by their old name
RENAMED = {"resample": "interpolation", "fillcolor": "fill"}


def _parsed(table: dict[str, str]) -> dict[str, tuple[tuple[str, bool], ...]]:
    """name -> ((parameter, required), ...) in the signature's order."""
    return {
        name: tuple((p.rstrip("="), not p.endswith("=")) for p in text.split())
        for name, text in table.items()
    }


SIGNATURES_V1 = _parsed(_V1)
SIGNATURES_V2 = _parsed(_V2)
# the classes only v2 has (ToImage, ToDtype, RandomPhotometricDistort)
V2_ONLY = frozenset(SIGNATURES_V2) - frozenset(SIGNATURES_V1)


def signature(call: TransformCall) -> tuple[tuple[str, bool], ...] | None:
    """The parameters of `call`'s class in its module (v2's where the module is not known),
    None for a class outside the tables."""
    name = REPLACED.get(call.name, call.name)
    tables = (SIGNATURES_V2, SIGNATURES_V1) if is_v2(call) or not call.module else (SIGNATURES_V1,)
    for table in tables:
        if name in table:
            return table[name]
    return None


def refusal(call: TransformCall, *, group: bool = False) -> str | None:
    """Why torchvision 0.29.1 fails on `call` read from a file (an argument its class does not
    take, too many by position, one given twice, a required one missing), with the fix; None
    where it takes the call. `group`: a group's list of transforms was taken out of the call's
    arguments by the reading."""
    if call.line is None:  # a live object: built, so its library took its arguments
        return None
    if call.module and not is_v2(call) and call.name in V2_ONLY:
        return misspelled(call)
    parameters = signature(call)
    if parameters is None:
        return None
    if group:
        parameters = tuple(p for p in parameters if p[0] != "transforms")
    names = [name for name, _ in parameters]
    written = f"torchvision {VERSION}'s {call.name}"
    variadic = _VARIADIC.get(call.name)
    for given in call.kwargs:
        if given == variadic:  # `*types` takes values by position only
            return (
                f"{given} is given by name to {written}, which takes it only by position "
                f"(*{given}) and fails on it (TypeError) (fix: give the values after the "
                "first argument, without the name)"
            )
        if given == SPREAD or given in names:
            continue
        return f"{given} is not an argument of {written}, which fails on it (TypeError){_fix(given, names)}"
    if variadic in names:  # *types: any number by position, none needed
        parameters = tuple(p for p in parameters if p[0] != variadic)
    if len(call.args) > len(names) and variadic not in names:
        taken = ", ".join(names) or "none"
        return (
            f"{written} takes at most {len(names)} arguments by position ({taken}); "
            f"{len(call.args)} were given, and it fails on them (TypeError) (fix: give the "
            "others by name, or leave them out)"
        )
    for name in names[: len(call.args)]:
        if name in call.kwargs:
            return (
                f"{name} is given twice to {written}, by position and by name, and it fails on "
                f"it (TypeError) (fix: give {name} once)"
            )
    if SPREAD not in call.kwargs:
        taken_here = set(names[: len(call.args)]) | set(call.kwargs)
        missing = [name for name, required in parameters if required and name not in taken_here]
        if missing:
            return (
                f"{written} needs {', '.join(missing)}, which the call does not give, and "
                f"fails without it (TypeError) (fix: give {missing[0]}=...)"
            )
    return None


# a class's variadic parameter (``*types``), which the tables list as signature() reports it
_VARIADIC = {"Lambda": "types"}


def _fix(given: str, names: list[str]) -> str:
    """The fix for an argument name the class does not take: its current name where
    torchvision renamed it, else the closest name it takes."""
    renamed = RENAMED.get(given)
    if renamed in names:
        return f" (fix: {renamed}=, its current name)"
    close = difflib.get_close_matches(given, names, n=1, cutoff=0.6)
    if close:
        return f" (fix: {close[0]}=, the closest name it takes)"
    if not names:
        return " (fix: leave it out; it takes no argument)"
    return f" (fix: leave it out, or give a name it takes: {', '.join(names)})"


__all__ = ["SIGNATURES_V1", "SIGNATURES_V2", "refusal", "signature"]
