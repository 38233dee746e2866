"""speckernel: a microkernel harness for benchmarks of AI-written formal artifacts.

The public API is :mod:`speckernel.hookspecs` (the hooks), :mod:`speckernel.components` (the
base classes plugins subclass) and :mod:`speckernel.model` (the data they exchange).
"""

from speckernel.hookspecs import hookimpl

__version__ = "0.3.0"

__all__ = ["__version__", "hookimpl"]
