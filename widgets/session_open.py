"""Opening the panel's session on what the user asked for, even where that cannot run yet: the
panel then opens on a graph that can, and shows why the user's cannot beside its fix, with the
user's graph (not the stand-in) on screen, in the undo history and in the autosave."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from augexplorer.catalog import Catalog
from augexplorer.engine import Session
from augexplorer.engine.session import requested_graph
from augexplorer.errors import AugExplorerError, DataError, GraphInvalid
from augexplorer.spec import GraphSpec


@dataclass(frozen=True)
class Opened:
    """The session, and what it stands in for: a folder or file list that could not be read
    (`unread`: its kind and path) or a graph that does not validate (`refused`)."""

    session: Session
    unread: tuple[str, str] | None = None
    refused: GraphSpec | None = None


def open_session(
    spec: GraphSpec | str | os.PathLike[str] | None,
    data: Any,
    batch_size: int | None,
    catalog: Catalog | None,
) -> Opened:
    try:
        return Opened(Session(spec, data, batch_size=batch_size, catalog=catalog))
    except DataError as unreadable:
        if not isinstance(data, (str, os.PathLike)):
            raise
        # A folder or file list that cannot be read (bad files, a wrong path): the panel opens
        # on the graph's own data and then reads the path given, which fails there, saying why
        # beside its fix (skip bad files, another path in the toolbar).
        try:
            session = Session(spec, None, batch_size=batch_size, catalog=catalog)
        except AugExplorerError:
            raise unreadable from None  # the graph's own data fails too: the path's error
        return Opened(
            session, unread=("file_list" if os.path.isfile(data) else "folder", os.fspath(data))
        )
    except GraphInvalid as invalid:
        # A graph that does not validate (a file edited by hand, an argument DALI no longer
        # takes): the panel opens on the basic preset, never run or shown, and the user's graph
        # replaces it at once, failing there with its problems and their fixes.
        refused = requested_graph(spec, data, batch_size)
        try:
            session = Session(None, data, batch_size=refused.batch_size, catalog=catalog)
        except DataError:
            # the data fails too (a bad file): the stand-in reads the bundled samples; the
            # user's graph keeps the path, whose error shows once the graph's are fixed
            try:
                session = Session(None, None, batch_size=refused.batch_size, catalog=catalog)
            except AugExplorerError:
                raise invalid from None
        except AugExplorerError:
            raise invalid from None
        return Opened(session, refused=refused)
