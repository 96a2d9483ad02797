"""Tasks make a real round trip: web process → Redis broker → worker process → back."""

import uuid

import pytest
from django.core.cache import cache
from django.db import transaction

from whizi.celery import app, ping

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_task_round_trips_through_the_real_broker_and_worker(celery_worker, wait_for):
    token = uuid.uuid4().hex
    ping.delay(token)
    assert wait_for(lambda: cache.get(f"ping:{token}")) == "pong"


def test_a_task_enqueued_on_commit_waits_for_the_commit(celery_worker, wait_for):
    token = uuid.uuid4().hex
    with transaction.atomic():
        transaction.on_commit(lambda: ping.delay(token))
        assert cache.get(f"ping:{token}") is None
    assert wait_for(lambda: cache.get(f"ping:{token}")) == "pong"


def test_tasks_are_acknowledged_late():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
