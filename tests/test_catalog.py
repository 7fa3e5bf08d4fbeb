"""The operator catalog is generated from DALI's schemas and matches DALI's own `fn` API."""

from __future__ import annotations

import types as pytypes

import pytest
from nvidia.dali import fn

from augexplorer.builder import resolve_fn
from augexplorer.catalog import Catalog, load_catalog
from augexplorer.catalog.hints import HINTS
from augexplorer.cli import main


def public_fn_names() -> set[str]:
    """Every operator DALI's own `fn` module exposes, walked independently of the catalog."""
    names: set[str] = set()

    def walk(module: pytypes.ModuleType, prefix: str) -> None:
        for attr in dir(module):
            if attr.startswith("_") or attr == "hidden":
                continue
            value = getattr(module, attr)
            if isinstance(value, pytypes.ModuleType):
                if value.__name__.startswith("nvidia.dali.fn"):
                    walk(value, f"{prefix}{attr}.")
            elif callable(value) and getattr(value, "_schema_name", None):
                names.add(f"{prefix}{attr}")

    walk(fn, "")
    return names


def test_catalog_lists_every_public_operator_but_the_deprecated(catalog: Catalog) -> None:
    # DALI 2.4's public fn operators from its C++ schemas, plus python_function from its plugin,
    # plus the three policies of nvidia.dali.auto_aug (Python functions, not fn operators) and
    # augexplorer's torchvision AutoAugment policy
    operators = [name for name in catalog.names() if not name.startswith("auto_aug.")]
    assert len(operators) + catalog.deprecated_hidden == 142
    assert len(catalog) - len(operators) == 4
    for name in catalog.names():
        assert callable(resolve_fn(name)), name
    from_fn = public_fn_names()
    if from_fn:  # DALI marks generated functions with their schema; when it does, compare
        assert set(operators) <= from_fn


def test_argument_records_come_from_the_schema(catalog: Catalog) -> None:
    angle = catalog["rotate"].arg("angle")
    assert angle is not None
    assert (angle.kind, angle.required, angle.per_sample) == ("FLOAT", True, True)
    dtype = catalog["crop_mirror_normalize"].arg("dtype")
    assert dtype is not None and dtype.default == "FLOAT" and "FLOAT16" in dtype.choices
    interp = catalog["resize"].arg("interp_type")
    assert interp is not None and interp.default == "INTERP_LINEAR"
    mean = catalog["crop_mirror_normalize"].arg("mean")
    assert mean is not None and mean.is_vector and mean.default == [0.0]
    assert "seed" not in catalog["rotate"].arg_index  # plumbing is not shown as an argument
    assert catalog["readers.file"].outputs == 2
    assert catalog["random.uniform"].random and not catalog["rotate"].random


def test_deprecated_arguments_are_hidden(catalog: Catalog) -> None:
    from nvidia.dali import backend

    schema = backend.GetSchema("Rotate")
    deprecated = [a for a in schema.GetArgumentNames() if schema.IsDeprecatedArg(a)]
    assert deprecated, "Rotate has a deprecated argument in DALI 2.4 (output_dtype)"
    for name in deprecated:
        assert catalog["rotate"].arg(name) is None


def test_every_hint_names_a_real_operator_and_argument(catalog: Catalog) -> None:
    hinted_ops = [name for name, args in HINTS.items() if args]
    assert len(HINTS) >= 30
    for op_name, args in HINTS.items():
        assert op_name in catalog, op_name
        for arg_name, hint in args.items():
            arg = catalog[op_name].arg(arg_name)
            assert arg is not None, f"{op_name}.{arg_name}"
            assert arg.hint == hint and hint.low < hint.high
    assert len(hinted_ops) >= 25


def test_gpu_only_operators_are_unavailable_without_a_gpu() -> None:
    cpu_only = load_catalog(gpu=False)
    assert not cpu_only["jitter"].available
    assert "GPU" in (cpu_only["jitter"].unavailable_reason or "")
    assert cpu_only["rotate"].available
    with_gpu = load_catalog(gpu=True)
    assert with_gpu["jitter"].available


def test_search_puts_name_matches_first(catalog: Catalog) -> None:
    found = catalog.search("rot")
    assert found[0].name in ("rotate", "transforms.rotation")
    assert all(op.category == "random" for op in catalog.search(category="random"))
    assert catalog.similar("rotat")[0] == "rotate"


def test_cli_lists_and_describes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--filter", "warp"]) == 0
    listing = capsys.readouterr().out
    assert "warp_affine" in listing and "experimental.warp_perspective" in listing
    assert main(["catalog", "rotate"]) == 0
    detail = capsys.readouterr().out
    assert "angle" in detail and "per-sample" in detail and "range -90..90" in detail
    assert main(["catalog", "warp_affine"]) == 0
    detail = capsys.readouterr().out
    assert "needs a transform: matrix (or as input 2, mtx)" in detail
    assert any(line.startswith("  matrix") and "6 values" in line for line in detail.splitlines())
    assert main(["catalog", "rotat"]) == 2
    assert "did you mean rotate" in capsys.readouterr().out
