"""Annotations a module would hand to training that no longer match its images.

A geometric node added without its companion (a rotate inserted after a detection preset's
resize, with no ``bbox_rotate``) leaves the boxes where the images were: the panel says so on
the overlays and offers the fix, and a module exported as it stands would train on boxes off
their objects. The export says it loudly too: a warning when it is written, and first in the
module's header.
"""

from __future__ import annotations

import textwrap

from ..annotations.carry import MASKS_OWN, why_not_carried
from ..annotations.geometry import kinds_said
from ..annotations.tracks import image_chain, tracks_at
from ..spec import GraphSpec


class AnnotationsLeftBehind(UserWarning):
    """An exported graph outputs annotations that an image node moved away from."""


def left_behind(spec: GraphSpec) -> list[str]:
    """For each image node that moves pixels while annotations the graph outputs stay behind,
    what no longer matches after it; empty where every output annotation follows its images."""
    return list(_left_behind(spec))


def _left_behind(spec: GraphSpec) -> dict[str, tuple[str, list[str]]]:
    """:func:`left_behind`'s texts, each with its image node and the kinds it left."""
    outputs = list(spec.outputs.values())
    said: dict[str, tuple[str, list[str]]] = {}
    for output in outputs:  # the images wherever they are among the outputs
        tracks = tracks_at(spec, output.node)
        if tracks is None:
            continue
        # an output the tracks hold, or one named by its kind (annotations moved by companions
        # that no longer follow their image node are off the tracks, and still go to training);
        # not the output followed here: an annotation's own chain (the masks through their
        # resize) is no image chain that left it behind
        chain = set(image_chain(spec, output.node))
        given = {
            kind
            for kind, ref in tracks.refs.items()
            if ref in outputs or (kind in spec.outputs and spec.outputs[kind].node not in chain)
        }
        for image, kinds in tracks.left.items():
            stale = [kind for kind in kinds if kind in given]
            if not stale:
                continue
            op = spec.node(image).op
            text = f"{kinds_said(stale)} no longer match the images after {image!r} ({op})"
            said.setdefault(text, (image, stale))  # one image node seen from several outputs
    return said


FIX = (
    "carry them through it: the panel's overlay offers it, or add the node with "
    "augexplorer.annotations.wiring.add_operator, or carry_all(spec)"
)


def left_behind_message(spec: GraphSpec) -> str | None:
    """The warning for :func:`left_behind`, with the fix; None where nothing is left behind."""
    said = _left_behind(spec)
    if not said:
        return None
    items, carried, masks_off = [], False, False
    for text, (image, stale) in said.items():
        if masks_off and stale == ["masks"]:
            continue  # off since their own crop or resize: what follows it follows from it
        why = why_not_carried(spec, image, stale)
        if why is None:
            carried = True
            items.append(text)
        else:  # its own fix: no carry mends it
            items.append(f"{text} ({why})")
            masks_off = masks_off or why.startswith(MASKS_OWN)
    fix = f" (fix: {FIX})" if carried else ""
    return f"the module's annotations are off their objects: {'; '.join(items)}{fix}"


def left_behind_note(spec: GraphSpec) -> str:
    """The module header's paragraph for :func:`left_behind`; "" where nothing is left."""
    message = left_behind_message(spec)
    if message is None:
        return ""
    text = f"WARNING: ANNOTATIONS DO NOT MATCH THE IMAGES. {message[0].upper()}{message[1:]}."
    return "\n" + "\n".join(textwrap.wrap(text, 96)) + "\n"
