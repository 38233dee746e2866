"""The inside of a kernel worker process (``python -I -m speckernel.worker``), which runs plugin
functions for ``ctx.run_sync`` in the sandbox; ``workers.py`` is the kernel's side.

Protocol, over stdin and stdout: each message is an 8-byte big-endian length and that many
bytes of pickle. A request is ``(module, qualname, search, args)`` (``search``: a directory to
put on the path first, or None); the answer ``("ok", value)`` or
``("raise", type name, message, by_candidate)``, where ``by_candidate`` marks what the candidate
caused: running out of stack or memory, or ``CandidateError``. Anything the function prints goes
to stderr, so it cannot be taken for an answer.
"""

from __future__ import annotations

import importlib
import os
import pickle
import struct
import sys
from typing import IO, Any

_HEADER = struct.Struct(">Q")


def read_frame(stream: IO[bytes]) -> bytes | None:
    """One message, or None at end of input."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _resolve(module: str, qualname: str) -> Any:
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def _answer(module: str, qualname: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
    from speckernel.errors import CandidateError

    try:
        value = _resolve(module, qualname)(*args)
    except (RecursionError, MemoryError, CandidateError) as exc:
        return ("raise", type(exc).__name__, str(exc)[:2000], True)
    except Exception as exc:
        return ("raise", type(exc).__name__, str(exc)[:2000], False)
    return ("ok", value)


def main() -> None:
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # print() in plugin code lands on stderr
    sys.stdout = sys.stderr
    requests = sys.stdin.buffer
    while (frame := read_frame(requests)) is not None:
        module, qualname, search, args = pickle.loads(frame)
        if search is not None and search not in sys.path:
            sys.path.append(search)
        answer = _answer(module, qualname, args)
        try:
            data = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # an unpicklable result is the plugin's bug
            data = pickle.dumps(("raise", "WorkerError",
                                 f"result cannot be sent: {exc}"[:2000], False))
        write_frame(channel, data)


if __name__ == "__main__":
    main()
