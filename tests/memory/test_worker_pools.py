"""The worker's pool (WHIZI_WORKER_POOL, WHIZI_WORKER_CONCURRENCY in scripts/run.sh): a
real Celery worker with the threads (or gevent) pool runs several memory passes at once,
in one process, each on its own database connection, and each saves its own owner's list.

Passes are held at a gate of the scripted memory model until every one of them has
reached it, so the test proves they ran side by side, not one after the other.
"""

import pytest
from django.db import transaction

from bench.stack import broker_purge, children_of
from memory.models import MemoryPass
from tests.conftest import make_user, suite_worker_start
from whizi.llm.scripted import Script

from .conftest import chat, queue_after_reply, saved_lines

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
PASSES = 4


@pytest.fixture(params=["threads", "gevent"])
def pool_worker(request, transactional_db, django_db_blocker):
    if request.param == "gevent":
        pytest.importorskip("gevent", reason="the gevent pool is optional: pip install '.[gevent]'")
    broker_purge()
    worker = suite_worker_start(django_db_blocker, pool=request.param, concurrency=PASSES)
    yield worker
    worker.stop()
    broker_purge()


def test_a_threads_or_gevent_worker_runs_several_passes_at_once(pool_worker, wait_for):
    script = Script("memory").reset()
    for number in range(PASSES):
        script.gate(f"pass-{number}", "[+] Likes green tea")
    owners = [make_user(f"owner{number}") for number in range(PASSES)]
    passes = []
    for owner in owners:
        with transaction.atomic():  # published to the worker when this commits
            request = chat(owner, "I like green tea, remember that.")
            reply = chat(owner, "Noted.", conversation=request.conversation)
            passes.append(queue_after_reply(request, reply))

    # Every pass is inside the model call at the same time: four threads (or greenlets)
    # of one process.
    for number in range(PASSES):
        assert script.wait_arrived(f"pass-{number}", timeout=60), f"pass {number} never ran alongside"
    assert children_of(pool_worker.pid) == []
    assert MemoryPass.objects.filter(status=MemoryPass.Status.RUNNING).count() == PASSES
    for number in range(PASSES):
        script.release(f"pass-{number}")

    wait_for(lambda: MemoryPass.objects.filter(status=MemoryPass.Status.DONE).count() == PASSES, timeout=60)
    assert set(MemoryPass.objects.values_list("outcome", flat=True)) == {MemoryPass.Outcome.UPDATED}
    assert {p.pk for p in passes} == set(MemoryPass.objects.values_list("pk", flat=True))
    for owner in owners:
        assert saved_lines(owner) == ["Likes green tea"]
