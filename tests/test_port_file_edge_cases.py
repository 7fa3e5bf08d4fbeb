"""Values a file settles and calls torchvision refuses, read as Python and torchvision read them:
argparse's set_defaults, a class body's own names, a Lambda after a one-channel Grayscale, a
variadic parameter given by name, and fixes that are valid themselves."""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

from augexplorer import Session
from augexplorer.export.stopped_call import values_in_call
from augexplorer.port.model import PortResult
from augexplorer.port.reading import read_source
from augexplorer.port.torchvision import port
from augexplorer.spec import Node

HEADER = (
    "import argparse\nimport torchvision.transforms as T\nimport torchvision.transforms.v2 as v2\n"
)


def _ported(body: str) -> PortResult:
    (found,) = [p for p in read_source(HEADER + textwrap.dedent(body)) if not p.alias_of]
    return port(found.compose, batch_size=2)


def _args(result: PortResult, op: str) -> dict[str, object]:
    (node,) = [n for n in result.spec.nodes if isinstance(n, Node) and n.op == op]
    return dict(node.args)


def _refusal(result: PortResult) -> str:
    (refused,) = result.refusals
    return refused.describe()


# ---- argparse -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "size"),
    [
        # set_defaults after the option's own default: argparse gives set_defaults' value
        ('p.add_argument("--size", type=int, default=224)\np.set_defaults(size=160)', 160),
        # an option with a default of its own after set_defaults: its own holds
        ('p.set_defaults(size=160)\np.add_argument("--size", type=int, default=224)', 224),
        # an option without a default after set_defaults: set_defaults' value
        ('p.set_defaults(size=160)\np.add_argument("--size", type=int)', 160),
    ],
)
def test_set_defaults_counts_as_argparse_counts_it(options: str, size: int) -> None:
    result = _ported(
        f"p = argparse.ArgumentParser()\n{options}\nargs = p.parse_args()\n"
        "t = T.Compose([T.RandomResizedCrop(args.size)])\n"
    )
    assert not result.refusals
    assert _args(result, "random_resized_crop")["size"] == [float(size), float(size)]
    namespace: dict[str, object] = {}
    exec(
        compile(
            "import argparse\np = argparse.ArgumentParser()\n"
            + options
            + "\nargs = p.parse_args([])\n",
            "<options>",
            "exec",
        ),
        namespace,
    )
    assert namespace["args"].size == size  # type: ignore[attr-defined]


# ---- a class body reads its own names --------------------------------------------------------

SETTINGS = """
size = 512
class CFG:
    size = 256
    crop = size - 32
"""


@pytest.mark.parametrize("read", ["CFG().crop", "CFG.crop"])
def test_a_class_attribute_reads_the_class_bodys_names(read: str) -> None:
    result = _ported(f"{SETTINGS}t = T.Compose([T.CenterCrop({read})])\n")
    namespace: dict[str, object] = {}
    exec(SETTINGS, namespace)
    assert namespace["CFG"].crop == 224  # type: ignore[attr-defined]
    assert not result.refusals
    assert "CenterCrop(224)" in result.summary()


def test_a_class_attribute_set_again_outside_the_class_is_left_to_the_file() -> None:
    result = _ported(f"{SETTINGS}CFG.crop = size - 12\nt = T.Compose([T.CenterCrop(CFG.crop)])\n")
    assert "known only when the file runs" in _refusal(result)


# ---- Lambda(convert('RGB')) after Grayscale(1) ---------------------------------------------


def test_convert_to_rgb_after_a_one_channel_grayscale_gives_three_channels() -> None:
    result = _ported("t = T.Compose([T.Grayscale(1), T.Lambda(lambda img: img.convert('RGB'))])\n")
    assert not result.refusals
    output = np.asarray(Session(result.spec).run().output(result.spec.nodes[-1].id)[0])
    assert output.shape[-1] == 3  # PIL's convert('RGB') of an 'L' image repeats its grey
    assert np.array_equal(output[..., 0], output[..., 2])


def test_convert_to_rgb_alone_adds_no_node() -> None:
    result = _ported("t = T.Compose([T.Lambda(lambda img: img.convert('RGB'))])\n")
    assert not result.refusals
    assert not [n for n in result.spec.nodes if isinstance(n, Node) and n.op == "cat"]


# ---- calls torchvision fails on, and the fixes given -----------------------------------------


def test_a_variadic_parameter_given_by_name_is_refused_as_torchvision_fails() -> None:
    # torchvision 0.29.1: TypeError: Lambda.__init__() got an unexpected keyword 'types'
    result = _ported("t = v2.Compose([v2.Lambda(lambda x: x, types=(int,))])\n")
    assert "types is given by name" in _refusal(result)


def test_a_number_as_interpolation_speaks_of_sizes_only_for_resize() -> None:
    rotation = _refusal(_ported("t = T.Compose([T.RandomRotation(30, 7)])\n"))
    assert "interpolation=7" in rotation and "Resize((h, w))" not in rotation
    resize = _refusal(_ported("t = T.Compose([T.Resize(224, 224)])\n"))
    assert "Resize((h, w))" in resize


@pytest.mark.parametrize(("kernel", "fix"), [(-3, 3), (0, 3), (22, 23)])
def test_the_blur_kernel_fix_is_a_kernel_torchvision_takes(kernel: int, fix: int) -> None:
    refusal = _refusal(_ported(f"t = T.Compose([T.GaussianBlur({kernel})])\n"))
    assert f"such as {fix})" in refusal


# ---- the call that stopped a file, with another statement on its line -------------------------


def test_the_pipelines_call_is_found_beside_another_statement_on_its_line() -> None:
    text = "n = 4; it = Iterator([get_pipeline(batch_size=16)])\n"

    def get_pipeline(batch_size: int = 8) -> None: ...

    found = values_in_call(ast.parse(text), 1, "get_pipeline", get_pipeline, {})
    assert found == {"batch_size": 16}
