"""Label counts over the samples read: class balance, one count table per label column (for an
annotated source, one count per box: how many objects of each class were read)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data import SourceData
from ..spec import Ref
from .state import Gathered, Leaf, gathered, ints, summed


@dataclass
class LabelCounts:
    """How often each label was read, per column (a multi-label file list has several)."""

    source: str
    data: SourceData | None
    ref: Ref | None = None  # the source output holding the labels
    columns: list[Counter[int]] = field(default_factory=list)
    samples: int = 0

    @property
    def per_box(self) -> bool:
        return self.data is not None and self.data.kind == "coco"

    def add(self, raw_labels: list[np.ndarray]) -> None:
        """The reader's labels of one batch (one integer per sample, or one per box)."""
        if self.per_box:
            if not self.columns:
                self.columns.append(Counter())
            for raw in raw_labels:
                self.columns[0].update(int(x) for x in np.asarray(raw).reshape(-1))
                self.samples += 1
            return
        for raw in raw_labels:
            label = int(np.asarray(raw).reshape(-1)[0])
            values = self.data.labels_of(label) if self.data is not None else [label]
            while len(self.columns) < len(values):
                self.columns.append(Counter())
            for column, value in zip(self.columns, values, strict=False):
                column[value] += 1
            self.samples += 1

    def state(self) -> list[Leaf]:
        # counts keyed by label (a COCO category id can be any number): gathered, then summed
        return [ints(self.samples), Gathered([dict(column) for column in self.columns])]

    def load_state(self, combined: list[Leaf]) -> None:
        self.samples = int(summed(combined[0])[0])
        self.columns = []
        for columns in gathered(combined[1]):
            while len(self.columns) < len(columns):
                self.columns.append(Counter())
            for mine, theirs in zip(self.columns, columns, strict=False):
                mine.update(theirs)

    def name(self, label: int) -> str:
        if self.per_box and self.data is not None:
            return self.data.box_classes.get(label, str(label))
        classes = self.data.classes if self.data is not None else ()
        if len(self.columns) == 1 and 0 <= label < len(classes):
            return classes[label]
        return str(label)

    def never_read(self) -> list[str]:
        """Classes the source has that no sample read belonged to (single-label sources)."""
        if self.per_box and self.data is not None:
            seen_boxes = self.columns[0] if self.columns else Counter()
            return [
                name for label, name in self.data.box_classes.items() if label not in seen_boxes
            ]
        if self.data is None or len(self.columns) != 1 or not self.data.classes:
            return []
        seen = self.columns[0]
        return [name for index, name in enumerate(self.data.classes) if index not in seen]

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "samples": self.samples,
            "columns": [
                {self.name(label): count for label, count in sorted(column.items())}
                for column in self.columns
            ],
            "never_read": self.never_read(),
        }
