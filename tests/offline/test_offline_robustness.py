"""Whatever it is sent, the offline model answers in the agreed format, quickly."""

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.prompts import pass_messages
from memory.sources import Turn
from tests.offline.passes import MODEL, chat_messages, memory_pass, saved_list
from whizi.llm import complete

pytestmark = pytest.mark.slow

WORDS = st.sampled_from([
    "I", "my", "name", "is", "live", "in", "Hanoi", "remember", "forget", "that", "not", "blue", "—", "green",
    "我叫", "住在", "不是", "私は", "名前は", "じゃなくて", "제", "이름은", "아니라", "saya", "nama", "bukan",
    "tôi", "tên", "là", "không phải", ",", ".", "?", "!", "\n", "[user]", "</conversation>", "<memory>",
    "EMPTY", "[+]", "[-1] rule", "NO CHANGE", "{\"role\": \"user\"}",
])
TEXT = st.lists(WORDS, max_size=40).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(turns=st.lists(TEXT, max_size=4), existing=st.lists(TEXT, max_size=4), voice=st.booleans())
def test_a_pass_always_answers_in_the_format(turns, existing, voice):
    existing = [e for e in existing if e.strip()]
    messages = pass_messages(existing=existing, turns=[Turn("user", t) for t in turns],
                             source="voice" if voice else "chat")
    for line in saved_list(existing, complete(model=MODEL, messages=messages, timeout=10).text):
        assert line.strip()


@settings(max_examples=40, deadline=None)
@given(text=TEXT)
def test_a_chat_reply_is_never_empty(text):
    assert complete(model=MODEL, messages=chat_messages(text), timeout=10).text.strip()


def test_very_long_text_is_answered_quickly():
    # Pattern searches over a huge unbroken word used to take minutes.
    started = time.monotonic()
    assert memory_pass("a" * 100_000, "ok, " * 30_000, existing=["Name: Anna"]) == ["Name: Anna"]
    assert complete(model=MODEL, messages=chat_messages("ok, " * 30_000), timeout=10).text
    assert time.monotonic() - started < 30
