"""Boxes, labels, polygons and masks carried through a graph beside the images they belong to.

:mod:`.tracks` works out, for any image node, which node outputs hold its annotations (the
annotation nodes that move with the image operators before it); :mod:`.samples` turns a run's
outputs there into per-sample annotations in the pixel coordinates of that image.
"""

from .samples import SampleAnnotations, annotations_at
from .tracks import TRACK_KINDS, AnnotationFormat, Tracks, tracks_at

__all__ = [
    "TRACK_KINDS",
    "AnnotationFormat",
    "SampleAnnotations",
    "Tracks",
    "annotations_at",
    "tracks_at",
]
