"""The browser the viewer's tests drive: Debian's Chromium and its ChromeDriver
(``kernel tools install browser``), and the flags it needs on a machine without network.

The viewer itself needs no browser of its own (it opens the user's); this toolchain exists so
that the browser tests install what they drive the same way on a fresh CI machine as here.
"""

from __future__ import annotations

import shutil

from speckernel.components import InstallStep, Toolchain, ToolStatus

CHROMIUM = "chromium"
CHROMEDRIVER = "chromedriver"


def find_browser() -> str | None:
    """The Chromium binary, when it and its driver are both on ``PATH``."""
    browser = shutil.which(CHROMIUM)
    return browser if browser and shutil.which(CHROMEDRIVER) else None


def chromium_flags(profile: str, width: int, height: int) -> list[str]:
    """Headless, no sandbox (it runs as root here), no GPU, and none of the background
    networking (component updates, sync, QUIC, first-run fetches) that hangs on a machine
    without network; ``profile`` is a fresh user data directory."""
    return ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", f"--user-data-dir={profile}",
            f"--window-size={width},{height}"]


class BrowserToolchain(Toolchain):
    """Found when both ``chromium`` and ``chromedriver`` are on ``PATH``."""

    name = "browser"
    description = "headless Chromium and ChromeDriver, for the viewer's browser tests"
    install = (InstallStep("debian", "chromium chromium-driver"),)

    def detect(self) -> ToolStatus:
        browser = find_browser()
        if browser is None:
            return ToolStatus(self.name, False, detail="chromium or chromedriver not on PATH")
        version = self.version_of([browser, "--version"]) or ""
        return ToolStatus(self.name, True, version, browser)
