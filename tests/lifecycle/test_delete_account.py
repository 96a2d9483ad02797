"""`delete_account` asks first, removes the account with everything it owns,
says what it removed, and leaves a pass nothing to recreate.

Personas: the user whose account is deleted; the other user, whose data must survive
untouched.
"""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from accounts.models import Preference
from accounts.owner import Owner
from memory.models import Memory, MemoryPass
from tests.lifecycle.helpers import give_history, make_user, owned_rows, sign_up

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def doomed(client):
    user = sign_up(client, "mai@example.com")  # with allauth's email address row
    owner = Owner(user_id=user.pk)
    give_history(owner, facts=["Name is Mai"])
    Preference.objects.create(user=user, language="vi")
    return user


@pytest.fixture
def other_user():
    user = make_user("bo@example.com")
    give_history(Owner(user_id=user.pk), facts=["Bo's fact"])
    return user


def test_it_removes_everything_the_account_owns_and_prints_it(doomed, other_user):
    other_before = owned_rows(other_user.pk)
    out = StringIO()

    call_command("delete_account", "mai@example.com", "--noinput", stdout=out)

    assert not get_user_model().objects.filter(pk=doomed.pk).exists()
    assert set(owned_rows(doomed.pk).values()) == {0}
    printed = out.getvalue()
    for line in ("memory rows: 1", "memory passes: 1", "conversations: 1", "messages: 2",
                 "projects: 1", "voice sessions: 1", "voice turns: 1", "preferences: 1",
                 "email addresses: 1"):
        assert line in printed
    # The other account is untouched.
    assert owned_rows(other_user.pk) == other_before
    assert Memory.objects.get(user=other_user).lines == ["Bo's fact"]


def test_it_asks_for_confirmation_and_a_no_removes_nothing(doomed, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    out = StringIO()

    with pytest.raises(CommandError, match="cancelled"):
        call_command("delete_account", str(doomed.pk), stdout=out)

    assert "This permanently deletes account" in out.getvalue()
    assert "conversations: 1" in out.getvalue()
    assert get_user_model().objects.filter(pk=doomed.pk).exists()
    assert owned_rows(doomed.pk)["memory"] == 1


def test_a_yes_at_the_prompt_deletes(doomed, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "yes")
    call_command("delete_account", str(doomed.pk), stdout=StringIO())
    assert not get_user_model().objects.filter(pk=doomed.pk).exists()


def test_an_unknown_account_is_a_clear_error():
    with pytest.raises(CommandError, match="No account has the email address ghost@example.com") as error:
        call_command("delete_account", "ghost@example.com", "--noinput")
    assert error.value.returncode == 1


def test_a_pass_still_queued_for_the_account_is_gone_with_it(doomed):
    queued = MemoryPass.objects.get(user=doomed)

    call_command("delete_account", str(doomed.pk), "--noinput", stdout=StringIO())

    assert not MemoryPass.objects.filter(pk=queued.pk).exists()


def test_running_a_pass_queued_before_deletion_recreates_nothing(doomed):
    from memory.run import pass_run

    queued_id = MemoryPass.objects.get(user=doomed).pk
    user_id = doomed.pk
    call_command("delete_account", str(user_id), "--noinput", stdout=StringIO())

    pass_run(pass_id=queued_id)

    assert not Memory.objects.filter(user_id=user_id).exists()
    assert not MemoryPass.objects.filter(user_id=user_id).exists()


@pytest.mark.django_db(transaction=True)
def test_a_pass_saving_after_deletion_cannot_create_a_memory_row(client):
    user = make_user("mai@example.com")
    user_id = user.pk
    memory = Memory.objects.create(user=user, lines=["Name is Mai"], version=4)
    call_command("delete_account", str(user_id), "--noinput", stdout=StringIO())

    # A pass that was waiting on the model saves with a compare-and-swap: no row.
    assert Memory.objects.filter(pk=memory.pk, version=4).update(lines=["Name is Mai"]) == 0
    # And a new row for the deleted account fails its foreign key at commit.
    with pytest.raises(IntegrityError), transaction.atomic():
        Memory.objects.create(user_id=user_id, lines=["Name is Mai"])
    assert not Memory.objects.filter(user_id=user_id).exists()
