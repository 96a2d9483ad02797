"""Requests that reach an account in the last moment of its deletion (rows deleted, not
yet committed) wait for it, then find the account gone: a 404, never a 500.

The deletion is the real service, run inside a transaction this test keeps open, so its
locks are held exactly as they are just before a real deletion commits.

Personas: the user, whose browser sends a message or signs in; support, deleting the
account at that moment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections, transaction
from django.test import Client

from chat.models import Conversation, Message
from lifecycle.deletion import account_delete
from tests.lifecycle.helpers import PASSWORD, make_user, owned_rows

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _in_thread(run: Callable[[], None]) -> threading.Thread:
    def target() -> None:
        try:
            run()
        finally:
            connections.close_all()

    thread = threading.Thread(target=target)
    thread.start()
    return thread


def _waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock'")
        return cursor.fetchone()[0]


def _while_the_deletion_commits(user_id: int, request: Callable[[], object], wait_for) -> object:
    """Delete the account, and before committing, send `request`; commit once the
    request waits on the deletion's locks. Returns the request's answer."""
    deleted, commit = threading.Event(), threading.Event()

    def delete() -> None:
        with transaction.atomic():
            account_delete(user_id=user_id)
            deleted.set()
            commit.wait(60)

    deletion = _in_thread(delete)
    assert deleted.wait(60)
    answer: dict[str, object] = {}
    sender = _in_thread(lambda: answer.setdefault("response", request()))
    wait_for(lambda: _waiting_on_a_lock() >= 1)
    commit.set()
    deletion.join(60)
    sender.join(60)
    return answer["response"]


def test_a_message_sent_as_the_deletion_commits_waits_and_is_a_404(wait_for):
    user = make_user("mai@example.com")
    conversation = Conversation.objects.create(user=user, model="whizi/offline")
    browser = Client(raise_request_exception=False)
    browser.force_login(user)

    response = _while_the_deletion_commits(
        user.pk, lambda: browser.post(f"/api/conversations/{conversation.pk}/messages/",
                                      {"content": "Hello"}, content_type="application/json"),
        wait_for)

    assert response.status_code == 404
    assert response.json()["error"]["title"] == "Not found"
    assert set(owned_rows(user.pk).values()) == {0}
    assert not Message.objects.filter(conversation_id=conversation.pk).exists()


def test_signing_in_as_the_deletion_commits_waits_and_is_a_404(wait_for):
    user = make_user("mai@example.com")
    browser = Client(raise_request_exception=False)

    response = _while_the_deletion_commits(
        user.pk, lambda: browser.post("/accounts/login/", {"login": user.email, "password": PASSWORD}),
        wait_for)

    assert response.status_code == 404
    assert "_auth_user_id" not in browser.session  # not signed in to anything
