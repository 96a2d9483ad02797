"""What one chat message costs the database: every statement of one message, counted, so
a new query per message is a visible change (docs/PERFORMANCE.md, "A lean fixed path").

A guest sends a second message in a conversation, memory on with a saved list: through
the JSON API and through the page's streaming endpoint. The count covers the request's
own connection and the memory reader's (its own thread and connection).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from asgiref.sync import async_to_sync
from django.db import connections
from django.db.backends.signals import connection_created
from django.test import AsyncClient

from memory.reading import memory_readers_close
from tests.chat.conftest import CHAT_A, memory_messages, owner_of, post_json, save_memory
from tests.chat.test_page import _events

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# The request: the session, the guest's visit noted with its saved language, the
# conversation; the message saved (hold the owner, lock the conversation, the newest
# messages — the last one and the history in one read —, insert, update); the reply saved
# (hold, lock, insert, the conversation moved up with its turns counted). The memory
# reader on a new connection: its statement timeout and the list (the list alone after).
JSON_MESSAGE = 12
MEMORY_READ = 2
# The page's stream also reads the side column's newest chat; and the reply's memory mark
# only when the reply made a pass due (not this one: the fourth turn of six).
STREAMED_MESSAGE = 13


@contextlib.contextmanager
def _statements() -> Iterator[list[str]]:
    """Every SQL statement run while inside (transaction control aside), on every
    connection: each is opened afresh, the request's and the memory reader's."""
    memory_readers_close()
    connections.close_all()
    seen: list[str] = []
    watched = []

    def record(execute, sql, params, many, context):
        seen.append(sql)
        return execute(sql, params, many, context)

    def watch(sender, connection, **kwargs) -> None:
        if record not in connection.execute_wrappers:  # a connection object reconnects
            connection.execute_wrappers.append(record)
            watched.append(connection)

    connection_created.connect(watch)
    try:
        yield seen
    finally:
        connection_created.disconnect(watch)
        for each in watched:
            with contextlib.suppress(ValueError):
                each.execute_wrappers.remove(record)


def _guest_with_memory(client) -> int:
    conversation_id = post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    save_memory(owner_of(client), ["Name is Ann", "Lives in Hanoi"])
    assert post_json(client, f"/api/conversations/{conversation_id}/messages/",
                     {"content": "Hello"}).status_code == 200
    return conversation_id


def test_a_json_message_costs_a_fixed_number_of_statements(guest, script_a):
    script_a.reply("Hi Ann.").reply("Still Hanoi.")
    conversation_id = _guest_with_memory(guest)

    with _statements() as statements:
        response = post_json(guest, f"/api/conversations/{conversation_id}/messages/",
                             {"content": "Where do I live?"})

    assert response.status_code == 200
    assert memory_messages(script_a.calls()[-1])  # the list was read, and sent
    assert len(statements) == JSON_MESSAGE + MEMORY_READ, "\n".join(statements)


def test_a_streamed_message_costs_a_fixed_number_of_statements(guest, script_a):
    script_a.reply("Hi Ann.").reply("Still Hanoi.")
    conversation_id = _guest_with_memory(guest)
    browser = AsyncClient()
    browser.cookies = guest.cookies  # the same guest, reading the stream as the page does

    async def send() -> bytes:
        response = await browser.post("/send/stream/", {"content": "Where do I live?",
                                                         "conversation": conversation_id})
        return b"".join([chunk async for chunk in response.streaming_content])

    with _statements() as statements:
        events = _events(async_to_sync(send)())

    assert events[-1][0] == "done"
    assert memory_messages(script_a.calls()[-1])
    assert len(statements) == STREAMED_MESSAGE + MEMORY_READ, "\n".join(statements)
