"""The supervisor between the kernel and one sandboxed tool: a separate, tiny Python process
(run as ``python -I -S launcher.py CONFIG``, standard library only) that outlives neither the
tool nor the kernel.

It forks the tool's process and, in the child, before ``exec``:

1. joins the call's cgroups (before anything can fork, so no child escapes them);
2. where the tool runs as another user, gives the child a private mount namespace in which
   the read-only host paths that user could not reach (under a ``0700`` home, say) are bound
   into a staging directory it can reach, so that bubblewrap, started unprivileged, can bind
   them into the sandbox;
3. drops to that user (no supplementary groups, so no capabilities), sets the rlimits and the
   parent-death signal, and execs the command (bubblewrap, which builds the rest).

The parent then stays as supervisor: it kills the tool's tree when the wall budget is up, when
the work directory holds more than the disk budget, or when the kernel dies (its *lifeline*, a
pipe whose write end only the kernel holds, reads end-of-file: unlike a parent-death signal,
that does not depend on which of the kernel's threads started us). Its last act is one line on
the status descriptor, ``code N LIMIT``: bubblewrap's exit status and the limit that ended the
tool (``-`` for none); after a kill, it then kills its whole process group, itself included,
which holds anything bubblewrap started but had not yet moved to the sandbox's own session.

It runs on every sandboxed call, so it starts fast: its configuration comes as a hex-encoded
``marshal`` dump (no ``json`` to import), and it imports nothing else it can avoid.

Budgets are thus enforced next to the tool, not only by the kernel: a kernel killed with
SIGKILL leaves nothing running.

Inside the sandbox the same file runs once more, as ``launcher.py --report FD GUARD
COMMAND...``: it starts the tool and writes ``tool N CPU``, the tool's own wait status and CPU
seconds, to ``FD``, because bubblewrap reports a tool killed by signal N as exit status 128 + N,
which a tool may also exit with (TLC's 152 would read as SIGXCPU). ``GUARD`` is the read end of
a pipe whose write end only the supervisor holds: when the supervisor is gone, the inner
launcher kills the tool and exits, and with it the sandbox's PID namespace. Killing bubblewrap
alone need not reach the sandbox: bubblewrap sets the parent-death signal of its sandbox process
only after starting it, so a bubblewrap killed in between can leave that process running with no
budget watched (one was found 20 minutes on in a CI run whose kernels are killed at random
points; this is the likeliest way it got there).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # signal without enum: 3 ms less
import marshal
import os
import select
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

_CLONE_NEWNS = 0x00020000
_MS_RDONLY = 1
_MS_REMOUNT = 32
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_PR_SET_PDEATHSIG = 1
_SIGKILL = 9
_DISK_POLL_S = 0.2
_CANNOT_EXEC = 126


def _restore_signals() -> None:
    """Ignored signals and the blocked mask survive exec: Python ignores SIGPIPE and SIGXFSZ,
    ``nohup`` SIGHUP, a shell's background job SIGINT and SIGQUIT. A tool gets the defaults
    and an empty mask whatever started the kernel (dying of SIGXFSZ is how a file-size limit
    is seen, of SIGPIPE how ``yes | head`` ends)."""
    for signum in _signal.valid_signals():
        if signum not in (_signal.SIGKILL, _signal.SIGSTOP):
            _signal.signal(signum, _signal.SIG_DFL)
    _signal.pthread_sigmask(_signal.SIG_SETMASK, ())


def _prepare_child(config: dict[str, Any], guard: int) -> None:
    """Everything between fork and exec, in the order the module docstring gives."""
    import ctypes
    import resource

    def _check(result: int, what: str) -> None:
        if result != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"{what}: {os.strerror(errno)}")

    # The kernel's lifeline stays with the supervisor; the sandbox gets, at the same number,
    # the guard (the read end of the supervisor's own pipe): see the module docstring.
    os.dup2(guard, config["lifeline"])
    os.close(guard)
    for path in config["procs"]:
        with open(path, "w") as f:
            f.write(str(os.getpid()))
    libc = ctypes.CDLL(None, use_errno=True)
    if config["stage"]:
        _check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _check(libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "make / private")
        for source, target in config["stage"]:
            src, dst = os.fsencode(source), os.fsencode(target)
            _check(libc.mount(src, dst, None, _MS_BIND | _MS_REC, None), f"bind {source}")
            _check(libc.mount(None, dst, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY, None),
                   f"read-only {source}")
    if config["uid"] is not None:
        os.setgroups([])
        os.setresgid(config["gid"], config["gid"], config["gid"])
        os.setresuid(config["uid"], config["uid"], config["uid"])
    for name, (soft, hard) in config["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    # After the user change, which clears it; it survives the exec of a plain binary.
    _check(libc.prctl(_PR_SET_PDEATHSIG, _SIGKILL, 0, 0, 0), "prctl(PDEATHSIG)")
    _restore_signals()


def _disk_usage(root: str, cap: int) -> int:
    """Bytes held under ``root`` (allocated blocks, plus a block per entry so that a million
    empty files count too), stopping early once past ``cap``."""
    total = 0
    stack = [root]
    while stack and total <= cap:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += info.st_blocks * 512 + 4096
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
    return total


def _supervise(config: dict[str, Any], child: int) -> tuple[int, str | None]:
    """Wait for ``child``; kill it at the first budget overrun or when the kernel goes."""
    pidfd = os.pidfd_open(child)
    lifeline = config["lifeline"]
    deadline = time.monotonic() + config["wall_s"] if config["wall_s"] is not None else None
    disk = config["disk_bytes"]
    limit = None
    while True:
        waits = [_DISK_POLL_S] if disk is not None else []
        if deadline is not None:
            waits.append(max(deadline - time.monotonic(), 0.0))
        ready, _, _ = select.select([pidfd, lifeline], [], [], min(waits) if waits else None)
        if pidfd in ready:
            break
        if lifeline in ready:
            limit = "kernel"
        elif deadline is not None and time.monotonic() >= deadline:
            limit = "wall"
        elif disk is not None and _disk_usage(config["workdir"], disk) > disk:
            limit = "disk"
        if limit is not None:
            os.kill(child, _SIGKILL)
            break
    _, status = os.waitpid(child, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return code, limit


def report(fd: int, guard: int, argv: list[str]) -> None:
    """Run ``argv`` and write ``tool N CPU`` to ``fd`` (N negative: killed by that signal; CPU
    the seconds of the tool and of every process it waited for); kill the tool and exit as
    soon as ``guard`` reads end-of-file (the supervisor is gone). The tool inherits neither."""
    os.set_inheritable(fd, False)
    os.set_inheritable(guard, False)
    child = os.fork()
    if child == 0:
        _restore_signals()
        try:
            os.execv(argv[0], argv)
        except OSError as e:
            os.write(2, f"speckernel: cannot execute {argv[0]}: {e.strerror or e}\n".encode())
        os._exit(_CANNOT_EXEC)
    pidfd = os.pidfd_open(child)
    ready, _, _ = select.select([pidfd, guard], [], [])
    if pidfd not in ready:
        os.kill(child, _SIGKILL)
        os._exit(128 + _SIGKILL)
    _, status, usage = os.wait4(child, 0)
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    os.write(fd, f"tool {code} {usage.ru_utime + usage.ru_stime:.6f}\n".encode())
    os._exit(code if code >= 0 else 128 - code)


def main() -> None:
    if sys.argv[1] == "--report":
        report(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:])
    config = marshal.loads(bytes.fromhex(sys.argv[1]))
    argv = config["argv"]
    os.set_inheritable(config["status"], True)
    guard, guard_write = os.pipe()  # guard_write: ours until we exit, never the tool's
    child = os.fork()
    if child == 0:
        try:
            os.close(guard_write)
            _prepare_child(config, guard)
            os.execv(argv[0], argv)
        except OSError as e:
            os.write(2, f"speckernel: cannot start {argv[0]}: {e.strerror or e}\n".encode())
        os._exit(_CANNOT_EXEC)
    os.close(guard)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the tool's pipes must reach end-of-file when the tool ends
        os.dup2(devnull, fd)
    code, limit = _supervise(config, child)
    try:  # noqa: SIM105 - no contextlib import on every sandboxed call
        os.write(config["status"], f"code {code} {limit or '-'}\n".encode())
    except OSError:  # a kernel that is gone reads it no more (a broken pipe): the rest holds
        pass
    if limit is not None:
        # Bubblewrap killed while it was still building the sandbox can leave its sandbox
        # process behind, blocked on bubblewrap's setup eventfd with no parent-death signal
        # yet (found: ppid 1, asleep in eventfd_read, in our process group). Every process
        # still in our group is such a straggler: the sandbox proper has its own session.
        os.killpg(0, _SIGKILL)
    os._exit(code if code >= 0 else 128 - code)


if __name__ == "__main__":
    main()
