"""The external tools of the respec domains, and how to find and install them.

This is the one module of the plugin that may start a process outside the kernel sandbox
(``tests/test_boundary.py`` of the kernel allows modules named ``toolchain.py``): detection runs
trusted commands (``coqc --version``, ``coqc -where``, ``mariadbd --version``) on no model
output, through the kernel's ``Toolchain.version_of``. Everything that touches a candidate runs
in the sandbox.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from speckernel.components import InstallStep, Toolchain, ToolStatus

HAMMER_HELPERS = "/usr/libexec/coq-hammer"
"""Where Debian's libcoq-hammer keeps ``htimeout`` and ``predict`` (must be on ``PATH``)."""

MARIADB_DIRS = ("/usr/sbin", "/usr/bin")
"""Where Debian's mariadb-server puts ``mariadbd`` and ``mariadb-install-db`` (``/usr/sbin`` is
not on every user's ``PATH``)."""


class CoqToolchain(Toolchain):
    """Coq 8.16 with CoqHammer (and the ATPs it drives) and QuickChick, from Debian.

    QuickChick compiles the extracted tests with ``ocamlbuild`` and needs ``zarith``; those two
    Debian packages are part of the install.
    """

    name = "coq"
    description = "Coq proof assistant with CoqHammer (E, CVC4, Z3) and QuickChick"
    install = (InstallStep("debian", "coq libcoq-hammer eprover cvc4 z3 libcoq-quickchick "
                                     "ocamlbuild libzarith-ocaml-dev"),)

    def detect(self) -> ToolStatus:
        coqtop = shutil.which("coqtop")
        if coqtop is None:
            return ToolStatus(self.name, False, detail="coqtop not on PATH")
        version = self.version_of(["coqc", "--version"]) or ""
        where = self.version_of(["coqc", "-where"])
        contrib = Path(where) / "user-contrib" if where else None
        missing = [lib for lib in ("Hammer", "QuickChick")
                   if contrib is None or not (contrib / lib).is_dir()]
        missing += [tool for tool in ("eprover", "cvc4", "ocamlbuild") if not shutil.which(tool)]
        if not Path(HAMMER_HELPERS, "htimeout").exists():
            missing.append(f"{HAMMER_HELPERS}/htimeout")
        detail = f"missing: {', '.join(missing)}" if missing else "hammer (E, CVC4), quickchick"
        return ToolStatus(self.name, not missing, version, coqtop, detail)


def mariadb_program(name: str) -> str | None:
    """The path of MariaDB program ``name`` (``mariadbd``, ``mariadb-install-db``), or None."""
    found = shutil.which(name)
    if found:
        return found
    return next((str(Path(d, name)) for d in MARIADB_DIRS if Path(d, name).is_file()), None)


class MariadbToolchain(Toolchain):
    """MariaDB server from Debian: the engine of the SQL domain's MySQL dialect (LeetCode and
    Polygon queries are MySQL). The plugin starts its own unprivileged, network-less instance
    in the sandbox (``domains.sql_mariadb``); no system service is used or needed."""

    name = "mariadb"
    description = "MariaDB server (MySQL dialect of the respec sql domain)"
    install = (InstallStep("debian", "mariadb-server"),)

    def detect(self) -> ToolStatus:
        server = mariadb_program("mariadbd")
        installer = mariadb_program("mariadb-install-db")
        if server is None or installer is None:
            return ToolStatus(self.name, False, detail="mariadbd or mariadb-install-db not found")
        version = self.version_of([server, "--version"]) or ""
        return ToolStatus(self.name, True, version, server, "server and mariadb-install-db")
