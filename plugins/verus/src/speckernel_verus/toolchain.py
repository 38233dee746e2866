"""The plugin's external tools: Verus, the cheat checker's helper and verusfmt.

Verus cannot come from the registries this project reaches: a build needs a pinned Rust
toolchain with ``rustc-dev`` (1.88.0 for the VeruSAGE-Bench pin ddc66116, Sep 2025) and Z3 4.12.5
from GitHub, and Debian ships neither. So detection looks where a user put it (``VERUS``, the
tools directory, ``PATH``), and the ``command`` install step is the official binary release (a
GitHub zip plus ``rustup`` for its toolchain), which works on a machine with internet access and
fails loudly here. Verus runs behind the kernel's sandbox, which sees its release directory and
rustup's and cargo's homes read-only (``verus_read_only``); a Verus inside a docker image cannot
be reached from there (the sandbox has no docker socket, by design).

The helper (``verus-cheatcheck``, the plugin's Rust crate on ``verus_syn``) and verusfmt (Verus's
formatter, used by the tests and the benchmark script to make reformatted variants of tasks) are
built from crates.io with cargo by their install steps; nothing builds them lazily. This is the
only module of the plugin that starts processes itself: install and version detection, trusted
commands on no model output. Every other process goes through the kernel's sandbox.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from speckernel.components import InstallStep, Toolchain, ToolStatus
from speckernel.toolchains import tools_dir

VERUS_ENV = "VERUS"
"""Environment variable naming the ``verus`` binary (the upstream config's ``verus_path``)."""

TOOLS_SUBDIR = "verus"
RELEASE_DIR = "verus-x86-linux"
"""The directory the official Linux release zip unpacks to."""

RUST_TOOLCHAIN = "1.88.0"
"""The toolchain of the Verus commit VeruSAGE-Bench pins (``rust-toolchain.toml`` at ddc66116)."""

RELEASES = "https://api.github.com/repos/verus-lang/verus/releases/latest"

INSTALL_COMMAND = " ".join((
    'set -e; dest="${KERNEL_TOOLS_DIR:-$HOME/.local/share/speckernel/tools}/verus";',
    'mkdir -p "$dest";',
    f"url=$(curl -fsSL --connect-timeout 20 {RELEASES}",
    """| grep -o 'https://[^"]*x86-linux.zip' | head -n1);""",
    '[ -n "$url" ] || { echo "no Verus release found (is github.com reachable?)" >&2; exit 1; };',
    'curl -fsSL --connect-timeout 20 "$url" -o "$dest/verus.zip";',
    'unzip -qo "$dest/verus.zip" -d "$dest";',
    f"rustup toolchain install {RUST_TOOLCHAIN}",
))


def tools_home() -> Path:
    """Where ``kernel tools install verus`` unpacks the release."""
    return tools_dir() / TOOLS_SUBDIR


def candidate_binaries() -> list[tuple[str, Path]]:
    """Every ``verus`` that could serve, most preferred first, as (origin, path) pairs."""
    found: list[tuple[str, Path]] = []
    user = os.environ.get(VERUS_ENV)
    if user:
        found.append((VERUS_ENV, Path(user).expanduser()))
    found.append(("tools directory", tools_home() / RELEASE_DIR / "verus"))
    on_path = shutil.which("verus")
    if on_path:
        found.append(("PATH", Path(on_path)))
    return [(origin, path) for origin, path in found if path.is_file()]


def verus_env() -> dict[str, str]:
    """What Verus needs from the outside environment inside the sandbox (whose HOME is the work
    directory): rustup's and cargo's homes, where the release finds its Rust toolchain, and a
    user's ``VERUS_Z3_PATH``."""
    home = Path.home()
    env = {"RUSTUP_HOME": os.environ.get("RUSTUP_HOME", str(home / ".rustup")),
           "CARGO_HOME": os.environ.get("CARGO_HOME", str(home / ".cargo"))}
    if "VERUS_Z3_PATH" in os.environ:
        env["VERUS_Z3_PATH"] = os.environ["VERUS_Z3_PATH"]
    return env


def verus_read_only(binary: str) -> list[Path]:
    """What a Verus run must see besides its work directory: the release directory the binary
    sits in (``rust_verify``, Z3, the vstd build), rustup's and cargo's homes (its Rust
    toolchain) and a user's Z3, where they exist."""
    env = verus_env()
    paths = [Path(binary).resolve().parent, Path(env["RUSTUP_HOME"]), Path(env["CARGO_HOME"])]
    if "VERUS_Z3_PATH" in env:
        paths.append(Path(env["VERUS_Z3_PATH"]))
    return [p for p in paths if p.exists()]


RELEASE_VERSION = re.compile(r"\b0\.\d{4}\.\d{2}\.\d{2}\.[0-9a-f]+\b")
"""Verus's version scheme: ``0.<date>.<commit>``, as its JSON report's ``verus.version``."""


def parse_version(output: str) -> str | None:
    """The version ``verus --version`` prints (its ``Version:`` line), if any."""
    for line in output.splitlines():
        key, _, value = line.strip().partition(":")
        if key == "Version" and value.strip():
            return value.strip()
    found = RELEASE_VERSION.search(output)
    return found.group(0) if found else None


def _version(argv: Sequence[str]) -> tuple[str | None, str]:
    """(version, raw output) of ``argv --version``; version None when it does not run."""
    try:
        out = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, str(exc)
    text = out.stdout + out.stderr
    return parse_version(text), text.strip().splitlines()[-1] if text.strip() else ""


class VerusToolchain(Toolchain):
    """Verus, the verifier for Rust, with the Rust toolchain and Z3 its release needs."""

    name = "verus"
    description = "Verus (verus-lang/verus) with its pinned Rust toolchain and Z3"
    install = (
        InstallStep(
            "command", INSTALL_COMMAND,
            note="official binary release (needs github.com and rustup with toolchain "
                 f"{RUST_TOOLCHAIN}); or set {VERUS_ENV}=/path/to/verus"),
    )

    def detect(self) -> ToolStatus:
        binaries = candidate_binaries()
        if not binaries:
            return ToolStatus(self.name, False, detail=(
                f"no verus binary: set {VERUS_ENV}, or run "
                "`kernel tools install verus` (see the plugin README)"))
        origin, binary = binaries[0]
        version, raw = _version([str(binary)])
        if version is None:
            return ToolStatus(self.name, False, path=str(binary),
                              detail=f"{binary} ({origin}) does not run: {raw or 'no output'}")
        return ToolStatus(self.name, True, version=version, path=str(binary),
                          detail=f"from {origin}")


# ------------------------------------------------------------------------ the cheat checker

CHEATCHECK = "verus-cheatcheck"
CHEATCHECK_ENV = "KERNEL_VERUS_CHEATCHECK"
"""Environment variable naming a ``verus-cheatcheck`` binary built elsewhere."""

CRATE = Path(__file__).resolve().parents[2] / "cheatcheck"
"""The helper's sources (a checkout or an editable install of the plugin)."""

CHEATCHECK_BUILD = (
    f'cargo build --release --locked --manifest-path "{CRATE}/Cargo.toml" --target-dir '
    f'"${{KERNEL_TOOLS_DIR:-$HOME/.local/share/speckernel/tools}}/{CHEATCHECK}"'
)


def cheatcheck_home() -> Path:
    """Where ``kernel tools install verus`` builds the helper."""
    return tools_dir() / CHEATCHECK


def cheatcheck_binary() -> Path:
    """The helper to run: ``$KERNEL_VERUS_CHEATCHECK`` or the one the install step built."""
    named = os.environ.get(CHEATCHECK_ENV)
    return Path(named).expanduser() if named else cheatcheck_home() / "release" / CHEATCHECK


def _newest_source() -> float:
    """When the helper's sources last changed (0 where they are not shipped)."""
    files = [CRATE / "Cargo.toml", CRATE / "Cargo.lock", *CRATE.glob("src/**/*.rs")]
    return max((f.stat().st_mtime for f in files if f.is_file()), default=0.0)


class CheatCheckToolchain(Toolchain):
    """``verus-cheatcheck``, built from the plugin's Rust sources with cargo (crates.io). A
    binary older than its sources counts as missing, so ``kernel tools install`` rebuilds it."""

    name = CHEATCHECK
    description = "the cheat checker's Verus parser (Rust, verus_syn), built with cargo"
    install = (InstallStep("command", CHEATCHECK_BUILD,
                           note="cargo build of plugins/verus/cheatcheck"),)

    def detect(self) -> ToolStatus:
        exe = cheatcheck_binary()
        if not exe.is_file():
            return ToolStatus(self.name, found=False, detail=(
                f"{exe} not built: `kernel tools install verus` runs {CHEATCHECK_BUILD}"))
        if CHEATCHECK_ENV not in os.environ and _newest_source() > exe.stat().st_mtime:
            return ToolStatus(self.name, found=False, path=str(exe),
                              detail=f"{exe} is older than {CRATE}: `kernel tools install verus` "
                                     "rebuilds it")
        banner = self.version_of([str(exe), "--version"])
        if not banner:
            return ToolStatus(self.name, found=False, path=str(exe),
                              detail=f"{exe} --version failed")
        return ToolStatus(self.name, found=True, version=banner.removeprefix(f"{CHEATCHECK} "),
                          path=str(exe))


# ------------------------------------------------------------------------ verusfmt

VERUSFMT = "verusfmt"
VERUSFMT_VERSION = "0.7.4"
"""The crates.io release the tests' and the benchmark's reformatted variants come from."""

VERUSFMT_INSTALL = (
    f"cargo install verusfmt --version ={VERUSFMT_VERSION} --locked --no-default-features "
    f'--root "${{KERNEL_TOOLS_DIR:-$HOME/.local/share/speckernel/tools}}/{VERUSFMT}"'
)
"""``--no-default-features`` leaves out the self-updater, which would reach for GitHub."""


def verusfmt_binary() -> Path:
    return tools_dir() / VERUSFMT / "bin" / VERUSFMT


class VerusfmtToolchain(Toolchain):
    """verusfmt, Verus's formatter (crates.io): the tests and ``benchmarks/verus_cheat_checker.py``
    reformat every task and reference with it and require the cheat checker's verdicts to stay."""

    name = VERUSFMT
    description = "verusfmt, the Verus formatter (layout-invariance tests of the cheat checker)"
    install = (InstallStep("command", VERUSFMT_INSTALL, note="cargo install from crates.io"),)

    def detect(self) -> ToolStatus:
        exe = verusfmt_binary()
        banner = self.version_of([str(exe), "--version"]) if exe.is_file() else None
        if not banner:
            return ToolStatus(self.name, found=False, detail=(
                f"{exe} not installed: `kernel tools install verusfmt` runs {VERUSFMT_INSTALL}"))
        return ToolStatus(self.name, found=True, version=banner.split()[-1], path=str(exe))
