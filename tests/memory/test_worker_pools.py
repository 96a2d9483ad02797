"""The worker's pool (WHIZI_WORKER_POOL, WHIZI_WORKER_CONCURRENCY in scripts/run.sh): a
real Celery worker with the threads pool runs several memory passes at once, in one
process, each on its own database connection, and each saves its own owner's list.

The memory model is the fake OpenAI-protocol provider, reached through litellm's real
HTTP path as a hosted model is (that path is what a threads pool must survive: under
gevent it made Django refuse the pass's database calls). Each answer is held back long
enough that the passes can only all be inside the model call together if they run side
by side; the provider counts how many were.
"""

import pytest
from django.db import transaction

from bench.stack import broker_purge, children_of
from memory.models import MemoryPass
from tests.conftest import make_user, suite_worker_start

from .conftest import chat, queue_after_reply, saved_lines

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
PASSES = 4
MODEL = "memory-threads"


@pytest.fixture
def threads_worker(transactional_db, django_db_blocker, fake_provider):
    # Started after fake_provider pointed OPENAI_API_BASE at it, so the worker inherits it.
    broker_purge()
    worker = suite_worker_start(django_db_blocker, pool="threads", concurrency=PASSES,
                                WHIZI_MEMORY_MODEL=f"openai/{MODEL}")
    yield worker
    worker.stop()
    broker_purge()


def test_a_threads_worker_runs_several_passes_at_once(threads_worker, fake_provider, wait_for):
    fake_provider.set_default(MODEL, "[+] Likes green tea", delay=10)
    owners = [make_user(f"owner{number}") for number in range(PASSES)]
    for owner in owners:
        with transaction.atomic():  # published to the worker when this commits
            request = chat(owner, "I like green tea, remember that.")
            queue_after_reply(request, chat(owner, "Noted.", conversation=request.conversation))

    # Every pass is inside the model call at the same time: four threads of one process.
    wait_for(lambda: fake_provider.max_in_flight == PASSES, timeout=60)
    assert children_of(threads_worker.pid) == []

    wait_for(lambda: MemoryPass.objects.filter(status=MemoryPass.Status.DONE).count() == PASSES, timeout=60)
    assert set(MemoryPass.objects.values_list("outcome", flat=True)) == {MemoryPass.Outcome.UPDATED}
    assert len(fake_provider.requests(MODEL)) == PASSES
    for owner in owners:
        assert saved_lines(owner) == ["Likes green tea"]
