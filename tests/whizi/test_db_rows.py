"""A row read and locked in SQL written once per model (whizi.db.sql_row_locked): the
same row the ORM reads, every field as the ORM hands it over, and locked until the
transaction ends."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.models import Guest
from chat.models import Conversation, Project, VoiceSession
from tests.db_faults import other_session
from whizi.db import sql_model_row, sql_row_locked

pytestmark = [pytest.mark.django_db(transaction=True)]


def _fields(row) -> dict[str, object]:
    return {field.attname: getattr(row, field.attname) for field in type(row)._meta.concrete_fields}


def _rows() -> list[object]:
    user = get_user_model().objects.create_user(username="ann", email="ann@example.com", password="x" * 12)
    guest = Guest.objects.create()
    chat = Conversation.objects.create(user=user, title="Trip", model="openai/gpt-4o-mini",
                                       project=Project.objects.create(user=user, name="Travel"),
                                       memory_read_after=timezone.now() - timedelta(hours=1))
    voice = VoiceSession.objects.create(guest=guest)  # a UUID owner; no end yet
    return [chat, voice]


def test_the_locked_row_is_the_row_the_orm_reads():
    for row in _rows():
        model = type(row)
        with transaction.atomic():
            locked = sql_row_locked(model, row.pk)

        assert type(locked) is model and locked.pk == row.pk
        assert _fields(locked) == _fields(model.objects.get(pk=row.pk))
        assert locked._state.adding is False and locked._state.db == "default"


def test_a_row_that_is_gone_reads_as_none():
    assert sql_row_locked(Conversation, 987654) is None


def test_the_row_stays_locked_until_the_transaction_ends():
    chat = _rows()[0]
    lock = f"SELECT 1 FROM {Conversation._meta.db_table} WHERE id = %s FOR UPDATE NOWAIT"
    with other_session(autocommit=True) as other:
        with transaction.atomic():
            sql_row_locked(Conversation, chat.pk)
            with pytest.raises(psycopg.errors.LockNotAvailable):
                other.execute(lock, [chat.pk])
        other.execute(lock, [chat.pk])  # free once it ended


def test_a_row_read_with_its_related_row_needs_no_second_query(django_assert_num_queries):
    chat = _rows()[0]
    plain = Conversation.objects.create(user=chat.user, model="openai/gpt-4o-mini")
    for row in (chat, plain):
        with django_assert_num_queries(1):
            found = sql_model_row(Conversation, "t.id = %s", [row.pk], related="project")
            project = found.project  # read with it, or known to be none

        expected = Conversation.objects.select_related("project").get(pk=row.pk)
        assert _fields(found) == _fields(expected)
        assert project is None if expected.project is None else _fields(project) == _fields(expected.project)
