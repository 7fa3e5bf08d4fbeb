"""The augexplorer notebook panel: ``Explorer()`` edits a DALI augmentation graph live."""

from .explorer import Explorer

__all__ = ["Explorer"]
