"""Guests whose session has expired are deleted with everything they own, by the
hourly beat task and by `cleanup_guests`; guests still within a session's life and
accounts are never touched. One guest whose data an account declined goes the same way."""

from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone

from accounts.models import Guest, Preference
from accounts.owner import Owner
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from lifecycle.cleanup import guest_delete, guests_cleanup
from lifecycle.tasks import cleanup_abandoned_guests_task
from memory.models import Memory, MemoryPass
from tests.lifecycle.helpers import give_history, make_user


def _guest(*, last_seen_days_ago: float) -> Owner:
    guest = Guest.objects.create()
    Guest.objects.filter(pk=guest.pk).update(
        last_seen_at=timezone.now() - timedelta(days=last_seen_days_ago)
    )
    owner = Owner(guest_id=guest.pk)
    give_history(owner, facts=["Name is Mai"])
    Preference.objects.create(guest=guest, language="vi")
    return owner


def _owns_anything(owner: Owner) -> bool:
    return any(model.objects.filter(**owner.lookup).exists() for model in (
        Memory, MemoryPass, Conversation, Project, VoiceSession, Preference,
    ))


@pytest.fixture
def guests():
    session_days = settings.SESSION_COOKIE_AGE / 86400
    abandoned = _guest(last_seen_days_ago=session_days + 1)
    recent = _guest(last_seen_days_ago=session_days - 1)
    return abandoned, recent


@pytest.mark.django_db
def test_the_sweep_removes_abandoned_guests_with_all_they_own(guests):
    abandoned, recent = guests
    user = make_user("mai@example.com")
    give_history(Owner(user_id=user.pk), facts=["Works as a nurse"])

    removed = cleanup_abandoned_guests_task()

    assert removed == 1
    assert not Guest.objects.filter(pk=abandoned.guest_id).exists()
    assert not _owns_anything(abandoned)
    assert Message.objects.count() == 4 and VoiceTurn.objects.count() == 2  # recent + user
    assert Guest.objects.filter(pk=recent.guest_id).exists()
    assert _owns_anything(recent)
    assert Memory.objects.get(user=user).lines == ["Works as a nurse"]


@pytest.mark.django_db
def test_the_command_does_the_same_and_says_how_many(guests):
    abandoned, recent = guests
    out = StringIO()

    call_command("cleanup_guests", stdout=out)

    days = settings.SESSION_COOKIE_AGE / 86400
    assert f"Removed 1 guests not seen for {days:g} days." in out.getvalue()
    assert "chat.Message: 2" in out.getvalue()
    assert not Guest.objects.filter(pk=abandoned.guest_id).exists()
    assert Guest.objects.filter(pk=recent.guest_id).exists()


@pytest.mark.django_db
def test_a_sweep_with_nothing_to_do_removes_nothing(guests):
    cleanup_abandoned_guests_task()
    assert cleanup_abandoned_guests_task() == 0
    assert Guest.objects.count() == 1


@pytest.mark.django_db
def test_the_sweep_works_through_many_guests_in_batches():
    for _ in range(7):
        Guest.objects.create()
    Guest.objects.update(last_seen_at=timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE + 60))

    assert guests_cleanup(batch_size=3).guests == 7
    assert Guest.objects.count() == 0


def test_the_sweep_is_on_the_beat_schedule():
    entry = settings.CELERY_BEAT_SCHEDULE["cleanup-abandoned-guests"]
    assert entry["task"] == cleanup_abandoned_guests_task.name


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_worker_runs_the_sweep(celery_worker, wait_for):
    abandoned = _guest(last_seen_days_ago=settings.SESSION_COOKIE_AGE / 86400 + 1)

    cleanup_abandoned_guests_task.delay()

    wait_for(lambda: not Guest.objects.filter(pk=abandoned.guest_id).exists())
    assert not _owns_anything(abandoned)


@pytest.mark.django_db
def test_the_sweep_purges_expired_sessions_and_keeps_live_ones():
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session

    expired, live = SessionStore(), SessionStore()
    for store in (expired, live):
        store["anything"] = 1
        store.save()
    an_hour_ago = timezone.now() - timedelta(hours=1)
    Session.objects.filter(session_key=expired.session_key).update(expire_date=an_hour_ago)
    out = StringIO()

    call_command("cleanup_guests", stdout=out)

    assert list(Session.objects.values_list("session_key", flat=True)) == [live.session_key]
    assert "Removed 1 expired sessions." in out.getvalue()


@pytest.mark.django_db
def test_one_guest_is_deleted_with_all_it_owns_and_only_once(guests):
    _, recent = guests
    other = _guest(last_seen_days_ago=0)

    removed = guest_delete(guest_id=recent.guest_id)

    assert removed["accounts.Guest"] == 1 and removed["chat.Message"] == 2
    assert not Guest.objects.filter(pk=recent.guest_id).exists()
    assert not _owns_anything(recent)
    assert _owns_anything(other)
    assert guest_delete(guest_id=recent.guest_id) is None  # already gone: nothing to do
