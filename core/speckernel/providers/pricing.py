"""Model prices, so that every completion carries what it cost in US dollars.

A price table maps kernel model ids (``provider:model``, ``fnmatch`` globs allowed) to list prices
in USD per million input and output tokens, the unit OpenAI and Anthropic publish. The builtin
table is ``speckernel/prices.yaml``; ``KERNEL_PRICES=path.yaml`` merges a user's table over it,
key by key, for negotiated prices, newer models, or a notional price for a self-hosted model.
"""

from __future__ import annotations

import fnmatch
import functools
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from speckernel.errors import KernelError
from speckernel.model import Message, Usage

PRICES_ENV = "KERNEL_PRICES"
"""Environment variable naming a YAML price table merged over the builtin one."""

_GLOB_CHARS = frozenset("*?[]")


@attrs.frozen
class Price:
    """The list price of one model, in USD per million tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        spent = input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok
        return spent / 1_000_000


MESSAGE_OVERHEAD_TOKENS = 16
"""Tokens a chat format adds per message (role markers, separators) in the bound below; OpenAI
documents 3-4, and the bound has room to spare."""


def input_token_bound(messages: Sequence[Message]) -> int:
    """An upper bound on the input tokens of ``messages``: byte-level BPE tokenizers (OpenAI's,
    Anthropic's) give every token at least one byte of text, so no text has more tokens than
    UTF-8 bytes, plus a per-message overhead."""
    return sum(len(m.content.encode(errors="replace")) + MESSAGE_OVERHEAD_TOKENS
               for m in messages)


def _specificity(pattern: str) -> int:
    """How many literal characters a pattern pins down: the more, the more specific."""
    return sum(ch not in _GLOB_CHARS for ch in pattern)


@attrs.frozen
class PriceTable:
    """Model id pattern -> price. An exact id beats any pattern, and among matching patterns the
    most specific wins, so ``openai:gpt-4o-mini*`` overrides ``openai:gpt-4o*`` whatever the
    order of the entries."""

    entries: Mapping[str, Price] = attrs.field(factory=dict)

    def lookup(self, model_id: str) -> Price | None:
        if model_id in self.entries:
            return self.entries[model_id]
        matching = [p for p in self.entries if fnmatch.fnmatchcase(model_id, p)]
        return self.entries[max(matching, key=_specificity)] if matching else None

    def cost_usd(self, model_id: str, input_tokens: int, output_tokens: int) -> float:
        """The cost of one call; 0.0 for a model without a price (a local server, say)."""
        price = self.lookup(model_id)
        return price.cost_usd(input_tokens, output_tokens) if price else 0.0

    def max_cost_usd(self, model_id: str, messages: Sequence[Message],
                     max_output_tokens: int | None) -> float | None:
        """The most a request can cost: its input bounded by ``input_token_bound``, its output
        by ``max_output_tokens``; 0.0 for an unpriced model, ``None`` when the output is not
        bounded (``--max-cost`` then reserves the largest call seen, see ``budget``)."""
        price = self.lookup(model_id)
        if price is None:
            return 0.0
        if max_output_tokens is None:
            return None
        return price.cost_usd(input_token_bound(messages), max_output_tokens)

    def usage(self, model_id: str, input_tokens: int, output_tokens: int) -> Usage:
        """The usage of one call, priced; a model without a price counts as an unpriced call
        (its cost is unknown, not zero)."""
        price = self.lookup(model_id)
        if price is None:
            return Usage(input_tokens, output_tokens, 0.0, calls=1, unpriced_calls=1)
        return Usage(input_tokens, output_tokens, price.cost_usd(input_tokens, output_tokens),
                     calls=1)

    def merged(self, override: PriceTable) -> PriceTable:
        return PriceTable({**self.entries, **override.entries})

    @classmethod
    def parse(cls, text: str, source: str) -> PriceTable:
        """Read the YAML format of ``prices.yaml``; ``source`` names the file in errors."""
        try:
            data = YAML(typ="safe").load(text)
        except YAMLError as exc:
            raise KernelError(_yaml_problem(exc, source)) from None
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise KernelError(f"{source}: expected a mapping of model id to prices")
        return cls({str(key): _price(source, str(key), value) for key, value in data.items()})


def _yaml_problem(exc: YAMLError, source: str) -> str:
    if isinstance(exc, MarkedYAMLError) and exc.problem_mark is not None:
        return f"{source}:{exc.problem_mark.line + 1}: {exc.problem}"
    return f"{source}: " + " ".join(str(exc).split())


def _is_amount(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _price(source: str, key: str, value: Any) -> Price:
    if (
        isinstance(value, dict)
        and set(value) == {"input", "output"}
        and all(_is_amount(v) for v in value.values())
    ):
        return Price(float(value["input"]), float(value["output"]))
    raise KernelError(
        f"{source}: the price of '{key}' must be {{input: USD, output: USD}} per million tokens,"
        f" got {value!r}"
    )


@functools.cache
def builtin_prices() -> PriceTable:
    """The table shipped with the kernel."""
    text = resources.files("speckernel").joinpath("prices.yaml").read_text(encoding="utf-8")
    return PriceTable.parse(text, "speckernel/prices.yaml")


@functools.cache
def _prices_with(override_path: str | None) -> PriceTable:
    if override_path is None:
        return builtin_prices()
    try:
        text = Path(override_path).read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise KernelError(f"cannot read {PRICES_ENV}={override_path}: {reason}") from None
    return builtin_prices().merged(PriceTable.parse(text, override_path))


def prices() -> PriceTable:
    """The builtin table with ``$KERNEL_PRICES`` merged over it.

    The variable is read at every call, each file is parsed once per process. Raises
    ``KernelError`` for an unreadable or malformed override, so that providers, which resolve the
    table when a model is made, report it before the first request instead of after it.
    """
    return _prices_with(os.environ.get(PRICES_ENV) or None)


def cost_usd(model_id: str, input_tokens: int, output_tokens: int) -> float:
    """USD cost of one call to ``model_id`` (``provider:model``); 0.0 for an unpriced model."""
    return prices().cost_usd(model_id, input_tokens, output_tokens)
