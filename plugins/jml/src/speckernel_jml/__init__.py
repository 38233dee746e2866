"""speckernel-jml: JML-annotated Java checked by KeY (and OpenJML when installed), for FormalBench.

Modules: :mod:`toolchain` (KeY from Maven Central), :mod:`key` (the warm-JVM KeY driver),
:mod:`openjml` (OpenJML command and output parsing), :mod:`verifiers` (one interface over both),
:mod:`failures` (FormalBench failure categories and guidance), :mod:`tasks` (bundled and
published tasks), :mod:`mutants` and :mod:`transforms` (code rewrites on JavaParser),
:mod:`scoring`, :mod:`agents`, :mod:`report` and :mod:`plugin` (what the kernel sees).
"""
