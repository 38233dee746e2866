"""Anthropic's Messages API: ``--model anthropic:claude-...``.

Implements ``POST {base_url}/v1/messages`` (https://docs.anthropic.com/en/api/messages), API
version ``2023-06-01``. Three differences from the OpenAI dialect shape this module: system
prompts are a top-level ``system`` field, not messages; ``max_tokens`` is required; the answer is
a list of content blocks, of which only the ``text`` ones are the model's reply (``thinking`` and
``tool_use`` blocks are not). The API has no sampling seed, so ``GenerateParams.seed`` is not sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from speckernel.components import Model
from speckernel.errors import ProviderError
from speckernel.model import JSON, Completion, GenerateParams, Message
from speckernel.providers.http import HttpEndpoint, HttpProvider, Reply, extract, token_count
from speckernel.providers.pricing import PriceTable, prices

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096
"""Sent when the caller leaves ``max_tokens`` unset, since the API requires one."""


class AnthropicProvider(HttpProvider):
    name = "anthropic"
    description = "Anthropic Messages API (Claude models)"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_base_url = "https://api.anthropic.com"
    api_key_env = "ANTHROPIC_API_KEY"

    def headers(self, api_key: str | None) -> dict[str, str]:
        auth = {"x-api-key": api_key} if api_key else {}
        return {**auth, "anthropic-version": API_VERSION}

    def model(self, model: str, options: Mapping[str, Any]) -> AnthropicModel:
        endpoint = self.endpoint(model, options)
        return AnthropicModel(id=endpoint.name, name=model, endpoint=endpoint, prices=prices())


@attrs.frozen
class AnthropicModel(Model):
    """``anthropic:NAME``: ``name`` is the API's model name, e.g. ``claude-sonnet-4-5``."""

    id: str
    name: str
    endpoint: HttpEndpoint
    prices: PriceTable = attrs.field(repr=False)

    def max_cost_usd(self, messages: Sequence[Message], params: GenerateParams) -> float | None:
        """Always bounded: the request always carries ``max_tokens``."""
        max_tokens = DEFAULT_MAX_TOKENS if params.max_tokens is None else params.max_tokens
        return self.prices.max_cost_usd(self.id, messages, max_tokens)

    async def complete(self, messages: Sequence[Message], params: GenerateParams) -> Completion:
        body = messages_request(self.name, messages, params)
        reply = await self.endpoint.post_json("/v1/messages", body)
        return parse_messages_response(self.id, reply, self.prices)


def messages_request(
    model: str, messages: Sequence[Message], params: GenerateParams
) -> dict[str, JSON]:
    """The request body. System messages, wherever they stand, are joined into ``system``."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    body: dict[str, JSON] = {
        "model": model,
        "max_tokens": DEFAULT_MAX_TOKENS if params.max_tokens is None else params.max_tokens,
        "messages": [
            {"role": m.role, "content": m.content} for m in messages if m.role != "system"
        ],
    }
    optional = {
        "system": system or None,
        "temperature": params.temperature,
        "top_p": params.top_p,
        "stop_sequences": list(params.stop) or None,
    }
    body.update({key: value for key, value in optional.items() if value is not None})
    return body


def parse_messages_response(model_id: str, reply: Reply, prices: PriceTable) -> Completion:
    """The text blocks joined, the stop reason, and the usage with its cost."""
    blocks = extract(model_id, reply.body, "content")
    if not isinstance(blocks, list):
        raise ProviderError(f"{model_id}: unexpected response: content is not a list of blocks")
    usage = reply.body.get("usage")
    return Completion(
        text="".join(block["text"] for block in blocks if _is_text(block)),
        model=model_id,
        usage=prices.usage(
            model_id,
            token_count(model_id, usage, "input_tokens"),
            token_count(model_id, usage, "output_tokens"),
        ),
        latency_s=reply.latency_s,
        finish_reason=reply.body.get("stop_reason"),
    )


def _is_text(block: Any) -> bool:
    """Whether a content block is reply text (rather than thinking or a tool call)."""
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )
