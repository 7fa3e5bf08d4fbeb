"""`augexplorer catalog [OP]`: list operators, or show one operator's arguments."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from ..catalog import OpInfo, load_catalog
from ..catalog.limits import NEEDS_ONE_OF, ONE_VALUE_CONSTANTS, VECTOR_LENGTHS, value_counts


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "catalog", help="list DALI operators, or show one operator's arguments"
    )
    parser.add_argument(
        "op", nargs="?", help="an operator's fn name, e.g. rotate or decoders.image"
    )
    parser.add_argument(
        "--filter", default="", help="only operators whose name or summary contains this"
    )
    parser.add_argument(
        "--category", help="only this category, e.g. random, decoders, transforms, core"
    )
    parser.add_argument("--presets", action="store_true", help="list the preset graphs instead")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.presets:
        from ..presets import PRESETS

        for name, make in PRESETS.items():
            doc = (make.__doc__ or "").strip().splitlines()[0]
            print(f"{name:16} {doc}")
        return 0
    catalog = load_catalog()
    if args.op:
        op = catalog.get(args.op)
        if op is None:
            near = catalog.similar(args.op)
            hint = f"; did you mean {' or '.join(near)}?" if near else ""
            print(f"no operator {args.op!r}{hint}")
            return 2
        print(describe(op))
        return 0
    ops = catalog.search(args.filter, args.category)
    for op in ops:
        mark = "" if op.available else "  [unavailable: GPU only]"
        print(f"{op.name:40} {'/'.join(op.backends):15} {op.summary()[:70]}{mark}")
    print(
        f"\n{len(ops)} of {len(catalog)} operators ({catalog.deprecated_hidden} deprecated ones hidden)"
    )
    return 0


def describe(op: OpInfo) -> str:
    lines = [f"{op.name}  ({', '.join(op.backends)})", ""]
    if op.unavailable_reason:
        lines += [f"unavailable here: {op.unavailable_reason}", ""]
    lines += [*textwrap.wrap(op.summary(), 96), ""]
    inputs = ", ".join(i.name for i in op.inputs) or "none"
    lines.append(f"inputs: {inputs} ({op.min_inputs}..{op.max_inputs}); outputs: {op.outputs}")
    if op.random:
        lines.append("random: yes (takes a seed)")
    needed = NEEDS_ONE_OF.get(op.name)
    if needed is not None:
        instead = ""
        if needed.input is not None and needed.input <= len(op.inputs):
            instead = f" (or as input {needed.input}, {op.inputs[needed.input - 1].name})"
        lines.append(f"needs {needed.what}: {' or '.join(needed.args)}{instead}")
    lines += ["", "arguments:"]
    for arg in op.args:
        flags = []
        if arg.required:
            flags.append("required")
        elif arg.has_default:
            flags.append(f"default {arg.default!r}")
        if arg.per_sample:
            flags.append("per-sample")
        if arg.choices:
            flags.append(
                "one of " + ", ".join(arg.choices[:6]) + (", ..." if len(arg.choices) > 6 else "")
            )
        if arg.hint:
            flags.append(f"range {arg.hint.low}..{arg.hint.high}")
        lengths = VECTOR_LENGTHS.get((op.name, arg.name))
        if lengths:
            # per sample only these; a constant also as one value, which DALI repeats
            one = (
                " (or one constant value, repeated)"
                if (op.name, arg.name) in ONE_VALUE_CONSTANTS
                else ""
            )
            flags.append(f"{value_counts(lengths)} values{one}")
        lines.append(f"  {arg.name:24} {arg.describe_type():16} {'; '.join(flags)}")
        doc = " ".join(arg.doc.split())
        if doc:
            lines += ["      " + line for line in textwrap.wrap(doc, 90)[:3]]
    return "\n".join(lines)
