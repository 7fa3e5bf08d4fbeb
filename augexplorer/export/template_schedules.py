"""The fixed text an exported module adds for a graph whose values follow the training run
(``@@name@@`` marks where codegen puts literals): the schedules as a table, ``schedule_value``
in plain Python, the values a loader draws (``Strengths``) and the loader that takes
``set_epoch`` and ``set_strength`` (``ScheduledLoader``). Kept apart from :mod:`.template` so a
module without schedules reads as it always did."""

from __future__ import annotations

SCHEDULES = '''
# ---- values that follow the training run ---------------------------------------------------
# The run's length in epochs, and each scheduled value's curve over it: "node.argument" is an
# argument's constant, "node.argument.low" (high, mean, stddev, probability) a parameter of its
# random draw, "node.apply" the node's apply probability. Epochs count from 0.
EPOCHS = @@epochs@@
SCHEDULES = @@schedules@@
# Schedules of values the graph keeps as integers: their values are rounded.
ROUNDED = @@rounded@@
# How each value reaches the pipeline. FED: through fn.external_source, every iteration
# ("step.argument" -> (DALI type, its values: a schedule's name, or the graph's constant)), so a
# new epoch needs no rebuild. BUILT: read when the pipeline is built (DALI takes them as Python
# values); the loader rebuilds the pipeline, where it stood, when one of them changes.
FED = @@fed@@
BUILT = @@built@@
NUMPY_TYPES = @@numpy_types@@


def schedule_value(name, epoch):
    """The value of schedule `name` at `epoch` (as augexplorer computes it).

    constant: start. linear: start at epoch begin, end at epoch finish (the run's last when
    absent), a straight line between. cosine: the same along half a cosine. warmup: start to
    end over the first finish epochs. steps: each point's value from its epoch on. table: a
    straight line between the points. Flat before the first and after the last.
    """
    schedule = SCHEDULES[name]
    curve = schedule["curve"]
    if curve == "constant":
        return schedule["start"]
    if curve in ("steps", "table"):
        points = schedule["points"]
        if epoch <= points[0][0]:
            return points[0][1]
        for index in range(1, len(points)):
            (e0, v0), (e1, v1) = points[index - 1], points[index]
            if epoch < e1:
                return v0 if curve == "steps" else v0 + (v1 - v0) * (epoch - e0) / (e1 - e0)
        return points[-1][1]
    start, end = schedule["start"], schedule["end"]
    finish = schedule.get("finish")
    if curve == "warmup":
        begin, finish = 0, finish if finish is not None else 0
    else:
        begin, finish = schedule.get("begin", 0), finish if finish is not None else EPOCHS - 1
    if finish <= begin:
        return end if epoch >= finish else start
    t = min(1.0, max(0.0, (epoch - begin) / (finish - begin)))
    if curve == "cosine":
        t = (1.0 - cos(pi * t)) / 2.0
    return start + (end - start) * t


class Strengths:
    """The scheduled values a loader's pipeline draws: each schedule's at `epoch`, or the value
    set_strength put in its place.

    DALI prepares batches ahead of those taken (prefetch_queue_depth). Each fed argument counts
    the batches it is asked for, so a batch prepared past the end of the epoch (the loader sets
    `epoch_batches`) is given the next epoch's values.
    """

    def __init__(self, epoch=0):
        self.epoch = epoch
        self.overrides = {}
        self.epoch_batches = None  # batches in an epoch; None: one endless epoch
        self.epoch_start = 0  # the number of the epoch's first batch
        self.asked = {}  # fed argument -> batches prepared

    def value(self, name, epoch=None):
        """Schedule `name`'s value at `epoch` (default: the loader's), as the pipeline takes it."""
        if name in self.overrides:
            value = self.overrides[name]
        else:
            value = schedule_value(name, self.epoch if epoch is None else epoch)
        return round(value) if name in ROUNDED else float(value)

    def epoch_of(self, number):
        """The epoch batch `number` (counted from the pipeline's first) belongs to."""
        if self.epoch_batches is None or number < self.epoch_start:
            return self.epoch
        return self.epoch + (number - self.epoch_start) // self.epoch_batches

    def restart(self, taken):
        """A pipeline rebuilt `taken` batches into the epoch counts its batches from 0."""
        self.epoch_start = -taken
        self.asked = {}

    def feed(self, key):
        """An fn.external_source giving FED argument `key` to every sample of each batch, in its
        exact DALI type (a float64 where float32 is expected would stop the pipeline)."""
        kind, parts = FED[key]
        batch_size = Pipeline.current().max_batch_size

        def next_batch(_iteration):
            number = self.asked.get(key, 0)
            self.asked[key] = number + 1
            epoch = self.epoch_of(number)
            if isinstance(parts, list):  # a vector: each sample gets its values
                sample = [self.value(p, epoch) if isinstance(p, str) else p for p in parts]
                shape = (batch_size, len(sample))
            else:  # a scalar: a 0-D tensor per sample
                sample, shape = self.value(parts, epoch), (batch_size,)
            return np.full(shape, sample, dtype=NUMPY_TYPES[kind])

        return fn.external_source(
            source=next_batch, batch=True, dtype=getattr(types.DALIDataType, kind)
        )


class ScheduledLoader:
    """make_loader's iterator for a graph with schedules: the batches of a DALIGenericIterator
    (`iterator`), each epoch's drawn with that epoch's values and the same seeds, so epoch e
    gives what augexplorer shows at epoch e.

    - set_epoch(epoch): as a sampler's, before an epoch's batches (the loader also moves to the
      next epoch by itself at the end of each). Nothing is built before the first batch, so a
      new loader's first batch after set_epoch(e) is augexplorer's at epoch e. Under torchrun,
      give every rank the same epoch.
    - set_strength(name, value): `value` in place of schedule `name` until set again (None:
      the schedule again), e.g. an apply probability driven by a metric. A fed value changes
      from the next batch DALI prepares: the batches prepared already (prefetch_queue_depth,
      2 by default) keep theirs; a BUILT one rebuilds the pipeline before the next batch.

    - checkpoint(): where the loader stands (its epoch, the batches taken in it, the values
      set_strength put in place and DALI's checkpoint of the pipeline), as bytes for
      make_loader(..., checkpoint=...), whose loader goes on from there. The batches DALI
      prepared before a set_strength (prefetch_queue_depth) are drawn again after the
      resume, with the value set.
    - valid: how many samples of the last batch, from the first, are not padding.
    An epoch other than the next one while batches are prepared, or a BUILT value that changes,
    rebuilds the pipeline from its checkpoint: the reader and every random draw go on where
    they stood.
    """

    def __init__(self, make_iterator, batch_size, reading, checkpoint=None):
        self.make_iterator = make_iterator  # (strengths, DALI checkpoint) -> DALIGenericIterator
        self.batch_size = batch_size
        self.strengths = Strengths()
        self.iterator = None  # made at the first batch
        self.taken = 0  # batches taken in this epoch
        self.stale = False  # the pipeline must be rebuilt before the next batch
        self.warned_past_run = False  # an epoch past EPOCHS was met, and said
        self.warned_rebuild = False  # rebuilt without a checkpoint (built()), and said
        self.held = None  # a batch taken from DALI's iterator before it was asked for
        self.resume = None  # DALI's checkpoint the first pipeline starts from
        self.reading = reading  # reads()'s arguments: digested only for a checkpoint
        if checkpoint is not None:
            self._restore(checkpoint)

    def checkpoint(self):
        """Where the loader stands, as bytes for make_loader(..., checkpoint=...)."""
        if self.held is not None:  # DALI's place is past the batch held
            raise RuntimeError("no checkpoint while a batch is held: take it first")
        pipeline = self.resume if self.iterator is None else self._place()
        return loader_state(
            pipeline,
            reads(*self.reading),
            epoch=self.strengths.epoch,
            taken=self.taken,
            overrides=self.strengths.overrides,
        )

    def _place(self):
        """DALI's checkpoint of the running pipeline: where its reader and draws stand."""
        unresumable = getattr(self.iterator._pipes[0], "unresumable", None)
        if unresumable is not None:  # built without checkpointing (built())
            raise RuntimeError(unresumable)
        return self.iterator.checkpoints()[0]

    def _rebuild_from(self):
        """Where a rebuilt pipeline starts: the running one's place, or, where it has no
        checkpoint (built()), the start at an epoch's start (the reader's order and the draws
        begin again, said once); mid-epoch it would read the epoch's files again."""
        if getattr(self.iterator._pipes[0], "unresumable", None) is None:
            return self._place()
        if self.taken:
            raise RuntimeError(
                "a value read when the pipeline is built changed in the middle of an epoch, and "
                "this graph's pipeline cannot be rebuilt where it stood: "
                + self.iterator._pipes[0].unresumable
                + " (or change the value between epochs)"
            )
        if not self.warned_rebuild:
            self.warned_rebuild = True
            warnings.warn(
                "the pipeline was rebuilt for a new value without DALI's checkpoint (an operator "
                "of the graph has none): its reader's order and random draws start over",
                stacklevel=3,
            )
        return None

    def _restore(self, checkpoint):
        state = saved_state(checkpoint, reads(*self.reading))
        self.strengths.epoch, self.taken = state["epoch"], state["taken"]
        self.strengths.overrides = dict(state["overrides"])
        self.resume = state["pipeline"]

    def set_epoch(self, epoch):
        if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 0:
            raise ValueError(f"epoch must be an integer >= 0, got {epoch!r}")
        self._check_in_run(epoch)
        if epoch != self.strengths.epoch and self._epoch_taken():
            # every batch of the epoch taken, its end not yet met (DALI's iterator says so at
            # the next call): end it here, as a for loop would have, so that a loop counting
            # len(loader) batches gets the epoch it sets, not the one after
            self._end_epoch()
        if epoch == self.strengths.epoch:
            return
        built = self._built_values(self.strengths.epoch)
        self.strengths.epoch = epoch
        # batches prepared at the old epoch, or a value read at build time that changes: the
        # pipeline goes back to where the taken batches end (fed values are read as DALI asks)
        prepared = len(self.strengths.asked) > 0 or built != self._built_values(epoch)
        self.stale = self.stale or (self.iterator is not None and prepared)

    def set_strength(self, name, value):
        if name not in SCHEDULES:
            raise KeyError(f"no schedule {name!r}; the schedules: {', '.join(SCHEDULES)}")
        if value is None:
            self.strengths.overrides.pop(name, None)
        else:
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError(f"{name}: {value} is not a finite number")
            if name.endswith((".apply", ".probability")) and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a probability: give a value from 0 to 1")
            self.strengths.overrides[name] = value
        self.stale = self.stale or (name in BUILT and self.iterator is not None)

    def _built_values(self, epoch):
        return [self.strengths.value(name, epoch) for name in BUILT]

    def _start(self, checkpoint=None):
        self.iterator = self.make_iterator(self.strengths, checkpoint)
        self.strengths.epoch_batches = -(-self.iterator.size // self.batch_size)
        self.stale = False

    def _begin(self):
        # the first pipeline: from the start, or from a checkpoint `taken` batches into its epoch
        checkpoint, self.resume = self.resume, None
        if checkpoint is not None:
            self.strengths.restart(self.taken)
        self._start(checkpoint)

    def __iter__(self):
        return self

    def __next__(self):
        if self.iterator is None:
            self._begin()
        elif self.stale:  # rebuilt where it stood: the reader and the draws go on
            checkpoint = self._rebuild_from()
            self.iterator = None
            self.strengths.restart(self.taken)
            self._start(checkpoint)
        if self.held is not None:
            batch, self.held = self.held, None
        else:
            try:
                batch = next(self.iterator)
            except StopIteration:  # the iterator has reset itself: on to the next epoch
                self._next_epoch()
                raise
        self._check_in_run(self.strengths.epoch)  # a batch taken past the run
        self.taken += 1
        return batch

    def _epoch_taken(self):
        return (
            self.iterator is not None
            and not self.stale
            and self.held is None
            and self.taken >= len(self.iterator)  # DROP's count too: whole batches only
        )

    def _end_epoch(self):
        try:
            self.held = next(self.iterator)  # not expected: the epoch had a batch more
        except StopIteration:
            self._next_epoch()

    def _next_epoch(self):
        before = self._built_values(self.strengths.epoch)
        self.strengths.epoch_start += self.strengths.epoch_batches
        self.strengths.epoch += 1
        self.strengths.epoch_batches = -(-self.iterator.size // self.batch_size)
        self.taken = 0
        self.stale = before != self._built_values(self.strengths.epoch)

    def _check_in_run(self, epoch):
        # Past the run the schedules were made for they hold their last values: said once, as
        # a curriculum that ends early (or a loop counting epochs from 1) is otherwise silent.
        if epoch >= EPOCHS and not self.warned_past_run:
            self.warned_past_run = True
            warnings.warn(
                f"epoch {epoch} is past the {EPOCHS} epochs (0..{EPOCHS - 1}) the schedules were "
                "made for: they hold their last values from here on (fix: set the training "
                "run's length in augexplorer and export again; epochs count from 0)",
                stacklevel=3,
            )

    def __len__(self):
        if self.iterator is None:
            self._begin()
        return len(self.iterator)

    def reset(self):
        if self.iterator is not None:
            self.iterator.reset()

    @property
    def valid(self):
        """How many samples of the last batch, from the first, are the epoch's own (Batches)."""
        return None if self.iterator is None else self.iterator.valid

'''

# The first line of the pipeline function of a graph with schedules.
PIPELINE_STRENGTHS = """    # the loader's scheduled values (without one: every schedule at epoch 0)
    strengths = strengths if strengths is not None else Strengths()
"""

_ITERATOR = """    def make_iterator(strengths, state):
        def pipeline(checkpointing):
            return @@function@@(
                @@data_arguments@@
                device=device,
                shard_id=shard_id,
                num_shards=num_shards,
                rank=shard_id,
                batch_size=batch_size,
                num_threads=num_threads,
                device_id=device_id,
                strengths=strengths,
                enable_checkpointing=checkpointing,
                checkpoint=state if checkpointing else None,
            )

        pipe = built(pipeline, state)
        return @@iterator@@(
            [pipe],
            OUTPUTS,@@label_table@@
            files=files,
            unreadable=unreadable,
            reader_name=@@reader@@,
            last_batch_policy=last_batch_policy,
            auto_reset=True,
            prepare_first_batch=False,
        )

    return ScheduledLoader(make_iterator, batch_size, reading, checkpoint)

"""


def loader(start: str, labelled: bool) -> str:
    """make_loader for a graph with schedules: `start` is :mod:`.template`'s beginning of it."""
    read = (
        "files, labels, label_table = read_data(data)"
        if labelled
        else ("files, labels, _ = read_data(data)")
    )
    start = start.replace(
        '    """\n    if device is None:',
        "    The graph's values follow the run: the iterator is a ScheduledLoader, whose\n"
        "    set_epoch(epoch) and set_strength(name, value) set them (see SCHEDULES).\n"
        '    """\n    if device is None:',
    )
    return (
        start
        + f"    {read}\n    reading = (files, shard_id, num_shards, batch_size)\n\n"
        + _ITERATOR.replace("@@data_arguments@@", "files,\n                labels,")
        .replace("@@iterator@@", "LabelledIterator" if labelled else "Batches")
        .replace("@@label_table@@", "\n            label_table," if labelled else "")
    )
