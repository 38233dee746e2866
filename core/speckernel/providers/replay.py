"""Replay recorded model responses: ``--model replay:PATH``.

The runner records every completion of a run, one JSON line per request, in ``responses.jsonl``
in the run directory. Replaying that file serves the same answers again, so a run can be
re-verified or re-scored (with a newer verifier, a fixed scorer) offline and for free, and still
reports the tokens, cost and latency of the original generation.

Record format: one JSON object per line, as written by ``ReplayRecord.to_line``::

    {"model": "openai:gpt-4o",
     "messages": [{"role": "system", "content": "..."}, {"role": "user", "content": "..."}],
     "params": {"temperature": 0.2, "max_tokens": 2048, "top_p": null, "stop": [], "seed": null},
     "completion": {"text": "...", "model": "openai:gpt-4o",
                    "usage": {"input_tokens": 812, "output_tokens": 240,
                              "cost_usd": 0.00443, "calls": 1},
                    "latency_s": 3.1, "finish_reason": "stop", "cached": false}}

``model`` is the kernel id of the model that answered; ``messages`` and ``params`` are the
request (the fields of ``Message`` and ``GenerateParams``); ``completion`` holds the fields of
``Completion``. Fields left out take their defaults; blank lines are skipped.

A request is matched by ``request_key``, the hash of its canonical messages and params (not of
the model, so a recording can be replayed under any name). Identical requests, such as the
attempts of a pass@k run, get the recorded responses in recorded order; asking once more than
was recorded is an error.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from speckernel.components import Model, ModelProvider
from speckernel.errors import ProviderError
from speckernel.model import (
    Completion,
    GenerateParams,
    Message,
    canonical_json,
    digest_json,
    from_json,
    to_json,
)


def request_key(messages: Sequence[Message], params: GenerateParams) -> str:
    """What identifies a request in a recording."""
    return digest_json({"messages": to_json(list(messages)), "params": to_json(params)})


@attrs.frozen
class ReplayRecord:
    """One line of ``responses.jsonl``: a request and the completion it got."""

    model: str = attrs.field(validator=attrs.validators.instance_of(str))
    messages: tuple[Message, ...] = attrs.field(
        validator=attrs.validators.deep_iterable(
            attrs.validators.instance_of(Message), attrs.validators.instance_of(tuple)
        )
    )
    params: GenerateParams = attrs.field(validator=attrs.validators.instance_of(GenerateParams))
    completion: Completion = attrs.field(validator=attrs.validators.instance_of(Completion))

    @property
    def key(self) -> str:
        return request_key(self.messages, self.params)

    def to_line(self) -> str:
        """The record as one line of JSON (without the newline)."""
        return canonical_json(to_json(self))

    @classmethod
    def from_line(cls, line: str) -> ReplayRecord:
        """Parse one line; raises ``ValueError`` saying what is wrong with it."""
        try:
            record = from_json(cls, json.loads(line))
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid JSON: {exc}") from None
        except (KeyError, TypeError, AttributeError) as exc:
            # attrs' validators pass (message, attribute, ...): the message alone is the reason.
            raise ValueError(f"not a record: {exc.args[0] if exc.args else exc}") from None
        if not isinstance(record.completion.text, str):
            raise ValueError("not a record: the completion has no text")
        return record


def load_records(path: Path) -> list[ReplayRecord]:
    """Every record of a ``responses.jsonl`` file, or a one-line ``ProviderError`` naming the
    file and the line at fault."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ProviderError(f"cannot read replay file {path}: {reason}") from None
    records = []
    # Split on "\n" only: str.splitlines would also split on U+2028 inside a JSON string.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            records.append(ReplayRecord.from_line(line))
        except ValueError as exc:
            message = " ".join(str(exc).split())
            raise ProviderError(f"{path}:{number}: {message}") from None
    return records


class ReplayModel(Model):
    """Serves the completions of one recording, each once, in recorded order per request."""

    def __init__(self, model_id: str, records: Iterable[ReplayRecord]) -> None:
        self.id = model_id
        self._queues: dict[str, deque[Completion]] = {}
        for record in records:
            self._queues.setdefault(record.key, deque()).append(record.completion)

    async def complete(self, messages: Sequence[Message], params: GenerateParams) -> Completion:
        queue = self._queues.get(request_key(messages, params))
        if queue is None:
            raise ProviderError(f"{self.id}: this request was never recorded")
        if not queue:
            raise ProviderError(f"{self.id}: no recorded response left for this request")
        return queue.popleft()


class ReplayProvider(ModelProvider):
    """``replay:PATH``. One model per file for the life of the provider: the order in which
    identical requests are served must hold across all the samples of a run, however often the
    runner asks for the model.

    Model options are ignored: a run file's options are meant for the provider that made the
    recording (a ``base_url``, a key variable), and replaying that run must not trip over them.
    """

    name = "replay"
    description = "re-serve the responses recorded in a run's responses.jsonl"

    def __init__(self) -> None:
        self._models: dict[Path, ReplayModel] = {}

    def model(self, model: str, options: Mapping[str, Any]) -> ReplayModel:
        path = Path(model).expanduser().resolve()
        if path not in self._models:
            self._models[path] = ReplayModel(f"{self.name}:{model}", load_records(path))
        return self._models[path]
