"""A base for Whizi's own litellm providers: answer with text, litellm does the rest.

Subclasses implement `respond()`; this class turns its text into litellm's
non-streaming and streaming answers, sync and async, so callers need no special case.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from litellm import ModelResponse
from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import GenericStreamingChunk


def rough_token_count(text: str) -> int:
    """Usage figures for the providers' answers; the memory pipeline counts its own."""
    return len(re.findall(r"\w+|[^\w\s]", text))


def _stream_pieces(text: str) -> list[str]:
    # Word-sized pieces, so the page visibly streams the reply.
    return re.findall(r"\S+\s*|\s+", text) or [""]


class TextLLM(CustomLLM):
    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        raise NotImplementedError

    def _response(self, model: str, messages: list[dict[str, Any]], text: str) -> ModelResponse:
        prompt_tokens = sum(rough_token_count(str(m.get("content") or "")) for m in messages)
        completion_tokens = rough_token_count(text)
        return ModelResponse(
            model=model,
            choices=[{"index": 0, "message": {"role": "assistant", "content": text},
                      "finish_reason": "stop"}],
            usage={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        )

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        params = kwargs.get("optional_params") or {}
        return self._response(model, messages, self.respond(model, messages, params))

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        params = kwargs.get("optional_params") or {}
        text = await asyncio.to_thread(self.respond, model, messages, params)
        return self._response(model, messages, text)

    def _chunks(self, text: str) -> Iterator[GenericStreamingChunk]:
        pieces = _stream_pieces(text)
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            yield GenericStreamingChunk(
                text=piece,
                tool_use=None,
                is_finished=last,
                finish_reason="stop" if last else "",
                usage=None,
                index=0,
            )

    def streaming(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> Iterator[GenericStreamingChunk]:
        params = kwargs.get("optional_params") or {}
        yield from self._chunks(self.respond(model, messages, params))

    async def astreaming(
        self, model: str, messages: list, *args: Any, **kwargs: Any
    ) -> AsyncIterator[GenericStreamingChunk]:
        params = kwargs.get("optional_params") or {}
        text = await asyncio.to_thread(self.respond, model, messages, params)
        for chunk in self._chunks(text):
            yield chunk
            await asyncio.sleep(0)
