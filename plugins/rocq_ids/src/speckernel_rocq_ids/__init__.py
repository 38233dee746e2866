"""speckernel plugin for IDS (Inductive Deductive Synthesis): key-value stores whose consistency
guarantee is proved in Rocq by a refinement to a specification store."""
