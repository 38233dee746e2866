"""Checking what a store's clients observed against what its spec lets them observe.

Standard library only: the cluster launcher imports it inside the sandbox (``histories.py`` next
to ``cluster_run.py``), and the extraction verifier runs it in a kernel worker on the in-process
probe's history.

An operation is ``(client, index, kind, key, value, start, end)``: ``kind`` ``"p"`` or ``"g"``,
``index`` its rank in its client's session (a client runs one operation at a time), ``start``
and ``end`` on one clock (the machine's monotonic clock in the cluster, the probe's logical
clock). Every put writes a value no other put writes and never the initial value, so a get's
value names the put it read.

What is checked is what trace inclusion implies for one client's session, whatever replica the
spec's witness lets serve each get (the spec world may route any get to any replica, so only
guarantees a single get can break are checked):

- every spec (all refine the relaxed store): a get returns the initial value or the value of a
  put *on the same key* that had been issued before the get returned;
- then each profile adds the puts a get must reflect (``required``) and the order in which the
  spec makes every replica apply puts (``before``): a get on key ``k`` that must reflect a put
  ``y`` on ``k`` may not return the initial value, nor a put that every replica applies before
  ``y`` (that put was overwritten wherever ``y`` is applied):

  - ``ryw`` (Read-Your-Writes): a get reflects the client's own puts on the key, which every
    replica applies in the client's order per key;
  - ``rywmw``: the same, with the client's puts applied in the client's order across keys;
  - ``mr`` (Monotonic Reads): a get reflects every put the client read on the key (and so never
    returns the initial value after reading a put there);
  - ``cc`` (causal consistency): a get reflects the client's causal past (its puts, the puts it
    read, transitively the pasts of those), every put being applied after its own past;
  - ``mw`` (Monotonic Writes): puts are applied in each writer's order, but a get waits for
    nothing, so a spec replica that lags explains any single read: provenance only;
  - ``relaxed`` (and ``ec``, ``lcc``, external specs): provenance only.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

Op = tuple[int, int, str, int, int, int, int]
"""(client, index, kind, key, value, start, end)."""

PROFILES = {
    "relaxed": (None, None), "ec": (None, None), "lcc": (None, None),
    "mw": (None, "writer"),
    "ryw": ("own", "writer_key"),
    "rywmw": ("own", "writer"),
    "mr": ("read", None),
    "cc": ("causal", "causal"),
}
"""Per guarantee: which puts a get must reflect (``own``: the client's own puts on the key;
``read``: the puts the client read on the key; ``causal``: the client's causal past) and how
replicas order puts (``writer``: each writer's puts in issue order; ``writer_key``: the same per
key; ``causal``: every put after its causal past)."""


def parse(text: str) -> list[Op]:
    """The probe's ``op C I p|g KEY VALUE START END`` lines (other lines ignored)."""
    found: list[Op] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[0] == "op" and parts[3] in ("p", "g"):
            c, i, key, value, start, end = (int(parts[n]) for n in (1, 2, 4, 5, 6, 7))
            found.append((c, i, parts[3], key, value, start, end))
    return found


class _Put:
    """A put and the vector clock of its causal past, itself included: per writer, the index
    of the latest of its puts the put's client had issued or read (transitively)."""

    __slots__ = ("client", "end", "index", "key", "past", "start")

    def __init__(self, op: Op) -> None:
        self.client, self.index, _, self.key, _, self.start, self.end = op
        self.past: dict[int, int] = {}


def _describe(op: Op) -> str:
    client, index, kind, key, value, start, end = op
    return (f"client {client} operation {index}: {'put' if kind == 'p' else 'get'} key {key} "
            f"{'=' if kind == 'p' else '->'} {value} [{start}, {end}]")


def check(ops: Iterable[Sequence[int | str]], profile: str, initial: int = 0,
          limit: int = 5) -> tuple[int, list[str]]:
    """The number of gets that break ``profile`` (a key of :data:`PROFILES`; unknown names
    check provenance only) and the first ``limit`` of them, explained.

    Operations are visited in one global order, puts at their start and gets at their end
    (puts first on a tie), which every causal dependency follows: a put's past is what its
    client had done and read before issuing it, and a get can only read a put issued before
    it returned."""
    need, order = PROFILES.get(profile, (None, None))
    history: list[Op] = [(int(o[0]), int(o[1]), str(o[2]), int(o[3]), int(o[4]), int(o[5]),
                          int(o[6])) for o in ops]
    puts: dict[int, _Put] = {}
    value_of: dict[tuple[int, int], int] = {}
    by_writer_key: dict[tuple[int, int], list[int]] = {}
    for op in sorted(history, key=lambda o: (o[0], o[1])):
        if op[2] == "p":
            if op[4] in puts or op[4] == initial:
                return 1, [f"{_describe(op)}: a value written twice; the history cannot be read"]
            puts[op[4]] = _Put(op)
            value_of[op[0], op[1]] = op[4]
            by_writer_key.setdefault((op[0], op[3]), []).append(op[1])
    count = 0
    found: list[str] = []
    pasts: dict[int, dict[int, int]] = {}  # client -> causal past: writer -> top put index
    reads: dict[tuple[int, int], set[int]] = {}  # (client, key) -> values read
    owns: dict[tuple[int, int], int] = {}  # (client, key) -> value of its latest put
    for op in sorted(history, key=lambda o: (o[6] if o[2] == "g" else o[5], o[2] == "g")):
        client, index, kind, key, value, _, _ = op
        past = pasts.setdefault(client, {})
        if kind == "p":
            past[client] = index
            puts[value].past = dict(past)
            owns[client, key] = value
            continue
        problem = _provenance(op, puts, initial)
        if problem is None:
            required = _required(need, client, key, owns, reads, past, value_of, by_writer_key)
            problem = _stale(op, required, puts, initial, order)
        if problem is not None:
            count += 1
            if len(found) < limit:
                found.append(f"{_describe(op)}: {problem}")
        elif value != initial:
            reads.setdefault((client, key), set()).add(value)
            for writer, top in puts[value].past.items():
                past[writer] = max(past.get(writer, -1), top)
    return count, found


def _provenance(op: Op, puts: dict[int, _Put], initial: int) -> str | None:
    """Why the value a get returned cannot have been read at all, or None."""
    _, _, _, key, value, _, end = op
    if value == initial:
        return None
    put = puts.get(value)
    if put is None:
        return "no put wrote this value"
    if put.key != key:
        return f"the value was put on key {put.key}"
    if put.start > end:
        return f"the put of this value was issued after the get returned (at {put.start})"
    return None


def _required(need: str | None, client: int, key: int, owns: dict[tuple[int, int], int],
              reads: dict[tuple[int, int], set[int]], past: dict[int, int],
              value_of: dict[tuple[int, int], int],
              by_writer_key: dict[tuple[int, int], list[int]]) -> list[int]:
    """Values of the puts on ``key`` the get must reflect: under ``causal``, per writer the
    latest of its puts on the key in the client's past (earlier ones precede it)."""
    if need == "own":
        return [owns[client, key]] if (client, key) in owns else []
    if need == "read":
        return sorted(reads.get((client, key), ()))
    if need == "causal":
        found = []
        for writer, top in past.items():
            indices = by_writer_key.get((writer, key), [])
            at = bisect.bisect_right(indices, top)
            if at:
                found.append(value_of[writer, indices[at - 1]])
        return found
    return []


def _before(x: _Put, y: _Put, order: str | None) -> bool:
    """Whether every replica applies put ``x`` before put ``y``."""
    if order == "writer":
        return x.client == y.client and x.index < y.index
    if order == "writer_key":
        return x.client == y.client and x.key == y.key and x.index < y.index
    if order == "causal":
        return x is not y and y.past.get(x.client, -1) >= x.index
    return False


def _stale(op: Op, required: list[int], puts: dict[int, _Put], initial: int,
           order: str | None) -> str | None:
    """Why the get's value is older than a put it must reflect, or None."""
    value = op[4]
    for needed in required:
        if value == initial:
            return f"returned the initial value although put {needed} must be reflected"
        if value != needed and _before(puts[value], puts[needed], order):
            return (f"returned put {value}, which every replica applies before put {needed}, "
                    "which must be reflected")
    return None
