"""speckernel plugin for RESpecBench: a model turns a natural-language statement into a formal
specification, and a sound, domain-specific verifier decides whether it is equivalent to the
task's oracle (``success``), refutes it with a re-checked counterexample (``refuted``), or cannot
tell within its time limit or fragment (``unknown``).

Domains: ``gsm`` (GSM-Symbolic+ answer expressions, Z3), ``fol`` (FOLIO formulas, Z3), ``regex``
(DeepRegex and Python regexes, DFA equivalence), ``sql`` (queries on a schema, SQLite
counterexamples) and ``rocq`` (Gallina definitions, CoqHammer and QuickChick).
"""

__version__ = "0.1.0"
