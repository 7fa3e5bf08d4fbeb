"""What one run of the live engine gives back: every node's outputs, time, device and draws."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..annotations import SampleAnnotations, Tracks
from ..annotations.drawable import OverlayState
from ..builder import reader_args_as_called
from ..coco_file import SIZE_THRESHOLD, images_read
from ..data import SourceData
from ..plan import Plan, Step
from ..spec import Ref
from .epoch_padding import (
    array_samples,
    array_shard,
    dropped_samples,
    epoch_batches,
    padded_by_reader,
)
from .internal_draws import WINDOW_OPS, NodeWindows, draws_internally, node_windows
from .sample_reach import draws_that_made, samples_run_by_step, steps_behind_each_sample

# The name :meth:`RunResult.draws` gives a random node's own output (it has no argument).
DRAWN = "drawn"


def to_host(batch: Any) -> list[np.ndarray]:
    """Copy a DALI TensorList (CPU or GPU) to one numpy array per sample."""
    if hasattr(batch, "as_cpu"):
        batch = batch.as_cpu()
    if len(batch) and batch.is_dense_tensor():
        # one copy of the whole batch: converting sample by sample costs ~30 us each in
        # numpy's buffer-format parsing, which a slider step pays for every output it shows
        whole = np.array(batch.as_tensor())
        return [whole[i, ...] for i in range(len(whole))]  # arrays, 0-d ones included
    # at() already gives a numpy copy of its own: copying it again doubled the cost of a
    # batch of large photos of several sizes (~11 ms a 1080p sample, 4 of them the copy)
    return [np.asarray(batch.at(i)) for i in range(len(batch))]


@dataclass
class StepResult:
    step: Step
    outputs: list[Any]  # DALI TensorLists, on the step's device
    time_ms: float
    ran: bool  # False when the outputs came from the cache
    # None: the outputs hold every sample of the batch. Else the samples they hold, in order:
    # an inner step of a conditional block (augexplorer.blocks) gives its output only where
    # the block ran (DALI merges only the block's last output with what passes through)
    samples: tuple[int, ...] | None = None

    @property
    def device(self) -> str:
        return self.step.device

    @functools.cached_property
    def types(self) -> tuple[tuple[Any, str], ...]:
        """Each output's DALI type and layout, read once: a step fed this output needs them (an
        external source keeps what it was first fed), and a cached result serves many runs."""
        return tuple((batch.dtype, batch.layout()) for batch in self.outputs)


@dataclass
class RunResult:
    plan: Plan
    steps: dict[str, StepResult]
    batch_index: int
    sources: dict[str, SourceData] = field(default_factory=dict)
    # node -> its annotation tracks, worked out once per result (the grid asks for the
    # annotations and for what no longer matches at the same node on every redraw)
    _tracks: dict[str, Tracks | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _reaching: dict[str, frozenset[str]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _behind: dict[str, list[frozenset[str]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _overlay_states: dict[str, dict[str, OverlayState] | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # each node's annotations, read once: the grid's captions and overlays both ask for them
    _annotations: dict[str, list[SampleAnnotations] | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    # ---- outputs ----------------------------------------------------------------------------
    def output(self, ref: Ref | str) -> Any:
        """A step's output as a DALI TensorList (no copy)."""
        ref = Ref.parse(ref) if isinstance(ref, str) else ref
        return self.steps[ref.node].outputs[ref.output]

    def arrays(self, ref: Ref | str) -> list[np.ndarray]:
        """A step's output copied to host memory, one array per sample."""
        return to_host(self.output(ref))

    def layout(self, ref: Ref | str) -> str:
        return str(self.output(ref).layout() or "")

    def shapes_differ(self, batch: str = "this batch") -> str | None:
        """Where the graph's images differ in shape within this batch (said as `batch`), what
        that means for training (the exported loader hands PyTorch each batch as one tensor,
        and fails on them) and the fix; None where every output image has one shape."""
        for name, ref in self.plan.outputs.items():
            layout = self.layout(ref)
            if "H" not in layout or "W" not in layout:
                continue  # labels, and boxes (padded per object by the exported loader)
            shapes = sorted({tuple(int(n) for n in shape) for shape in self.output(ref).shape()})
            if len(shapes) > 1:
                shown = ", ".join("x".join(map(str, shape)) for shape in shapes[:3])
                more = f" and {len(shapes) - 3} more" if len(shapes) > 3 else ""
                return (
                    f"the {name} leave '{ref.node}' in {len(shapes)} shapes in {batch} "
                    f"({layout} {shown}{more}), and training's loader hands PyTorch a batch as "
                    "one tensor of one shape, so it fails on them (fix: end the graph with a "
                    "node that gives every image one size: a crop, a resize with both "
                    "resize_x and resize_y, or random_resized_crop)"
                )
        return None

    def sample_indices(self, ref: Ref | str) -> list[int]:
        """The batch's samples that a step's output holds, in order: every sample, except for
        an inner node of a conditional block, whose output holds only the samples where the
        block ran. ``output(ref)[k]`` is sample ``sample_indices(ref)[k]``."""
        ref = Ref.parse(ref) if isinstance(ref, str) else ref
        held = self.steps[ref.node].samples
        return list(held) if held is not None else list(range(len(self.output(ref))))

    def position_of(self, ref: Ref | str, sample: int) -> int | None:
        """Where sample `sample` of the batch is in a step's output (None: it is not there, as
        where a conditional block did not run)."""
        indices = self.sample_indices(ref)
        return indices.index(sample) if sample in indices else None

    @property
    def final(self) -> Ref:
        return next(iter(self.plan.outputs.values()))

    def input_of(self, node_id: str) -> Ref | None:
        """What a user node transformed: its first data input (None for a source; for the first
        node of an ``else``, the input of its ``if``: :meth:`Plan.first_input`)."""
        return self.plan.first_input(self.plan.node_step(node_id))

    def original_of(self, node_id: str) -> Ref | None:
        """The decoded image a node's output comes from: the nearest decoder at or upstream of
        it, or an in-memory source's arrays; None where the node reads no image."""
        step = self.plan.node_step(node_id)
        for step_id in (step.id, *self.plan.ancestors(step.id)):
            op = self.plan.step(step_id).op
            if op.startswith("decoders.") or op == "source.arrays":
                return Ref(step_id)
        return None

    # ---- what the graph is made of, for views -----------------------------------------------
    def node_ids(self) -> list[str]:
        """The user's operator nodes in the order they ran (no sources, draws or coin flips)."""
        return [s.id for s in self.plan.steps if s.role == "node"]

    def devices(self) -> dict[str, str]:
        """Where each user node and source ran: cpu, gpu or mixed."""
        return {s.origin: s.device for s in self.plan.steps if s.role in ("node", "source")}

    def source_data(self, source_id: str | None = None) -> SourceData | None:
        """The files and labels of a source (the first one by default); None for one not read."""
        source_id = source_id or next(s.id for s in self.plan.steps if s.role == "source")
        return self.sources.get(source_id)

    # ---- timing -----------------------------------------------------------------------------
    def time_ms(self, node_id: str) -> float:
        """Time of a user node in its last run, its random draws and coin flip included."""
        return sum(r.time_ms for r in self.steps.values() if r.step.origin == node_id)

    def ran(self) -> list[str]:
        """Steps that ran in this run (the rest came from the cache)."""
        return [step_id for step_id, r in self.steps.items() if r.ran]

    def node_times(self) -> dict[str, float]:
        times: dict[str, float] = {}
        for result in self.steps.values():
            times[result.step.origin] = times.get(result.step.origin, 0.0) + result.time_ms
        return times

    # ---- labels and draws -------------------------------------------------------------------
    def _labels_ref(self, source_id: str | None) -> tuple[str, Ref]:
        step = next(s for s in self.plan.steps if s.role == "source" and source_id in (None, s.id))
        output = step.source.labels_output if step.source is not None else 1
        return step.id, Ref(step.id, output)

    def labels(self, source_id: str | None = None, node_id: str | None = None) -> list[list[int]]:
        """The label(s) of every sample in the batch; for an annotated source, of each box as
        it stands at `node_id` (a crop keeps some), the source's where the node holds only
        some samples or is not given: the labels :meth:`captions` names."""
        source_id, ref = self._labels_ref(source_id)
        data = self.sources.get(source_id)
        if data is not None and data.kind == "coco":
            at = self.annotations(node_id) if node_id is not None else None
            if at is not None:
                return [[int(x) for x in sample.labels] for sample in at]
            return [[int(x) for x in np.asarray(a).reshape(-1)] for a in self.arrays(ref)]
        raw = [int(np.asarray(a).reshape(-1)[0]) for a in self.arrays(ref)]
        return [data.labels_of(label) if data else [label] for label in raw]

    def captions(self, source_id: str | None = None, node_id: str | None = None) -> list[str]:
        """Each sample's caption: its label's name, or for an annotated source the names of
        its boxes as they stand at `node_id` (a crop keeps some: "galaxy x3" read, one left),
        the source's where the node holds only some samples or is not given."""
        source_id, ref = self._labels_ref(source_id)
        data = self.sources.get(source_id)
        if data is not None and data.kind == "coco":
            return [data.box_caption(each) for each in self.labels(source_id, node_id)]
        raw = [int(np.asarray(a).reshape(-1)[0]) for a in self.arrays(ref)]
        return [data.caption(label) if data else str(label) for label in raw]

    def annotations(self, node_id: str | None = None) -> list[SampleAnnotations] | None:
        """Each sample's boxes, labels, polygons and masks as they stand at `node_id` (the final
        images by default), in the pixel coordinates of its images; None where the images come
        from no annotated source, or where the images or annotations hold only some samples
        (inside a conditional block)."""
        node_id = node_id or self.final.node
        if node_id not in self._annotations:
            self._annotations[node_id] = self._read_annotations(node_id)
        return self._annotations[node_id]

    def _read_annotations(self, node_id: str) -> list[SampleAnnotations] | None:
        from ..annotations import annotations_at

        tracks = self._tracks_at(node_id)
        if tracks is None or not tracks.refs:
            return None
        ref = Ref(node_id) if node_id != tracks.source else None
        if ref is None:  # encoded files: sizes from the annotations file
            return None
        partial = [
            r for r in (ref, *tracks.refs.values()) if self.steps[r.node].samples is not None
        ]
        if partial:  # not every sample: the boxes would not line up with their images
            return None
        layout = self.layout(ref)
        images = self.output(ref)
        shapes = [tuple(images[i].shape()) for i in range(len(images))]
        sizes = [_height_width(shape, layout) for shape in shapes]
        data = self.sources.get(tracks.source)
        names = data.box_classes if data is not None else {}
        objects = {}
        if data is not None and data.coco is not None:
            source = self.plan.spec.node(tracks.source)
            remap = bool(source.reader_args.get("avoid_class_remapping"))  # type: ignore[union-attr]
            objects = data.coco.keypoint_objects(avoid_class_remapping=remap)
        return annotations_at(tracks, self.arrays, sizes, names, objects)

    def overlay_states(self, node_id: str | None = None) -> dict[str, OverlayState] | None:
        """Per kind the overlays draw (boxes, names, polygons, masks, keypoints), whether the
        graph carried it to `node_id`'s images (the final images by default) and, where not,
        why and what carries it; None where the images come from no annotated source."""
        from ..annotations.drawable import overlay_states

        node_id = node_id or self.final.node
        if node_id not in self._overlay_states:
            self._overlay_states[node_id] = overlay_states(self.plan.spec, node_id)
        return self._overlay_states[node_id]

    def drawn_annotations(self, node_id: str | None = None) -> list[SampleAnnotations] | None:
        """:meth:`annotations` with only the kinds the graph carried to `node_id`'s images
        (:meth:`overlay_states`): what the overlays and ``render_node`` draw there."""
        annotations = self.annotations(node_id)
        states = self.overlay_states(node_id)
        if annotations is None or states is None:
            return annotations
        kinds = {kind for kind, state in states.items() if state.drawable}
        return [sample.keeping(kinds) for sample in annotations]

    def annotation_warnings(self, node_id: str | None = None) -> list[str]:
        """What no longer matches the images at `node_id` (the final images by default): an
        image operator on the way moved pixels that no companion moved on the annotations, or
        a box operator on the way read the boxes in another layout than their source gives."""
        from ..annotations.drawable import misread_boxes

        tracks = self._tracks_at(node_id or self.final.node)
        if tracks is None:
            return []
        misread = misread_boxes(self.plan.spec, tracks)
        return list(tracks.mismatched.values()) + ([misread] if misread else [])

    def _tracks_at(self, node_id: str) -> Tracks | None:
        from ..annotations import tracks_at

        if node_id not in self._tracks:
            self._tracks[node_id] = tracks_at(self.plan.spec, node_id)
        return self._tracks[node_id]

    def files(self, source_id: str | None = None) -> list[str]:
        """The file each sample was read from (empty names for in-memory arrays)."""
        source_id = source_id or next(s.id for s in self.plan.steps if s.role == "source")
        batch = self.output(Ref(source_id, 0))
        return [str(batch[i].source_info()) for i in range(len(batch))]

    @functools.cached_property
    def _first_source(self) -> tuple[Step, SourceData] | None:
        """The first source's step and the data it read; None where it was not read."""
        step = next((s for s in self.plan.steps if s.role == "source" and s.source), None)
        if step is None or step.source is None or step.id not in self.sources:
            return None
        return step, self.sources[step.id]

    @functools.cached_property
    def _files_read(self) -> tuple[int, dict[str, Any]] | None:
        """How many files the first source's reader reads, and the arguments it is called with;
        None for in-memory arrays or a source not read (worked out once: every grid asks)."""
        if self._first_source is None:
            return None
        return files_read(*self._first_source)

    @functools.cached_property
    def _arrays_read(self) -> tuple[int, dict[str, int]] | None:
        """How many in-memory arrays the first source holds, and the shard previewed; None for
        a source read from files."""
        if self._first_source is None or self._first_source[1].kind != "arrays":
            return None
        step, data = self._first_source
        return len(data.arrays), array_shard(step)

    def batches_per_epoch(self) -> int | None:
        """The batches an epoch of the previewed shard takes, as training's loader counts them
        (:func:`.epoch_padding.epoch_batches`, in-memory arrays included)."""
        arrays = self._arrays_read
        if arrays is not None:  # every rank as long as the largest shard, as a padded reader
            count, shard = arrays
            batches = epoch_batches(
                count, self.plan.spec.batch_size, num_shards=shard["num_shards"]
            )
            return batches or None
        read = self._files_read
        if read is None:
            return None
        files, args = read
        return epoch_batches(
            files,
            self.plan.spec.batch_size,
            shard_id=int(args.get("shard_id", 0)),
            num_shards=int(args.get("num_shards", 1)),
            padded=bool(args.get("pad_last_batch")),
        )

    def dropped(self) -> list[bool]:
        """Per sample: whether training's loader on one rank drops it at an epoch's end, for a
        reader that does not pad (pad_last_batch=False, DALI's default, as imported code has
        it): the reader fills the epoch's last batch from what follows, and the loader keeps
        only the epoch's count (:func:`.epoch_padding.dropped_samples`). On several ranks the
        loader keeps every sample; a padding reader's tiles are :meth:`padded` instead."""
        count = self.plan.spec.batch_size
        read = self._files_read
        if read is None or read[1].get("pad_last_batch") or int(read[1].get("num_shards", 1)) > 1:
            return [False] * count
        return dropped_samples(read[0], count, self.batch_index)

    def padded(self) -> list[bool]:
        """Per sample: whether the reader padded it, repeating its shard's last file at an
        epoch's end (:mod:`.epoch_padding`). Training's loader drops these on one rank and
        keeps them on several; in-memory arrays and readers that do not pad have none."""
        count = self.plan.spec.batch_size
        arrays = self._arrays_read
        if arrays is not None:  # the epoch's last batch filled with its last sample
            padded = array_samples(arrays[0], count, self.batch_index, **arrays[1])[1]
            return padded or [False] * count
        read = self._files_read
        if read is None:
            return [False] * count
        return padded_by_reader(*read, count, self.batch_index)

    def bad_files_found_since(self) -> bool:
        """Whether the background look at a big source's files (skip_bad) has found bad files
        since this batch was read: training's loader reads without them, in another order, so
        running again (:meth:`Session.run`) shows the batch it gets."""
        return any(
            data.skip_bad and data.survey is not None and bool(data.found_bad())
            for data in self.sources.values()
        )

    def data_notes(self) -> list[str]:
        """What the sources left out and why (images beside class folders, hidden folders,
        files skipped as bad): nothing is left out without a word."""
        return [note for data in self.sources.values() for note in data.notes()]

    def draws(
        self, node_id: str | None = None, *, reaching: str | None = None
    ) -> dict[str, dict[str, list[Any]]]:
        """Values drawn per sample, by node and argument (``"apply"`` for coin flips); with
        `reaching`, only the draws that made that node's output: a downstream draw did not make
        the picture of an upstream node, and on a sample where a node did not run (a branch of
        a ``OneOf`` not chosen) its draws made nothing, so they are None there. A crop window
        an operator drew itself is ``"window"``, where DALI lets it be known
        (:mod:`.internal_draws`): one caption per sample of the batch, None where it is not
        known; a random node's own output (a coin several nodes read) is ``"drawn"``."""
        drawn = self.drawn_by_step(node_id, reaching=reaching)
        if reaching is None:
            return {
                node: {arg: values for arg, (_, values) in args.items()}
                for node, args in drawn.items()
            }
        return draws_that_made(drawn, self.steps_behind(reaching))

    @functools.cached_property
    def samples_run(self) -> dict[str, frozenset[int]]:
        """The samples each step ran on, for the steps that did not run on every sample (a coin
        flip or a condition said no), worked out once."""
        return samples_run_by_step(self)

    def steps_behind(self, node: str) -> list[frozenset[str]]:
        """Per sample of the batch, the steps that made that sample of `node`'s output
        (:mod:`.sample_reach`), worked out once per result."""
        made = self._behind.get(node)
        if made is None:
            made = self._behind[node] = steps_behind_each_sample(self.plan, self.samples_run, node)
        return made

    def drawn_by_step(
        self, node_id: str | None = None, *, reaching: str | None = None
    ) -> dict[str, dict[str, tuple[str, list[Any]]]]:
        """:meth:`draws` on every sample (none made None), each list beside the step that drew
        it."""
        behind = self.reaching_nodes(reaching) if reaching is not None else None
        out: dict[str, dict[str, tuple[str, list[Any]]]] = {}
        for result in self.steps.values():
            step = result.step
            if node_id and step.origin != node_id:
                continue
            if behind is not None and step.origin not in behind:
                continue
            if step.op in WINDOW_OPS and step.role == "node":
                windows = self.windows(step.origin)
                if windows is not None:
                    captions = [w.caption() if w else None for w in windows.windows]
                    out.setdefault(step.origin, {})["window"] = (step.id, captions)
                continue
            if step.role == "node" and step.op.startswith("random."):
                # a random node of the user's (a coin that several nodes read): its output is
                # what it drew
                values = [_plain(v) for v in to_host(result.outputs[0])]
                out.setdefault(step.origin, {})[DRAWN] = (step.id, values)
                continue
            if step.role not in ("random", "apply"):
                continue
            key = step.bound_arg if step.role == "random" else "apply"
            values = [_plain(v) for v in to_host(result.outputs[0])]
            out.setdefault(step.origin, {})[str(key)] = (step.id, values)
        return out

    def windows(self, node_id: str) -> NodeWindows | None:
        """The crop windows `node_id` drew itself, per sample, where DALI lets them be known
        (:func:`.internal_draws.node_windows`); None otherwise."""
        step = self.plan.node_step(node_id)
        return node_windows(self, step) if step.op in WINDOW_OPS else None

    def hidden_draws(self, *, reaching: str | None = None) -> list[str]:
        """The nodes (up to `reaching`) that draw random values inside themselves, none of
        which is known here: what the panel says "draws internally" of."""
        behind = self.reaching_nodes(reaching) if reaching is not None else None
        return [
            r.step.origin
            for r in self.steps.values()
            if draws_internally(r.step)
            and (behind is None or r.step.origin in behind)
            and (r.step.op not in WINDOW_OPS or self.windows(r.step.origin) is None)
        ]

    def reaching_nodes(self, node: str) -> frozenset[str]:
        """The nodes whose outputs, draws or coin flips `node`'s output depends on, itself
        included (worked out once per result)."""
        reaching = self._reaching.get(node)
        if reaching is None:
            reaching = self._reaching[node] = self.plan.nodes_read_by(node)
        return reaching

    def draws_of(self, sample: int, *, reaching: str | None = None) -> dict[str, dict[str, Any]]:
        """Every value drawn for one sample, by node and argument (``"apply"`` for coin flips);
        `reaching` as in :meth:`draws`. Values not known, or that made nothing of the sample,
        are left out."""
        drawn = {
            node: {
                arg: values[sample]
                for arg, values in args.items()
                if sample < len(values) and values[sample] is not None
            }
            for node, args in self.draws(reaching=reaching).items()
        }
        return {node: args for node, args in drawn.items() if args}

    def draw_captions(
        self, node_id: str | None = None, *, reaching: str | None = None
    ) -> list[str]:
        """One short line per sample naming the drawn values, e.g. ``angle=12.3 apply=1``;
        `reaching` as in :meth:`draws`."""
        return caption_draws(
            self.draws(node_id, reaching=reaching), self.plan.spec.batch_size, node_id is None
        )


def caption_draws(
    draws: dict[str, dict[str, list[Any]]], count: int, name_nodes: bool
) -> list[str]:
    """One short line per sample from :meth:`RunResult.draws`, each value named
    ``node.argument`` with `name_nodes` (else ``argument``; a node named as its argument is
    named once: ``brightness=0.7``). The nodes that a coin flip skipped
    on a sample are named once at the end ("skipped rotate,hue") instead of values they did not
    apply; a node applied with nothing else drawn says "applied"."""
    return [" ".join(row.caption() for row in rows) for rows in draw_rows(draws, count, name_nodes)]


@dataclass(frozen=True)
class DrawRow:
    """One thing said of a sample's draws: a value (``rotate.angle`` = ``17.98``) or words
    (``blur`` applied, skipped ``rotate,hue``): the grid's caption and the large view say the
    same rows, so a value reads the same in both."""

    label: str
    text: str
    value: bool = True  # a drawn value ("label=text" in a caption), else words ("label text")

    def caption(self) -> str:
        if self.value:
            return f"{self.label}={self.text}"
        return " ".join(part for part in (self.label, self.text) if part)


def draw_rows(
    draws: dict[str, dict[str, list[Any]]], count: int, name_nodes: bool
) -> list[list[DrawRow]]:
    """The rows :func:`caption_draws` joins into each sample's caption, by sample."""
    rows: list[list[DrawRow]] = [[] for _ in range(count)]
    skipped: list[list[str]] = [[] for _ in range(count)]
    for node, args in draws.items():
        flips = args.get("apply")
        for i in range(count):
            drawn = [
                (arg, values[i])
                for arg, values in args.items()
                if i < len(values) and values[i] is not None  # None: not known (a window)
            ]
            if flips is not None and i < len(flips):
                drawn = [(arg, value) for arg, value in drawn if arg != "apply"]
                if flips[i] is None:  # the flip made nothing of this sample
                    continue
                if not flips[i]:
                    skipped[i].append(node)
                    continue
                if not drawn:
                    rows[i].append(DrawRow(node if name_nodes else "", "applied", False))
            for arg, value in drawn:
                rows[i].append(DrawRow(draw_label(node, arg, name_nodes), draw_text(value)))
    for line, nodes in zip(rows, skipped, strict=True):
        if nodes:
            line.append(DrawRow("skipped", ",".join(nodes) if name_nodes else "", False))
    return rows


def draw_label(node: str, arg: str, name_nodes: bool = True) -> str:
    """How a drawn value is named: ``node.argument``, a node named for its argument
    (brightness's brightness) once, and ``argument`` alone without `name_nodes`. A random
    node's own draw (a coin several nodes read) is named by the node alone: ``coin=1``, not
    ``coin.drawn=1``, whose "drawn" is no argument a person set."""
    if arg == DRAWN:
        return node
    return f"{node}.{arg}" if name_nodes and node != arg else arg


def _plain(value: np.ndarray) -> Any:
    value = np.asarray(value)
    if value.size == 1:
        return value.reshape(()).item()
    return value.tolist()


def draw_text(value: Any) -> str:
    """A drawn value as every part of the panel writes it: four significant digits, which
    keep a drawn angle's hundredths (17.98, not 18, which reads as a whole number); a coin
    as 0 or 1."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ",".join(draw_text(v) for v in value) + "]"
    return str(value)


def _height_width(shape: tuple[int, ...], layout: str) -> tuple[int, int]:
    """An image's (height, width) from its shape and layout (HWC when none is given)."""
    if "H" in layout and "W" in layout:
        return int(shape[layout.index("H")]), int(shape[layout.index("W")])
    return int(shape[0]), int(shape[1]) if len(shape) > 1 else 1


def files_read(step: Step, data: SourceData) -> tuple[int, dict[str, Any]] | None:
    """How many files source `step`'s reader reads of `data`, and the arguments it is called
    with; None for in-memory arrays or a source with no files."""
    assert step.source is not None
    files = len(data.files) or len(data.coco_images)
    if data.kind == "arrays" or not files:
        return None
    args = reader_args_as_called(step.source.reader_args, step.source.kind)
    if data.coco is not None:  # skip_empty leaves out the images with no box
        files = images_read(
            data.coco,
            data.coco_images,
            skip_empty=bool(args.get("skip_empty")),
            size_threshold=float(args.get("size_threshold", SIZE_THRESHOLD)),
            include_iscrowd=bool(args.get("include_iscrowd", True)),
        )
    return files, args
