"""Logging in from a guest session brings the guest's facts into the existing account.

Users expect what they told Whizi as a guest not to vanish when they log in, so login
merges exactly as signup does (README, "Guests and accounts").
"""

import pytest

from accounts.models import Guest
from accounts.owner import GUEST_SESSION_KEY, Owner
from chat.models import Conversation
from memory.models import Memory, MemoryPass
from tests.lifecycle.helpers import give_history, give_memory, guest_of, log_in, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_logging_in_merges_the_guests_facts_into_the_existing_account(guest_browser):
    browser, guest = guest_browser
    user = make_user("mai@example.com")
    give_memory(Owner(user_id=user.pk), ["Name is Mai", "Works as a nurse"])
    history = give_history(guest, facts=["works as a NURSE", "Has a cat called Miso"])

    log_in(browser, "mai@example.com")

    assert Memory.objects.get(user=user).lines == ["Name is Mai", "Works as a nurse", "Has a cat called Miso"]
    assert Conversation.objects.get(pk=history.conversation.pk).user_id == user.pk
    assert MemoryPass.objects.get(pk=history.queued_pass.pk).user_id == user.pk
    assert not Guest.objects.filter(pk=guest.guest_id).exists()
    assert GUEST_SESSION_KEY not in browser.session


def test_logging_in_without_guest_facts_changes_nothing_in_memory(client):
    user = make_user("mai@example.com")
    before = give_memory(Owner(user_id=user.pk), ["Name is Mai"])

    log_in(client, "mai@example.com")

    after = Memory.objects.get(user=user)
    assert (after.lines, after.version) == (["Name is Mai"], before.version)


def test_a_guest_session_after_logout_merges_again_on_the_next_login(client):
    user = make_user("mai@example.com")
    log_in(client, "mai@example.com")
    client.post("/accounts/logout/")
    guest = guest_of(client)
    give_memory(guest, ["Learning Korean"])

    log_in(client, "mai@example.com")

    assert Memory.objects.get(user=user).lines == ["Learning Korean"]
    assert Guest.objects.count() == 0


def test_a_failed_login_merges_nothing(guest_browser):
    browser, guest = guest_browser
    make_user("mai@example.com")
    give_memory(guest, ["Name is Mai"])

    response = browser.post("/accounts/login/", {"login": "mai@example.com", "password": "wrong-pass"})

    assert response.status_code == 200
    assert Memory.objects.get(guest_id=guest.guest_id).lines == ["Name is Mai"]
    assert browser.session[GUEST_SESSION_KEY] == str(guest.guest_id)
