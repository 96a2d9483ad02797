"""Token counting for memory lists, with tiktoken's `o200k_base` (offline, see whizi.offline_env)."""

from __future__ import annotations

from functools import lru_cache

import tiktoken


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("o200k_base")


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text, disallowed_special=()))


def render_lines(lines: list[str]) -> str:
    """The list as the chat model sees it: one bullet per line."""
    return "\n".join(f"- {line}" for line in lines)


def count_list_tokens(lines: list[str]) -> int:
    return count_tokens(render_lines(lines)) if lines else 0


def encode(text: str) -> list[int]:
    return _encoding().encode(text, disallowed_special=())


def decode(tokens: list[int]) -> str:
    return _encoding().decode(tokens, errors="replace")
