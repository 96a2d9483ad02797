"""When a memory pass runs (docs/DESIGN.md §2.3), in one place.

- after a reply, when the user's message asks Whizi to remember or forget something
  ("request"), else when the conversation crosses a multiple of 6 turns ("cadence");
- once at the end of a voice session, over its whole transcript ("voice");
- after a guest's list merged into an account's went over the 2,000-token cap (it is
  stored trimmed to the cap): a compaction toward the 1,500 target ("merge");
- never while the operator switch WHIZI_MEMORY_ENABLED is off.

A pass is recorded as a MemoryPass row in the caller's transaction and published to the
worker only after it commits. The row is the record and the broker message only the
nudge: a publish that fails is picked up by the sweep (memory.sweep).
"""

from __future__ import annotations

from celery import current_app
from django.conf import settings
from django.db import transaction

from accounts.owner import Owner
from memory.grammar import is_memory_request
from memory.models import MemoryPass
from memory.store import MemoryMerge
from whizi.degraded import degraded_note

Trigger = MemoryPass.Trigger
RUN_PASS_TASK = "memory.run_pass"  # the task's name stays, so queued messages survive deploys


def pass_trigger_after_reply(*, user_text: str, turns_after: int) -> str | None:
    """The trigger a reply makes due, if any (`turns_after`: turns including the reply)."""
    if is_memory_request(user_text):
        return Trigger.REQUEST
    every = settings.WHIZI_MEMORY_PASS_TURNS
    if turns_after // every > (turns_after - 2) // every:
        return Trigger.CADENCE
    return None


def pass_queue(*, owner: Owner, trigger: str, through_message_id: int | None = None,
               voice_session_id: int | None = None) -> MemoryPass | None:
    """Record a pass for this trigger and publish it after commit; None when none is due."""
    if not settings.WHIZI_MEMORY_ENABLED:
        return None
    if trigger == Trigger.VOICE and MemoryPass.objects.filter(voice_session_id=voice_session_id).exists():
        return None  # one pass per voice session, however often it is ended
    memory_pass = MemoryPass.objects.create(
        **owner.lookup, trigger=trigger, through_message_id=through_message_id,
        voice_session_id=voice_session_id,
    )
    pass_publish_on_commit(memory_pass.pk)
    return memory_pass


def pass_queue_after_reply(*, owner: Owner, user_text: str, turns_after: int,
                           reply_id: int) -> MemoryPass | None:
    """After a reply is saved: at most one pass, if the exchange made one due."""
    trigger = pass_trigger_after_reply(user_text=user_text, turns_after=turns_after)
    if trigger is None:
        return None
    return pass_queue(owner=owner, trigger=trigger, through_message_id=reply_id)


def pass_queue_after_merge(*, owner: Owner, merge: MemoryMerge) -> MemoryPass | None:
    """After a guest merge: a compaction pass when the merged list went over the cap."""
    if not merge.over_budget:
        return None
    return pass_queue(owner=owner, trigger=Trigger.MERGE)


def pass_publish(pass_id: int) -> None:
    """Hand the pass to a worker (by task name, so this module needs no task import).

    One attempt, no retry loop: a broker that is down costs the caller milliseconds, and
    the sweep publishes the pass later (its row is the record).
    """
    current_app.send_task(RUN_PASS_TASK, args=(pass_id,), retry=False)


def _publish_quietly(pass_id: int) -> None:
    try:
        pass_publish(pass_id)
    except Exception as exc:  # whatever the broker client raised: it is down
        degraded_note("broker", "publishing a memory pass", exc)


def pass_publish_on_commit(pass_id: int) -> None:
    # A broker outage must not turn the caller's saved work into an error, nor log a
    # traceback per message: the pass row is committed and the sweep publishes it later.
    transaction.on_commit(lambda: _publish_quietly(pass_id))
