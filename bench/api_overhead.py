"""What the JSON API's own machinery costs per request in the web process: routing, body
and parameter validation, the answer's serialisation and the error shape (whizi.api,
django-ninja since issue 24), measured on requests that call no model.

A guest with 20 listed conversations and a saved list is made in the database DATABASE_URL
names; then each request is sent --rounds times through Django's test client (the whole
middleware chain, in-process, no network): the list, one conversation, the memory list, a
rename (a validated body), a refused body (400) and a refused rename (a ninja validation
error). CPU median per request in ms (`time.process_time()`). The guest is deleted after.

    DATABASE_URL=postgres://… python bench/api_overhead.py --rounds 300

Run it from two checkouts to compare them. Figures: docs/PERFORMANCE.md ("The JSON API's
own cost per request").
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.test import Client  # noqa: E402

from accounts.models import Guest  # noqa: E402
from accounts.owner import GUEST_SESSION_KEY  # noqa: E402
from chat.models import Conversation, Message  # noqa: E402
from memory.models import Memory  # noqa: E402


def _guest() -> tuple[Client, Guest, int]:
    client = Client(enforce_csrf_checks=True)
    client.get("/api/memory/")  # the csrftoken cookie
    guest = Guest.objects.create()
    session = client.session
    session[GUEST_SESSION_KEY] = str(guest.pk)
    session.save()
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    chats = [Conversation.objects.create(guest=guest, model="whizi/offline", title=f"Chat {n}")
             for n in range(20)]
    for chat in chats:
        Message.objects.create(conversation=chat, role="user", content="Plan my week")
    Memory.objects.create(guest=guest, lines=[f"Fact {n}" for n in range(30)], tokens=120, version=1)
    return client, guest, chats[0].pk


def _timed(send, rounds: int) -> float:
    send()  # warm
    samples = []
    for _ in range(rounds):
        started = time.process_time()
        response = send()
        samples.append(time.process_time() - started)
        assert response.status_code < 500, response.content[:200]
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    settings.WHIZI_RATE_LIMITS_ENABLED = False
    logging.disable(logging.WARNING)  # one line per request (and per refusal) is not the figure
    client, guest, chat = _guest()
    token = {"X-CSRFToken": client.cookies["csrftoken"].value}

    def patch(body: object):
        return lambda: client.patch(f"/api/conversations/{chat}/", json.dumps(body),
                                    content_type="application/json", headers=token)

    requests = {
        "GET conversations (20)": lambda: client.get("/api/conversations/"),
        "GET conversation": lambda: client.get(f"/api/conversations/{chat}/"),
        "GET memory (30 facts)": lambda: client.get("/api/memory/"),
        "PATCH rename": patch({"title": "Trip to Hue"}),
        "PATCH refused: not JSON": lambda: client.patch(f"/api/conversations/{chat}/", "{", headers=token,
                                                        content_type="application/json"),
        "PATCH refused: title a number": patch({"title": 7}),
    }
    try:
        for name, send in requests.items():
            print(f"{name:32} {_timed(send, args.rounds):6.2f} ms CPU (median of {args.rounds})")
    finally:
        guest.delete()


if __name__ == "__main__":
    main()
