"""``python -m speckernel_jml.javatools``: build the JavaParser helper (the install step)."""

import sys

from speckernel_jml.javatools.toolchain import main

sys.exit(main())
