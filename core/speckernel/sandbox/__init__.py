"""Sandboxes that run external tools on untrusted artifacts."""

from speckernel.sandbox.base import Limits, ProcessResult, Sandbox

__all__ = ["Limits", "ProcessResult", "Sandbox"]
