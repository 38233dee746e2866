"""speckernel-verus: proof synthesis for Verus-verified Rust (VeruSAGE-Bench, Verus-Bench).

Modules: :mod:`tasks` (loading both suites), :mod:`artifact` (a task's file), :mod:`cheats`
(the cheat checker), :mod:`toolchain` (finding Verus), :mod:`output` (parsing Verus's JSON),
:mod:`verifier` (``verus.verify``), :mod:`benchmark`, :mod:`scoring`, :mod:`proofs` and
:mod:`tables` (the report), :mod:`feedback`, :mod:`edits`, :mod:`acceptance`, :mod:`actions`,
:mod:`history`, :mod:`handson`, :mod:`handsoff` and :mod:`vstd` (the agents), :mod:`plugin`
(what the kernel sees).
"""
