"""What each pass changed, with its words, is the owner's memory: it goes when the account is
deleted, when a guest is merged into an account or swept away, and it is in the export.

Personas: `user` (an account), `guest` (a visitor with no account, later signing up).
"""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from accounts.models import Guest
from accounts.owner import Owner
from lifecycle.cleanup import guest_delete
from lifecycle.deletion import account_contents, account_delete
from lifecycle.guest_merge import guest_merge_into_user
from memory.models import MemoryChange
from tests.lifecycle.helpers import give_history, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def _changed(history, *, old: str, new: str) -> MemoryChange:
    """What the worker records when the pass after the history's reply replaced a line."""
    memory_pass = history.queued_pass
    return MemoryChange.objects.create(**history.owner.lookup, memory_pass=memory_pass,
                                       reply_id=memory_pass.through_message_id, kind="replaced",
                                       old_text=old, new_text=new)


def test_deleting_an_account_leaves_none_of_its_changes(client):
    user = make_user("mai@example.com")
    history = give_history(Owner(user_id=user.pk), facts=["Lives in Denver"])
    _changed(history, old="Used to live in Boston", new="Lives in Denver")
    other = make_user("bo@example.com")
    kept = _changed(give_history(Owner(user_id=other.pk), facts=["Lives in Hue"]), old="Lives in Hoi An",
                    new="Lives in Hue")

    assert account_contents(user_id=user.pk)["memory changes"] == 1
    deletion = account_delete(user_id=user.pk)

    assert deletion.removed["memory changes"] == 1
    assert list(MemoryChange.objects.all()) == [kept]


def test_a_guest_merged_into_an_account_leaves_no_change_rows():
    guest = Guest.objects.create()
    history = give_history(Owner(guest_id=guest.pk), facts=["Lives in Denver"])
    _changed(history, old="Used to live in Boston", new="Lives in Denver")
    user = make_user("mai@example.com")

    guest_merge_into_user(guest_id=guest.pk, user_id=user.pk)

    assert not MemoryChange.objects.exists()
    assert "Boston" not in json.dumps(list(MemoryChange.objects.values()), default=str)


def test_a_guest_swept_away_leaves_no_change_rows():
    guest = Guest.objects.create()
    _changed(give_history(Owner(guest_id=guest.pk), facts=["Lives in Denver"]),
             old="Used to live in Boston", new="Lives in Denver")

    removed = guest_delete(guest_id=guest.pk)

    assert removed["memory.MemoryChange"] == 1
    assert not MemoryChange.objects.exists()


def test_the_export_carries_what_each_pass_changed():
    user = make_user("mai@example.com")
    history = give_history(Owner(user_id=user.pk), facts=["Lives in Denver"])
    change = _changed(history, old="Used to live in Boston", new="Lives in Denver")
    other = make_user("bo@example.com")
    _changed(give_history(Owner(user_id=other.pk), facts=["Lives in Hue"]), old="Lives in Hoi An",
             new="Lives in Hue")
    out = StringIO()

    call_command("export_account", "mai@example.com", stdout=out, stderr=StringIO())

    document = json.loads(out.getvalue())
    assert [(c["id"], c["memory_pass"], c["reply"], c["kind"], c["old"], c["new"])
            for c in document["memory_changes"]] == [
        (change.pk, history.queued_pass.pk, history.queued_pass.through_message_id, "replaced",
         "Used to live in Boston", "Lives in Denver")]
    assert "Hoi An" not in out.getvalue()
