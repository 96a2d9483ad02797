"""The side column after a streamed message: the page gets the list again only when the
chat's place, title or day in it changed, and the newest chat it compares with is the
one the list itself shows first (one rule, read two ways: chat.conversations)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.test import AsyncClient
from django.utils import timezone

from accounts.models import Guest
from accounts.owner import Owner
from chat.conversations import conversation_list_head, conversation_search
from chat.models import Conversation, Message, Project
from tests.chat.conftest import CHAT_A
from tests.chat.test_page import _events

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _chat(owner: Owner, title: str, *, used: bool = True, minutes_ago: int = 0, **fields) -> Conversation:
    chat = Conversation.objects.create(**owner.lookup, title=title, model=CHAT_A, **fields)
    if used:
        Message.objects.create(conversation=chat, role="user", content=title)
    Conversation.objects.filter(pk=chat.pk).update(updated_at=timezone.now() - timedelta(minutes=minutes_ago))
    return chat


def _listed_first(owner: Owner) -> tuple[int, str, object] | None:
    found, _more = conversation_search(owner=owner, limit=1)
    if not found:
        return None
    return found[0].pk, found[0].title, timezone.localdate(found[0].updated_at)


@pytest.fixture
def owners() -> tuple[Owner, Owner]:
    user = get_user_model().objects.create_user(username="ann", email="ann@example.com", password="x" * 12)
    return Owner(user_id=user.pk), Owner(guest_id=Guest.objects.create().pk)


def test_the_head_is_the_chat_the_list_shows_first_for_a_user_and_for_a_guest(owners):
    user, guest = owners
    assert conversation_list_head(owner=user) is None is _listed_first(user)  # nothing yet
    newest = {}
    for owner in (user, guest):
        _chat(owner, "Older", minutes_ago=30)
        project = Project.objects.create(**owner.lookup, name="P")
        newest[owner] = _chat(owner, "Newest", minutes_ago=5 if owner == user else 10, project=project)
        _chat(owner, "Started, never used", used=False)  # newer, but not listed

    for owner in (user, guest):  # each sees its own, not the other's newer one
        assert conversation_list_head(owner=owner) == _listed_first(owner)
        assert conversation_list_head(owner=owner)[:2] == (newest[owner].pk, "Newest")


def test_two_chats_used_at_the_same_moment_are_ordered_alike(owners):
    user, _guest = owners
    at = timezone.now() - timedelta(days=3)
    first, second = _chat(user, "One"), _chat(user, "Two")
    Conversation.objects.filter(pk__in=[first.pk, second.pk]).update(updated_at=at)

    expected = (second.pk, "Two", timezone.localdate(at))
    assert conversation_list_head(owner=user) == _listed_first(user) == expected


def test_no_owner_has_no_head():
    assert conversation_list_head(owner=None) is None


def _stream_messages(sends: list[dict]) -> list[dict]:
    """One browser's streamed messages in turn; the `done` event of each."""

    async def run() -> list[dict]:
        client = AsyncClient()
        await client.get("/")
        done = []
        for fields in sends:
            back = {"same": 1, "previous": 2}.get(fields.get("conversation", ""))
            if back:  # the chat of the last message, or of the one before it
                fields = {**fields, "conversation": str(done[-back]["conversation"])}
            response = await client.post("/send/stream/", {"model": CHAT_A, **fields})
            events = [event async for chunk in response.streaming_content for event in _events(chunk)]
            assert events[-1][0] == "done", events[-1]
            done.append({**events[-1][1], "conversation": events[0][1]["conversation"]})
        return done

    return async_to_sync(run)()


def test_the_side_column_is_sent_again_only_when_the_chat_moved_or_was_named(script_a):
    for _ in range(4):
        script_a.reply("Noted.")

    first, again, other, back = _stream_messages([
        {"content": "Plan a trip"},                                  # a new chat: listed, named
        {"content": "In May", "conversation": "same"},                 # the same chat, on top already
        {"content": "A recipe"},                                     # another new chat goes on top
        {"content": "Back to the trip", "conversation": "previous"},  # the trip moves up again
    ])

    assert "Plan a trip" in first["list_html"]
    assert again["list_html"] == ""
    assert other["list_html"].index("A recipe") < other["list_html"].index("Plan a trip")
    assert back["list_html"].index("Plan a trip") < back["list_html"].index("A recipe")
