"""Extracting a candidate's store to OCaml and linking it with the replica runtime (IDS §6).

A store is built in a directory of its own inside the sandbox: the task's Coq files, the
candidate's ``Impl.v`` and the obligation are compiled, then the plugin's own ``Extract.v``
(which requires the compiled obligation, so nothing is extracted that was not verified, and
names the implementation by its full name) has Coq's ``Extraction`` write the implementation
module to ``store.ml`` (``nat`` and ``Z`` as OCaml ``int``). The candidate's file can hold no
extraction directive (:mod:`commands` refuses them), so every line of ``store.ml`` comes from
its verified definitions and the team's mappings. ``ocamlfind ocamlopt`` links it with the
runtime of ``runtime/``
(``ids_runtime.ml``, a functor over the seven methods, and ``ids_clock.c``, the monotonic clock)
into one executable that runs as replica, client worker or in-process probe. A store whose
types or methods do not fit the runtime's signature fails at the link step, with OCaml's message.
"""

from __future__ import annotations

import shutil
from importlib import resources

import attrs
from speckernel.components import InstallStep, Toolchain, ToolStatus

from speckernel_rocq_ids.coqbuild import Step, StepResult
from speckernel_rocq_ids.sources import LOGICAL_ROOT
from speckernel_rocq_ids.tasks import CANDIDATE_FILE, Obligation

EXECUTABLE = "ids_store"
EXTRACT_FILE = "Extract.v"
RUNTIME = ("ids_clock.c", "ids_runtime.ml")
CLUSTER_SCRIPT = "cluster_run.py"


class OcamlToolchain(Toolchain):
    """``ocamlfind ocamlopt`` (with the C compiler it calls) for linking extracted stores;
    Debian's OCaml 4.13 with findlib, which the ``coq`` package already pulls in. The same
    step installs iproute2: ``ip`` and ``tc`` wire the cluster harness's test hosts, which fall
    back to loopback without them, so they are installed here but not required by ``detect``
    (an install step after the first would never run once OCaml is found)."""

    name = "rocq_ids-ocaml"
    description = "OCaml native compiler and findlib for extracted IDS stores"
    install = (InstallStep("debian", "ocaml-nox ocaml-findlib gcc iproute2",
                           note="links the extracted store with the replica runtime; ip and "
                                "tc wire the cluster's test hosts"),)

    def detect(self) -> ToolStatus:
        version = self.version_of(["ocamlfind", "ocamlopt", "-version"])
        if version is None:
            return ToolStatus(self.name, False, detail="ocamlfind not found on PATH")
        if shutil.which("gcc") is None and shutil.which("cc") is None:
            return ToolStatus(self.name, False, detail="no C compiler (gcc) for ocamlopt")
        return ToolStatus(self.name, True, version=version,
                          path=shutil.which("ocamlfind") or "", detail=f"ocamlopt {version}")


def runtime_source(name: str) -> str:
    """The text of ``runtime/<name>`` (the OCaml runtime or the cluster launcher)."""
    return (resources.files("speckernel_rocq_ids") / "runtime" / name).read_text("utf-8")


def extract_source(obligation: Obligation, proved: bool = True) -> str:
    """The Coq file extracting the implementation module to ``store.ml`` (``nat``, ``N``,
    ``positive`` and ``Z`` as OCaml ``int``). With ``proved`` it requires the compiled
    obligation, so it runs only once the refinement theorem was checked."""
    needed = obligation.obligation_file.removesuffix(".v") if proved else "Impl"
    return (f"From Coq Require Extraction ExtrOcamlBasic ExtrOcamlNatInt ExtrOcamlZInt.\n"
            f"From {LOGICAL_ROOT} Require Impl {needed}.\n"
            f'Extraction "store.ml" {LOGICAL_ROOT}.Impl.{obligation.impl_module}.\n')


def main_source(obligation: Obligation) -> str:
    """The executable's entry point: the runtime instantiated with the extracted module."""
    return (f"module R = Ids_runtime.Make (Store.{obligation.impl_module})\n"
            f"let () = R.main ()\n")


@attrs.frozen
class StoreBuild:
    """One store built in ``folder``: its files and the steps that compile and link it.
    ``proved`` (the default) compiles the obligation too and extracts only after it; without
    it the store is extracted unproved (tests of the runtime's checks on stores that need no
    proof to be wrong)."""

    folder: str
    obligation: Obligation
    proved: bool = True

    @property
    def coq_files(self) -> tuple[str, ...]:
        """The Coq files up to the obligation (or the candidate), in dependency order."""
        order = self.obligation.build_order
        return order if self.proved else order[:order.index(CANDIDATE_FILE) + 1]

    @property
    def executable(self) -> str:
        return f"{self.folder}/{EXECUTABLE}"

    def files(self, task_files: dict[str, str], impl: str) -> dict[str, str]:
        """Everything the build reads, placed under ``folder``."""
        own = {**{name: task_files[name] for name in self.coq_files if name in task_files},
               CANDIDATE_FILE: impl, EXTRACT_FILE: extract_source(self.obligation, self.proved),
               "ids_main.ml": main_source(self.obligation),
               **{name: runtime_source(name) for name in RUNTIME}}
        return {f"{self.folder}/{name}": text for name, text in own.items()}

    def command(self, name: str, *argv: str, keep_going: bool = False) -> Step:
        """A step running ``argv`` inside ``folder``, named ``<folder>:<name>``."""
        return Step(f"{self.folder}:{name}", ("sh", "-c", f"cd {self.folder} && exec \"$@\"",
                                              "sh", *argv), keep_going)

    def steps(self) -> list[Step]:
        """coqc of each file, extraction, then the OCaml link; each stops the build on error."""
        coqc = [self.command(f, "coqc", "-q", "-Q", ".", LOGICAL_ROOT, f)
                for f in (*self.coq_files, EXTRACT_FILE)]
        link = self.command("ocaml", "ocamlfind", "ocamlopt", "-package", "unix", "-linkpkg",
                               *RUNTIME[:1], "store.mli", "store.ml", *RUNTIME[1:],
                               "ids_main.ml", "-o", EXECUTABLE)
        return [*coqc, link]

    def failure(self, steps: dict[str, StepResult]) -> str | None:
        """Why the build did not produce the executable (one line), None when it did."""
        for step in self.steps():
            result = steps.get(step.name)
            if result is None:
                return f"{step.name} did not run (an earlier step stopped the build)"
            if not result.ok:
                stage = step.name.split(":", 1)[1]
                what = {"ocaml": "the extracted store does not link with the replica runtime",
                        EXTRACT_FILE: "Coq extraction failed"}.get(stage, f"coqc {stage} failed")
                return f"{what}: {_last_lines(result.output)}"
        return None


def _last_lines(text: str, count: int = 6) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " | ".join(lines[-count:]) or "no output"
