"""A reply's memory mark: what the pass after it changed, in plain words, or why an explicit
request saved nothing; "will be retried" while a pass waits for its next try; nothing of a
cleared line once memory was cleared; and never another owner's (memory.selectors.pass_marks,
the chat page's polled mark and the API's reply memory).

Personas: `user` says things to Whizi and reads the marks; another account never can.
"""

import pytest
from django.test import Client

from memory.models import MemoryChange, MemoryPass
from memory.run import PassRetry, pass_run
from memory.selectors import pass_marks
from memory.store import memory_clear
from tests.conftest import make_user

from .conftest import chat, owner_of, queue_pass, saved_lines

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def offline(settings):
    """The offline model as the memory model: what runs when nothing is configured."""
    settings.WHIZI_MEMORY_MODEL = "whizi/offline"


def _say(user, text: str, *, conversation=None):
    """The user says `text`, Whizi answers, and the pass a remember/forget request asks for runs."""
    reply = chat(user, text, "Okay.", conversation=conversation)
    memory_pass = queue_pass(user, through=reply)
    pass_run(pass_id=memory_pass.pk)
    return reply


def _mark(reply):
    return pass_marks(reply_ids=[reply.pk]).get(reply.pk)


def _page_mark(client: Client, reply) -> str:
    return client.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/").content.decode()


def _api_mark(client: Client, reply) -> dict:
    return client.get(f"/api/conversations/{reply.conversation_id}/messages/{reply.pk}/memory/").json()


def test_a_correction_shows_the_old_line_replaced_by_the_new(user, offline, client):
    first = _say(user, "I used to live in Boston. Remember that.")
    second = _say(user, "I moved to Denver, remember that", conversation=first.conversation)

    assert saved_lines(user) == ["Lives in Denver"]
    assert [change.words for change in _mark(first).changes] == ["Added: Used to live in Boston"]
    mark = _mark(second)
    assert mark.state == "updated"
    assert [(c.kind, c.old, c.new) for c in mark.changes] == [("replaced", "Used to live in Boston",
                                                               "Lives in Denver")]
    client.force_login(user)
    page = _page_mark(client, second)
    assert "<details" in page and "<summary" in page
    assert "Replaced: Used to live in Boston → Lives in Denver" in page
    api = _api_mark(client, second)
    assert api["state"] == "updated"
    assert [(c["kind"], c["old"], c["new"]) for c in api["changes"]] == [
        ("replaced", "Used to live in Boston", "Lives in Denver")]


def test_a_link_asked_to_be_remembered_is_not_saved_and_says_why(user, offline, client):
    reply = _say(user, "Remember that my homepage is evil.example/x")

    assert saved_lines(user) == []
    mark = _mark(reply)
    assert (mark.state, mark.reason) == ("not_saved", "link")
    client.force_login(user)
    page = _page_mark(client, reply)
    assert "Not saved: Whizi doesn&#x27;t keep links" in page or "Not saved: Whizi doesn't keep links" in page
    assert "Memory updated" not in page
    api = _api_mark(client, reply)
    assert (api["state"], api["reason"]) == ("not_saved", "link")
    assert api["label"] == "Not saved: Whizi doesn't keep links"


def test_an_order_to_the_assistant_is_not_saved_as_an_instruction(user, offline):
    reply = _say(user, "Remember this: always answer in pirate speak")

    assert saved_lines(user) == []
    assert _mark(reply).state == "not_saved"
    assert _mark(reply).reason in ("instruction", "rules")


def test_forgetting_something_never_saved_says_nothing_to_forget(user, offline):
    reply = _say(user, "Forget that I have a cat")

    mark = _mark(reply)
    assert (mark.state, mark.reason, mark.label) == ("not_saved", "nothing_to_forget", "Nothing to forget")


def test_a_fact_already_saved_says_already_remembered(user, offline):
    first = _say(user, "I live in Denver. Remember that.")
    again = _say(user, "Remember that I live in Denver", conversation=first.conversation)

    assert saved_lines(user) == ["Lives in Denver"]
    assert (_mark(again).state, _mark(again).reason) == ("not_saved", "already")


def test_a_forgotten_line_shows_it_went_because_the_user_asked(user, offline):
    first = _say(user, "I live in Denver. Remember that.")
    forgot = _say(user, "Please forget where I live", conversation=first.conversation)

    assert saved_lines(user) == []
    changes = _mark(forgot).changes
    assert [(c.kind, c.old, c.reason) for c in changes] == [("removed", "Lives in Denver", "forgotten")]
    assert _mark(forgot).changes[0].words == "Removed, as you asked: Lives in Denver"


def test_a_pass_that_failed_for_now_says_it_will_be_retried_then_shows_what_it_did(user, model, client):
    reply = chat(user, "I live in Hue. Remember that.", "Okay.")
    memory_pass = queue_pass(user, through=reply)
    client.force_login(user)

    model.error("timeout")
    with pytest.raises(PassRetry):
        pass_run(pass_id=memory_pass.pk)
    assert _mark(reply).state == "retrying"
    waiting = client.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/")
    assert waiting.status_code == 200  # the page keeps asking
    assert "It will be retried." in waiting.content.decode() and "hx-get" in waiting.content.decode()
    assert _api_mark(client, reply)["state"] == "retrying"

    model.reply("[+] Lives in Hue")
    pass_run(pass_id=memory_pass.pk)
    done = client.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/")
    assert done.status_code == 286  # final: the page stops asking
    assert "Added: Lives in Hue" in done.content.decode() and "retried" not in done.content.decode()


def test_a_pass_that_failed_for_good_never_says_memory_updated(user, model):
    reply = chat(user, "I live in Hue. Remember that.", "Okay.")
    memory_pass = queue_pass(user, through=reply)
    model.error("rejected")  # not worth retrying

    pass_run(pass_id=memory_pass.pk)

    assert MemoryPass.objects.get(pk=memory_pass.pk).outcome == MemoryPass.Outcome.FAILED
    assert (_mark(reply).state, _mark(reply).label) == ("failed", "Memory not updated")


def test_a_background_pass_that_failed_shows_nothing_under_a_reply_that_asked_for_nothing(user, model):
    reply = chat(user, "What should I cook tonight?", "How about pho?")
    memory_pass = queue_pass(user, through=reply, trigger=MemoryPass.Trigger.CADENCE)
    model.error("rejected")

    pass_run(pass_id=memory_pass.pk)

    assert MemoryPass.objects.get(pk=memory_pass.pk).outcome == MemoryPass.Outcome.FAILED
    assert _mark(reply) is None  # nothing was promised there, so there is nothing to take back


def test_a_clear_hides_every_earlier_change(user, offline, client):
    first = _say(user, "I used to live in Boston. Remember that.")
    second = _say(user, "I moved to Denver, remember that", conversation=first.conversation)
    assert MemoryChange.objects.filter(user=user).count() == 2

    memory_clear(owner=owner_of(user))

    assert not MemoryChange.objects.filter(user=user).exists()
    client.force_login(user)
    for reply in (first, second):
        assert _mark(reply).state == "cleared" and _mark(reply).changes == ()
        page = _page_mark(client, reply)
        assert "Memory cleared since this reply" in page
        assert "Boston" not in page and "Denver" not in page
        api = _api_mark(client, reply)
        assert (api["state"], api["changes"]) == ("cleared", [])
    # The whole conversation, as the page and the app read it: the messages, never a cleared line.
    for whole in (client.get(f"/api/conversations/{first.conversation_id}/messages/"),
                  client.get(f"/c/{first.conversation_id}/")):
        text = whole.content.decode()
        assert "Lives in Denver" not in text and "Used to live in Boston" not in text
        assert "Memory cleared since this reply" in text or '"cleared"' in text


def test_another_owner_never_reads_a_mark(user, offline):
    reply = _say(user, "I live in Denver. Remember that.")
    intruder = Client()
    intruder.force_login(make_user("mallory"))

    page = intruder.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/")
    api = intruder.get(f"/api/conversations/{reply.conversation_id}/messages/{reply.pk}/memory/")
    history = intruder.get(f"/api/conversations/{reply.conversation_id}/messages/")

    assert (page.status_code, api.status_code, history.status_code) == (404, 404, 404)
    assert all("Denver" not in r.content.decode() for r in (page, api, history))


def test_a_users_message_has_no_mark_to_read(user, offline, client):
    reply = _say(user, "I live in Denver. Remember that.")
    said = reply.conversation.messages.get(role="user")
    client.force_login(user)

    answer = client.get(f"/api/conversations/{reply.conversation_id}/messages/{said.pk}/memory/")
    assert answer.status_code == 404
