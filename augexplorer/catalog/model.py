"""Plain records describing DALI operators; no DALI import."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

Backend = Literal["cpu", "gpu", "mixed"]

# The operator that runs the user's Python code; its `function` argument takes PythonCode.
PYTHON_FUNCTION = "python_function"

# Schema argument kinds that hold a number.
NUMERIC_KINDS = frozenset(
    {
        "FLOAT",
        "FLOAT16",
        "FLOAT64",
        "INT8",
        "INT16",
        "INT32",
        "INT64",
        "UINT8",
        "UINT16",
        "UINT32",
        "UINT64",
    }
)
INTEGER_KINDS = NUMERIC_KINDS - {"FLOAT", "FLOAT16", "FLOAT64"}

# How DALI's argument docs say what happens when an argument is left out.
_UNSET = re.compile(r"\bnot (specified|set|provided|given)\b|\bomitted\b", re.IGNORECASE)


@dataclass(frozen=True)
class Hint:
    """How the UI should offer an argument: a slider range, a step, a label."""

    low: float
    high: float
    step: float | None = None
    # the argument is a [low, high] range (random_area): one range slider with a box each end
    pair: bool = False


@dataclass(frozen=True)
class ArgInfo:
    name: str
    kind: str  # DALI's type name without the vector marker: FLOAT, INT32, BOOL, DATA_TYPE, ...
    is_vector: bool
    default: Any
    has_default: bool
    required: bool
    per_sample: bool  # a tensor argument: can be fed per sample at run time
    choices: tuple[str, ...] = ()
    doc: str = ""
    hint: Hint | None = None

    @property
    def is_numeric(self) -> bool:
        return self.kind in NUMERIC_KINDS

    @property
    def is_integer(self) -> bool:
        return self.kind in INTEGER_KINDS

    def describe_type(self) -> str:
        base = self.kind.lower()
        return f"list of {base}" if self.is_vector else base

    @property
    def optional_without_default(self) -> bool:
        """Optional with no default value: left out, the operator does something no value of
        the argument gives (rotate without `fill_value` repeats the border pixels)."""
        return not self.required and not self.has_default

    @property
    def default_is_placeholder(self) -> bool:
        """A default outside the curated range (crop_w's 0): it stands for "not given" (crop
        then takes its window from `crop`), not for a value to tune from."""
        default = self.default
        # a vector's single value (gaussian_blur's window_size [0]: "from sigma") alike
        if isinstance(default, (list, tuple)) and len(default) == 1:
            default = default[0]
        if not self.has_default or self.hint is None or not isinstance(default, (int, float)):
            return False
        return not self.hint.low <= float(default) <= self.hint.high

    def when_unset(self) -> str:
        """What the operator does without this argument: the sentence of DALI's doc that says
        so, or an empty string where the doc does not."""
        sentences = re.split(r"(?<=[.])\s+", " ".join(self.doc.split()))
        return next((s for s in sentences if _UNSET.search(s)), "")


@dataclass(frozen=True)
class InputInfo:
    name: str
    doc: str = ""
    # Whether the GPU backend reads this input from CPU memory too (a warp matrix, a slice's
    # anchor); most GPU inputs must already be on the GPU. From DALI's schema.
    gpu_reads_cpu: bool = False


@dataclass(frozen=True)
class OpInfo:
    name: str  # as in `fn`, e.g. "random.uniform"
    schema_name: str
    backends: tuple[Backend, ...]
    inputs: tuple[InputInfo, ...]
    min_inputs: int
    max_inputs: int
    args: tuple[ArgInfo, ...]
    random: bool
    outputs: int = 1
    doc: str = ""
    unavailable_reason: str | None = None
    # The layouts DALI's schema lists for the first input ("HWC", "CHW", ...); empty where the
    # schema does not say (see catalog.inputs for what is curated there).
    input_layouts: tuple[str, ...] = ()
    arg_index: dict[str, ArgInfo] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.arg_index.update({arg.name: arg for arg in self.args})

    @property
    def category(self) -> str:
        return self.name.rsplit(".", 1)[0] if "." in self.name else "core"

    @property
    def available(self) -> bool:
        return self.unavailable_reason is None

    def arg(self, name: str) -> ArgInfo | None:
        return self.arg_index.get(name)

    def default_device(self) -> Backend:
        return "cpu" if "cpu" in self.backends else self.backends[0]

    def summary(self) -> str:
        first = self.doc.strip().split("\n\n", 1)[0]
        return " ".join(first.split())
