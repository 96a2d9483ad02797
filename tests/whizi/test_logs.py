"""Logs an operator can follow (whizi.logs): every line of a request carries its id, the id
goes with the memory pass the request made due into the worker's lines (with the task's
and the pass's), WHIZI_LOG_FORMAT=json writes one JSON object a line, and neither the web
nor the worker ever logs what someone wrote.

Persona: an operator following one chat from the web's log into the worker's; a client
(or a proxy) sending X-Request-ID.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.test import Client

from bench.stack import broker_purge, free_port, uvicorn_start, wait_until, worker_start, worker_wait_ping
from memory.models import MemoryPass
from tests.conftest import ARTIFACTS, server_env
from whizi.llm.scripted import Script
from whizi.logs import JsonLineFormatter, LogContextFilter, TextFormatter, log_context

pytestmark = pytest.mark.django_db


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    """What the project's own handler (filter and text format) writes, at INFO."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(LogContextFilter())
    handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield out
    root.removeHandler(handler)
    root.setLevel(level)


def test_a_request_logs_one_line_with_its_id_route_and_status_and_answers_with_the_id(lines):
    response = Client().get("/", headers={"X-Request-ID": "edge-7f3a91c2"})

    assert response["X-Request-ID"] == "edge-7f3a91c2"
    assert re.search(r" INFO whizi\.request \[request=edge-7f3a91c2\] GET chat:home 200 \d+ ms$",
                     lines.getvalue(), re.M), lines.getvalue()


def test_without_a_plain_id_from_the_client_the_request_gets_one_of_its_own(lines):
    response = Client().get("/", headers={"X-Request-ID": "x\nINFO forged line"})

    assert re.fullmatch(r"[0-9a-f]{32}", response["X-Request-ID"])
    assert "forged" not in lines.getvalue()


def test_a_json_line_has_the_ids_and_nothing_a_library_added():
    record = logging.LogRecord("memory.run", logging.WARNING, __file__, 1, "memory pass %s: %s",
                               (7, "failed"), None)
    record.data = {"args": "Please remember my sister Anjali"}  # as Celery's task lines carry
    with log_context(request_id="chat-0002-bbbb", pass_id=7):
        LogContextFilter().filter(record)

    line = json.loads(JsonLineFormatter().format(record))

    assert line.pop("time")
    assert line == {"level": "WARNING", "logger": "memory.run", "message": "memory pass 7: failed",
                    "request_id": "chat-0002-bbbb", "task_id": "-", "pass_id": "7"}


# ---------------------------------------------------------------- the web and the worker

def _fresh_log(name: str) -> Path:
    path = ARTIFACTS / f"{name}-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"
    path.unlink(missing_ok=True)
    return path


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.worker
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_one_chat_can_be_followed_from_the_web_log_into_the_worker_log(django_db_blocker):
    Script("chat-a").reset().reply("Noted: your sister is Anjali.")
    Script("memory").reset().reply("- Sister is called Anjali")
    broker_purge()
    env = server_env(WHIZI_LOG_FORMAT="json", WHIZI_CHAT_MODELS="scripted/chat-a", WHIZI_CHAT_RETRIES="0",
                     WHIZI_MEMORY_MODEL="scripted/memory")
    worker = worker_start(env=env, log=_fresh_log("worker-json"), cold_stop=True)
    port = free_port()
    web = uvicorn_start(env=env, log=_fresh_log("uvicorn-json"), port=port, options=["--no-access-log"])
    base = f"http://127.0.0.1:{port}"
    try:
        with django_db_blocker.unblock():
            worker_wait_ping(worker)
        # Celery prints (never logs) its banner at start and a notice as it stops: the
        # lines in between are the worker's log.
        worker_ready_at = worker.log_path.stat().st_size
        wait_until(lambda: _alive(base), timeout=60, what="the server did not answer /healthz", watch=[web])
        with httpx.Client(base_url=base, timeout=30) as client:
            client.get("/")
            token = {"X-CSRFToken": client.cookies["csrftoken"]}
            conversation = client.post("/api/conversations/", json={"model": "scripted/chat-a"},
                                       headers={**token, "X-Request-ID": "conv-0001-aaaa"}).json()["id"]
            reply = client.post(f"/api/conversations/{conversation}/messages/",
                                json={"content": "Please remember that my sister is called Anjali."},
                                headers={**token, "X-Request-ID": "chat-0002-bbbb"})
        assert reply.status_code == 200, reply.text
        assert reply.headers["X-Request-ID"] == "chat-0002-bbbb"
        memory_pass = wait_until(lambda: MemoryPass.objects.filter(status=MemoryPass.Status.DONE).first(),
                                 timeout=60, what="the pass did not run", watch=[worker])
        wait_until(lambda: f'"pass_id": "{memory_pass.pk}"' in worker.log_path.read_text(), timeout=10,
                   what="the pass's lines were not written")
        worker_text = worker.log_path.read_bytes()[worker_ready_at:].decode()
    finally:
        web.stop()
        worker.stop()
        broker_purge()

    web_text = web.log_path.read_text()
    web_lines, worker_lines = _json_lines(web_text), _json_lines(worker_text)  # every line is JSON
    chat_lines = [line for line in web_lines if line["request_id"] == "chat-0002-bbbb"]
    assert any(line["logger"] == "whizi.request" and line["message"].startswith("POST api:messages 200")
               for line in chat_lines), web_lines
    pass_lines = [line for line in worker_lines if line["pass_id"] == str(memory_pass.pk)]
    assert pass_lines and all(line["request_id"] == "chat-0002-bbbb" and line["task_id"] != "-"
                              for line in pass_lines), worker_lines
    for text in (web_text, worker_text):
        for words in ("Anjali", "sister", "Please remember"):
            assert words not in text


def _alive(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
