"""The kernel's own toolchain: bubblewrap, which the local sandbox is built on
(``kernel tools install sandbox``)."""

from __future__ import annotations

from speckernel.components import InstallStep, Toolchain, ToolStatus
from speckernel.sandbox import boundary


class SandboxToolchain(Toolchain):
    """Found when bubblewrap is installed *and* can make the sandbox's namespaces here."""

    name = "sandbox"
    description = "bubblewrap, the local sandbox's isolation boundary"
    install = (InstallStep("debian", "bubblewrap"),)

    def detect(self) -> ToolStatus:
        # Look at the machine as it is now: ``kernel tools install`` detects again right after
        # installing bubblewrap, and a cached "missing" would fail a fresh machine's first install.
        boundary.probe.cache_clear()
        fence = boundary.probe()
        if fence.bwrap is None:
            return ToolStatus(self.name, False, detail=fence.problem or "")
        version = self.version_of([fence.bwrap, "--version"]) or ""
        return ToolStatus(self.name, True, version, fence.bwrap)
