"""A corpus of bad input, generated on the spot (nothing is downloaded).

Each :class:`Case` writes what it needs under a folder and returns the edit a user would make on a
live session (point it at a folder, set an argument, load a spec). Its :class:`Expect` says what
the user should see: either the edit runs (some "odd" images decode fine in DALI: CMYK, 16-bit,
alpha, grayscale, 1x1), or it fails with a given error whose message names the file, node or
argument at fault and says what to do.

The outcomes were decided from what DALI 2.4 really does on the CPU (see each case's `note`).
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from PIL import Image

from augexplorer import Session
from augexplorer.devices import has_gpu
from augexplorer.engine.result import RunResult
from augexplorer.errors import DataError, GraphInvalid, RunError, SpecFormatError
from augexplorer.presets import preset
from augexplorer.spec import GraphSpec, Node, Probability, Random, Ref, Source
from augexplorer.spec import io as spec_io

Edit = Callable[[Session], RunResult]
Outcome = Literal["runs", "error"]

BATCH = 4


@dataclass(frozen=True)
class Expect:
    """What the user should see after the edit."""

    outcome: Outcome
    error: type[Exception] | None = None
    names: tuple[str, ...] = ()  # the file, node or argument the message must name
    remedy: str = "fix:"  # text that shows the message says what to do


@dataclass(frozen=True)
class Case:
    name: str
    kind: Literal["image", "source", "argument", "graph", "spec"]
    make: Callable[[Path], Edit]  # writes its files under the folder; returns the edit
    expect: Expect
    note: str = ""
    slow: bool = False
    needs_non_root: bool = False  # permission checks mean nothing to root


def runs() -> Expect:
    return Expect("runs")


def fails(error: type[Exception], *names: str, remedy: str = "fix:") -> Expect:
    return Expect("error", error, names, remedy)


# ---- images ------------------------------------------------------------------------------------


def _noise(height: int, width: int, channels: int = 3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shape = (height, width, channels) if channels > 1 else (height, width)
    return rng.integers(0, 256, shape, dtype=np.uint8)


def jpeg_bytes(height: int = 96, width: int = 128, mode: str = "RGB") -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(_noise(height, width)).convert(mode).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _bad_huffman_table() -> bytes:
    """A JPEG with its header markers, scan and end marker in place but an impossible Huffman
    table (more codes than fit): a header check passes it, the decoder rejects it."""
    data = bytearray(jpeg_bytes())
    table = data.index(b"\xff\xc4")  # DHT marker, 2 length bytes, 1 class/id byte, 16 counts
    data[table + 5 : table + 21] = b"\xff" * 16
    return bytes(data)


def _png16() -> bytes:
    values = (np.arange(96 * 128, dtype=np.uint32).reshape(96, 128) * 5).astype(np.uint16)
    return png_bytes(Image.fromarray(values))


def _huge_jpeg() -> bytes:
    # One flat colour compresses to ~2 MB and encodes in about a second.
    buffer = io.BytesIO()
    Image.new("RGB", (12000, 12000), (90, 140, 200)).save(buffer, format="JPEG", quality=50)
    return buffer.getvalue()


IMAGE_MAKERS: dict[str, Callable[[], bytes]] = {
    "truncated.jpg": lambda: jpeg_bytes()[: len(jpeg_bytes()) // 2],
    "corrupt_tail.jpg": lambda: jpeg_bytes()[:300] + bytes(_noise(40, 50).tobytes()),
    "bad_table.jpg": _bad_huffman_table,
    "empty.jpg": lambda: b"",
    "notes.jpg": lambda: b"these are my notes, not a photo\n" * 20,
    "page.png": lambda: b"<!doctype html><html><body>404 not found</body></html>\n",
    "noise.png": lambda: bytes(_noise(32, 32).tobytes()),
    "header_only.png": lambda: png_bytes(Image.fromarray(_noise(64, 64)))[:60],
    "cmyk.jpg": lambda: jpeg_bytes(mode="CMYK"),
    "gray.jpg": lambda: jpeg_bytes(mode="L"),
    "gray.png": lambda: png_bytes(Image.fromarray(_noise(96, 128)).convert("L")),
    "deep16.png": _png16,
    "alpha.png": lambda: png_bytes(Image.fromarray(_noise(96, 128)).convert("RGBA")),
    "palette.png": lambda: png_bytes(Image.fromarray(_noise(96, 128)).convert("P")),
    "tiny.png": lambda: png_bytes(Image.new("RGB", (1, 1), (200, 30, 30))),
    "tiny.jpg": lambda: jpeg_bytes(1, 1),
    "png_named.jpg": lambda: png_bytes(Image.fromarray(_noise(96, 128))),
    "huge.jpg": _huge_jpeg,
}


def image_folder(root: Path, *names: str, good: int = 1) -> Path:
    """A class folder holding `good` ordinary JPEGs and the named corpus images."""
    folder = root / "images" / "cls"
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(good):
        (folder / f"good_{index}.jpg").write_bytes(jpeg_bytes())
    for name in names:
        (folder / name).write_bytes(IMAGE_MAKERS[name]())
    return folder.parent


def _point_at(path: Path, *, batch_size: int | None = None) -> Edit:
    def edit(session: Session) -> RunResult:
        spec = session.spec.with_source(Source("source", "folder", str(path), shuffle=False))
        if batch_size is not None:
            spec = dataclasses.replace(spec, batch_size=batch_size)
        return session.update(spec)

    return edit


def _image_case(file: str, expect: Expect, note: str, *, slow: bool = False, good: int = 1) -> Case:
    def make(root: Path) -> Edit:
        return _point_at(image_folder(root, file, good=good), batch_size=1 if slow else None)

    return Case(f"image:{file}", "image", make, expect, note, slow=slow)


DECODE_FAILS = "DALI's decoder fails on it; the engine decodes each sample alone to name the file"
HEADER_FAILS = "its header or end shows DALI cannot read it; opening the source names it first"

IMAGE_CASES = [
    _image_case("truncated.jpg", fails(DataError, "truncated.jpg", "truncated JPEG"), HEADER_FAILS),
    _image_case(
        "corrupt_tail.jpg", fails(DataError, "corrupt_tail.jpg", "corrupt JPEG"), HEADER_FAILS
    ),
    _image_case("bad_table.jpg", fails(RunError, "bad_table.jpg", "decode"), DECODE_FAILS),
    _image_case(
        "empty.jpg",
        fails(DataError, "empty.jpg", "skip_bad"),
        "DALI's reader cannot map a 0-byte file; opening the source finds it first",
    ),
    _image_case("notes.jpg", fails(DataError, "notes.jpg", "not an image"), HEADER_FAILS),
    _image_case("page.png", fails(DataError, "page.png", "not an image"), HEADER_FAILS),
    _image_case("noise.png", fails(DataError, "noise.png", "not an image"), HEADER_FAILS),
    _image_case(
        "header_only.png", fails(DataError, "header_only.png", "truncated PNG"), HEADER_FAILS
    ),
    _image_case("cmyk.jpg", runs(), "DALI converts CMYK JPEGs to RGB"),
    _image_case("gray.jpg", runs(), "output_type=RGB expands gray to 3 channels"),
    _image_case("gray.png", runs(), "output_type=RGB expands gray to 3 channels"),
    _image_case("deep16.png", runs(), "16-bit PNGs decode to uint8 RGB"),
    _image_case("alpha.png", runs(), "output_type=RGB drops the alpha channel"),
    _image_case("palette.png", runs(), "palette PNGs decode to RGB"),
    _image_case("tiny.png", runs(), "1x1 images decode and resize like any other"),
    _image_case("tiny.jpg", runs(), "1x1 images decode and resize like any other"),
    _image_case("png_named.jpg", runs(), "DALI sniffs the format from the bytes, not the name"),
    _image_case(
        "huge.jpg",
        runs(),
        "12000x12000 decodes on the CPU (about 0.4 GB per image); batch 1 keeps it small",
        slow=True,
        good=0,
    ),
]


# ---- data sources ------------------------------------------------------------------------------


def _source_edit(source: Source, arrays: Any = None) -> Edit:
    return lambda session: session.set_source(source, arrays)


def _folder_case(name: str, build: Callable[[Path], Path], expect: Expect, note: str = "") -> Case:
    def make(root: Path) -> Edit:
        return _source_edit(Source("source", "folder", str(build(root))))

    return Case(f"source:{name}", "source", make, expect, note)


def _list_case(name: str, lines: list[str], expect: Expect, note: str = "") -> Case:
    def make(root: Path) -> Edit:
        folder = image_folder(root)
        listing = root / "list.txt"
        listing.write_text("\n".join(lines).format(good=folder / "cls" / "good_0.jpg") + "\n")
        return _source_edit(Source("source", "file_list", str(listing)))

    return Case(f"file_list:{name}", "source", make, expect, note)


def _odd_list_case(name: str, files: list[str], body: bytes, expect: Expect, note: str) -> Case:
    """A list of `body` (bytes as written) beside image `files` named as the user named them."""

    def make(root: Path) -> Edit:
        folder = root / "photos"
        folder.mkdir(parents=True, exist_ok=True)
        for file in files:
            (folder / file).write_bytes(jpeg_bytes())
        listing = folder / "list.txt"
        listing.write_bytes(body)
        return _source_edit(Source("source", "file_list", str(listing)))

    return Case(f"file_list:{name}", "source", make, expect, note)


def _empty_folder(root: Path) -> Path:
    (root / "empty").mkdir()
    return root / "empty"


def _only_text(root: Path) -> Path:
    folder = root / "docs" / "cls"
    folder.mkdir(parents=True)
    (folder / "readme.txt").write_text("no images here")
    return folder.parent


def _unreadable(root: Path) -> Path:
    folder = image_folder(root)
    locked = folder / "cls" / "locked.jpg"
    locked.write_bytes(jpeg_bytes())
    locked.chmod(0)
    return folder


def _binary_list(root: Path) -> Edit:
    listing = root / "list.txt"
    listing.write_bytes(b"\xff\xfe\x00\x81" * 50)
    return _source_edit(Source("source", "file_list", str(listing)))


SOURCE_CASES = [
    _folder_case("empty_folder", _empty_folder, fails(DataError, "empty", "no images")),
    _folder_case("missing_folder", lambda root: root / "nowhere", fails(DataError, "nowhere")),
    _folder_case("folder_without_images", _only_text, fails(DataError, "docs", "no images")),
    _folder_case(
        "file_instead_of_folder",
        lambda root: _only_text(root) / "cls" / "readme.txt",
        fails(DataError, "readme.txt"),
    ),
    dataclasses.replace(
        _folder_case("unreadable_file", _unreadable, fails(DataError, "locked.jpg", "permission")),
        needs_non_root=True,
    ),
    _list_case("missing_file", ["{good} 0", "gone.jpg 1"], fails(DataError, "gone.jpg", "line 2")),
    _list_case("non_integer_label", ["{good} cat"], fails(DataError, "line 1", "integers")),
    _list_case("float_label", ["{good} 1.5"], fails(DataError, "line 1", "integers")),
    _list_case("negative_label", ["{good} -3"], fails(DataError, "line 1", ">= 0")),
    _list_case(
        "ragged_labels", ["{good} 1 2", "{good} 3"], fails(DataError, "line 2", "same number")
    ),
    _list_case("no_label", ["{good}"], fails(DataError, "line 1", "label")),
    _list_case("only_comments", ["# nothing yet", ""], fails(DataError, "list.txt", "no images")),
    Case("file_list:binary", "source", _binary_list, fails(DataError, "list.txt", "text")),
    _odd_list_case(
        "byte_order_mark",
        ["a.jpg", "b.jpg"],
        b"\xef\xbb\xbfa.jpg 0\nb.jpg 1\n",
        runs(),
        "Notepad's UTF-8 starts with a BOM: it is not part of the first name",
    ),
    _odd_list_case(
        "space_in_name",
        ["my photo.jpg", "two  spaces.jpg"],
        b"my photo.jpg 0\ntwo  spaces.jpg\t1\n",
        runs(),
        "as DALI's readers.file splits a line: the label ends it, the name is the rest",
    ),
    _odd_list_case(
        "latin1",
        ["caf\u00e9.jpg"],
        "caf\u00e9.jpg 0\n".encode("latin-1"),
        fails(DataError, "list.txt", "line 1", "UTF-8", remedy="save the list as UTF-8"),
        "an older editor's encoding",
    ),
    _odd_list_case(
        "utf16",
        ["a.jpg"],
        "a.jpg 0\n".encode("utf-16"),
        fails(DataError, "list.txt", "UTF-16", remedy="save the list as UTF-8"),
        "Windows' 'Unicode' encoding",
    ),
    Case(
        "file_list:missing_list",
        "source",
        lambda root: _source_edit(Source("source", "file_list", str(root / "absent.txt"))),
        fails(DataError, "absent.txt", "not found"),
    ),
    Case(
        "arrays:float_images",
        "source",
        lambda root: _source_edit(Source("source", "arrays"), [np.zeros((8, 8, 3))]),
        fails(DataError, "image 0", "uint8"),
    ),
    Case(
        "arrays:empty",
        "source",
        lambda root: _source_edit(Source("source", "arrays"), []),
        fails(DataError, "empty"),
    ),
    Case(
        "arrays:label_count",
        "source",
        lambda root: _source_edit(
            Source("source", "arrays"), ([np.zeros((8, 8, 3), np.uint8)] * 2, [1])
        ),
        fails(DataError, "2 images but 1 labels"),
    ),
]


# ---- folder trees, links, labels and memory: each names the path, line or budget and the fix ---


def _several_bad(root: Path) -> Path:
    return image_folder(root, "empty.jpg", "truncated.jpg", "notes.jpg")


def _link_loop(root: Path) -> Path:
    folder = image_folder(root)
    (folder / "cls" / "loop.jpg").symlink_to("loop.jpg")  # a link to itself
    return folder


def _looping_folders(root: Path) -> Path:
    folder = image_folder(root)
    (folder / "ping").symlink_to("pong")
    (folder / "pong").symlink_to("ping")
    return folder


def _only_hidden_classes(root: Path) -> Path:
    folder = root / "notebook"
    (folder / ".ipynb_checkpoints").mkdir(parents=True)
    (folder / ".ipynb_checkpoints" / "cat-checkpoint.jpg").write_bytes(jpeg_bytes())
    return folder


def _images_beside_classes(root: Path) -> Path:
    folder = image_folder(root)
    (folder / "stray.jpg").write_bytes(jpeg_bytes())
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / ".ipynb_checkpoints" / "good_0-checkpoint.jpg").write_bytes(jpeg_bytes())
    return folder


def _huge_batch(root: Path) -> Edit:
    folder = root / "huge"
    (folder / "cls").mkdir(parents=True)
    image = _huge_jpeg()
    for index in range(8):
        (folder / "cls" / f"huge_{index}.jpg").write_bytes(image)
    return _point_at(folder, batch_size=8)


SOURCE_CASES += [
    _folder_case(
        "several_bad_files",
        _several_bad,
        fails(DataError, "3 files", "empty.jpg", "truncated.jpg", "notes.jpg"),
        "every file DALI could not read is named at once, not one per attempt",
    ),
    _folder_case(
        "symlink_loop",
        _link_loop,
        fails(DataError, "loop.jpg", "symbolic link loop"),
        "a link to itself: named, not followed",
    ),
    _folder_case(
        "looping_folders",
        _looping_folders,
        fails(DataError, "ping", "pong", "symbolic link loop"),
        "two links to each other beside the class folders",
    ),
    _folder_case(
        "only_hidden_folders",
        _only_hidden_classes,
        fails(DataError, "no images", ".ipynb_checkpoints", "not a class"),
        "a hidden folder is never a class; the error says what was left out",
    ),
    _folder_case(
        "images_beside_classes",
        _images_beside_classes,
        runs(),
        "stray.jpg and the checkpoint folder are listed in SourceData.ignored, never read",
    ),
    _list_case(
        "label_2_to_31",
        ["{good} 2147483648"],
        fails(DataError, "list.txt", "line 1", "2147483647"),
        "DALI carries labels as int32: 2**31 would wrap to a negative label",
    ),
    _list_case(
        "label_2_to_32",
        ["{good} 0", "{good} 4294967296"],
        fails(DataError, "list.txt", "line 2", "2147483647"),
        "4294967296 wrapped to 0, silently another class",
    ),
    Case(
        "image:huge.jpg:batch_8",
        "image",
        _huge_batch,
        fails(DataError, "memory budget", "batch size of at most 4", "AUGEXPLORER_MEMORY_BUDGET"),
        "eight 12000x12000 JPEGs decode to 3.2 GB; headers tell before any decoding",
    ),
]


# ---- argument values ---------------------------------------------------------------------------


def _arg_case(node: str, arg: str, value: Any, expect: Expect, label: str = "") -> Case:
    def make(root: Path) -> Edit:
        return lambda session: session.set_arg(node, arg, value)

    name = f"arg:{node}.{arg}={label or value!r}"
    return Case(name, "argument", make, expect)


def _invalid(node: str, arg: str, *more: str) -> Expect:
    return fails(GraphInvalid, repr(node), repr(arg), *more)


ARGUMENT_CASES = [
    _arg_case("rotate", "angle", 10**400, _invalid("rotate", "angle", "out of range"), "10**400"),
    _arg_case(
        "flip",
        "horizontal",
        10**5000,
        _invalid("flip", "horizontal", "5,00", "out of range"),
        "5000 digits",
    ),
    _arg_case(
        "rotate",
        "angle",
        Random.choice([1, -(10**400)]),
        _invalid("rotate", "angle", "out of range"),
        "choice(-10**400)",
    ),
    # Values DALI refuses when it runs: our sentence names the argument, DALI's text beside it
    _arg_case(
        "rotate",
        "interp_type",
        "INTERP_CUBIC",
        fails(RunError, "'rotate'", "'interp_type'", "(DALI: ", remedy="INTERP_LINEAR"),
    ),
    _arg_case("rotate", "dtype", "INT8", fails(RunError, "'rotate'", "'dtype'", remedy="FLOAT")),
    _arg_case(
        "crop",
        "crop_w",
        10.0,
        fails(RunError, "'crop'", "'crop_w'", "crop_h", remedy="crop_h a value"),
    ),
    _arg_case("rotate", "angle", float("nan"), _invalid("rotate", "angle", "finite")),
    _arg_case("rotate", "angle", float("inf"), _invalid("rotate", "angle", "finite")),
    _arg_case("rotate", "angle", "ten", _invalid("rotate", "angle", "number")),
    _arg_case("rotate", "angle", None, _invalid("rotate", "angle")),
    _arg_case("rotate", "angle", True, _invalid("rotate", "angle")),
    _arg_case("rotate", "angle", [1.0, 2.0], _invalid("rotate", "angle", "single")),
    _arg_case("rotate", "fill_value", [0.0, 1.0], _invalid("rotate", "fill_value")),
    _arg_case("resize", "resize_shorter", -5.0, _invalid("resize", "resize_shorter", "range")),
    _arg_case("resize", "resize_shorter", 1e9, _invalid("resize", "resize_shorter", "range")),
    _arg_case("crop", "crop", [-10.0, -10.0], _invalid("crop", "crop", "range")),
    _arg_case("crop", "crop", "big", _invalid("crop", "crop", "number")),
    _arg_case("flip", "horizontal", "yes", _invalid("flip", "horizontal")),
    _arg_case("rotate", "interp_type", "CUBICX", _invalid("rotate", "interp_type", "INTERP_")),
    _arg_case("decode", "output_type", "XYZ", _invalid("decode", "output_type", "RGB")),
    _arg_case("rotate", "nosuch", 1, _invalid("rotate", "nosuch")),
    _arg_case("rotate", "angel", 10.0, _invalid("rotate", "angel", "'angle'")),
    _arg_case(
        "rotate",
        "angle",
        Random.uniform(10, -10),
        _invalid("rotate", "angle", "reversed"),
        "uniform(10,-10)",
    ),
    _arg_case(
        "rotate",
        "angle",
        Random.uniform(float("nan"), 1),
        _invalid("rotate", "angle", "finite"),
        "uniform(nan,1)",
    ),
    _arg_case(
        "rotate",
        "angle",
        Random.uniform(0, 1, shape=3),
        _invalid("rotate", "angle", "shape"),
        "uniform(shape=3)",
    ),
    _arg_case(
        "flip",
        "horizontal",
        Random.coin_flip(1.5),
        _invalid("flip", "horizontal", "[0, 1]"),
        "coin_flip(1.5)",
    ),
    _arg_case("rotate", "angle", Ref("nosuch"), _invalid("rotate", "angle", "nosuch"), "ref"),
    _arg_case(
        "rotate",
        "angle",
        Ref("source", 1),
        fails(RunError, "'rotate'", "int32"),
        "labels (int32)",
    ),
    _arg_case(
        "crop",
        "crop",
        [224.0],
        _invalid("crop", "crop", "takes 2 or 3 values, got 1"),
        "one element",
    ),
]


# ---- graphs ------------------------------------------------------------------------------------


def _graph_case(
    name: str,
    change: Callable[[GraphSpec], GraphSpec],
    expect: Expect,
) -> Case:
    def make(root: Path) -> Edit:
        return lambda session: session.update(change(session.spec))

    return Case(f"graph:{name}", "graph", make, expect)


def _rewire(spec: GraphSpec, node_id: str, *inputs: Ref) -> GraphSpec:
    node = spec.node(node_id)
    assert isinstance(node, Node)
    return spec.replace_node(dataclasses.replace(node, inputs=inputs))


def _gpu_then_cpu(spec: GraphSpec) -> GraphSpec:
    return spec.set_device("crop", "gpu").set_device("flip", "cpu")


def _gpu_only_op(spec: GraphSpec) -> GraphSpec:
    return spec.insert_after("flip", Node("jitter", "jitter", (), {}))


GRAPH_CASES = [
    _graph_case(
        "image_operator_on_encoded_bytes",
        lambda spec: spec.insert_after(
            "source", Node("blur", "gaussian_blur", args={"sigma": 2.0})
        ),
        fails(GraphInvalid, "'blur'", "encoded", remedy="move it after 'decode'"),
    ),
    _graph_case(
        "hwc_operator_on_chw_floats",
        lambda spec: spec.insert_after(
            "crop", Node("norm", "crop_mirror_normalize", args={"output_layout": "CHW"})
        ).insert_after("norm", Node("hue", "hue", args={"hue": 20.0})),
        fails(GraphInvalid, "'hue'", "CHW", remedy="fix:"),
    ),
    _graph_case(
        "cycle",
        lambda spec: _rewire(spec, "resize", Ref("flip")),
        fails(GraphInvalid, "cycle", "resize"),
    ),
    _graph_case(
        "missing_input",
        lambda spec: _rewire(spec, "rotate", Ref("resise")),
        fails(GraphInvalid, "'rotate'", "resise", "'resize'"),
    ),
    _graph_case(
        "no_input", lambda spec: _rewire(spec, "rotate"), fails(GraphInvalid, "'rotate'", "input")
    ),
    _graph_case(
        "too_many_inputs",
        lambda spec: _rewire(spec, "flip", Ref("crop"), Ref("crop")),
        fails(GraphInvalid, "'flip'", "at most"),
    ),
    _graph_case(
        "cpu_after_gpu", _gpu_then_cpu, fails(GraphInvalid, "'flip'", "'device'", "GPU data")
    ),
    _graph_case(
        "gpu_only_operator",
        _gpu_only_op,
        runs() if has_gpu() else fails(GraphInvalid, "'jitter'", "GPU"),
    ),
    _graph_case(
        "unknown_operator",
        lambda spec: spec.insert_after("flip", Node("blur", "gausian_blur", (), {})),
        fails(GraphInvalid, "'blur'", "gausian_blur", "gaussian_blur"),
    ),
    _graph_case(
        "duplicate_ids",
        lambda spec: dataclasses.replace(spec, nodes=(*spec.nodes, spec.nodes[-1])),
        fails(GraphInvalid, "'flip'", "two nodes"),
    ),
    _graph_case(
        "bad_node_name",
        lambda spec: spec.insert_after("flip", Node("2nd flip", "flip", (), {})),
        fails(GraphInvalid, "'2nd flip'", "identifier"),
    ),
    _graph_case(
        "output_index",
        lambda spec: dataclasses.replace(spec, outputs={"images": Ref("flip", 3)}),
        fails(GraphInvalid, "output 3", "'flip'"),
    ),
    _graph_case(
        "no_source",
        lambda spec: dataclasses.replace(spec, nodes=spec.nodes[1:]),
        fails(GraphInvalid, "no data source"),
    ),
    _graph_case(
        "batch_size_zero",
        lambda spec: dataclasses.replace(spec, batch_size=0),
        fails(GraphInvalid, "batch size 0"),
    ),
    _graph_case(
        "probability_out_of_range",
        lambda spec: spec.set_probability("rotate", Probability(1.5)),
        fails(GraphInvalid, "'rotate'", "'probability'", "1.5"),
    ),
    _graph_case(
        # DALI's schema marks `matrix` optional (it can come as a second input) and fails at run
        # time without it; validation knows and says so before anything runs
        "warp_without_matrix",
        lambda spec: spec.insert_after("flip", Node("warp", "warp_affine", (), {})),
        fails(GraphInvalid, "'warp'", "'matrix'", "second input"),
    ),
    _graph_case(
        "warp_matrix_of_five_values",
        lambda spec: spec.insert_after(
            "flip", Node("warp", "warp_affine", (), {"matrix": [1.0, 0.0, 0.0, 0.0, 1.0]})
        ),
        fails(GraphInvalid, "'warp'", "'matrix'", "takes 6 values, got 5"),
    ),
    _graph_case(
        "random_warp_matrix",
        lambda spec: spec.insert_after(
            "flip", Node("warp", "warp_affine", (), {"matrix": Random.uniform(0.9, 1.1, shape=6)})
        ),
        fails(GraphInvalid, "'warp'", "'matrix'", "transforms.rotation"),
    ),
    _graph_case(
        "resize_without_a_size",
        lambda spec: spec.insert_after("flip", Node("again", "resize", (), {})),
        fails(GraphInvalid, "'again'", "output size", "resize_shorter"),
    ),
    _graph_case(
        "random_crop_window_of_one_value",
        lambda spec: spec.set_arg("crop", "crop", Random.uniform(100.0, 200.0, shape=1)),
        fails(GraphInvalid, "'crop'", "'crop'", "shape 1"),
    ),
]


# ---- spec files --------------------------------------------------------------------------------


def _spec_case(name: str, text: Callable[[dict[str, Any]], str], expect: Expect) -> Case:
    """A spec the user loads: `text` turns the basic graph's JSON into the bad file's text."""

    def make(root: Path) -> Edit:
        path = root / "graph.json"
        path.write_text(text(spec_io.to_json(preset("basic"))))
        return lambda session: session.update(spec_io.load(path))

    return Case(f"spec:{name}", "spec", make, expect)


def _json(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], str]:
    def text(data: dict[str, Any]) -> str:
        change(data)
        return json.dumps(data, indent=2)

    return text


def _node(data: dict[str, Any], node_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(n for n in data["nodes"] if n["id"] == node_id)
    return found


SPEC_CASES = [
    _spec_case(
        "lone_surrogate",
        lambda data: json.dumps(data, indent=2).replace('"basic"', '"basic\\ud800"'),
        fails(SpecFormatError, "graph.json", "\\ud800", "line", remedy="remove it"),
    ),
    _spec_case("byte_order_mark", lambda data: "\ufeff" + json.dumps(data, indent=2), runs()),
    _spec_case(
        "truncated_json",
        lambda data: json.dumps(data, indent=2)[:200],
        fails(SpecFormatError, "graph.json", "line", remedy="JSON"),
    ),
    _spec_case(
        "trailing_comma",
        lambda data: json.dumps(data, indent=2).replace('"basic"', '"basic",,'),
        fails(SpecFormatError, "graph.json", "line", remedy="JSON"),
    ),
    _spec_case(
        "future_version",
        _json(lambda data: data.update(version=99)),
        fails(SpecFormatError, "version 99", remedy="upgrade"),
    ),
    _spec_case(
        "not_a_graph",
        lambda data: json.dumps({"layers": []}),
        fails(SpecFormatError, "'format'", remedy="augexplorer graph"),
    ),
    _spec_case(
        "list_at_top",
        lambda data: json.dumps([data]),
        fails(SpecFormatError, "spec", "list", remedy="JSON object"),
    ),
    _spec_case(
        "unknown_node_field",
        _json(lambda data: _node(data, "rotate").update(colour="red")),
        fails(SpecFormatError, "'rotate'", "'colour'", remedy="allowed"),
    ),
    _spec_case(
        "unknown_operator",
        _json(lambda data: _node(data, "rotate").update(op="rotat")),
        fails(GraphInvalid, "'rotate'", "rotat", "'rotate'"),
    ),
    _spec_case(
        "unknown_argument",
        _json(lambda data: _node(data, "rotate")["args"].update(angel=3)),
        fails(GraphInvalid, "'rotate'", "'angel'", "'angle'"),
    ),
    _spec_case(
        "unknown_distribution",
        _json(lambda data: _node(data, "rotate")["args"].update(angle={"random": "gauss"})),
        fails(SpecFormatError, "'rotate'", "gauss", remedy="use one of"),
    ),
    _spec_case(
        "string_batch_size",
        _json(lambda data: data.update(batch_size="16")),
        fails(SpecFormatError, "batch_size", remedy="integer"),
    ),
    _spec_case(
        "nan_argument",
        _json(lambda data: _node(data, "rotate")["args"].update(angle={"float": "nan"})),
        fails(GraphInvalid, "'rotate'", "'angle'", "finite"),
    ),
]

# Fields with the wrong type or out of range: each named by its path, with what it takes.
SPEC_CASES += [
    _spec_case(
        "string_shuffle",
        _json(lambda data: _node(data, "source").update(shuffle="false")),
        fails(SpecFormatError, "nodes[0] (node 'source').shuffle", remedy="true or false"),
    ),
    _spec_case(
        "string_seed",
        _json(lambda data: data.update(seed="abc")),
        fails(SpecFormatError, "seed", '"abc"', remedy="an integer"),
    ),
    _spec_case(
        "negative_seed",
        _json(lambda data: _node(data, "rotate").update(seed=-1)),
        fails(SpecFormatError, "(node 'rotate').seed", remedy=">= 0"),
    ),
    _spec_case(
        "path_not_text",
        _json(lambda data: _node(data, "source").update(source="folder", path=123)),
        fails(SpecFormatError, "(node 'source').path", remedy="expected text"),
    ),
    _spec_case(
        "output_index_not_a_number",
        _json(lambda data: _node(data, "crop").update(inputs=["rotate:xyz"])),
        fails(SpecFormatError, "(node 'crop').inputs[0]", '"rotate:xyz"', remedy="such as"),
    ),
    _spec_case(
        "negative_output_index",
        _json(lambda data: data.update(outputs={"images": "flip:-1"})),
        fails(SpecFormatError, "outputs.images", remedy="such as"),
    ),
    _spec_case(
        "integer_of_400_digits",
        _json(lambda data: _node(data, "rotate")["args"].update(angle=10**400)),
        fails(SpecFormatError, "args.angle", remedy="64-bit"),
    ),
    _spec_case(
        "integer_of_5000_digits",
        lambda data: json.dumps(data).replace('"batch_size": 8', '"batch_size": ' + "9" * 5000),
        fails(SpecFormatError, "batch_size", remedy="64-bit"),
    ),
    _spec_case(
        "nested_100000_deep",
        lambda data: json.dumps(data)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        fails(SpecFormatError, "nested more than", remedy="graph spec"),
    ),
    _spec_case(
        "node_name_ending_in_newline",
        _json(lambda data: _node(data, "flip").update(id="flip\n")),
        fails(GraphInvalid, "'flip\\n'", remedy="rename it"),
    ),
    _spec_case(
        "weights_not_summing_to_one",
        _json(
            lambda data: _node(data, "rotate")["args"].update(
                angle={"random": "choice", "values": [0, 90], "p": [0.5, 0.6]}
            )
        ),
        fails(GraphInvalid, "'rotate'", "'angle'", "sum to 1.1", remedy="0.4545"),
    ),
    _spec_case(
        "weights_of_the_wrong_length",
        _json(
            lambda data: _node(data, "rotate")["args"].update(
                angle={"random": "choice", "values": [0, 90, 180], "p": [0.5, 0.5]}
            )
        ),
        fails(GraphInvalid, "'rotate'", "'angle'", "2 weight(s)", remedy="one weight per value"),
    ),
]


# ---- COCO annotation files ---------------------------------------------------------------------

COCO_FIX = "skip_bad=True"


def coco_file(root: Path, change: Callable[[dict[str, Any]], Any] | None = None) -> Path:
    """Two 128x96 images, each with one box and polygon, and one image with none; `change`
    edits the decoded JSON before it is written."""
    images = root / "images"
    images.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"images": [], "annotations": [], "categories": []}
    data["categories"] = [{"id": 5, "name": "square"}, {"id": 9, "name": "round"}]
    for index in range(3):
        (images / f"img_{index}.jpg").write_bytes(jpeg_bytes())
        data["images"].append(
            {"id": index + 1, "file_name": f"img_{index}.jpg", "width": 128, "height": 96}
        )
    for index in range(2):
        data["annotations"].append(
            {
                "id": 10 + index,
                "image_id": index + 1,
                "category_id": 5 if index == 0 else 9,
                "bbox": [10.0, 12.0, 50.0, 40.0],
                "segmentation": [[10.0, 12.0, 60.0, 12.0, 60.0, 52.0, 10.0, 52.0]],
                "area": 2000.0,
                "iscrowd": 0,
            }
        )
    if change is not None:
        change(data)
    path = root / "annotations.json"
    path.write_text(json.dumps(data))
    return path


def _coco_source(path: Path, **reader_args: Any) -> Source:
    args = {"ltrb": True, "ratio": True, "polygon_masks": True, **reader_args}
    return Source(
        "source",
        "coco",
        str(path),
        file_root=str(path.parent / "images"),
        shuffle=False,
        reader_args=args,
    )


def _coco_case(
    name: str,
    change: Callable[[dict[str, Any]], Any] | None,
    expect: Expect,
    note: str = "",
    **reader_args: Any,
) -> Case:
    def make(root: Path) -> Edit:
        return _source_edit(_coco_source(coco_file(root, change), **reader_args))

    return Case(f"coco:{name}", "source", make, expect, note)


def _annotation(data: dict[str, Any], index: int = 0) -> dict[str, Any]:
    annotation: dict[str, Any] = data["annotations"][index]
    return annotation


def _raw_coco(text: str) -> Callable[[Path], Edit]:
    def make(root: Path) -> Edit:
        path = coco_file(root)
        path.write_text(text)
        return _source_edit(_coco_source(path))

    return make


COCO_CASES = [
    _coco_case("clean", None, runs(), "an image without annotations reads with no boxes"),
    _coco_case(
        "missing_image",
        lambda d: d["images"].append(
            {"id": 7, "file_name": "gone.jpg", "width": 128, "height": 96}
        ),
        fails(DataError, "gone.jpg", "image id 7", "file not found", remedy=COCO_FIX),
        "DALI stops at the first missing file; opening the source names all of them",
    ),
    _coco_case(
        "box_outside_the_image",
        lambda d: _annotation(d).update(bbox=[100.0, 12.0, 50.0, 40.0]),
        fails(DataError, "image id 1", "annotation id 10", "outside", remedy=COCO_FIX),
        "DALI reads it as ratio 1.17, which bb_flip and random_bbox_crop refuse mid-run",
    ),
    _coco_case(
        "zero_area_box",
        lambda d: _annotation(d, 1).update(bbox=[10.0, 12.0, 0.0, 40.0]),
        fails(DataError, "image id 2", "annotation id 11", "zero-area", remedy=COCO_FIX),
        "DALI drops it without a word (size_threshold), and its label with it",
    ),
    _coco_case(
        "unknown_category",
        lambda d: _annotation(d).update(category_id=42),
        fails(DataError, "annotation id 10", "unknown category id 42", remedy=COCO_FIX),
    ),
    _coco_case(
        "polygon_of_two_points",
        lambda d: _annotation(d).update(segmentation=[[10.0, 12.0, 60.0, 12.0]]),
        fails(DataError, "annotation id 10", "at least 3 points", remedy=COCO_FIX),
    ),
    _coco_case(
        "annotation_of_no_image",
        lambda d: _annotation(d).update(image_id=99),
        fails(DataError, "annotation(s) 10", "not in 'images'", remedy="add the image"),
    ),
    _coco_case(
        "image_without_a_size",
        lambda d: d["images"][0].pop("width"),
        fails(DataError, "annotations.json", "width", remedy="fix:"),
    ),
    Case(
        "coco:malformed_json",
        "source",
        _raw_coco('{"images": [{"id": 1,'),
        fails(DataError, "annotations.json", "malformed JSON", remedy="repair"),
    ),
    Case(
        "coco:not_a_coco_file",
        "source",
        _raw_coco("[1, 2, 3]"),
        fails(DataError, "annotations.json", "not a COCO annotations file", remedy="fix:"),
    ),
    _coco_case(
        "misspelt_reader_argument",
        None,
        fails(GraphInvalid, "readers.coco", "'ltbr'", remedy="did you mean 'ltrb'"),
        ltbr=True,
    ),
    _coco_case(
        "annotations_file_in_reader_args",
        None,
        fails(GraphInvalid, "'annotations_file'", remedy="the source's path"),
        annotations_file="other.json",
    ),
]


# ---- YOLO folders: every label line is checked when the source opens ---------------------------

YOLO_FIX = "skip_bad=True"


def _yolo_case(
    name: str, line: str, expect: Expect, note: str = "", kpt_shape: str | None = None
) -> Case:
    """A YOLO folder of two images, the first labelled by `line` and the second well; with
    `kpt_shape` ("[points, values]") a pose dataset read with keypoints."""

    def make(root: Path) -> Edit:
        folder = root / "yolo"
        for stem, text in (("a", line), ("b", "0 0.5 0.5 0.2 0.2")):
            image = folder / "images" / "train" / f"{stem}.jpg"
            image.parent.mkdir(parents=True, exist_ok=True)
            image.write_bytes(jpeg_bytes())
            label = folder / "labels" / "train" / f"{stem}.txt"
            label.parent.mkdir(parents=True, exist_ok=True)
            if kpt_shape is not None and stem == "b":
                text += " 0.5 0.5 2" * int(kpt_shape.strip("[]").split(",")[0])
            label.write_text(text + "\n")
        if kpt_shape is None:
            (folder / "classes.txt").write_text("square\nround\n")
        else:
            (folder / "data.yaml").write_text(f"names: [person]\nkpt_shape: {kpt_shape}\n")
        return _source_edit(Source("source", "yolo", str(folder), keypoints=kpt_shape is not None))

    return Case(f"yolo:{name}", "source", make, expect, note)


def _bad_line(*names: str) -> Expect:
    return fails(DataError, "labels/train/a.txt line 1", *names, remedy=YOLO_FIX)


YOLO_CASES = [
    _yolo_case("class_not_named", "5 0.5 0.5 0.2 0.2", _bad_line("class 5", "0 to 1")),
    _yolo_case(
        "box_outside_the_image",
        "0 0.9 0.5 0.5 0.2",
        _bad_line("outside [0, 1]"),
        "pixel coordinates written where fractions belong",
    ),
    _yolo_case("not_numbers", "0 0.5 0.5 wide 0.2", _bad_line("must be numbers")),
    _yolo_case("four_values", "0 0.5 0.5 0.2", _bad_line("4 values, expected 5")),
    _yolo_case(
        "keypoint_outside_the_image",
        "0 0.5 0.5 0.2 0.2 0.5 0.5 2 1.4 0.5 2",
        _bad_line("keypoint 1", "outside [0, 1]", "0 0 0"),
        "a labelled point off the image would be drawn and trained on there",
        kpt_shape="[2, 3]",
    ),
    _yolo_case(
        "keypoint_visibility",
        "0 0.5 0.5 0.2 0.2 0.5 0.5 3 0.4 0.5 2",
        _bad_line("keypoint 0", "visibility 3 is not 0, 1 or 2"),
        kpt_shape="[2, 3]",
    ),
    _yolo_case(
        "keypoint_count",
        "0 0.5 0.5 0.2 0.2 0.5 0.5 2",
        _bad_line("8 values, expected 11", "kpt_shape"),
        kpt_shape="[2, 3]",
    ),
]


CASES: list[Case] = (
    IMAGE_CASES + SOURCE_CASES + COCO_CASES + YOLO_CASES + ARGUMENT_CASES + GRAPH_CASES + SPEC_CASES
)


def running_as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0
