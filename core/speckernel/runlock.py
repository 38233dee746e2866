"""One writer per run directory: an OS lock held for as long as a run writes into it.

Two ``kernel run --resume`` on one directory used to both run every remaining sample (double
model cost), and the compaction of one replaced the samples file under the other, whose lines
then went to an unlinked file (issue 20). A run, a resume or a rescore now takes an exclusive
``flock`` on ``<run>/.lock`` before it reads or writes anything. A shard (``--shard i/n``, which
appends to a samples file of its own) takes a shared lock on ``.lock`` and an exclusive one on
``.lock-<i>of<n>``, so the shards of one run go on side by side while the same shard twice, or a
whole-run writer beside a shard, is refused. Each holder writes ``pid N on HOST`` into the file
it holds exclusively, and a refusal names it.

``flock`` locks belong to the open file description: they are released when the holder exits
however it ends (SIGKILL included), and two opens in one process exclude each other too (the tests
run the CLI in-process). The descriptor is close-on-exec, so no tool the run starts inherits it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

from speckernel.errors import KernelError

LOCK_NAME = ".lock"


class RunDirectoryBusy(KernelError):
    """Another process is writing into the run directory."""


def lock_files(root: Path, shard: tuple[int, int]) -> list[tuple[Path, int]]:
    """The lock files a writer of ``shard`` holds, in the order it takes them, with the mode."""
    index, count = shard
    if count == 1:
        return [(root / LOCK_NAME, fcntl.LOCK_EX)]
    return [(root / LOCK_NAME, fcntl.LOCK_SH),
            (root / f"{LOCK_NAME}-{index}of{count}", fcntl.LOCK_EX)]


@contextlib.contextmanager
def hold(root: Path, shard: tuple[int, int] = (0, 1)) -> Iterator[None]:
    """Hold the run directory ``root`` (which must exist) for one writer of ``shard``; raise
    ``RunDirectoryBusy`` naming the holder when another process has it, ``KernelError`` when
    the directory cannot hold a lock file (read-only, not a directory)."""
    with contextlib.ExitStack() as stack:
        for path, mode in lock_files(root, shard):
            stack.enter_context(_locked(root, path, mode))
        yield


@contextlib.contextmanager
def _locked(root: Path, path: Path, mode: int) -> Iterator[None]:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise KernelError(f"cannot lock run directory {root}: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            holders = ", ".join(_holders(root)) or "another process"
            raise RunDirectoryBusy(f"{root} is in use by {holders}; wait for it to end or stop "
                                   "it, then resume") from None
        if mode == fcntl.LOCK_EX:
            with contextlib.suppress(OSError):  # the name is a courtesy: the lock is what counts
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)


def _holders(root: Path) -> list[str]:
    """``pid N on HOST`` of each lock file in ``root`` someone holds exclusively (a shared lock
    is only ever held beside an exclusive one, which names the process)."""
    found = []
    for path in sorted(root.glob(f"{LOCK_NAME}*")):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                name = os.pread(fd, 200, 0).decode(errors="replace").strip()
                found.append(name or "a process")
            else:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)
    return found
