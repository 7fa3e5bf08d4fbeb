"""The exported pipeline's docstring says where each node runs, from the same rule that writes
each call's device: an all-GPU graph, a graph whose first nodes stay on the CPU before a
transfer (as DALI's ResNet example with dali_cpu=True), and a CPU-only graph; and its loader
refuses device="gpu" by name where PyTorch cannot take CUDA batches."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from augexplorer import GraphSpec, Node, Ref, Source, preset
from augexplorer.data import samples_dir
from augexplorer.export import export, generate


def pipeline_doc(spec: GraphSpec) -> str:
    """The pipeline function's docstring, on one line."""
    tree = ast.parse(generate(spec))
    function = next(
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("pipeline_def" in ast.unparse(d) for d in node.decorator_list)
    )
    return " ".join((ast.get_docstring(function) or "").split())


def call_device(source: str, node: str) -> str | None:
    """The device= a node's call in the module passes (None where it passes none)."""
    call = re.search(rf"^\s*{node} = fn\.[\w.]+\((.*?)\)$", source, re.MULTILINE | re.DOTALL)
    assert call is not None, node
    found = re.search(r"device=(\w+|\"\w+\")", call.group(1))
    return found.group(1) if found else None


def transfer_graph() -> GraphSpec:
    """Decoding and resizing on the CPU, then a copy to the GPU, then a flip there."""
    nodes = (
        Source("reader", shuffle=False),
        Node("decode", "decoders.image", (Ref("reader"),), {"output_type": "RGB"}, device="cpu"),
        Node("small", "resize", (Ref("decode"),), {"resize_x": 64.0}, device="cpu"),
        Node("to_gpu", "copy", (Ref("small"),), device="gpu"),
        Node("flip", "flip", (Ref("to_gpu"),)),
    )
    return GraphSpec(nodes, {"images": Ref("flip"), "labels": Ref("reader", 1)}, batch_size=2)


def test_an_all_gpu_graph_says_every_operator_after_the_reader_runs_on_the_gpu() -> None:
    spec = preset("basic")
    doc = pipeline_doc(spec)
    assert (
        'With device="gpu", decoding is "mixed" (decode) and every operator after the reader '
        'runs on the GPU. With device="cpu" every operator runs on the CPU. The values of random '
        "arguments are drawn on the CPU, as DALI takes them."
    ) in doc
    # without a random argument, nothing is said of them
    fixed = spec.set_arg("rotate", "angle", 10.0).set_arg("flip", "horizontal", 1)
    assert "random arguments" not in pipeline_doc(fixed)
    source = generate(spec)
    assert call_device(source, "decode") == "decoder_device"
    assert all(call_device(source, node.id) == "device" for node in spec.operators()[1:])


def test_a_graph_that_keeps_nodes_on_the_cpu_names_where_each_runs() -> None:
    doc = pipeline_doc(transfer_graph())
    assert (
        'With device="gpu" the operators run where the graph puts them: on the GPU: to_gpu, '
        "flip; on the CPU, as the graph places them: reader, decode, small."
    ) in doc
    assert "every operator after" not in doc  # the old sentence, untrue here
    source = generate(transfer_graph())  # and the code puts them there
    assert call_device(source, "decode") is None and call_device(source, "small") is None
    assert call_device(source, "to_gpu") == call_device(source, "flip") == "device"


def test_a_cpu_only_graph_says_so_whatever_the_device() -> None:
    nodes = (
        Source("reader", shuffle=False),
        Node("decode", "decoders.image", (Ref("reader"),), {"output_type": "RGB"}, device="cpu"),
        Node("flip", "flip", (Ref("decode"),), device="cpu"),
    )
    spec = GraphSpec(nodes, {"images": Ref("flip"), "labels": Ref("reader", 1)}, batch_size=2)
    doc = pipeline_doc(spec)
    assert "Every operator of this graph runs on the CPU, whatever the device." in doc
    assert "GPU" not in doc
    source = generate(spec)
    assert call_device(source, "decode") is None and call_device(source, "flip") is None


def test_a_gpu_only_operator_is_named_as_needing_the_gpu() -> None:
    spec = preset("basic").insert_after("flip", Node("blur", "experimental.median_blur"))
    doc = pipeline_doc(spec)
    assert (
        'GPU-only operators (blur) have no CPU backend: with device="cpu" the pipeline refuses '
        "to run, saying so."
    ) in doc
    assert call_device(generate(spec), "blur") == '"gpu"'


def test_the_loader_refuses_the_gpu_where_pytorch_has_no_cuda(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("PyTorch here has CUDA: the loader runs on the GPU")
    module = tmp_path / "basic_aug.py"
    export(preset("basic"), module)
    spec = importlib.util.spec_from_file_location("basic_aug", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    with pytest.raises(RuntimeError, match=r'device="gpu" needs PyTorch with CUDA') as refused:
        loaded.make_loader(str(samples_dir()), device="gpu")
    assert f"PyTorch {torch.__version__} here sees none" in str(refused.value)
    assert "fix:" in str(refused.value)
