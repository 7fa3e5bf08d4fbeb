"""Ports of other libraries' augmentation pipelines (torchvision, albumentations) into graphs."""

from .model import PortedStep, PortResult, Refusal, Symbol, TransformCall, Unknown

__all__ = ["PortResult", "PortedStep", "Refusal", "Symbol", "TransformCall", "Unknown"]
