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
        self._dir = tempfile.TemporaryDirectory(prefix="augexplorer-variety-")

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
        listing = Path(self._dir.name) / "variety.txt"
        if (image, labels, self.copies) != self._file:
            listing.write_text(f"{image} {labels}\n" * self.copies, encoding="utf-8")
            self._file = (image, labels, self.copies)
            self._session = None
        varied = dataclasses.replace(
            spec.with_source(Source(source_id, "file_list", str(listing), shuffle=False)),
            batch_size=self.copies,
        )
        if self._session is None:
            self._session = Session(varied, catalog=self.catalog)
            return self._session.run()
        return self._session.update(varied)

    def close(self) -> None:
        self._session = None
        if os.path.isdir(self._dir.name):
            self._dir.cleanup()
