"""Services that fail under chat: the answers stay JSON and quiet, nothing is lost.

- every database connection of the process busy (the pool exhausted): the API says so in
  JSON, 503 with when to try again, not a bare 500;
- PostgreSQL restarted (every pooled connection cut): the next requests are served, each
  connection is checked as it leaves the pool (tested with request-like threads: Django's
  test client keeps one connection for the whole test and never returns it to the pool);
- Redis down: chat answers, each due pass stays recorded for the sweep, and the outage is
  logged once (a count a minute), not with a traceback per message;
- every middleware works in an async chain, so an async chat view waits in no thread.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections
from psycopg_pool import PoolTimeout

from accounts.models import Guest
from chat.models import Message
from memory.models import MemoryPass
from tests.db_faults import other_session

from .conftest import redis_db
from .test_redis_down import redis_down, signed_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _pool():
    return connections["default"].pool


def test_an_exhausted_pool_is_a_json_503_with_retry_after(user):
    client = signed_in(user)
    client.raise_request_exception = False
    connection.close()
    pool = _pool()
    held = []
    with contextlib.suppress(PoolTimeout):  # every connection the pool will give
        while True:
            held.append(pool.getconn(timeout=0.5))
    pool.timeout, timeout = 0.2, pool.timeout
    try:
        response = client.get("/api/memory/")
    finally:
        pool.timeout = timeout
        for conn in held:
            pool.putconn(conn)

    assert response.status_code == 503
    assert response["Content-Type"] == "application/json" and response["Retry-After"] == "5"
    assert response.json()["error"]["title"]


def _query_in_a_request_thread() -> object:
    """What a request does with the pool: take a connection, query, give it back."""
    outcome: dict[str, object] = {}

    def request() -> None:
        try:
            outcome["answer"] = Guest.objects.count()
        except Exception as exc:  # what would have been a 500
            outcome["answer"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=request)
    thread.start()
    thread.join()
    return outcome["answer"]


def test_a_postgresql_restart_costs_no_request():
    connection.close()  # the test's own connection goes back to the pool too
    with ThreadPoolExecutor(4) as threads:  # the pool now holds several idle connections
        assert list(threads.map(lambda _: _query_in_a_request_thread(), range(4))) == [0] * 4
    with other_session(autocommit=True) as other:  # every connection the pool holds is cut, as by a restart
        cut = other.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()[0]
    assert cut >= 2

    answers = [_query_in_a_request_thread() for _ in range(6)]

    assert answers == [0] * 6


@pytest.fixture
def fresh_outage_reports():
    """Reports are once a minute per service: start this test with none made yet."""
    from whizi import degraded

    degraded._last_report.clear()
    degraded._since_report.clear()


def test_with_redis_down_chat_answers_and_the_outage_is_logged_once(user, settings, private_redis, caplog,
                                                                   fresh_outage_reports):
    settings.WHIZI_CHAT_MODELS = ["whizi/offline"]  # the scripted model keeps its answers in Redis
    settings.WHIZI_RATE_LIMITS_ENABLED = True  # counting fails too: fail open, quietly
    settings.WHIZI_MEMORY_READ_TIMEOUT = 2.0  # room for the read on a busy machine
    settings.REDIS_CACHE_URL = redis_db(private_redis.url, 1)
    client = signed_in(user)
    private_redis.stop()

    with redis_down(private_redis.url), caplog.at_level(logging.INFO):
        started = client.post("/api/conversations/", data="{}", content_type="application/json",
                              headers={"X-CSRFToken": client.cookies["csrftoken"].value})
        url = f"/api/conversations/{started.json()['id']}/messages/"
        statuses = []
        for number in range(3):
            response = client.post(url, data=json.dumps({"content": f"Remember that my number is {number}."}),
                                   content_type="application/json",
                                   headers={"X-CSRFToken": client.cookies["csrftoken"].value})
            statuses.append(response.status_code)

    assert statuses == [200, 200, 200]
    # The three requests share the conversation's one waiting pass, which the sweep
    # publishes later and which reads every turn through the last reply.
    waiting = MemoryPass.objects.get(user=user, status=MemoryPass.Status.QUEUED)
    last_reply = Message.objects.filter(conversation_id=started.json()["id"], role="assistant").latest("id")
    assert waiting.through_message_id == last_reply.id
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [r for r in problems if r.exc_info], "no traceback per message"
    broker = [r.getMessage() for r in problems if r.getMessage().startswith("broker unavailable")]
    assert len(broker) == 1, [r.getMessage() for r in problems]
    # One line per service that is down (broker, cache, rate limits), not one per message.
    assert len(problems) <= 3, [r.getMessage() for r in problems]


def test_every_middleware_runs_in_an_async_chain(caplog):
    from django.core.handlers.asgi import ASGIHandler

    with caplog.at_level(logging.DEBUG, logger="django.request"):
        ASGIHandler()

    adapted = [r.getMessage() for r in caplog.records if "adapted" in r.getMessage()]
    assert adapted == []
