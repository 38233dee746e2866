"""Finding the Rocq (Coq) compiler and the OCaml toolchain its extraction targets.

Debian ships Coq 8.16 as package ``coq``; the framework uses only the 8.x standard library
(``From Coq Require``), as the public IDS task does (notes §1.3). OCaml (``rocq_ids-ocaml``)
compiles the extracted store and its replica runtime for the bounded-state check and the
cluster harness of IDS §6.
"""

from __future__ import annotations

import shutil

from speckernel.components import InstallStep, Toolchain, ToolStatus

_COQ_BANNER = "The Coq Proof Assistant, version "


class CoqIdsToolchain(Toolchain):
    """``coqc`` (required) and ``ocamlfind``/``ocaml`` (for extraction, reported only)."""

    name = "rocq_ids-coq"
    description = "Coq 8.x compiler for the IDS framework; OCaml for extracted stores"
    install = (InstallStep("debian", "coq ocaml-nox ocaml-dune",
                           note="coqc checks the refinement proofs; OCaml runs extracted stores"),)

    def detect(self) -> ToolStatus:
        banner = self.version_of(["coqc", "--version"])
        if banner is None:
            return ToolStatus(self.name, False, detail="coqc not found on PATH")
        if not banner.startswith(_COQ_BANNER):
            return ToolStatus(self.name, False, detail=f"coqc --version said: {banner!r}")
        version = banner.removeprefix(_COQ_BANNER).strip()
        ocaml = self.version_of(["ocaml", "-vnum"])
        extraction = f"ocaml {ocaml}" if ocaml else "ocaml not found (needed for extraction)"
        return ToolStatus(self.name, True, version=version, path=shutil.which("coqc") or "",
                          detail=f"coqc {version}; {extraction}")
