"""When a memory pass runs (DESIGN 2.3): every 6 turns, on a remember/forget request,
and once at the end of a voice session. Passes are recorded here, in the same
transaction as the message that made them due, and published to the worker after
commit.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from accounts.owner import Owner
from memory.models import MemoryPass
from memory.requests import is_forget_request, is_memory_request

__all__ = [
    "crosses_pass_cadence",
    "is_forget_request",
    "is_memory_request",
    "queue_pass_after_reply",
    "queue_voice_pass",
]


def crosses_pass_cadence(*, turns_before: int, turns_after: int) -> bool:
    """True when the turn count passed a multiple of WHIZI_MEMORY_PASS_TURNS."""
    every = settings.WHIZI_MEMORY_PASS_TURNS
    return turns_after // every > turns_before // every


def _publish_on_commit(memory_pass: MemoryPass) -> None:
    from memory.tasks import run_memory_pass_task

    pass_id = memory_pass.pk
    # robust: a broker outage must not turn a saved reply into an error; the pass row is
    # already committed and the sweep publishes it later.
    transaction.on_commit(lambda: run_memory_pass_task.delay(pass_id), robust=True)


def queue_pass_after_reply(*, conversation, user_message, assistant_message) -> MemoryPass | None:
    """After a reply is saved: queue at most one pass, if the exchange made one due."""
    turns_after = conversation.messages.filter(id__lte=assistant_message.id).count()
    turns_before = turns_after - 2
    if is_memory_request(user_message.content):
        trigger = MemoryPass.Trigger.REQUEST
    elif crosses_pass_cadence(turns_before=turns_before, turns_after=turns_after):
        trigger = MemoryPass.Trigger.CADENCE
    else:
        return None
    memory_pass = MemoryPass.objects.create(
        **Owner.of(conversation).lookup, trigger=trigger, through_message=assistant_message
    )
    _publish_on_commit(memory_pass)
    return memory_pass


def queue_voice_pass(*, session) -> MemoryPass | None:
    """At the end of a voice session: exactly one pass over its whole transcript."""
    if MemoryPass.objects.filter(voice_session=session).exists():
        return None
    memory_pass = MemoryPass.objects.create(
        **Owner.of(session).lookup, trigger=MemoryPass.Trigger.VOICE, voice_session=session
    )
    _publish_on_commit(memory_pass)
    return memory_pass
