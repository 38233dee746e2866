"""``python -m speckernel`` is the ``kernel`` command."""

from speckernel.cli import main

main()
