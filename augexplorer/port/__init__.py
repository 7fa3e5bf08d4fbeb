"""Ports of other libraries' augmentation pipelines (torchvision, albumentations) into graphs:
``port_file("train.py")`` reads a file or notebook without running it, ``port_object(train_transform)``
a live Compose from its attributes; each gives a :class:`PortResult` (``.spec``, ``.summary()``)."""

from .door import port_file, port_object
from .model import PortedStep, PortResult, Refusal, Symbol, TransformCall, Unknown

__all__ = [
    "PortResult",
    "PortedStep",
    "Refusal",
    "Symbol",
    "TransformCall",
    "Unknown",
    "port_file",
    "port_object",
]
