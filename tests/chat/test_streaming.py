"""A streamed reply goes to the page in batches by time: the first piece at once, then
what arrived meanwhile, together; a failure after the text that came before it."""

import asyncio

import pytest

from chat.streaming import reply_text_batched
from whizi.llm import ModelError


async def _source(go: asyncio.Event, rest: list[str], failure: Exception | None = None):
    yield "Hello"
    await go.wait()  # the rest arrives once the first piece has gone out
    for piece in rest:
        yield piece
    if failure is not None:
        raise failure


def _run(rest: list[str], failure: Exception | None = None) -> tuple[list[str], Exception | None]:
    async def run():
        go = asyncio.Event()
        batches: list[str] = []
        try:
            async for text in reply_text_batched(_source(go, rest, failure), interval=0.05):
                batches.append(text)
                go.set()
        except ModelError as exc:
            return batches, exc
        return batches, None

    return asyncio.run(run())


def test_the_first_piece_goes_at_once_and_the_rest_together():
    rest = [f" word{i}" for i in range(500)]

    batches, failure = _run(rest)

    assert batches[0] == "Hello"  # not held back to gather more
    assert "".join(batches) == "Hello" + "".join(rest)
    assert len(batches) <= 3 and failure is None  # 501 pieces, not 501 events


def test_a_failure_comes_after_the_text_before_it():
    batches, failure = _run([" there", ","], ModelError("cut", kind="server"))

    assert "".join(batches) == "Hello there,"
    assert failure is not None and failure.kind == "server"


@pytest.mark.parametrize("rest", [[], [" again"]])
def test_a_short_reply_is_whole(rest):
    batches, _ = _run(rest)

    assert "".join(batches) == "Hello" + "".join(rest)
