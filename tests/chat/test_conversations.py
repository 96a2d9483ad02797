"""Managing conversations, on the page and in the JSON API (the same services): rename,
delete (its messages go, memory stays), search by title and text, newest first, grouped
by date, a page at a time; every refusal is a clear error that changes nothing.

Personas: a guest with a few chats; another guest (whose ids are 404s: tests/security/
test_ownership.py covers every door).
"""

import json
from datetime import UTC, date, datetime, timedelta

import pytest

from chat.conversations import conversation_groups
from chat.models import Conversation, Message
from memory.models import Memory
from tests.chat.conftest import CHAT_A, owner_of, post_json

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _chat(client, title: str, *said: str) -> Conversation:
    owner = owner_of(client)
    chat = Conversation.objects.create(**owner.lookup, model=CHAT_A, title=title)
    for n, text in enumerate(said or ("hello",)):
        Message.objects.create(conversation=chat, role="user" if n % 2 == 0 else "assistant", content=text)
    return chat


def _token(client) -> dict[str, str]:
    return {"X-CSRFToken": client.cookies["csrftoken"].value}


def _patch(client, chat_id, body):
    return client.patch(f"/api/conversations/{chat_id}/", data=json.dumps(body),
                        content_type="application/json", headers=_token(client))


# --- rename


def test_a_chat_renamed_on_the_page_keeps_its_place_in_the_list(guest):
    older = _chat(guest, "Trip to Hue")
    newer = _chat(guest, "Soup recipes")

    response = guest.post(f"/c/{older.pk}/rename/", {"title": "  Hue,   in May  "}, headers=_token(guest))

    assert response.status_code == 302 and response["Location"] == f"/c/{older.pk}/"
    older.refresh_from_db()
    assert older.title == "Hue, in May"  # on one line
    page = guest.get("/").content.decode()
    assert page.index("Soup recipes") < page.index("Hue, in May")  # renaming is not using it
    assert newer.title == "Soup recipes"


@pytest.mark.parametrize("title, words", [("   ", "Give the chat a name."),
                                          ("x" * 201, "A chat name can be at most 200 characters.")])
def test_a_bad_name_is_refused_on_the_page_and_in_the_api_and_nothing_changes(guest, title, words):
    chat = _chat(guest, "Trip to Hue")

    page = guest.post(f"/c/{chat.pk}/rename/", {"title": title}, headers=_token(guest))
    api = _patch(guest, chat.pk, {"title": title})

    assert page.status_code == 400 and words in page.content.decode()
    assert api.status_code == 400 and api.json()["error"]["message"] == words
    assert api.json()["error"]["field"] == "title"
    chat.refresh_from_db()
    assert chat.title == "Trip to Hue"


def test_the_api_renames_a_chat(guest):
    chat = _chat(guest, "Trip to Hue")

    response = _patch(guest, chat.pk, {"title": "Hue in May"})

    assert response.status_code == 200
    assert response.json()["title"] == "Hue in May" and response.json()["id"] == chat.pk
    assert guest.get(f"/api/conversations/{chat.pk}/").json()["title"] == "Hue in May"
    assert _patch(guest, chat.pk, {"title": 5}).status_code == 400


# --- delete


def test_deleting_a_chat_removes_its_messages_and_leaves_memory_alone(guest):
    owner = owner_of(guest)
    Memory.objects.create(**owner.lookup, lines=["Name is Ann"], tokens=4, version=2)
    chat = _chat(guest, "Trip to Hue", "My name is Ann", "Hi Ann")
    kept = _chat(guest, "Soup recipes")

    response = guest.post(f"/c/{chat.pk}/delete/", headers=_token(guest), follow=True)

    assert response.status_code == 200
    assert "Chat deleted. What Whizi remembers about you is unchanged." in response.content.decode()
    assert not Conversation.objects.filter(pk=chat.pk).exists()
    assert not Message.objects.filter(conversation_id=chat.pk).exists()
    assert Conversation.objects.filter(pk=kept.pk).exists()
    memory = Memory.objects.get(**owner.lookup)
    assert (memory.lines, memory.version) == (["Name is Ann"], 2)
    assert guest.get(f"/c/{chat.pk}/").status_code == 404


def test_the_api_deletes_a_chat(guest):
    chat = _chat(guest, "Trip to Hue")

    response = guest.delete(f"/api/conversations/{chat.pk}/", headers=_token(guest))

    assert response.status_code == 204
    assert not Conversation.objects.filter(pk=chat.pk).exists()
    assert guest.delete(f"/api/conversations/{chat.pk}/", headers=_token(guest)).status_code == 404


def test_the_delete_dialog_says_memory_is_untouched(guest):
    chat = _chat(guest, "Trip to Hue")

    page = guest.get(f"/c/{chat.pk}/").content.decode()

    assert "Delete this chat?" in page
    assert "Its messages are deleted for good. What Whizi remembers about you is not changed." in page


# --- search and the list


def test_search_finds_chats_by_title_and_by_what_was_said(guest):
    by_title = _chat(guest, "Trip to Hue", "where should we stay")
    by_text = _chat(guest, "Weekend", "I want to visit HUE and eat bun bo")
    _chat(guest, "Soup recipes", "pho or bun rieu")

    api = guest.get("/api/conversations/?q=hue").json()
    page = guest.get("/?q=hue").content.decode()

    assert [item["id"] for item in api["conversations"]] == [by_text.pk, by_title.pk]  # newest first
    assert "Trip to Hue" in page and "Weekend" in page and "Soup recipes" not in page
    assert guest.get("/api/conversations/?q=nothing+like+it").json()["conversations"] == []
    assert "No chats match your search." in guest.get("/?q=nothing").content.decode()


def test_the_api_lists_chats_newest_first_a_page_at_a_time(guest):
    chats = [_chat(guest, f"Chat {n}") for n in range(23)]
    Conversation.objects.create(**owner_of(guest).lookup, model=CHAT_A)  # never used: not listed

    first = guest.get("/api/conversations/").json()
    second = guest.get("/api/conversations/?page=2").json()

    assert [item["title"] for item in first["conversations"]] == [f"Chat {n}" for n in range(22, 2, -1)]
    assert first["next_page"] == 2
    assert [item["id"] for item in second["conversations"]] == [chats[2].pk, chats[1].pk, chats[0].pk]
    assert second["next_page"] is None
    assert set(first["conversations"][0]) == {"id", "title", "model", "project", "updated_at"}
    bad = guest.get("/api/conversations/?page=0")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "page"


def test_a_visitor_with_nothing_yet_lists_nothing_and_becomes_no_guest(client):
    from accounts.models import Guest

    assert client.get("/api/conversations/").json() == {"conversations": [], "next_page": None}
    assert Guest.objects.count() == 0


def test_the_list_is_grouped_by_when_each_chat_was_last_used():
    today = date(2026, 3, 20)

    def used(days_ago: int) -> Conversation:
        moment = datetime(2026, 3, 20, 12, tzinfo=UTC) - timedelta(days=days_ago)
        return Conversation(title=f"{days_ago} days", updated_at=moment)

    groups = conversation_groups([used(0), used(1), used(3), used(7), used(20), used(90)], today=today)

    assert [(group.label, [c.title for c in group.conversations]) for group in groups] == [
        ("Today", ["0 days"]), ("Yesterday", ["1 days"]), ("Previous 7 days", ["3 days", "7 days"]),
        ("Previous 30 days", ["20 days"]), ("Older", ["90 days"]),
    ]


def test_the_side_column_shows_the_date_groups(guest):
    _chat(guest, "Trip to Hue")
    old = _chat(guest, "Old plans")
    Conversation.objects.filter(pk=old.pk).update(updated_at=datetime(2020, 1, 1, tzinfo=UTC))

    page = guest.get("/").content.decode()

    assert page.index("Today") < page.index("Trip to Hue") < page.index("Older") < page.index("Old plans")


def test_the_api_still_starts_a_conversation(guest):
    response = post_json(guest, "/api/conversations/", {"model": CHAT_A})
    assert response.status_code == 201


@pytest.mark.parametrize("conversation_id", ["99999999999999999999", "-99999999999999999999", "0"])
def test_an_id_no_chat_can_have_is_not_found(guest, conversation_id):
    # Out of the database's range, or simply no row: a 404 either way, never an error.
    post_json(guest, "/api/conversations/", {"model": CHAT_A})

    page = guest.post("/send/", {"content": "Hi", "conversation": conversation_id},
                      HTTP_X_CSRFTOKEN=guest.cookies["csrftoken"].value)
    assert page.status_code == 404
    if not conversation_id.startswith("-"):
        assert guest.get(f"/api/conversations/{conversation_id}/messages/").status_code == 404
