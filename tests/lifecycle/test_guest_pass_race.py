"""A pass queued or running for a guest when they sign up (or add their guest data after
logging in) lands on the account: it never writes to a guest that no longer exists, and
what it extracted is not lost."""

import pytest
from django.test import Client

from accounts.owner import Owner
from memory.models import Memory, MemoryPass
from tests.lifecycle.helpers import (
    give_history,
    give_memory,
    guest_of,
    log_in,
    make_user,
    offer_answer,
    sign_up,
)

pytestmark = pytest.mark.slow


@pytest.mark.django_db
def test_a_pass_running_for_the_guest_at_signup_now_belongs_to_the_account(guest_browser):
    browser, guest = guest_browser
    history = give_history(guest, facts=["Name is Mai"])
    MemoryPass.objects.filter(pk=history.queued_pass.pk).update(status="running")
    guest_memory = Memory.objects.get(guest_id=guest.guest_id)

    user = sign_up(browser, "mai@example.com")

    running = MemoryPass.objects.get(pk=history.queued_pass.pk)
    assert (running.user_id, running.guest_id, running.status) == (user.pk, None, "running")
    # The running pass saves with a compare-and-swap on the list it read: the guest's
    # row is gone, so that save writes nothing, and re-reading the pass's owner
    # points it at the account.
    assert Memory.objects.filter(pk=guest_memory.pk, version=guest_memory.version).update(
        lines=["stale"]
    ) == 0
    assert Owner.of(running) == Owner(user_id=user.pk)


@pytest.mark.django_db
def test_a_pass_queued_for_the_guest_runs_for_the_account_after_signup(guest_browser, settings):
    from memory.run import pass_run
    from whizi.llm.scripted import Script

    settings.WHIZI_MEMORY_MODEL = "scripted/memory"
    Script("memory").reset().reply("- Name is Mai\n- Has a cat called Miso")
    browser, guest = guest_browser
    history = give_history(guest, facts=["Name is Mai"])
    user = sign_up(browser, "mai@example.com")

    pass_run(pass_id=history.queued_pass.pk)

    assert "Has a cat called Miso" in Memory.objects.get(user=user).lines
    assert not Memory.objects.filter(guest__isnull=False).exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_guest_pass_waiting_on_the_model_during_signup_lands_on_the_account(celery_worker, wait_for):
    from memory.tasks import run_memory_pass_task
    from whizi.llm.scripted import Script

    extracted = "- Name is Mai\n- Has a cat called Miso"
    # The first answer is held until signup is done; the second serves a re-run.
    script = Script("memory").reset().gate("signup", extracted).reply(extracted)
    browser = Client()
    guest = guest_of(browser)
    history = give_history(guest, facts=["Name is Mai"])
    run_memory_pass_task.delay(history.queued_pass.pk)
    assert script.wait_arrived("signup")

    user = sign_up(browser, "mai@example.com")
    script.release("signup")

    wait_for(lambda: "Has a cat called Miso" in (Memory.objects.get(user=user).lines))
    wait_for(lambda: MemoryPass.objects.get(pk=history.queued_pass.pk).status == "done")
    assert not Memory.objects.filter(guest__isnull=False).exists()


@pytest.mark.django_db
def test_a_pass_for_a_merged_guest_with_an_account_memory_keeps_both(guest_browser, settings):
    from memory.run import pass_run
    from whizi.llm.scripted import Script

    settings.WHIZI_MEMORY_MODEL = "scripted/memory"
    browser, guest = guest_browser
    user = make_user("mai@example.com")
    give_memory(Owner(user_id=user.pk), ["Works as a nurse"])
    history = give_history(guest, facts=["Name is Mai"])
    log_in(browser, "mai@example.com")
    offer_answer(browser, "add")
    Script("memory").reset().reply("- Works as a nurse\n- Name is Mai\n- Has a cat called Miso")

    pass_run(pass_id=history.queued_pass.pk)

    assert Memory.objects.get(user=user).lines == ["Works as a nurse", "Name is Mai", "Has a cat called Miso"]
