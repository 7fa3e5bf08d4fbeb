"""Ports of other libraries' augmentation pipelines (torchvision, albumentations) into graphs."""

from .model import PortedStep, PortResult, Refusal, TransformCall, Unknown

__all__ = ["PortResult", "PortedStep", "Refusal", "TransformCall", "Unknown"]
