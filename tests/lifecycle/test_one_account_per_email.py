"""One account per email address, whatever its case, even when two signups arrive at once.

Personas:
- two people: strangers signing up with the same address at the same moment (their own
  passwords); exactly one gets the account, the other is told the address is taken.
- guest: one visitor whose browser sends the signup form twice (a double click); they
  land on the one account, which holds their guest data once.
"""

from __future__ import annotations

import copy
import importlib
import threading

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, connections, transaction
from django.test import Client
from django.utils import translation

from accounts.models import Guest
from chat.models import Conversation
from lifecycle.deletion import account_find
from memory.models import Memory
from tests.lifecycle.helpers import PASSWORD, give_history, guest_of, make_user

pytestmark = pytest.mark.slow

TAKEN = "A user is already registered with this email address."
ROUNDS = 4
SAME_AND_MIXED_CASE = [("a@x.example", "a@x.example"), ("a@x.example", "A@X.example")]

one_per_email = importlib.import_module("accounts.migrations.0005_one_account_per_email")


def _post_at_once(posts: list[tuple[Client, str, str]]) -> list:
    """Each client posts the signup form in its own thread, all released together."""
    barrier = threading.Barrier(len(posts))
    responses: list = [None] * len(posts)

    def post(i: int, client: Client, email: str, password: str) -> None:
        try:
            barrier.wait()
            responses[i] = client.post("/accounts/signup/", {
                "email": email, "password1": password, "password2": password,
            })
        finally:
            connections.close_all()  # the thread's own connection, before the test DB goes

    threads = [threading.Thread(target=post, args=(i, *args)) for i, args in enumerate(posts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return responses


def _accounts(email: str) -> tuple[int, int]:
    return (get_user_model().objects.filter(email__iexact=email).count(),
            EmailAddress.objects.filter(email__iexact=email).count())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("first", "second"), SAME_AND_MIXED_CASE, ids=["same-case", "mixed-case"])
def test_two_people_signing_up_with_one_address_at_once_make_one_account(first, second):
    for round_ in range(ROUNDS):
        responses = _post_at_once([
            (Client(), first, "first-persons-long-phrase"),
            (Client(), second, "second-persons-long-phrase"),
        ])

        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 302], f"round {round_}: {statuses}"
        loser = next(r for r in responses if r.status_code == 200)
        assert TAKEN in loser.content.decode()
        assert _accounts(first) == (1, 1), f"round {round_}"
        # Support finds the one account by its address, in any case.
        assert account_find(identifier=second).email.lower() == first.lower()
        get_user_model().objects.all().delete()


@pytest.mark.django_db(transaction=True)
def test_a_guest_who_sends_the_signup_form_twice_lands_on_one_account_holding_their_data_once():
    for round_ in range(ROUNDS):
        browser = Client()
        guest = guest_of(browser)
        history = give_history(guest, facts=["Has a cat called Miso"])
        # The same browser twice: same session cookie, same form, same password.
        twin = Client()
        twin.cookies = copy.deepcopy(browser.cookies)

        responses = _post_at_once([(browser, "mai@example.com", PASSWORD),
                                   (twin, "Mai@Example.com", PASSWORD)])

        assert [r.status_code for r in responses] == [302, 302], f"round {round_}"
        user = get_user_model().objects.get(email__iexact="mai@example.com")
        assert _accounts("mai@example.com") == (1, 1)
        for client in (browser, twin):
            assert client.session["_auth_user_id"] == str(user.pk)
        assert Conversation.objects.get(pk=history.conversation.pk).user_id == user.pk
        assert Memory.objects.get(user=user).lines == ["Has a cat called Miso"]
        assert not Guest.objects.exists()
        get_user_model().objects.all().delete()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "vi", "zh-hans", "ja", "ko", "ms"])
def test_a_taken_address_is_refused_in_the_visitors_language(client, language):
    make_user("mai@example.com")
    with translation.override(language):
        expected = translation.gettext(TAKEN)
    assert language == "en" or expected != TAKEN, f"no {language} translation"

    response = client.post("/accounts/signup/", {
        "email": "MAI@example.com", "password1": "another-long-phrase", "password2": "another-long-phrase",
    }, headers={"accept-language": language})

    assert response.status_code == 200
    assert expected in response.content.decode()
    assert _accounts("mai@example.com") == (1, 0)


@pytest.mark.django_db
def test_the_database_refuses_a_second_account_or_address_that_differs_only_in_case():
    user = make_user("mai@example.com")
    EmailAddress.objects.create(user=user, email="mai@example.com", verified=False, primary=True)
    other = make_user("bo@example.com")

    with pytest.raises(IntegrityError), transaction.atomic():
        get_user_model().objects.create_user("mai2", "MAI@example.com", PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        EmailAddress.objects.create(user=other, email="Mai@Example.com", verified=False)
    # Accounts made without an address (createsuperuser) do not collide with each other.
    get_user_model().objects.create_user("admin1", "", PASSWORD)
    get_user_model().objects.create_user("admin2", "", PASSWORD)


@pytest.mark.django_db
def test_the_migration_names_existing_duplicates_and_changes_nothing():
    # PostgreSQL drops the index inside the test's transaction; the rollback restores it.
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX {one_per_email.USER_INDEX}")
        cursor.execute(f"DROP INDEX {one_per_email.ADDRESS_INDEX}")
    first = make_user("mai@example.com")
    second = get_user_model().objects.create_user("mai2", "Mai@Example.com", PASSWORD)
    EmailAddress.objects.create(user=first, email="mai@example.com")
    EmailAddress.objects.create(user=second, email="mai@example.com")
    make_user("bo@example.com")

    from django.apps import apps

    with pytest.raises(CommandError) as refused:
        one_per_email.duplicates_refuse(apps, None)

    message = str(refused.value)
    assert f"mai@example.com: account ids {first.pk}, {second.pk}" in message
    assert "bo@example.com" not in message
    assert "export_account" in message and "delete_account" in message and "migrate" in message
    assert get_user_model().objects.count() == 3


@pytest.mark.django_db(transaction=True)
def test_under_mandatory_verification_the_loser_is_answered_without_revealing_the_account(
        settings, mailoutbox):
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"
    for round_ in range(2):
        responses = _post_at_once([
            (Client(), "a@x.example", "first-persons-long-phrase"),
            (Client(), "A@X.example", "second-persons-long-phrase"),
        ])

        # Both see "check your email", as allauth answers a taken address in this mode.
        assert [r.status_code for r in responses] == [302, 302], f"round {round_}"
        assert {r["Location"] for r in responses} == {"/accounts/confirm-email/"}
        assert _accounts("a@x.example") == (1, 1)
        get_user_model().objects.all().delete()


@pytest.mark.django_db
def test_a_signup_sent_again_after_the_account_exists_signs_in_with_its_own_password_only(client):
    first = client.post("/accounts/signup/", {"email": "mai@example.com", "password1": PASSWORD,
                                              "password2": PASSWORD})
    assert first.status_code == 302
    client.post("/accounts/logout/")
    stranger = Client()

    again = client.post("/accounts/signup/", {"email": "MAI@example.com", "password1": PASSWORD,
                                              "password2": PASSWORD})
    guessed = stranger.post("/accounts/signup/", {"email": "mai@example.com",
                                                  "password1": "a-guessed-long-phrase",
                                                  "password2": "a-guessed-long-phrase"})

    user = get_user_model().objects.get(email="mai@example.com")
    assert again.status_code == 302 and client.session["_auth_user_id"] == str(user.pk)
    assert guessed.status_code == 200 and TAKEN in guessed.content.decode()
    assert "_auth_user_id" not in stranger.session
    assert _accounts("mai@example.com") == (1, 1)
