"""Regenerating the last reply and editing the last message: the old reply goes, the
conversation's turns stay what they were, and the memory cadence neither counts a turn
twice nor skips a pass that was due; no pass ever reads a removed reply.

Persona: a guest on the page (the form door; the streamed door uses the same exchange).
"""

import pytest

from chat.models import Message
from memory.models import MemoryPass
from memory.sources import pass_turns
from tests.chat.conftest import CHAT_A, post_json

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _send(client, conversation_id, content):
    response = post_json(client, f"/api/conversations/{conversation_id}/messages/", {"content": content})
    assert response.status_code == 200, response.content
    return response.json()


def _form(client, **fields):
    return client.post("/send/", fields, headers={"X-CSRFToken": client.cookies["csrftoken"].value})


def _six_turns(client, script) -> int:
    """A conversation of three exchanges: its sixth turn made a cadence pass due."""
    script.reply("One.").reply("Two.").reply("Three.")
    chat = post_json(client, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    for text in ("I work as a nurse", "Mostly night shifts", "It is tiring"):
        _send(client, chat, text)
    return chat


def _log(chat) -> list[tuple[str, str]]:
    return list(Message.objects.filter(conversation_id=chat).values_list("role", "content"))


def _last_reply(chat) -> Message:
    return Message.objects.filter(conversation_id=chat, role="assistant").last()


def test_regenerate_replaces_the_last_reply_and_the_waiting_pass_reads_the_new_one(guest, script_a):
    chat = _six_turns(guest, script_a)
    [waiting] = MemoryPass.objects.all()
    old = _last_reply(chat)
    assert waiting.through_message_id == old.pk
    script_a.reply("Three, again.")

    response = _form(guest, conversation=chat, regenerate=old.pk)

    assert response.status_code == 302
    new = _last_reply(chat)
    assert _log(chat)[-2:] == [("user", "It is tiring"), ("assistant", "Three, again.")]
    assert Message.objects.filter(conversation_id=chat).count() == 6  # the same six turns
    assert not Message.objects.filter(pk=old.pk).exists()
    [still] = MemoryPass.objects.all()  # one pass for the sixth turn, not two
    assert still.pk == waiting.pk and still.through_message_id == new.pk
    read = [turn.content for turn in pass_turns(still, cleared_at=None)]
    assert "Three, again." in read and "Three." not in read
    # The model was asked without the old reply.
    assert [m["content"] for m in script_a.calls()[-1] if m["role"] != "system"][-1] == "It is tiring"
    assert "Three." not in [m["content"] for m in script_a.calls()[-1]]


def test_regenerating_a_reply_whose_pass_already_ran_makes_no_second_pass(guest, script_a):
    chat = _six_turns(guest, script_a)
    MemoryPass.objects.update(status="done", outcome="unchanged")
    script_a.reply("Three, again.")

    _form(guest, conversation=chat, regenerate=_last_reply(chat).pk)

    assert MemoryPass.objects.count() == 1
    assert _last_reply(chat).content == "Three, again."


def test_a_failed_regenerate_keeps_the_old_reply(guest, script_a):
    chat = _six_turns(guest, script_a)
    old = _last_reply(chat)
    script_a.error("timeout")

    response = _form(guest, conversation=chat, regenerate=old.pk)

    assert response.status_code >= 500  # the timeout, told on the page
    page = response.content.decode()
    assert "The chat model took too long to answer." in page and "The earlier reply is kept." in page
    assert _last_reply(chat).pk == old.pk and _log(chat)[-1] == ("assistant", "Three.")
    assert MemoryPass.objects.get().through_message_id == old.pk


def test_only_the_last_reply_can_be_regenerated(guest, script_a):
    chat = _six_turns(guest, script_a)
    first = Message.objects.filter(conversation_id=chat, role="assistant").first()

    response = _form(guest, conversation=chat, regenerate=first.pk)

    assert response.status_code == 400
    assert "Only the last reply can be written again." in response.content.decode()
    assert len(_log(chat)) == 6


def test_editing_the_last_message_replaces_it_and_its_reply_on_the_same_turn(guest, script_a):
    chat = _six_turns(guest, script_a)
    [waiting] = MemoryPass.objects.all()
    old_user = Message.objects.filter(conversation_id=chat, role="user").last()
    script_a.reply("Rest well.")

    response = _form(guest, conversation=chat, edit=old_user.pk, content="It is tiring but I love it")

    assert response.status_code == 302
    assert _log(chat)[-2:] == [("user", "It is tiring but I love it"), ("assistant", "Rest well.")]
    assert len(_log(chat)) == 6
    [still] = MemoryPass.objects.all()  # the sixth turn's pass, now through the new reply
    assert still.pk == waiting.pk and still.through_message_id == _last_reply(chat).pk
    read = [turn.content for turn in pass_turns(still, cleared_at=None)]
    assert "It is tiring but I love it" in read and "It is tiring" not in read and "Three." not in read


def test_an_edited_message_after_its_pass_ran_gets_a_pass_of_its_own(guest, script_a):
    # New words were never read: the turn's pass is due again for them.
    chat = _six_turns(guest, script_a)
    MemoryPass.objects.update(status="done", outcome="unchanged")
    old_user = Message.objects.filter(conversation_id=chat, role="user").last()
    script_a.reply("Rest well.")

    _form(guest, conversation=chat, edit=old_user.pk, content="Actually I am a doctor")

    newest = MemoryPass.objects.order_by("-id").first()
    assert MemoryPass.objects.count() == 2
    assert newest.status == "queued" and newest.through_message_id == _last_reply(chat).pk


def test_an_edit_whose_reply_fails_keeps_the_new_words_and_no_pass_reads_the_removed_reply(guest, script_a):
    chat = _six_turns(guest, script_a)
    old_user = Message.objects.filter(conversation_id=chat, role="user").last()
    script_a.error("timeout")

    _form(guest, conversation=chat, edit=old_user.pk, content="It is tiring but fine")

    assert _log(chat)[-1] == ("user", "It is tiring but fine")
    assert len(_log(chat)) == 5
    read = [turn.content for turn in pass_turns(MemoryPass.objects.get(), cleared_at=None)]
    assert read[-1] == "It is tiring but fine" and "Three." not in read


def test_an_edit_before_the_cadence_makes_no_pass(guest, script_a):
    script_a.reply("One.").reply("Two.")
    chat = post_json(guest, "/api/conversations/", {"model": CHAT_A}).json()["id"]
    _send(guest, chat, "I work as a nurse")
    last_user = Message.objects.filter(conversation_id=chat, role="user").last()

    _form(guest, conversation=chat, edit=last_user.pk, content="I work as a teacher")

    assert _log(chat) == [("user", "I work as a teacher"), ("assistant", "Two.")]
    assert MemoryPass.objects.count() == 0


def test_only_the_last_message_can_be_edited(guest, script_a):
    chat = _six_turns(guest, script_a)
    first = Message.objects.filter(conversation_id=chat, role="user").first()

    response = _form(guest, conversation=chat, edit=first.pk, content="Changed")

    assert response.status_code == 400
    assert "Only your last message can be edited." in response.content.decode()
    assert len(_log(chat)) == 6 and _log(chat)[0] == ("user", "I work as a nurse")
