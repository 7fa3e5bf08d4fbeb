"""What every PIL class of a project's own shares, before its port: the file fails where the
image is already a tensor, and a probability of 0 leaves the image as it is."""

from __future__ import annotations

from ..build import Grade, PortContext, Refuse
from ..model import TransformCall
from .arguments import is_tensor


def pil_class_grade(
    call: TransformCall, context: PortContext, method: str, p: float
) -> Grade | None:
    """Refuse `call` on a tensor (its `method` is PIL's, which a tensor has not); the grade of
    a class that never applies (p of 0); None where the class is ported as usual."""
    if is_tensor(context):
        raise Refuse(
            f"{call.name} calls PIL's {method}, which a tensor has not: the file fails on it "
            "here (AttributeError) (fix: put it before ToTensor(), ToImage() or PILToTensor())"
        )
    if p <= 0:
        return Grade("exact", ("Its probability is 0: the image passes as it is.",))
    return None


def read_as(defined_at: str | None, p: float) -> dict[str, str]:
    """The words a grade of such a class fills in: whose it is and where it was read
    (`defined_at`: another of the project's files, or None for the file's own), and its
    probability where it is under 1."""
    return {
        "owner": "project's" if defined_at else "file's",
        "where": f" ({defined_at})" if defined_at else "",
        "chance": f", with probability {p:g}" if p < 1 else "",
    }


__all__ = ["pil_class_grade", "read_as"]
