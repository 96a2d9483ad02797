"""Logging in to an existing account from a browser that was used as a guest moves nothing:
the account is offered the guest's data, shown exactly, to add or discard (README,
"Guests and accounts"; docs/DESIGN.md §2.9).

Personas:
- guest: whoever used this browser before the login; on a shared computer that is
  someone else, so nothing of theirs enters the account unasked.
- user: the account logging in; sees what the guest holds, and alone decides. Until
  then the account's memory and chats are exactly what they were.
"""

import threading

import pytest
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import connections
from django.test import Client

from accounts.models import Guest, Preference
from accounts.owner import GUEST_SESSION_KEY, Owner
from chat.models import Conversation, Message, Project, VoiceSession
from lifecycle.guest_offer import GUEST_OFFER_SESSION_KEY
from memory.models import Memory, MemoryPass
from tests.lifecycle.helpers import (
    give_history,
    give_memory,
    guest_of,
    log_in,
    make_user,
    offer_answer,
    offer_digest,
    owned_rows,
)

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

GUEST_FACTS = ["My PIN is 4321", "Has a cat called Miso"]


@pytest.fixture
def account():
    """Mai's account, with a fact and a chat of its own."""
    user = make_user("mai@example.com")
    give_memory(Owner(user_id=user.pk), ["Name is Mai"])
    chat = Conversation.objects.create(user=user, model="whizi/offline", title="Garden")
    Message.objects.create(conversation=chat, role="user", content="Tomatoes?")
    return user


def _account_state(user_id: int) -> tuple:
    memory = Memory.objects.get(user_id=user_id)
    return memory.lines, memory.version, owned_rows(user_id)


def test_logging_in_leaves_the_accounts_memory_and_chats_unchanged_until_the_user_chooses(
        guest_browser, account):
    browser, guest = guest_browser
    history = give_history(guest, facts=GUEST_FACTS)
    before = _account_state(account.pk)

    log_in(browser, "mai@example.com")
    pages = [browser.get(path).content.decode() for path in ("/", "/settings/", "/settings/?memory=open")]
    api = browser.get("/api/memory/").json()

    assert _account_state(account.pk) == before
    assert api["facts"] == ["Name is Mai"]
    assert Conversation.objects.get(pk=history.conversation.pk).guest_id == guest.guest_id
    assert Memory.objects.get(guest_id=guest.guest_id).lines == GUEST_FACTS
    assert GUEST_SESSION_KEY not in browser.session  # the browser is the account now
    for page in pages[:2]:
        assert "Add this browser&#x27;s 2 facts and 2 chats to your account?" in page
        assert "My PIN is 4321" in page and "Has a cat called Miso" in page  # exactly what would move
        assert "Hello" in page and "Voice chat" in page and "Thesis" in page


def test_add_moves_exactly_the_offered_data_as_signup_would(guest_browser, account):
    browser, guest = guest_browser
    history = give_history(guest, facts=["works as a NURSE", "Has a cat called Miso"])
    Memory.objects.filter(user=account).update(lines=["Name is Mai", "Works as a nurse"])
    Preference.objects.create(guest_id=guest.guest_id, language="vi")
    log_in(browser, "mai@example.com")

    response = offer_answer(browser, "add")

    account_owner = Owner(user_id=account.pk)
    assert response["Location"] == "/"
    assert Memory.objects.get(user=account).lines == [
        "Name is Mai", "Works as a nurse", "Has a cat called Miso"]
    assert Conversation.objects.get(pk=history.conversation.pk).user_id == account.pk
    assert Project.objects.get(pk=history.project.pk).user_id == account.pk
    assert VoiceSession.objects.get(pk=history.voice_session.pk).user_id == account.pk
    assert MemoryPass.objects.get(pk=history.queued_pass.pk).user_id == account.pk
    assert Preference.objects.get(user=account).language == "vi"
    assert Conversation.objects.for_owner(account_owner).count() == 2  # its own and the guest's
    assert not Guest.objects.filter(pk=guest.guest_id).exists()
    assert GUEST_OFFER_SESSION_KEY not in browser.session
    page = browser.get("/").content.decode()
    assert "Added to your account." in page
    assert 'id="guest-offer"' not in page


def test_add_over_the_cap_queues_the_compaction_pass_signup_would(
        guest_browser, django_capture_on_commit_callbacks):
    browser, guest = guest_browser
    user = make_user("mai@example.com")
    give_memory(Owner(user_id=user.pk),
                [f"Account fact {i}: a detail about the garden kept for a long while" for i in range(70)])
    give_memory(guest, [f"Guest fact {i}: something shared while trying Whizi out today" for i in range(70)])
    log_in(browser, "mai@example.com")
    digest = offer_digest(browser)

    with django_capture_on_commit_callbacks() as published:
        offer_answer(browser, "add", digest=digest)

    memory = Memory.objects.get(user=user)
    assert memory.tokens <= settings.WHIZI_MEMORY_MAX_TOKENS
    compaction = MemoryPass.objects.get(user=user, trigger="merge")
    assert compaction.status == "queued"
    assert len(published) == 1


def test_discard_deletes_the_guest_and_everything_it_held(guest_browser, account):
    browser, guest = guest_browser
    history = give_history(guest, facts=GUEST_FACTS)
    Preference.objects.create(guest_id=guest.guest_id, language="vi")
    before = _account_state(account.pk)
    log_in(browser, "mai@example.com")

    offer_answer(browser, "discard")

    assert _account_state(account.pk) == before
    assert not Guest.objects.filter(pk=guest.guest_id).exists()
    assert not Memory.objects.filter(guest_id=guest.guest_id).exists()
    assert not Conversation.objects.filter(pk=history.conversation.pk).exists()
    assert not Message.objects.filter(conversation_id=history.conversation.pk).exists()
    assert not MemoryPass.objects.filter(pk=history.queued_pass.pk).exists()
    assert not VoiceSession.objects.filter(pk=history.voice_session.pk).exists()
    assert not Project.objects.filter(pk=history.project.pk).exists()
    assert not Preference.objects.filter(guest_id=guest.guest_id).exists()
    page = browser.get("/settings/").content.decode()
    assert "Discarded. Nothing was added to your account." in page
    assert 'id="guest-offer"' not in page


def test_a_guest_that_changed_after_it_was_shown_is_shown_again_and_nothing_moves(guest_browser, account):
    browser, guest = guest_browser
    give_history(guest, facts=GUEST_FACTS)
    log_in(browser, "mai@example.com")
    shown = offer_digest(browser)
    before = _account_state(account.pk)
    # A pass for the guest's last chat finishes after the page was shown.
    Memory.objects.filter(guest_id=guest.guest_id).update(lines=[*GUEST_FACTS, "Lives in Hanoi"], version=9)

    offer_answer(browser, "add", digest=shown)

    assert _account_state(account.pk) == before
    page = browser.get("/").content.decode()
    assert "changed since it was shown" in page
    assert "Lives in Hanoi" in page
    offer_answer(browser, "add")  # now the person has seen it
    assert Memory.objects.get(user=account).lines == ["Name is Mai", *GUEST_FACTS, "Lives in Hanoi"]


def test_a_second_add_or_a_discard_from_another_tab_finds_the_offer_answered(guest_browser, account):
    browser, guest = guest_browser
    give_history(guest, facts=GUEST_FACTS)
    log_in(browser, "mai@example.com")
    other_tab = Client()
    other_tab.cookies = browser.cookies
    digest = offer_digest(other_tab)

    offer_answer(browser, "add", digest=digest)
    merged = _account_state(account.pk)
    offer_answer(other_tab, "add", digest=digest)  # the same form, sent twice
    offer_answer(other_tab, "discard")

    assert _account_state(account.pk) == merged  # nothing moved twice, nothing deleted
    assert Memory.objects.get(user=account).lines == ["Name is Mai", *GUEST_FACTS]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("first", ["add", "discard"])
def test_add_and_discard_at_the_same_moment_do_one_thing_whole(first):
    user = make_user("mai@example.com")
    browser = Client()
    guest = guest_of(browser)
    history = give_history(guest, facts=GUEST_FACTS)
    log_in(browser, "mai@example.com")
    digest = offer_digest(browser)
    tabs = {answer: Client() for answer in ("add", "discard")}
    for tab in tabs.values():
        tab.cookies = browser.cookies
    start = threading.Barrier(2)

    def press(answer: str) -> None:
        try:
            start.wait()
            tabs[answer].post(f"/guest-offer/{answer}/", {"offer": digest, "next": "/"})
        finally:
            connections.close_all()

    order = [first, "discard" if first == "add" else "add"]
    threads = [threading.Thread(target=press, args=(answer,)) for answer in order]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert not Guest.objects.filter(pk=guest.guest_id).exists()
    added = Conversation.objects.filter(pk=history.conversation.pk, user=user).exists()
    facts = Memory.objects.filter(user=user).values_list("lines", flat=True).first() or []
    if added:  # the merge won: everything moved
        assert facts == GUEST_FACTS
        assert MemoryPass.objects.filter(pk=history.queued_pass.pk, user=user).exists()
    else:  # the discard won: everything went, nothing moved
        assert facts == []
        assert not Conversation.objects.filter(pk=history.conversation.pk).exists()
        assert not MemoryPass.objects.filter(pk=history.queued_pass.pk).exists()


def test_the_offer_survives_the_session_rotation_of_login(guest_browser, account):
    browser, guest = guest_browser
    give_memory(guest, GUEST_FACTS)
    key_before = browser.cookies["sessionid"].value

    log_in(browser, "mai@example.com")

    assert browser.cookies["sessionid"].value != key_before
    assert not Session.objects.filter(session_key=key_before).exists()
    assert browser.session[GUEST_OFFER_SESSION_KEY] == {"guest": str(guest.guest_id), "user": account.pk}
    assert offer_digest(browser) is not None


def test_only_the_guest_held_in_the_session_can_be_added(client, account):
    stranger = guest_of(Client())
    give_memory(stranger, ["Stranger's private fact"])
    log_in(client, "mai@example.com")  # this browser had no guest: nothing to offer
    before = _account_state(account.pk)
    client.cookies[GUEST_OFFER_SESSION_KEY] = str(stranger.guest_id)
    client.cookies[GUEST_SESSION_KEY] = str(stranger.guest_id)

    for answer in ("add", "discard"):
        response = client.post(f"/guest-offer/{answer}/?guest={stranger.guest_id}",
                               {"offer": "0" * 32, "guest": str(stranger.guest_id),
                                GUEST_OFFER_SESSION_KEY: str(stranger.guest_id), "next": "/"},
                               HTTP_X_WHIZI_GUEST_ID=str(stranger.guest_id))
        assert response.status_code == 302

    assert _account_state(account.pk) == before
    assert Memory.objects.get(guest_id=stranger.guest_id).lines == ["Stranger's private fact"]


def test_an_offer_is_for_the_account_that_logged_in_only(guest_browser, account):
    browser, guest = guest_browser
    give_memory(guest, GUEST_FACTS)
    log_in(browser, "mai@example.com")
    digest = offer_digest(browser)
    # The session changes hands without a login (as a support tool or a bug might).
    other = make_user("bo@example.com")
    session = browser.session
    session["_auth_user_id"] = str(other.pk)
    session["_auth_user_hash"] = other.get_session_auth_hash()
    session.save()

    assert offer_digest(browser) is None
    offer_answer(browser, "add", digest=digest)
    assert not Memory.objects.filter(user=other).exists()
    assert Memory.objects.get(guest_id=guest.guest_id).lines == GUEST_FACTS


def test_an_offer_whose_guest_is_gone_simply_disappears(guest_browser, account):
    browser, guest = guest_browser
    give_memory(guest, GUEST_FACTS)
    log_in(browser, "mai@example.com")
    Guest.objects.filter(pk=guest.guest_id).delete()  # swept as abandoned, say

    page = browser.get("/").content.decode()

    assert 'id="guest-offer"' not in page
    assert GUEST_OFFER_SESSION_KEY not in browser.session


def test_a_guest_with_nothing_in_it_is_dropped_at_login(guest_browser, account):
    browser, guest = guest_browser
    Conversation.objects.create(guest_id=guest.guest_id, model="whizi/offline")  # never used
    Preference.objects.create(guest_id=guest.guest_id, language="vi")
    before = _account_state(account.pk)

    log_in(browser, "mai@example.com")

    assert _account_state(account.pk) == before
    assert not Guest.objects.filter(pk=guest.guest_id).exists()
    assert GUEST_OFFER_SESSION_KEY not in browser.session
    assert 'id="guest-offer"' not in browser.get("/").content.decode()


def test_a_guest_with_only_a_project_is_offered(guest_browser, account):
    browser, guest = guest_browser
    Project.objects.create(guest_id=guest.guest_id, name="Thesis", instructions="Cite sources.")

    log_in(browser, "mai@example.com")

    page = browser.get("/").content.decode()
    assert "Add this browser&#x27;s 1 project to your account?" in page
    offer_answer(browser, "add")
    assert Project.objects.get(name="Thesis").user_id == account.pk


@pytest.mark.django_db(transaction=True)
def test_chatting_on_without_answering_keeps_the_offer_and_the_accounts_memory(settings):
    settings.WHIZI_MEMORY_ENABLED = False  # no pass for the account's chat: its memory stays as it was
    user = make_user("mai@example.com")
    give_memory(Owner(user_id=user.pk), ["Name is Mai"])
    browser = Client()
    guest = guest_of(browser)
    give_memory(guest, GUEST_FACTS)
    log_in(browser, "mai@example.com")

    sent = browser.post("/send/", {"content": "What should I plant in spring?"})

    assert sent.status_code == 302
    assert Conversation.objects.filter(user=user).count() == 1
    assert Memory.objects.get(user=user).lines == ["Name is Mai"]
    assert Memory.objects.get(guest_id=guest.guest_id).lines == GUEST_FACTS
    assert "My PIN is 4321" in browser.get(sent["Location"]).content.decode()  # still offered


def test_logging_out_without_answering_deletes_the_guest_so_the_next_visitor_finds_nothing(
        guest_browser, account):
    browser, guest = guest_browser
    give_history(guest, facts=GUEST_FACTS)
    before = _account_state(account.pk)
    log_in(browser, "mai@example.com")

    browser.post("/accounts/logout/")
    next_visitor = browser.get("/settings/?memory=open").content.decode()

    assert not Guest.objects.filter(pk=guest.guest_id).exists()
    assert not Memory.objects.filter(guest__isnull=False).exists()
    assert "My PIN is 4321" not in next_visitor
    assert _account_state(account.pk) == before
    log_in(browser, "mai@example.com")
    assert offer_digest(browser) is None


def test_a_new_guest_after_logout_is_offered_on_the_next_login_not_merged(client, account):
    log_in(client, "mai@example.com")
    client.post("/accounts/logout/")
    guest = guest_of(client)
    give_memory(guest, ["Learning Korean"])

    log_in(client, "mai@example.com")

    assert Memory.objects.get(user=account).lines == ["Name is Mai"]
    offer_answer(client, "add")
    assert Memory.objects.get(user=account).lines == ["Name is Mai", "Learning Korean"]
    assert Guest.objects.count() == 0


def test_logging_in_without_a_guest_changes_nothing(client):
    user = make_user("mai@example.com")
    before = give_memory(Owner(user_id=user.pk), ["Name is Mai"])

    log_in(client, "mai@example.com")

    after = Memory.objects.get(user=user)
    assert (after.lines, after.version) == (["Name is Mai"], before.version)
    assert GUEST_OFFER_SESSION_KEY not in client.session


def test_a_failed_login_moves_nothing_and_offers_nothing(guest_browser):
    browser, guest = guest_browser
    make_user("mai@example.com")
    give_memory(guest, ["Name is Mai"])

    response = browser.post("/accounts/login/", {"login": "mai@example.com", "password": "wrong-pass"})

    assert response.status_code == 200
    assert Memory.objects.get(guest_id=guest.guest_id).lines == ["Name is Mai"]
    assert browser.session[GUEST_SESSION_KEY] == str(guest.guest_id)
    assert GUEST_OFFER_SESSION_KEY not in browser.session


def test_answering_without_an_offer_or_signed_out_changes_nothing(client, account):
    before = _account_state(account.pk)
    for answer in ("add", "discard"):
        assert client.post(f"/guest-offer/{answer}/", {"next": "/settings/"})["Location"] == "/settings/"
        assert client.post(f"/guest-offer/{answer}/", {"next": "https://evil.example/"})["Location"] == "/"
        assert client.get(f"/guest-offer/{answer}/").status_code == 405
    assert _account_state(account.pk) == before
