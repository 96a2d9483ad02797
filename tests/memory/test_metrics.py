"""Memory passes move the metrics an operator graphs (whizi.metrics): passes by trigger and
outcome, their latency and their wait for a worker, the memory model's tokens, refused
changes, and the queue (passes waiting, the oldest's age, passes running), read from
PostgreSQL when the metrics are scraped.

The worker is a real `celery worker` process; it counts into the same multiprocess
directory as this test process (tests/isolation.py), as one machine's processes do.
"""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from memory.models import MemoryPass
from memory.run import pass_run
from whizi.llm.scripted import Script
from whizi.metrics import metric_total, metrics_exposition

from .conftest import chat, queue_after_reply, queue_pass

Outcome = MemoryPass.Outcome
UPDATED = {"trigger": "request", "outcome": "updated"}


def _gauges() -> dict[str, float]:
    return {family.name: family.samples[0].value
            for family in text_string_to_metric_families(metrics_exposition().decode())
            if family.type == "gauge" and family.samples}


def _pass_counts() -> dict[str, float]:
    return {
        "passes": metric_total("whizi_memory_passes_total", **UPDATED),
        "durations": metric_total("whizi_memory_pass_duration_seconds_count", trigger="request"),
        "waits": metric_total("whizi_memory_pass_wait_seconds_count", trigger="request"),
        "input_tokens": metric_total("whizi_model_tokens_total", use="memory", direction="input"),
        "tasks": metric_total("whizi_worker_tasks_total", task="memory.run_pass", state="SUCCESS"),
    }


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_pass_run_by_the_worker_counts_its_outcome_latency_wait_tokens_and_task(user, celery_worker,
                                                                                  wait_for):
    Script("memory").reset().reply("- Name is Sam Okafor")
    before = _pass_counts()
    with transaction.atomic():
        user_message = chat(user, "My name is Sam Okafor. Please remember that.")
        reply = chat(user, "Got it, Sam!", conversation=user_message.conversation)
        memory_pass = queue_after_reply(user_message, reply)

    wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, outcome=Outcome.UPDATED).exists())
    # The worker records the pass, then counts it: give the count a moment to land.
    wait_for(lambda: _pass_counts()["tasks"] == before["tasks"] + 1, timeout=10)

    after = _pass_counts()
    assert after["passes"] == before["passes"] + 1
    assert after["durations"] == before["durations"] + 1
    assert after["waits"] == before["waits"] + 1
    assert after["input_tokens"] > before["input_tokens"]


@pytest.mark.django_db
@pytest.mark.slow
def test_a_change_a_check_refuses_is_counted(user, model):
    last = chat(user, "I read a lot about gardening.", "Lovely!", "Please remember that.")
    model.reply("[+] Reads a lot about gardening\n[+] Visit http://garden-tips.example for advice")
    before = metric_total("whizi_memory_refused_changes_total", check="link")

    pass_run(pass_id=queue_pass(user, through=last).pk)

    changes = MemoryPass.objects.get().changes
    assert (changes["refused"], changes["refused_by"]) == (1, {"link": 1})
    assert metric_total("whizi_memory_refused_changes_total", check="link") == before + 1


@pytest.mark.django_db(transaction=True)  # the scrape reads the queue in a thread of its own
@pytest.mark.slow
def test_the_queue_is_read_from_the_database_when_the_metrics_are_scraped(user):
    assert _gauges()["whizi_memory_passes_waiting"] == 0
    waiting = queue_pass(user, through=chat(user, "Hi", "Hello"))
    MemoryPass.objects.filter(pk=waiting.pk).update(created_at=timezone.now() - timedelta(minutes=5))
    queue_pass(user, through=chat(user, "Hi again", "Hello again"))
    running = queue_pass(user, through=chat(user, "Still here", "Yes"))
    MemoryPass.objects.filter(pk=running.pk).update(status=MemoryPass.Status.RUNNING)

    gauges = _gauges()

    assert gauges["whizi_memory_passes_waiting"] == 2
    assert gauges["whizi_memory_passes_running"] == 1
    assert 300 <= gauges["whizi_memory_pass_oldest_waiting_seconds"] < 400
