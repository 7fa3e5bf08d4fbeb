"""The background warm-up of DALI's conditionals: after it, the first "apply with probability"
of a process converts nothing more with AutoGraph (the 1.4-2.4 s it cost on its own). Run in a
fresh process: AutoGraph keeps its conversions per process, so another test's would hide it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from augexplorer.engine.ast_threads import (
    ast_shared_between_threads,
)
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


def in_a_fresh_process(code: str) -> Any:
    """Run `code` in a new Python (warnings as errors) and read the JSON its last line prints:
    AutoGraph's conversions and the warm-up are once per process, so another test's would hide
    what these look for."""
    ran = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    return json.loads(ran.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_a_probability_toggle_converts_nothing() -> None:
    seen = in_a_fresh_process(PROBE)
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


USER_COMPILES_DURING_WARM_UP = textwrap.dedent(
    """
    import ast, gc, inspect, json
    import augexplorer.export.codegen as some_module
    from augexplorer.engine import warm_up

    class Finalized:  # the user's objects: cycles with finalizers, as many libraries make
        def __del__(self):
            pass

    source = inspect.getsource(some_module)
    thread = warm_up.warm_conditionals_in_background()
    compiled, failed, collection_during = 0, [], set()
    while not warm_up.conditionals_warm():
        for _ in range(200):
            junk = Finalized()
            junk.me = junk
        del junk
        collection_during.add(gc.isenabled())
        try:
            compile(ast.parse(source), "cell", "exec")  # what a kernel does with each cell
            compiled += 1
        except SystemError as error:
            failed.append(str(error))
    thread.join(timeout=120)
    print(json.dumps({"compiled": compiled, "failed": failed[:3], "failures": len(failed),
                      "during": sorted(collection_during), "after": gc.isenabled()}))
    """
)


def test_the_users_compiles_never_fail_while_the_warm_up_runs() -> None:
    """On CPythons before 3.11.8 / 3.12.2 the AST constructor's depth counter is shared between
    threads: without the collection off during the warm-up, most of these compiles raised
    "SystemError: AST constructor recursion depth mismatch" (62-76 of ~95 in three runs
    on a two-core machine)."""
    seen = in_a_fresh_process(USER_COMPILES_DURING_WARM_UP)
    assert seen["compiled"] > 0, "the warm-up ended before the user's thread compiled anything"
    assert seen["failures"] == 0, seen["failed"]
    assert seen["after"] is True, "the collection must be back on after the warm-up"
    expected = [False] if ast_shared_between_threads() else [True]
    assert expected[0] in seen["during"]


@pytest.mark.parametrize(
    ("version", "shared"),
    [
        ((3, 10, 14), True),
        ((3, 11, 7), True),
        ((3, 11, 8), False),
        ((3, 12, 1), True),
        ((3, 12, 2), False),
        ((3, 13, 0), False),
    ],
)
def test_which_cpythons_share_the_ast_depth_counter(
    version: tuple[int, int, int], shared: bool
) -> None:
    assert ast_shared_between_threads(version) is shared


OVERLAPPING_BLOCKS = textwrap.dedent(
    """
    import gc, json
    from augexplorer.engine.ast_threads import no_collection_where_ast_is_shared

    seen = {"before": gc.isenabled()}
    first, second = no_collection_where_ast_is_shared(), no_collection_where_ast_is_shared()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    seen["one_still_running"] = gc.isenabled()
    second.__exit__(None, None, None)
    seen["both_ended"] = gc.isenabled()
    gc.disable()  # turned off before any block began: it stays off
    with no_collection_where_ast_is_shared():
        pass
    seen["off_before"] = gc.isenabled()
    print(json.dumps(seen))
    """
)


def test_overlapping_blocks_turn_the_collection_back_on_with_the_last() -> None:
    """In a fresh process: a panel opened by an earlier test in this one may be warming up."""
    if not ast_shared_between_threads():
        pytest.skip("this CPython's AST constructor is safe on threads: nothing is turned off")
    seen = in_a_fresh_process(OVERLAPPING_BLOCKS)
    assert seen == {
        "before": True,
        "one_still_running": False,
        "both_ended": True,
        "off_before": False,
    }
