"""DALI's automatic augmentation policies (``nvidia.dali.auto_aug``) as catalog operators.

They are Python functions, not schema operators: each expands into many DALI operators under
conditionals. Their arguments are read from the functions' own signatures and docstrings (types,
defaults, docs) and the choices from DALI's own policy and suite functions; only the UI hints
below and the two interpolations DALI documents as supported are curated. No DALI import at
module level: the names are plain data that other modules check against.
"""

from __future__ import annotations

import importlib
import inspect
import re
import types as pytypes
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .model import ArgInfo, Hint, InputInfo, OpInfo


@dataclass(frozen=True)
class Policy:
    """One ``nvidia.dali.auto_aug`` function, written ``module.function(images, ...)``, or
    (`module` empty) one of :mod:`augexplorer.auto_aug_torchvision`, whose source an exported
    module carries and calls by its name."""

    module: str  # in nvidia.dali.auto_aug, also the name the exported module imports
    function: str

    @property
    def call(self) -> str:
        return f"{self.module}.{self.function}" if self.module else self.function

    @property
    def carried(self) -> bool:
        """Whether the exported module defines the function itself."""
        return not self.module


# Catalog name -> the DALI function. The names keep DALI's function names under one category.
POLICIES: dict[str, Policy] = {
    "auto_aug.auto_augment": Policy("auto_augment", "auto_augment"),
    "auto_aug.rand_augment": Policy("rand_augment", "rand_augment"),
    "auto_aug.trivial_augment_wide": Policy("trivial_augment", "trivial_augment_wide"),
    # torchvision's own AutoAugment sub-policies (DALI's image_net policy is TensorFlow's list)
    "auto_aug.torchvision_auto_augment": Policy("", "torchvision_auto_augment"),
}
AUTO_AUG_OPS = frozenset(POLICIES)
# The modules an exported graph imports from nvidia.dali.auto_aug (names it must not reuse).
POLICY_MODULES = frozenset(policy.module for policy in POLICIES.values() if policy.module)

# What the policies read: DALI documents uint8 HWC images (or FHWC video, not offered here).
INPUT_LAYOUT = "HWC"
INPUT_DTYPE = "UINT8"

# Arguments that are not augmentation parameters: the images and the seed (a node field).
_PLUMBING = frozenset({"data", "seed"})

# Curated slider ranges; bins and magnitudes follow DALI's default of 31 magnitude bins.
HINTS: dict[str, Hint] = {
    "n": Hint(1, 6, 1),
    "m": Hint(0, 30, 1),
    "num_magnitude_bins": Hint(2, 64, 1),
    "fill_value": Hint(0, 255, 1),
}
# DALI documents only these two for the policies' warp_affine operations.
INTERPOLATIONS = ("INTERP_LINEAR", "INTERP_NN")


def is_auto_aug(op: str) -> bool:
    return op in AUTO_AUG_OPS


def policy_function(op: str) -> Callable[..., Any]:
    """The DALI function behind catalog operator `op`."""
    # Plain imports, no importlib call: this runs inside pipeline definitions, where DALI's
    # autograph converts every function called and warns about importlib's internals.
    from nvidia.dali.auto_aug import auto_augment, rand_augment, trivial_augment

    from .. import auto_aug_torchvision

    modules = {
        "auto_augment": auto_augment,
        "rand_augment": rand_augment,
        "trivial_augment": trivial_augment,
        "": auto_aug_torchvision,
    }
    policy = POLICIES[op]
    function: Callable[..., Any] = getattr(modules[policy.module], policy.function)
    return function


def policy_names() -> tuple[str, ...]:
    """auto_augment's predefined policies, from DALI's ``get_<name>_policy`` functions."""
    module = importlib.import_module("nvidia.dali.auto_aug.auto_augment")
    found = re.compile(r"get_(\w+)_policy")
    return tuple(m[1] for name in sorted(dir(module)) if (m := found.fullmatch(name)))


def torchvision_policy_names() -> tuple[str, ...]:
    """torchvision's AutoAugmentPolicy names, as :mod:`augexplorer.auto_aug_torchvision` holds."""
    from .. import auto_aug_torchvision

    return tuple(auto_aug_torchvision.TORCHVISION_POLICIES)


def suite_names(op: str) -> tuple[str, ...]:
    """The augmentations `op` picks from (what `excluded` may name), from DALI's suites."""
    if op == "auto_aug.rand_augment":
        module = importlib.import_module("nvidia.dali.auto_aug.rand_augment")
        suites = [module.get_rand_augment_suite(), module.get_rand_augment_non_monotonic_suite()]
    elif op == "auto_aug.trivial_augment_wide":
        module = importlib.import_module("nvidia.dali.auto_aug.trivial_augment")
        suites = [module.get_trivial_augment_wide_suite()]
    else:
        return ()
    names: list[str] = []
    for suite in suites:
        names += [aug.name for aug in suite if aug.name not in names]
    return tuple(names)


def auto_aug_ops() -> list[OpInfo]:
    """Catalog records of the policies, generated from the installed DALI."""
    return [_op_info(op) for op in POLICIES]


# A node's own argument, not DALI's: whether the policy's random draws are seeded apart
# (augexplorer.policy_seeds). On for every new node; off where an import keeps a DALI call's
# own tied draws.
INDEPENDENT_DRAWS = ArgInfo(
    name="independent_draws",
    kind="BOOL",
    is_vector=False,
    default=True,
    has_default=True,
    required=False,
    per_sample=False,
    doc="Seed each random draw of the policy apart (seed, seed + 1, ...). DALI's policies give "
    "all their draws the one seed, and DALI draws the same numbers for the same seed, so the "
    "operation picked decides its sign and magnitude; off, the node draws as DALI's call "
    "with that seed does (an imported pipeline's own draws).",
)


def takes_independent_draws(op: str) -> bool:
    """Whether `op` has the `independent_draws` argument (DALI's own policies; augexplorer's
    torchvision policy always draws apart)."""
    return is_auto_aug(op) and not POLICIES[op].carried


def draws_apart(op: str, args: Mapping[str, Any]) -> bool:
    """Whether a node of DALI policy `op` with `args` is called through
    :func:`augexplorer.policy_seeds.independent_draws` (its switch is on unless set off)."""
    return takes_independent_draws(op) and bool(args.get(INDEPENDENT_DRAWS.name, True))


def _op_info(op: str) -> OpInfo:
    function = policy_function(op)
    docs = _argument_docs(inspect.getdoc(function) or "")
    signature = inspect.signature(function)
    args = tuple(
        _arg_info(op, name, parameter, docs.get(name, ""))
        for name, parameter in signature.parameters.items()
        if name not in _PLUMBING
    )
    if takes_independent_draws(op):
        args += (INDEPENDENT_DRAWS,)
    return OpInfo(
        name=op,
        schema_name=f"nvidia.dali.auto_aug.{POLICIES[op].call}",
        backends=("cpu", "gpu"),  # the policies' operators run where the images are
        inputs=(InputInfo("data", docs.get("data", "")),),
        min_inputs=1,
        max_inputs=1,
        args=tuple(sorted(args, key=lambda arg: arg.name)),
        random=True,  # every draw of the policy comes from its one seed
        outputs=1,
        doc=_summary(inspect.getdoc(function) or ""),
    )


def _arg_info(op: str, name: str, parameter: inspect.Parameter, doc: str) -> ArgInfo:
    kind, is_vector, per_sample = _kind(parameter.annotation)
    has_default = parameter.default is not inspect.Parameter.empty
    default = parameter.default if has_default else None
    choices: tuple[str, ...] = ()
    if name == "policy_name" and op == "auto_aug.torchvision_auto_augment":
        choices = torchvision_policy_names()
    elif name == "policy_name":
        choices = policy_names()
    elif name == "excluded":
        choices = suite_names(op)
    elif kind == "INTERP_TYPE":
        choices = INTERPOLATIONS
    return ArgInfo(
        name=name,
        kind=kind,
        is_vector=is_vector,
        # None means "not given" in a graph: the argument is left out of the call
        default=default,
        has_default=has_default and default is not None,
        required=not has_default,
        per_sample=per_sample,
        choices=choices,
        doc=doc,
        hint=HINTS.get(name),
    )


def _kind(annotation: Any) -> tuple[str, bool, bool]:
    """(DALI type name, is a list, can be fed from a node) of a policy argument's annotation."""
    from nvidia.dali import types
    from nvidia.dali.data_node import DataNode

    options = [a for a in _union(annotation) if a is not type(None)]
    per_sample = DataNode in options  # `shape`: a node's output, or a constant (H, W)
    options = [a for a in options if a is not DataNode]
    annotation = options[0] if len(options) == 1 else annotation
    origin = typing.get_origin(annotation)
    if origin in (list, tuple):
        items = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return _scalar_kind(items[0] if items else int), True, per_sample
    if annotation is types.DALIInterpType:
        return "INTERP_TYPE", False, per_sample
    return _scalar_kind(annotation), False, per_sample


def _union(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) in (typing.Union, pytypes.UnionType):
        return typing.get_args(annotation)
    return (annotation,)


def _scalar_kind(annotation: Any) -> str:
    return {bool: "BOOL", int: "INT32", float: "FLOAT", str: "STRING"}.get(annotation, "STRING")


_ARG_LINE = re.compile(r"^(\w+)\s*:")


def _argument_docs(doc: str) -> dict[str, str]:
    """Each argument's description from a numpy-style ``Args`` section."""
    docs: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in doc.splitlines():
        found = _ARG_LINE.match(line)
        if found and not line.startswith(" "):
            current = docs.setdefault(found[1], [])
        elif current is not None and line.startswith(" "):
            current.append(line.strip())
        elif line.strip() in ("Returns", "-------"):
            current = None
    return {name: " ".join(lines) for name, lines in docs.items()}


def _summary(doc: str) -> str:
    return doc.split("\n\nArgs", 1)[0].strip()


TRANSLATIONS = frozenset({"translate_x", "translate_y"})


def applied_augmentations(op: str, policy_name: Any = None, excluded: Any = ()) -> tuple[str, ...]:
    """The augmentations a node of `op` can apply: an auto_augment policy's (None for a policy
    DALI does not have) or the suite's less `excluded`."""
    if op == "auto_aug.torchvision_auto_augment":
        from .. import auto_aug_torchvision

        chosen = policy_name if isinstance(policy_name, str) else "imagenet"
        if chosen not in auto_aug_torchvision.TORCHVISION_POLICIES:
            return ()
        return tuple(sorted(auto_aug_torchvision.torchvision_policy(chosen).augmentations))
    if op != "auto_aug.auto_augment":
        dropped = set(excluded) if isinstance(excluded, (list, tuple)) else set()
        return tuple(name for name in suite_names(op) if name not in dropped)
    name = policy_name if isinstance(policy_name, str) else "image_net"
    if name not in policy_names():
        return ()
    module = importlib.import_module("nvidia.dali.auto_aug.auto_augment")
    policy = getattr(module, f"get_{name}_policy")()
    return tuple(sorted(policy.augmentations))


# The preset that starts from each policy (what a refused import suggests).
PRESETS = {
    "auto_aug.auto_augment": "auto_augment_imagenet",
    "auto_aug.rand_augment": "dali_rand_augment",
    "auto_aug.trivial_augment_wide": "trivial_augment_wide",
}


def node_for_function(function: str) -> str | None:
    """The catalog operator for a policy function a DALI user called (None for the `apply_*`
    functions, which take a suite of the user's own)."""
    if function == "auto_augment_image_net":  # DALI's shorthand for policy_name="image_net"
        return "auto_aug.auto_augment"
    return next((op for op, policy in POLICIES.items() if policy.function == function), None)
