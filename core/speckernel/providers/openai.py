"""OpenAI-compatible chat completions: OpenAI's API and the servers that speak its dialect.

Implements ``POST {base_url}/chat/completions``
(https://platform.openai.com/docs/api-reference/chat/create). vLLM, Ollama (under ``/v1``), the
llama.cpp server and OpenRouter serve the same request and response shapes, so pointing
``base_url`` (or ``OPENAI_BASE_URL``) at one of them benchmarks a local or routed model with
``--model openai:NAME``. Local servers usually need no key: without one no ``Authorization``
header is sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import httpx

from speckernel.components import Model
from speckernel.errors import ProviderError
from speckernel.model import JSON, Completion, GenerateParams, Message
from speckernel.providers.http import HttpEndpoint, HttpProvider, Reply, extract, token_count
from speckernel.providers.pricing import PriceTable, prices


class OpenAIProvider(HttpProvider):
    name = "openai"
    description = "OpenAI-compatible chat completions (OpenAI, vLLM, Ollama, llama.cpp, OpenRouter)"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = "https://api.openai.com/v1"
    api_key_env = "OPENAI_API_KEY"

    def headers(self, api_key: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def model(self, model: str, options: Mapping[str, Any]) -> OpenAIModel:
        endpoint = self.endpoint(model, options)
        return OpenAIModel(
            id=endpoint.name,
            name=model,
            endpoint=endpoint,
            prices=prices(),
            max_tokens_field=max_tokens_field(endpoint.config.base_url),
        )


def max_tokens_field(base_url: str) -> str:
    """OpenAI's own API replaced ``max_tokens`` by ``max_completion_tokens``, and its reasoning
    models (o3, gpt-5) reject the old name; the compatible servers all accept ``max_tokens``, not
    all of them the new name."""
    return "max_completion_tokens" if httpx.URL(base_url).host == "api.openai.com" else "max_tokens"


@attrs.frozen
class OpenAIModel(Model):
    """``openai:NAME``: ``name`` is what the server calls the model."""

    id: str
    name: str
    endpoint: HttpEndpoint
    prices: PriceTable = attrs.field(repr=False)
    max_tokens_field: str = "max_tokens"

    def max_cost_usd(self, messages: Sequence[Message], params: GenerateParams) -> float | None:
        """Unbounded when ``max_tokens`` is unset: the server then answers up to the model's
        own limit, which the kernel does not know."""
        return self.prices.max_cost_usd(self.id, messages, params.max_tokens)

    async def complete(self, messages: Sequence[Message], params: GenerateParams) -> Completion:
        body = chat_request(self.name, messages, params, self.max_tokens_field)
        reply = await self.endpoint.post_json("/chat/completions", body)
        return parse_chat_response(self.id, reply, self.prices)


def chat_request(
    model: str,
    messages: Sequence[Message],
    params: GenerateParams,
    max_tokens_field: str = "max_tokens",
) -> dict[str, JSON]:
    """The request body; a parameter left ``None`` is omitted, leaving the server's default."""
    body: dict[str, JSON] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
    }
    optional = {
        "temperature": params.temperature,
        max_tokens_field: params.max_tokens,
        "top_p": params.top_p,
        "stop": list(params.stop) or None,
        "seed": params.seed,
    }
    body.update({key: value for key, value in optional.items() if value is not None})
    return body


def parse_chat_response(model_id: str, reply: Reply, prices: PriceTable) -> Completion:
    """The first choice's text (``""`` when the model produced none, e.g. when a reasoning model
    spent its token budget thinking), its finish reason, and the usage with its cost."""
    choice = extract(model_id, reply.body, "choices", 0)
    content = extract(model_id, choice, "message", "content")
    if not isinstance(content, str | None):
        raise ProviderError(f"{model_id}: unexpected response: message content is not text")
    usage = reply.body.get("usage")
    return Completion(
        text=content or "",
        model=model_id,
        usage=prices.usage(
            model_id,
            token_count(model_id, usage, "prompt_tokens"),
            token_count(model_id, usage, "completion_tokens"),
        ),
        latency_s=reply.latency_s,
        finish_reason=choice.get("finish_reason"),
    )
