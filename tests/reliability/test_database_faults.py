"""PostgreSQL refuses to write the memory table (the server raises "disk full" on every
write to it): a clear says it failed and the list stays on screen and in the database; a
pass's save is retried and lands once the database is writable again.

Already covered with a lock held by another session (the store stuck rather than
failing): tests/memory/test_api.py (test_a_failed_clear_is_503_and_the_list_is_still_there),
tests/memory/test_views.py (test_a_failed_clear_with_htmx_leaves_the_list_on_screen_and_in_memory).
"""

from __future__ import annotations

import pytest
from django.test import Client

from memory.models import Memory, MemoryPass
from memory.tasks import run_memory_pass_task
from tests.db_faults import memory_writes_fail
from tests.memory.conftest import chat, queue_pass, save_memory, saved_lines

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FACTS = ["Name is Mai Nguyen", "Works as a nurse in Da Nang"]
CLEAR_FAILED = "Couldn't clear memory. Please try again."




def signed_in(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/settings/")
    return client


def test_a_clear_that_the_database_refuses_says_so_and_keeps_the_list(user):
    save_memory(user, FACTS)
    client = signed_in(user)
    token = client.cookies["csrftoken"].value

    with memory_writes_fail():
        api = client.delete("/api/memory/", HTTP_X_CSRFTOKEN=token)
        htmx = client.post("/settings/memory/clear/", HTTP_X_CSRFTOKEN=token, HTTP_HX_REQUEST="true")
        page = client.post("/settings/memory/clear/", {"csrfmiddlewaretoken": token})
        shown = client.get("/settings/?memory=open")

    assert api.status_code == 503
    assert api.json()["error"] == {"title": "Memory could not be cleared", "message": CLEAR_FAILED}
    assert htmx.status_code == 503 and CLEAR_FAILED in htmx.content.decode().replace("&#x27;", "'")
    assert htmx["HX-Retarget"] == "#memory-clear-error"  # the list on screen is not replaced
    assert page.status_code == 503 and CLEAR_FAILED in page.content.decode().replace("&#x27;", "'")
    assert all(fact in shown.content.decode() for fact in FACTS)
    memory = Memory.objects.get(user=user)
    assert (memory.lines, memory.epoch, memory.cleared_at) == (FACTS, 0, None)

    # The database is writable again: clearing again works.
    assert client.delete("/api/memory/", HTTP_X_CSRFTOKEN=token).status_code == 200
    assert saved_lines(user) == []


@pytest.mark.worker
def test_a_pass_whose_save_the_database_refuses_is_retried_and_saved_later(user, workers, script,
                                                                          wait_for):
    save_memory(user, FACTS)
    memory_pass = queue_pass(user, through=chat(user, "I have a cat called Miso.", "Cute!", "Remember that."))
    workers.start()
    new = "- Name is Mai Nguyen\n- Works as a nurse in Da Nang\n- Has a cat called Miso"
    script.reply(new).reply(new)

    with memory_writes_fail():
        run_memory_pass_task.delay(memory_pass.pk)
        # The save failed: the pass is handed back for a retry, the list untouched.
        wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, error="OperationalError").exists())
        assert saved_lines(user) == FACTS

    wait_for(lambda: MemoryPass.objects.filter(pk=memory_pass.pk, status="done").exists())
    memory_pass.refresh_from_db()
    assert (memory_pass.outcome, memory_pass.attempts) == (MemoryPass.Outcome.UPDATED, 2)
    assert saved_lines(user) == [*FACTS, "Has a cat called Miso"]
