"""speckernel-tla: TLA+ models checked by SANY and TLC, for SysMoBench.

Modules: :mod:`toolchain` (finding tla2tools.jar), :mod:`jvm` (java command lines, the SanyBatch
driver), :mod:`stdlib` (the bundled SequencesExt/FiniteSetsExt), :mod:`sany` (parsing modules),
:mod:`actions` (per-action syntax credit), :mod:`tlc_output` and :mod:`tlc` (model checking),
:mod:`verifiers` and :mod:`plugin` (what the kernel sees).
"""
