"""Argument types shared by every command, so each option is checked the same way everywhere
and a bad value is refused before any work starts, in one line naming the option and the fix."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import AugExplorerError

MAX_CELL = 4096  # pixels per grid tile; a batch of larger tiles is gigabytes of picture


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type for a whole number from `low` (up to `high`, when given)."""
    wanted = f"a whole number from {low} to {high}" if high else f"a whole number of {low} or more"

    def parse(text: str) -> int:
        refused = argparse.ArgumentTypeError(f"got {text!r} (fix: give {wanted})")
        try:
            value = int(text)
        except ValueError:
            raise refused from None
        if value < low or (high is not None and value > high):
            raise refused
        return value

    parse.__name__ = "whole number"  # what argparse calls the type in its own messages
    return parse


positive = whole_number(1)
at_least_zero = whole_number(0)
cell_size = whole_number(1, MAX_CELL)


def spec_reference(text: str) -> str:
    """A graph spec file or a preset name: refuses a folder, a missing file that is no preset,
    and a file this process may not read."""
    from ..presets import PRESETS

    presets = ", ".join(PRESETS)
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(
            f"{text} is a folder (fix: give a graph spec file (.json) or a preset name: {presets})"
        )
    if not os.path.exists(text):
        if text in PRESETS:
            return text
        raise argparse.ArgumentTypeError(
            f"{text}: no such spec file and no preset of that name "
            f"(fix: give a graph spec file (.json) or a preset name: {presets})"
        )
    if not os.access(text, os.R_OK):
        raise argparse.ArgumentTypeError(
            f"{text}: no permission to read it (fix: change its permissions, or copy it)"
        )
    return text


def image_output(text: str) -> str:
    """A grid's output name, whose suffix names a format we can write."""
    from ..render.formats import UnsupportedImageFormat, image_format

    try:
        image_format(text)
    except UnsupportedImageFormat as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


class ParamGivenTwice(AugExplorerError):
    """A parameter given twice with --param: which one was meant cannot be told."""


def param(text: str) -> tuple[str, Any]:
    """An argparse type for ``--param NAME=VALUE``: the name and the value as
    :func:`augexplorer.export.code_pipelines.parse_param` reads it."""
    from ..export.code_pipelines import parse_param

    try:
        return parse_param(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


param.__name__ = "NAME=VALUE"  # what argparse calls the type in its own messages


def params_of(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """The values of repeated ``--param`` options by name; a name given twice is refused."""
    params: dict[str, Any] = {}
    for name, value in pairs:
        if name in params:
            raise ParamGivenTwice(f"--param {name} is given twice (fix: give each parameter once)")
        params[name] = value
    return params
