"""The Docker sandbox: each command runs in a fresh container of one image, with no network, a
read-only root filesystem (only the work directory and ``/tmp`` are writable) and memory, CPU and
process limits enforced by the engine. Use it where the local sandbox's fences are too thin, or
to pin a tool's version in an image.

The ``docker`` package is optional (``pip install 'speckernel[docker]'``) and imported on first
use; the engine is contacted then, not when the sandbox is built, so listing it costs nothing.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import shutil
import subprocess
import tarfile
import tempfile
import threading
import time
import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import IO, Any

import anyio

from speckernel.errors import KernelError
from speckernel.model import Files
from speckernel.sandbox.base import (
    LimitHit,
    Limits,
    ProcessResult,
    Sandbox,
    SandboxProcess,
    StreamMode,
)
from speckernel.sandbox.local import check_request, collect_files, path_problem, write_files

_STDIN_FILE = ".speckernel-stdin"
_NOT_STARTED = 127


class DockerSandbox(Sandbox):
    """Runs commands in containers of ``image`` (which must already be present: the engine is
    not asked to pull, since a run should not depend on a registry being reachable)."""

    name = "docker"

    def __init__(self, image: str, *, cpus: float = 1.0, workdir: str = "/work") -> None:
        self.image = image
        self.cpus = cpus
        self.workdir = workdir
        self._client: Any = None  # docker.DockerClient; the SDK is untyped
        self._lock = threading.Lock()
        self._opened: weakref.WeakSet[DockerProcess] = weakref.WeakSet()

    async def run(
        self,
        argv: Sequence[str],
        *,
        files: Files | None = None,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
        stdin: str | None = None,
        collect: Sequence[str] = (),
        read_only: Sequence[str | Path] = (),
    ) -> ProcessResult:
        argv = tuple(argv)
        limits = limits or Limits()
        files = dict(files or {})
        refusal = check_request(argv, files, collect)
        if refusal is not None:
            return refusal
        if stdin is not None:
            files[_STDIN_FILE] = stdin
        client = await anyio.to_thread.run_sync(self._connect)
        container = await anyio.to_thread.run_sync(
            self._create, client, argv, limits, env or {}, stdin is not None, read_only
        )
        try:
            # A worker thread cannot be interrupted; on cancellation it is abandoned, and the
            # forced removal below kills the container, which ends the thread's wait.
            return await anyio.to_thread.run_sync(
                self._execute, container, argv, files, limits, collect, abandon_on_cancel=True
            )
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(_remove, container)

    def open(
        self,
        argv: Sequence[str],
        *,
        files: Files | None = None,
        limits: Limits | None = None,
        env: Mapping[str, str] | None = None,
        read_only: Sequence[str | Path] = (),
        stdin: bool = True,
        stdout: StreamMode = "pipe",
        stderr: StreamMode = "pipe",
    ) -> SandboxProcess:
        """A long-lived container run through the ``docker`` command line (the SDK cannot give
        a plain pipe to a container's stdin): the work directory is a host directory bound
        into it under the same path, so ``write_files`` and reading results work as locally."""
        argv = tuple(argv)
        refusal = check_request(argv, files or {}, ())
        if refusal is not None:
            raise KernelError(refusal.stderr.removeprefix("speckernel: "))
        if shutil.which("docker") is None:
            raise KernelError("the docker sandbox's open() needs the docker command line")
        self._connect()
        process = DockerProcess(self, argv, files or {}, limits or Limits(), env or {},
                                read_only, stdin, stdout, stderr)
        with self._lock:
            self._opened.add(process)
        return process

    def close(self) -> None:
        with self._lock:
            opened = list(self._opened)
        for process in opened:
            process.close()

    def describe(self) -> Mapping[str, str]:
        return {
            "image": self.image,
            "network": "none (a bridge only when limits.network is true)",
            "root filesystem": f"read-only; {self.workdir} and /tmp writable",
            "limits": f"memory, pids, {self.cpus:g} cpus, cpu time and file size ulimits",
            "capabilities": "all dropped, no-new-privileges",
        }

    # ----------------------------------------------------------------------- blocking parts

    def _connect(self) -> Any:
        """The engine's client, connected once; a ``KernelError`` saying why if there is none."""
        with self._lock:
            if self._client is None:
                self._client = _docker_client()
            return self._client

    def _create(
        self,
        client: Any,
        argv: tuple[str, ...],
        limits: Limits,
        env: Mapping[str, str],
        with_stdin: bool,
        read_only: Sequence[str | Path],
    ) -> Any:
        from docker.errors import ImageNotFound
        from docker.types import Mount, Ulimit

        # The SDK cannot feed stdin without a raw socket; a shell redirect from a file is simpler.
        command = ["/bin/sh", "-c", f'exec "$@" < {_STDIN_FILE}', "sh"] if with_stdin else []
        ulimits = [Ulimit(name=name, soft=value, hard=value) for name, value in _ulimits(limits)]
        memory = f"{limits.memory_mb}m" if limits.memory_mb is not None else None
        try:
            return client.containers.create(
                self.image,
                [*command, *argv],
                working_dir=self.workdir,
                environment={
                    "HOME": self.workdir,
                    "TMPDIR": "/tmp",
                    "LANG": "C.UTF-8",
                    "LC_ALL": "C.UTF-8",
                    **env,
                },
                network_mode="bridge" if limits.network else "none",
                read_only=True,
                mounts=[Mount(target=self.workdir, source=None, type="volume"),
                        *(Mount(target=str(path), source=str(path), type="bind", read_only=True)
                          for path in read_only)],
                tmpfs={"/tmp": ""},
                mem_limit=memory,
                memswap_limit=memory,
                pids_limit=limits.processes,
                nano_cpus=int(self.cpus * 1e9),
                ulimits=ulimits,
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
            )
        except ImageNotFound as exc:
            raise KernelError(
                f"docker image '{self.image}' is not present: pull or build it first"
            ) from exc

    def _execute(
        self,
        container: Any,
        argv: tuple[str, ...],
        files: Files,
        limits: Limits,
        collect: Sequence[str],
    ) -> ProcessResult:
        from docker.errors import APIError
        from requests.exceptions import RequestException

        container.put_archive(self.workdir, _tar(files))
        started = time.monotonic()
        try:
            container.start()
        except APIError as exc:  # the engine could not exec the command: a missing program
            message = str(exc.explanation or exc).splitlines()[0]
            return ProcessResult(argv, _NOT_STARTED, "", f"speckernel: {message}", 0.0)
        try:
            returncode: int | None = container.wait(timeout=limits.wall_s)["StatusCode"]
            timed_out = False
        except RequestException:
            with contextlib.suppress(APIError):  # it may have ended in the meantime
                container.kill()
            returncode, timed_out = None, True
        duration = time.monotonic() - started
        stdout, out_cut = _capped_log(container, "stdout", limits.output_bytes)
        stderr, err_cut = _capped_log(container, "stderr", limits.output_bytes)
        collected, files_cut = self._collect(container, collect, limits.output_bytes)
        return ProcessResult(
            argv,
            returncode=returncode,
            stdout=stdout,
            stderr=stderr,
            duration_s=duration,
            timed_out=timed_out,
            truncated=out_cut or err_cut or files_cut,
            signal=9 if timed_out else None,
            files=collected,
        )

    def _collect(
        self, container: Any, patterns: Sequence[str], cap: int
    ) -> tuple[dict[str, str], bool]:
        """Copy the work directory out (through a temporary file, not memory) and read back the
        matching files the way the local sandbox does."""
        if not patterns:
            return {}, False
        chunks, _stat = container.get_archive(self.workdir)
        with tempfile.TemporaryFile() as archive, tempfile.TemporaryDirectory() as tmp:
            for chunk in chunks:
                archive.write(chunk)
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                tar.extractall(tmp, filter=_skip_unsafe)
            root = Path(tmp) / PurePosixPath(self.workdir).name
            (root / _STDIN_FILE).unlink(missing_ok=True)
            return collect_files(root, patterns, cap)


_MODES = {"pipe": subprocess.PIPE, "devnull": subprocess.DEVNULL, "stdout": subprocess.STDOUT}


class DockerProcess(SandboxProcess):
    """A ``DockerSandbox.open`` process: ``docker run --rm -i`` of the sandbox's image with the
    same fences as ``run`` and a host work directory bound under its own path."""

    def __init__(self, sandbox: DockerSandbox, argv: tuple[str, ...], files: Files,
                 limits: Limits, env: Mapping[str, str], read_only: Sequence[str | Path],
                 stdin: bool, stdout: StreamMode, stderr: StreamMode) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="speckernel-docker-"))
        write_files(self.workdir, files)
        os.chmod(self.workdir, 0o777)
        self._name = f"speckernel-{uuid.uuid4().hex}"
        self._limits = limits
        command = ["docker", "run", "--rm", "-i", "--name", self._name,
                   "--network", "bridge" if limits.network else "none", "--read-only",
                   "--tmpfs", "/tmp", "--cap-drop", "ALL",
                   "--security-opt", "no-new-privileges",
                   "--cpus", f"{sandbox.cpus:g}", "-w", str(self.workdir),
                   "-v", f"{self.workdir}:{self.workdir}"]
        for path in read_only:
            command += ["-v", f"{path}:{path}:ro"]
        if limits.memory_mb is not None:
            command += ["--memory", f"{limits.memory_mb}m", "--memory-swap",
                        f"{limits.memory_mb}m"]
        if limits.processes is not None:
            command += ["--pids-limit", str(limits.processes)]
        for limit, amount in _ulimits(limits):
            command += ["--ulimit", f"{limit}={amount}"]
        for name, value in {"HOME": str(self.workdir), "LANG": "C.UTF-8", **env}.items():
            command += ["-e", f"{name}={value}"]
        command += [sandbox.image, *argv]
        self._started = time.monotonic()
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=_MODES[stdout], stderr=_MODES[stderr], env={"PATH": os.defpath},
        )
        self.stdin: IO[bytes] | None = self._process.stdin
        self.stdout: IO[bytes] | None = self._process.stdout
        self.stderr: IO[bytes] | None = self._process.stderr
        self._timer = threading.Timer(limits.wall_s, self.kill)
        self._timer.daemon = True
        self._timer.start()
        self._timed_out = False

    def poll(self) -> int | None:
        return self._process.poll()

    def wait(self, timeout: float | None = None) -> int:
        try:
            return self._process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"still running after {timeout} s") from None

    def kill(self) -> None:
        self._timed_out = time.monotonic() - self._started >= self._limits.wall_s
        with contextlib.suppress(OSError):
            subprocess.run(["docker", "kill", self._name], capture_output=True, timeout=30,
                           env={"PATH": os.defpath})
        self._process.kill()

    def close(self) -> None:
        self._timer.cancel()
        if self._process.poll() is None:
            self.kill()
        self._process.wait()
        for stream in (self.stdin, self.stdout, self.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def write_files(self, files: Files, under: str = "") -> Path:
        for name in [*files, *([under] if under else [])]:
            problem = path_problem(name)
            if problem is not None:
                raise KernelError(problem)
        folder = self.workdir / under if under else self.workdir
        folder.mkdir(parents=True, exist_ok=True)
        write_files(folder, files)
        return folder

    @property
    def limit(self) -> LimitHit | None:
        code = self._process.poll()
        if code is None or code == 0:
            return None
        if self._timed_out:
            return "wall"
        return "memory" if code == 137 else None


def _docker_client() -> Any:
    try:
        import docker
    except ImportError as exc:
        raise KernelError(
            "the docker sandbox needs the docker package: pip install 'speckernel[docker]'"
        ) from exc
    from requests.exceptions import RequestException

    try:
        client = docker.from_env()
        client.ping()
    except (docker.errors.DockerException, RequestException) as exc:
        raise KernelError(f"no Docker engine answers: {exc}") from exc
    return client


def _ulimits(limits: Limits) -> list[tuple[str, int]]:
    values = [("core", 0)]
    if limits.cpu_s is not None:
        values.append(("cpu", math.ceil(limits.cpu_s)))
    if limits.file_size_mb is not None:
        values.append(("fsize", limits.file_size_mb << 20))
    return values


def _tar(files: Files) -> bytes:
    """An in-memory tar of ``files`` (paths already checked) for ``put_archive``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _capped_log(container: Any, which: str, cap: int) -> tuple[str, bool]:
    """The first ``cap`` bytes of one output stream; the engine holds the rest, so unlike a pipe
    it need not be drained, only not read into memory."""
    stream = container.logs(
        stdout=which == "stdout", stderr=which == "stderr", stream=True, follow=False
    )
    try:
        return _first_bytes(stream, cap)
    finally:
        stream.close()


def _first_bytes(chunks: Iterable[bytes], cap: int) -> tuple[str, bool]:
    kept = bytearray()
    for chunk in chunks:
        if len(kept) + len(chunk) > cap:
            kept += chunk[: cap - len(kept)]
            return kept.decode("utf-8", errors="replace"), True
        kept += chunk
    return kept.decode("utf-8", errors="replace"), False


def _skip_unsafe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's "data" filter (no links or paths leading out, no device files), skipping what
    it refuses rather than failing: the tool under test wrote these files."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def _remove(container: Any) -> None:
    """Force-remove (killing it if still running) along with its anonymous work volume."""
    from docker.errors import NotFound

    with contextlib.suppress(NotFound):
        container.remove(force=True, v=True)
