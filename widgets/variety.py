"""One image, many draws: the same graph run on N copies of one sample.

Each copy gets its own per-sample random draws, exactly as in training, in a single batch. The
copies come from a file list that names the same file N times, read in order; the graph itself is
unchanged, decoder included.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

from augexplorer.catalog import Catalog
from augexplorer.coco_file import write_subset
from augexplorer.engine import RunResult, Session
from augexplorer.spec import GraphSpec, Source

MIN_COPIES = 2
MAX_COPIES = 64


class VarietyError(Exception):
    pass


class Variety:
    def __init__(self, catalog: Catalog, copies: int = 8) -> None:
        self.catalog = catalog
        self.copies = copies
        self._session: Session | None = None
        self._file: tuple[str, str, int] | None = None
        self.caption = ""
        # made on the first run that needs it: every panel has a Variety, few open the view
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    def image_of(self, result: RunResult, sample: int = 0) -> str:
        """The file sample `sample` of the batch was read from."""
        data = result.source_data()
        if data is None or data.kind == "arrays":
            raise VarietyError("the variety view needs images read from files")
        name = result.files()[sample]
        path = Path(data.file_root or "") / name if data.file_root else Path(name)
        if any(ch.isspace() for ch in str(path)):
            raise VarietyError(f"{path}: file names with spaces cannot go in a DALI file list")
        return str(path)

    def run(self, spec: GraphSpec, result: RunResult, sample: int = 0) -> RunResult:
        """Run `spec` on `copies` copies of one sample of `result`'s batch; :attr:`caption`
        is then that sample's class name (a file list has numbers only)."""
        image = self.image_of(result, sample)
        source_id = spec.sources()[0].id
        labels = " ".join(str(v) for v in result.labels(source_id)[sample])
        self.caption = result.captions(source_id)[sample]
        if (image, labels, self.copies) != self._file:
            self._file = (image, labels, self.copies)
            self._session = None
        varied = dataclasses.replace(
            spec.with_source(self._one_image_source(spec, result, sample, image, labels)),
            batch_size=self.copies,
        )
        if self._session is None:
            self._session = Session(varied, catalog=self.catalog)
            return self._session.run()
        return self._session.update(varied)

    def _one_image_source(
        self, spec: GraphSpec, result: RunResult, sample: int, image: str, labels: str
    ) -> Source:
        """A source that reads one image over and over: a file list naming it `copies` times,
        or, for an annotated source, a COCO file of that image alone (its annotations and every
        category, so labels keep their numbers), which the reader reads round and round."""
        source = spec.sources()[0]
        data = result.source_data(source.id)
        if data is not None and data.coco is not None:
            subset = write_subset(
                data.coco, [result.files()[sample]], self._folder() / "variety.json"
            )
            return dataclasses.replace(
                source, path=str(subset), file_root=data.file_root, shuffle=False, skip_bad=False
            )
        listing = self._folder() / "variety.txt"
        listing.write_text(f"{image} {labels}\n" * self.copies, encoding="utf-8")
        return Source(source.id, "file_list", str(listing), shuffle=False)

    def _folder(self) -> Path:
        if self._dir is None or not os.path.isdir(self._dir.name):
            self._dir = tempfile.TemporaryDirectory(prefix="augexplorer-variety-")
        return Path(self._dir.name)

    def close(self) -> None:
        self._session = None
        if self._dir is not None and os.path.isdir(self._dir.name):
            self._dir.cleanup()
        self._dir = None
