"""What a user's own torchvision or albumentations pipeline puts out, and what its transforms
draw, for "compare with the original".

    python original_outputs.py JOB.json RESULT.json

A standalone script like :mod:`original_runner` (only the library, numpy and Pillow, never
augexplorer), so it runs in a Python where the library imports; augexplorer also imports it and
calls :func:`run` in-process, with a live pipeline, where the library imports there.

The job (JSON): ``library``; ``images`` (``.npy`` files of RGB uint8 HWC images, the inputs of
both sides); ``out`` (a folder for the outputs); ``pipeline`` (``{source, where, pipeline}`` of
the user's file, run as :mod:`original_runner` runs it, only once the user allowed it; or
None); ``calls`` (single transforms to run alone, as ``{name, args, kwargs}`` with library
constants as ``{"__symbol__": dotted name}`` and tuples as ``{"__tuple__": [...]}``, and the
``module`` the file named the class from, and ``given``, conversions run on each image before
it, as the pipeline hands the transform a tensor; one with
``rate`` is run that many times for how often it applied, its ``applied``, one with ``coin``
too is a RandomApply whose own coin is counted, one with ``kept`` a class of the project's own
counted by whether it returns the image object it was given, one with ``picks`` (how many
transforms it holds) a RandomChoice whose pick is counted, each transform's 1 or 0 a sample in
``children``, and one with ``window`` is a random crop whose window is fixed there,
``"top-left"``);
``draws`` (how many parameter draws per call); ``seed``.

The result (JSON): ``versions``; ``pipeline`` (output ``.npy`` files, one per image, HWC) or
``pipeline_error``; ``calls``: per call ``outputs`` (files), ``deterministic`` (the same output
under two seeds) and ``draws`` (quantity -> values, for the transforms whose parameters the
library draws through ``get_params`` or records in a replay), or ``error``.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import platform
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

try:  # imported as augexplorer.bench.original_outputs
    from .original_runner import no_targets
except ImportError:  # run as a script, where original_runner.py sits beside it
    from original_runner import no_targets  # type: ignore[no-redef]

Draw = Callable[[Any, np.ndarray], dict[str, float]]


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        job = json.load(handle)
    with contextlib.redirect_stdout(sys.stderr):  # the user's file may print
        result = run(job)
    with open(argv[2], "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


def run(job: dict[str, Any], live: Any = None) -> dict[str, Any]:
    """Run the job; `live` is the user's pipeline object where the caller holds it."""
    library = str(job["library"])
    _REPLAYS.clear()  # the transforms of an earlier job (their ids may come back)
    _REPLAY_SEED["seed"] = int(job.get("seed", 0))
    result: dict[str, Any] = {"versions": _versions(library), "calls": []}
    if "error" in result["versions"]:
        return {"error": result["versions"]["error"]}
    images = [np.load(path) for path in job["images"]]
    out = str(job["out"])
    os.makedirs(out, exist_ok=True)
    pipeline = live
    if pipeline is None and job.get("pipeline"):
        try:
            pipeline = _pipeline_of_file(job["pipeline"], library)
        except Exception as error:  # the runner's Refused, or what the file raised
            result["pipeline_error"] = _first_line(error)
    if pipeline is not None:
        try:
            _seed(library, int(job.get("seed", 0)))
            outputs = [as_hwc(apply(library, pipeline, image)) for image in images]
            result["pipeline"] = _save(outputs, out, "pipeline")
        except Exception as error:
            result["pipeline_error"] = f"{type(error).__name__}: {_first_line(error)}"
    for index, call in enumerate(job.get("calls", [])):
        draws = int(call.get("draws", job.get("draws", 0)))
        result["calls"].append(_run_call(library, call, images, out, index, draws, job))
    return result


def _run_call(
    library: str,
    call: dict[str, Any],
    images: list[np.ndarray],
    out: str,
    index: int,
    draws: int,
    job: dict[str, Any],
) -> dict[str, Any]:
    if call.get("rate"):
        # each call's coins from a seed of its own: under the job's one seed every transform of
        # one p drew the same coins (seed 0, 120 draws: 45 of 120 at p=0.5 for each)
        seed = int(np.random.SeedSequence([int(job.get("seed", 0)), index]).generate_state(1)[0])
        return _applied(library, call, images, int(call["rate"]), seed)
    try:
        transform = instantiate(library, call)
        if call.get("window"):
            _window_fixed(transform, str(call["window"]))
        fed = _given(library, call, images)
        seed = int(job.get("seed", 0))
        _seed(library, seed, transform)
        first = [as_hwc(apply(library, transform, image, given)) for image, given in fed]
        _seed(library, seed + 1, transform)
        second = [as_hwc(apply(library, transform, image, given)) for image, given in fed]
    except Exception as error:
        return {"error": f"{type(error).__name__}: {_first_line(error)}"}
    same = all(
        a.shape == b.shape and np.array_equal(a, b) for a, b in zip(first, second, strict=True)
    )
    found: dict[str, Any] = {
        "outputs": _save(first, out, f"call{index}"),
        "deterministic": bool(same),
        "draws": {},
    }
    drawer = None if "transforms" in call else DRAWERS.get((library, str(call["name"])))
    if drawer is not None and draws > 0:
        _seed(library, int(job.get("seed", 0)), transform)
        values: dict[str, list[float]] = {}
        try:
            for n in range(draws):
                for key, value in drawer(transform, images[n % len(images)]).items():
                    values.setdefault(key, []).append(float(value))
        except Exception as error:  # a library version that draws or records otherwise
            found["draws_error"] = f"{type(error).__name__}: {_first_line(error)}"
            values = {}
        found["draws"] = values
    return found


def _given(
    library: str, call: dict[str, Any], images: list[np.ndarray]
) -> list[tuple[np.ndarray, Any]]:
    """Each image with what the transform meets in the pipeline: the call's ``given``
    conversions (``PILToTensor``, ``ToImage``) run on it first, outside the transform's seeds,
    or None where it meets the image itself."""
    if not call.get("given"):
        return [(image, None) for image in images]
    feed = instantiate(library, {"transforms": call["given"]})
    return [(image, apply(library, feed, image)) for image in images]


def _applied(
    library: str, call: dict[str, Any], images: list[np.ndarray], count: int, seed: int
) -> dict[str, Any]:
    """How often the transform, with its own probability, applied over `count` samples: as
    albumentations' replay records it, or (torchvision) where its output is not its input."""
    if call.get("coin"):
        return _coin_applied(library, call, images, count, seed)
    if call.get("picks"):
        return _picks_counted(library, call, images, count, seed)
    try:
        transform = instantiate(library, call)
        _seed(library, seed, transform)
        applied = []
        for n in range(count):
            image = images[n % len(images)]
            if library == "albumentations":
                applied.append(bool(_replayed(transform, image, record="applied", seed=seed)))
            elif call.get("kept"):
                applied.append(_returned_anew(transform, image))
            else:
                out = as_hwc(apply(library, transform, image))
                applied.append(out.shape != image.shape or not np.array_equal(out, image))
    except Exception as error:
        return {"error": f"{type(error).__name__}: {_first_line(error)}"}
    return {"applied": [float(a) for a in applied]}


def _returned_anew(transform: Any, image: np.ndarray) -> bool:
    """Whether a class of the project's own applied: it returns the very image it was given
    where its coin says no, as its port's reading found (``return img``), and a new one where
    it says yes (``img.filter(...)``, ``ImageOps.solarize(img)``). Read by identity, not by
    pixels (a blur leaves a flat image as it was, a solarize a dark one), nor by watching
    ``random.random`` (the coin may be numpy's, or negated, and the radius's
    ``random.uniform`` draws from the same generator)."""
    from PIL import Image

    given = Image.fromarray(image)
    return transform(given) is not given


def _coin_applied(
    library: str, call: dict[str, Any], images: list[np.ndarray], count: int, seed: int
) -> dict[str, Any]:
    """How often a RandomApply runs what it holds over `count` samples: the library's own
    class, given one transform that only counts its calls in place of the list (the coin is
    read as the class draws it, not guessed from whether the image changed: a transform that
    ran may leave it as it was)."""
    try:
        import torch

        if library != "torchvision" or call.get("name") != "RandomApply":
            raise ValueError(f"no coin to count in {library}'s {call.get('name')}")
        calls: list[int] = []
        args = [decode(v) for v in call.get("args", [])]
        kwargs = {k: decode(v) for k, v in call.get("kwargs", {}).items()}
        import torchvision.transforms as t1

        # v2's RandomApply draws its coin as v1's does (one torch.rand(1) against p)
        transform = t1.RandomApply(torch.nn.ModuleList(_counters(1, calls)), *args, **kwargs)
        _seed(library, seed, transform)
        applied = []
        for n in range(count):
            before = len(calls)
            apply(library, transform, images[n % len(images)])
            applied.append(len(calls) > before)
    except Exception as error:
        return {"error": f"{type(error).__name__}: {_first_line(error)}"}
    return {"applied": [float(a) for a in applied]}


def _picks_counted(
    library: str, call: dict[str, Any], images: list[np.ndarray], count: int, seed: int
) -> dict[str, Any]:
    """Which transform a RandomChoice runs, sample by sample over `count` samples: the class of
    the module the file named (v1 picks with Python's random, v2 with torch's), given in place
    of its transforms as many that only say they ran (the pick read as the class draws it, not
    guessed from pixels: two transforms may give the same image)."""
    try:
        if library != "torchvision" or call.get("name") != "RandomChoice":
            raise ValueError(f"no pick to count in {library}'s {call.get('name')}")
        ran: list[int] = []
        stand_ins = _counters(int(call["picks"]), ran)
        args = [decode(v) for v in call.get("args", [])]
        kwargs = {k: decode(v) for k, v in call.get("kwargs", {}).items()}
        chooser = _torchvision_class("RandomChoice", str(call.get("module") or ""))
        transform = chooser(stand_ins, *args, **kwargs)
        _seed(library, seed, transform)
        children: list[list[float]] = [[] for _ in stand_ins]
        for n in range(count):
            before = len(ran)
            apply(library, transform, images[n % len(images)])
            picked = set(ran[before:])
            for index, counted in enumerate(children):
                counted.append(float(index in picked))
    except Exception as error:
        return {"error": f"{type(error).__name__}: {_first_line(error)}"}
    # a RandomChoice runs one of them on every sample
    return {"applied": [1.0] * count, "children": children}


def _counters(count: int, ran: list[int]) -> list[Any]:
    """`count` torch modules that return what they are given and append their index to `ran`:
    stand-ins for the transforms a container holds, which count its coin or pick."""
    import torch

    class Counted(torch.nn.Module):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

        def forward(self, *inputs: Any) -> Any:
            ran.append(self.index)
            return inputs[0] if len(inputs) == 1 else inputs

    return [Counted(index) for index in range(count)]


# ---- the library's own objects ------------------------------------------------------------------


def _versions(library: str) -> dict[str, str]:
    versions = {"python": platform.python_version()}
    names = {"torchvision": ("torch", "PIL", "torchvision"), "albumentations": ("albumentations",)}
    if library not in names:
        return {
            "error": f"no runner for {library!r} pipelines (fix: torchvision or albumentations)"
        }
    for name in names[library]:
        try:
            module = importlib.import_module(name)
        except Exception as error:
            return {
                "error": f"{name} does not import in {sys.executable}: {type(error).__name__}: "
                f"{_first_line(error)} (fix: give the python of an environment where {library} "
                "imports)"
            }
        versions[name] = str(getattr(module, "__version__", "?"))
    return versions


def _pipeline_of_file(job: dict[str, Any], library: str) -> Any:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import original_runner  # beside this file: how bench --against runs the user's file

    return original_runner._pipeline(job, library)


def decode(value: Any) -> Any:
    """A literal of the job back to Python: symbols resolved, tuples restored."""
    if isinstance(value, dict) and "__symbol__" in value:
        return resolve(str(value["__symbol__"]))
    if isinstance(value, dict) and "__tuple__" in value:
        return tuple(decode(v) for v in value["__tuple__"])
    if isinstance(value, dict):
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


SHORT_SYMBOLS = {"InterpolationMode": "torchvision.transforms.InterpolationMode"}


def resolve(dotted: str) -> Any:
    """``torchvision.transforms.InterpolationMode.BICUBIC``, ``cv2.BORDER_REFLECT``,
    ``torch.float32``: the longest importable module prefix, then attributes."""
    head, _, rest = dotted.partition(".")
    if head in SHORT_SYMBOLS:
        dotted = f"{SHORT_SYMBOLS[head]}.{rest}"
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ValueError(f"cannot resolve {dotted}")


def instantiate(library: str, entry: dict[str, Any]) -> Any:
    """The library's transform of `entry` built with its arguments; an entry of several
    ``transforms`` (a Normalize with the ToTensor it follows) as their Compose."""
    built = [_one(library, call) for call in entry.get("transforms") or [entry]]
    if library == "torchvision":
        import torchvision.transforms as t1

        return built[0] if len(built) == 1 else t1.Compose(built)
    import albumentations as A

    return A.Compose(built)


def _one(library: str, call: dict[str, Any]) -> Any:
    args = [decode(v) for v in call.get("args", [])]
    kwargs = {k: decode(v) for k, v in call.get("kwargs", {}).items()}
    name = str(call["name"])
    if library == "torchvision":
        return _torchvision_class(name, str(call.get("module") or ""))(*args, **kwargs)
    import albumentations as A

    return getattr(A, name)(*args, **kwargs)


def _window_fixed(transform: Any, where: str) -> None:
    """torchvision's RandomCrop with the window it draws fixed at the (padded) image's
    top-left corner: its own padding and crop run on it. v1 draws through ``get_params``, v2
    through ``make_params`` (whose padding stays as it works it out)."""
    if where != "top-left":
        raise ValueError(f"no window {where!r} to fix (fix: 'top-left')")
    if hasattr(type(transform), "make_params"):  # v2
        drawn = transform.make_params

        def at_corner(flat_inputs: list[Any]) -> dict[str, Any]:
            return {**drawn(flat_inputs), "top": 0, "left": 0}

        transform.make_params = at_corner
    else:  # v1's forward draws through self.get_params(img, size)
        transform.get_params = lambda _image, size: (0, 0, size[0], size[1])


def _torchvision_class(name: str, module: str) -> Any:
    """torchvision's class `name` from the module the file named it from (v2's classes take
    what v1's refuse: ``v2.Resize(size=None, max_size=M)``, ``v2.ConvertImageDtype()``); from
    v1 where the module is v1's or not known, else (a class only v2 has) from v2."""
    import torchvision.transforms as t1
    import torchvision.transforms.v2 as t2

    if module and module.split(".")[0] != "torchvision":
        # a class of the project's own modules (DINO's utils.Solarization, MoCo's
        # moco.loader.GaussianBlur), imported from beside the file as the file imports it; or
        # one the file defines itself, from the file as the runner ran it (its RUN_NAME module)
        return resolve(f"{module}.{name.rsplit('.', 1)[-1]}")
    if module.startswith("torchvision.transforms.v2"):
        return getattr(t2, name)
    return getattr(t1, name, None) or getattr(t2, name)


def apply(library: str, transform: Any, image: np.ndarray, given: Any = None) -> Any:
    """`transform`'s output for `image`; torchvision's for `given` instead where it is given
    (the tensor the pipeline's conversions made of the image)."""
    if given is not None:
        return transform(given)
    if library == "albumentations":
        return transform(image=image, **no_targets(transform))["image"]
    from PIL import Image

    return transform(Image.fromarray(image))


def _seed(library: str, seed: int, transform: Any = None) -> None:
    """Seed the library's generators (and albumentations' own, of a transform built here)."""
    import random

    random.seed(seed)
    np.random.seed(seed)
    if library == "torchvision":
        import torch

        torch.manual_seed(seed)
    elif transform is not None:
        _seeded(transform, seed)


def _seeded(transform: Any, seed: int) -> None:
    if hasattr(transform, "set_random_seed"):  # albumentations 2.x: a generator per Compose
        transform.set_random_seed(seed)


def as_hwc(value: Any) -> np.ndarray:
    """An output as a HWC array: PIL images and CHW tensors turned round."""
    chw = False
    if hasattr(value, "detach"):  # a torch tensor
        value, chw = value.detach().cpu().numpy(), True
    array = np.asarray(value)
    if array.ndim == 2:
        return array[:, :, None]
    if chw and array.ndim == 3:
        return np.ascontiguousarray(array.transpose(1, 2, 0))
    return array


def _save(arrays: list[np.ndarray], out: str, stem: str) -> list[str]:
    paths = []
    for index, array in enumerate(arrays):
        path = os.path.join(out, f"{stem}_{index}.npy")
        np.save(path, array)
        paths.append(path)
    return paths


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# ---- what each library draws --------------------------------------------------------------------


def _tv_resized_crop(t: Any, image: np.ndarray) -> dict[str, float]:
    from PIL import Image

    _, _, h, w = type(t).get_params(Image.fromarray(image), t.scale, t.ratio)
    return {"area": h * w / (image.shape[0] * image.shape[1]), "aspect": w / h}


def _tv_rotation(t: Any, _image: np.ndarray) -> dict[str, float]:
    return {"angle": float(type(t).get_params(t.degrees))}


def _tv_colour(t: Any, _image: np.ndarray) -> dict[str, float]:
    _, b, c, s, h = type(t).get_params(t.brightness, t.contrast, t.saturation, t.hue)
    named = {"brightness": b, "contrast": c, "saturation": s, "hue": h}
    return {key: float(value) for key, value in named.items() if value is not None}


def _tv_affine(t: Any, image: np.ndarray) -> dict[str, float]:
    size = [image.shape[1], image.shape[0]]
    angle, _, _, _ = type(t).get_params(t.degrees, t.translate, t.scale, t.shear, size)
    return {"angle": float(angle)}


def _tv_crop_start(t: Any, image: np.ndarray) -> dict[str, float]:
    """Where RandomCrop's window starts, in the image's own pixels (negative inside the
    padding, as the port's corner is): the class run on the image with its own draw recorded
    (v1's ``get_params`` on the padded image, v2's ``make_params`` with the padding it works
    out), so its padding rules are torchvision's, not redone here."""
    from PIL import Image

    seen: dict[str, int] = {}
    if hasattr(type(t), "make_params"):  # v2: top and left in the padded image, and its padding
        drawn = type(t).make_params

        def recorded(flat_inputs: list[Any]) -> dict[str, Any]:
            params: dict[str, Any] = drawn(t, flat_inputs)
            left, top = params["padding"][:2]
            seen.update(top=params["top"] - top, left=params["left"] - left)
            return params

        t.make_params = recorded
    else:  # v1: get_params on the image padded by `padding`, then by pad_if_needed's shortfall

        def recorded_v1(padded: Any, size: tuple[int, int]) -> tuple[int, int, int, int]:
            i, j, h, w = type(t).get_params(padded, size)
            (top, bottom), (left, right) = _v1_padding(t.padding)
            # pad_if_needed pads both sides alike by what the padded image still lacks
            down = (padded.height - image.shape[0] - top - bottom) // 2
            across = (padded.width - image.shape[1] - left - right) // 2
            seen.update(top=i - top - down, left=j - left - across)
            return i, j, h, w

        t.get_params = recorded_v1
    try:
        t(Image.fromarray(image))
    finally:
        vars(t).pop("make_params", None)
        vars(t).pop("get_params", None)
    return {"top": float(seen["top"]), "left": float(seen["left"])}


def _v1_padding(padding: Any) -> tuple[tuple[int, int], tuple[int, int]]:
    """v1 RandomCrop's `padding` as (top, bottom), (left, right), read as torchvision's pad
    reads it: one number for every side, two for left-right and top-bottom, four for left,
    top, right, bottom."""
    if padding is None:
        return (0, 0), (0, 0)
    if isinstance(padding, int):
        return (padding, padding), (padding, padding)
    sides = [int(v) for v in padding]
    if len(sides) == 1:
        sides = sides * 4
    elif len(sides) == 2:
        sides = [sides[0], sides[1], sides[0], sides[1]]
    left, top, right, bottom = sides
    return (top, bottom), (left, right)


# one seeded replay per transform of this job (kept with it, so its id stays its own): the
# original's draws follow the job's seed
_REPLAYS: dict[int, tuple[Any, Any]] = {}
_REPLAY_SEED = {"seed": 0}  # the job's (run() sets it): another seed redraws what a replay saw


def _replayed(t: Any, image: np.ndarray, record: str = "params", seed: int | None = None) -> Any:
    import albumentations as A

    if id(t) not in _REPLAYS:
        (inner,) = t.transforms
        _REPLAYS[id(t)] = (t, A.ReplayCompose([inner]))
        _seeded(_REPLAYS[id(t)][1], _REPLAY_SEED["seed"] if seed is None else seed)
    replay = _REPLAYS[id(t)][1](image=image)["replay"]["transforms"][0]
    return replay.get(record) if record != "params" else dict(replay.get("params") or {})


def _al_crop(t: Any, image: np.ndarray) -> dict[str, float]:
    x0, y0, x1, y1 = _replayed(t, image)["crop_coords"]
    return {"area": (x1 - x0) * (y1 - y0) / (image.shape[0] * image.shape[1]),
            "aspect": (x1 - x0) / (y1 - y0)}  # fmt: skip


def _al_rotate(t: Any, image: np.ndarray) -> dict[str, float]:
    matrix = np.asarray(_replayed(t, image)["matrix"])
    # OpenCV's rotation matrix: [[cos, sin], [-sin, cos]] for a counter-clockwise angle
    return {"angle": math.degrees(math.atan2(matrix[0, 1], matrix[0, 0]))}


def _al_colour(t: Any, image: np.ndarray) -> dict[str, float]:
    params = _replayed(t, image)
    return {k: float(params[k]) for k in ("brightness", "contrast", "saturation", "hue")}


def _al_affine(t: Any, image: np.ndarray) -> dict[str, float]:
    return {"angle": float(_replayed(t, image)["rotate"])}


DRAWERS: dict[tuple[str, str], Draw] = {
    ("torchvision", "RandomResizedCrop"): _tv_resized_crop,
    ("torchvision", "RandomSizedCrop"): _tv_resized_crop,
    ("torchvision", "RandomRotation"): _tv_rotation,
    ("torchvision", "ColorJitter"): _tv_colour,
    ("torchvision", "RandomAffine"): _tv_affine,
    ("torchvision", "RandomCrop"): _tv_crop_start,
    ("albumentations", "RandomResizedCrop"): _al_crop,
    ("albumentations", "RandomSizedCrop"): _al_crop,
    ("albumentations", "Rotate"): _al_rotate,
    ("albumentations", "SafeRotate"): _al_rotate,
    ("albumentations", "ColorJitter"): _al_colour,
    ("albumentations", "Affine"): _al_affine,
    ("albumentations", "ShiftScaleRotate"): _al_affine,
}


if __name__ == "__main__":
    sys.exit(main(sys.argv))
