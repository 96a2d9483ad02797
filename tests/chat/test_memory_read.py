"""Reading memory never blocks a reply (docs/DESIGN.md §2.4): the read runs beside the rest of
the request under WHIZI_MEMORY_READ_TIMEOUT; when the database fails it or holds it up,
the reply arrives without the block, and the skip is logged and counted.

The database is made to fail and to stall for real, from a second connection: the
memory table is renamed away (the read errors), or locked (the read waits)."""

import logging
import threading

import psycopg
import pytest
from django.db import connections

from memory.models import Memory
from memory.reading import _read_memory_in_thread
from tests.chat.conftest import CHAT_A, memory_messages, owner_of, post_json, save_memory
from tests.db_faults import table_locked, table_missing

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _conversation(client) -> int:
    return post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]


def test_with_memory_readable_the_block_is_attached(guest, script_a, read_skips):
    script_a.reply("Hi Ann.")
    save_memory(owner_of(guest), ["Name is Ann"])
    response = post_json(guest, f"/api/conversations/{_conversation(guest)}/messages/", {"content": "Hi"})

    assert response.status_code == 200
    assert memory_messages(script_a.calls()[0])
    assert read_skips() == {"timeout": 0, "error": 0}


def test_a_failing_read_still_gets_a_reply_without_the_block(guest, script_a, caplog, read_skips):
    script_a.reply("Hello.")
    save_memory(owner_of(guest), ["Name is Ann"])
    conversation_id = _conversation(guest)

    with caplog.at_level(logging.WARNING, logger="memory.reading"), table_missing(Memory):
        response = post_json(guest, f"/api/conversations/{conversation_id}/messages/", {"content": "Hi"})

    assert response.status_code == 200
    assert response.json()["reply"] == "Hello."
    [call] = script_a.calls()
    assert memory_messages(call) == []
    assert read_skips() == {"timeout": 0, "error": 1}
    assert "memory read failed" in caplog.text
    assert "Name is Ann" not in caplog.text  # logs name the owner, never a fact


def _reads_waiting(lock: psycopg.Connection) -> int:
    return lock.execute(
        "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
        "WHERE c.relname = 'memory_memory' AND NOT l.granted"
    ).fetchone()[0]


def test_a_slow_read_costs_no_more_than_the_timeout(guest, script_a, settings, caplog, wait_for,
                                                    read_skips):
    settings.WHIZI_MEMORY_READ_TIMEOUT = 0.2
    script_a.reply("Hello.")
    save_memory(owner_of(guest), ["Name is Ann"])
    conversation_id = _conversation(guest)

    with caplog.at_level(logging.WARNING, logger="memory.reading"), table_locked(Memory) as lock:
        response = post_json(guest, f"/api/conversations/{conversation_id}/messages/", {"content": "Hi"})
        # The reply is back while the lock is still held, and the read is still stuck
        # behind it: the request waited for the timeout, not for the database.
        assert response.status_code == 200
        assert wait_for(lambda: _reads_waiting(lock) == 1, timeout=5)

    assert response.json()["reply"] == "Hello."
    assert memory_messages(script_a.calls()[0]) == []
    assert read_skips() == {"timeout": 1, "error": 0}
    assert "memory read timed out" in caplog.text


def test_once_the_database_recovers_the_block_is_back(guest, script_a):
    script_a.reply("One.").reply("Two.")
    save_memory(owner_of(guest), ["Name is Ann"])
    conversation_id = _conversation(guest)
    with table_missing(Memory):
        post_json(guest, f"/api/conversations/{conversation_id}/messages/", {"content": "Hi"})

    post_json(guest, f"/api/conversations/{conversation_id}/messages/", {"content": "Again"})

    first, second = script_a.calls()
    assert memory_messages(first) == [] and memory_messages(second)


def test_a_reader_connection_is_given_its_statement_timeout_once(guest, script_a):
    """The reader's statement timeout lasts as long as its connection: set on a new
    connection and when the setting changes, not once more per read."""
    script_a.reply("Hi.")
    post_json(guest, f"/api/conversations/{_conversation(guest)}/messages/", {"content": "Hi"})
    owner = owner_of(guest)
    save_memory(owner, ["Name is Ann"])
    seen: list[str] = []
    timeouts: list[str] = []
    lines: list[tuple[str, ...]] = []

    def reads() -> None:
        connection = connections["default"]

        def record(execute, sql, params, many, context):
            seen.append(sql)
            return execute(sql, params, many, context)

        try:
            for timeout_ms in (4321, 4321, 4321, 5000):
                with connection.execute_wrapper(record):
                    lines.append(_read_memory_in_thread(owner, timeout_ms).lines)
                with connection.cursor() as cursor:
                    cursor.execute("SHOW statement_timeout")
                    timeouts.append(cursor.fetchone()[0])
        finally:
            connections.close_all()

    thread = threading.Thread(target=reads)
    thread.start()
    thread.join(timeout=30)

    assert lines == [("Name is Ann",)] * 4
    assert timeouts == ["4321ms", "4321ms", "4321ms", "5s"]
    assert sum("statement_timeout" in sql for sql in seen) == 2  # the first read, then the change
    assert sum("memory_memory" in sql for sql in seen) == 4
