"""Other data opens at its first batch: after "Next batch" twice, switching the panel to the
COCO photos showed their third batch ("the epoch's last batch: 5 tiles marked padding"), where
the reader of the old data had stood. An edit of the graph on the same data keeps the batch."""

from __future__ import annotations

from augexplorer import Session
from augexplorer.spec import Source


def test_other_data_opens_at_its_first_batch() -> None:
    session = Session("basic", batch_size=8, device_id=None)
    session.run()
    session.next_batch()
    session.next_batch()
    assert session.set_arg("rotate", "angle", 5.0).batch_index == 2  # an edit: the same batch
    coco = Source("source", kind="coco")
    assert session.update(session.spec.with_source(coco)).batch_index == 0
    session.next_batch()
    assert session.set_source(Source("source", kind="samples")).batch_index == 0
