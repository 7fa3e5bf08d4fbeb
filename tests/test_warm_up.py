"""The background warm-up of DALI's conditionals: after it, the first "apply with probability"
of a process converts nothing more with AutoGraph (the 1.4-2.4 s it cost on its own). Run in a
fresh process: AutoGraph keeps its conversions per process, so another test's would hide it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from augexplorer.engine.warm_up import tiny_conditional_graph

pytestmark = pytest.mark.slow

PROBE = textwrap.dedent(
    """
    import json
    import nvidia.dali._autograph.pyct.transpiler as transpiler
    from augexplorer import Session
    from augexplorer.engine.warm_up import (
        conditionals_warm, warm_conditionals_in_background)

    converted = []
    convert = transpiler.GenericTranspiler.transform_function

    def counted(self, fn, ctx):
        converted.append(fn.__qualname__)
        return convert(self, fn, ctx)

    transpiler.GenericTranspiler.transform_function = counted
    session = Session("basic", batch_size=4, device_id=None)
    session.run()
    before = list(converted)
    thread = warm_conditionals_in_background()
    again = warm_conditionals_in_background()
    thread.join(timeout=120)
    warmed = list(converted)
    converted.clear()
    session.set_probability("rotate", 0.5)
    session.set_probability("flip", 0.3)
    print(json.dumps({"before": before, "warmed": warmed, "toggles": converted,
                      "again": again is None, "done": conditionals_warm()}))
    """
)


def test_after_the_warm_up_a_probability_toggle_converts_nothing() -> None:
    ran = subprocess.run(
        [sys.executable, "-W", "error", "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen["before"] == []  # the preset has no conditional: nothing converted yet
    # the builder's own functions, converted by the warm-up...
    assert {"_call_group", "call_step", "step_kwargs", "dali_value"} <= set(seen["warmed"])
    # ...so that the user's first toggles convert none
    assert seen["toggles"] == []
    assert seen["again"] and seen["done"]  # once per process


def test_the_tiny_graph_applies_each_node_with_a_probability() -> None:
    graph = tiny_conditional_graph()
    nodes = [n for n in graph.nodes if getattr(n, "probability", None) is not None]
    assert [n.id for n in nodes] == ["rotate", "crop", "flip"]


def test_a_process_that_ends_during_the_warm_up_ends_cleanly() -> None:
    """DALI asserts at exit that no pipeline is left; the warm-up's must not be one of them."""
    # a panel starts the warm-up once its first grid shows; the script ends at once
    code = "from augexplorer import Explorer\nexplorer = Explorer('basic', autosave=None)\n"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
