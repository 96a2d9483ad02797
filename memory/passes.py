"""When a memory pass runs: the rules are docs/DESIGN.md §2.3 (cadence, request, voice
once, merge over the cap, the operator switch, one waiting pass per conversation), and
pass_request is their one home.

A pass is recorded as a MemoryPass row in the caller's transaction and published to the
worker only after it commits. The row is the record and the broker message only the
nudge: a publish that fails is picked up by the sweep (memory.sweep).
"""

from __future__ import annotations

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import BigIntegerField, Q, Value
from django.db.models.functions import Greatest, Least

from accounts.owner import Owner
from memory.grammar import is_memory_request
from memory.models import MemoryPass
from memory.store import MemoryMerge
from whizi.degraded import degraded_note

Trigger = MemoryPass.Trigger
RUN_PASS_TASK = "memory.run_pass"  # the task's name stays, so queued messages survive deploys
# Rounds of join-or-record after a reply. A round is lost only when another reply's pass
# was recorded and then claimed by a worker in between, so a third is already unlikely.
JOIN_ROUNDS = 3


def pass_asked_for(user_text: str) -> bool:
    """Does the user's message ask Whizi to remember or forget something (a pass right away)?
    Text analysis: the caller runs it before any transaction, never holding row locks."""
    return is_memory_request(user_text)


def pass_request(*, owner: Owner, trigger: str, turns_after: int = 0, through_message_id: int | None = None,
                 conversation_id: int | None = None, voice_session_id: int | None = None,
                 merge: MemoryMerge | None = None) -> MemoryPass | None:
    """The one answer to "does a pass run now?": record the pass `trigger` makes due (or
    join the conversation's waiting one) and publish it after commit; None when none is due.

    After a reply, chat asks with REQUEST (pass_asked_for() of the message) or CADENCE,
    with `turns_after` (turns including the reply), the reply as `through_message_id` and
    its `conversation_id`; a voice session's end asks with VOICE and `voice_session_id`; a
    guest merge asks with MERGE and its `merge` (docs/DESIGN.md §2.3).
    """
    if not settings.WHIZI_MEMORY_ENABLED or not _pass_due(
            trigger=trigger, turns_after=turns_after, voice_session_id=voice_session_id, merge=merge):
        return None
    if conversation_id is None:  # a voice or merge pass never joins another
        memory_pass = MemoryPass.objects.create(
            **owner.lookup, trigger=trigger, through_message_id=through_message_id,
            voice_session_id=voice_session_id,
        )
        pass_publish_on_commit(memory_pass.pk)
        return memory_pass
    # A savepoint only when a pass is due (most replies make none): a database error here
    # undoes the pass alone, and the caller decides whether its own work goes on.
    with transaction.atomic():
        return _pass_join_or_record(owner=owner, trigger=trigger, conversation_id=conversation_id,
                                    through_message_id=through_message_id)


def _pass_due(*, trigger: str, turns_after: int, voice_session_id: int | None,
              merge: MemoryMerge | None) -> bool:
    if trigger == Trigger.CADENCE:  # the exchange crossed a multiple of the cadence
        every = settings.WHIZI_MEMORY_PASS_TURNS
        return turns_after // every > (turns_after - 2) // every
    if trigger == Trigger.VOICE:  # one pass per voice session, however often it is ended
        return not MemoryPass.objects.filter(voice_session_id=voice_session_id).exists()
    if trigger == Trigger.MERGE:  # a compaction only when the merged list went over the cap
        return merge is not None and merge.over_budget
    return True  # the user asked


def _pass_join_or_record(*, owner: Owner, trigger: str, conversation_id: int,
                         through_message_id: int) -> MemoryPass:
    for round_ in range(JOIN_ROUNDS):
        joined = _pass_join(conversation_id=conversation_id, trigger=trigger,
                            through_message_id=through_message_id)
        if joined is not None:
            return joined
        try:
            # A savepoint: when another reply's pass took the conversation's one waiting
            # place first, only this insert is undone, and the next round joins that pass.
            with transaction.atomic():
                return _pass_record_waiting(owner=owner, conversation_id=conversation_id,
                                            trigger=trigger, through_message_id=through_message_id)
        except IntegrityError:
            if round_ == JOIN_ROUNDS - 1:
                raise
    raise AssertionError("not reached: the last round returns or raises")


def _pass_join(*, conversation_id: int, trigger: str, through_message_id: int) -> MemoryPass | None:
    """Join the conversation's pass that is queued and not yet started, if there is one.

    One filtered UPDATE decides, race-safely: a worker claims a pass with a filtered
    UPDATE too (memory.run), so PostgreSQL orders the two on the row. If the claim came
    first this one matches nothing (started_at is set) and a new pass is recorded; if the
    join came first, the claim waits for this transaction and the pass reads the newer
    reply. Greatest/Least keep the newest reply and the first one whatever order two
    replies commit in. A retried pass (queued again, started_at set) is never joined: its
    retry may be minutes away.
    """
    through = Value(through_message_id, output_field=BigIntegerField())
    updates: dict[str, object] = {
        "through_message_id": Greatest("through_message_id", through),
        "first_through_message_id": Least("first_through_message_id", through),
    }
    if trigger == Trigger.REQUEST:
        updates["trigger"] = Trigger.REQUEST
    waiting = MemoryPass.objects.filter(conversation_id=conversation_id, status=MemoryPass.Status.QUEUED,
                                        started_at__isnull=True)
    if not waiting.update(**updates):
        return None
    return waiting.first()  # the row stays locked by the UPDATE until the caller commits


def _pass_record_waiting(*, owner: Owner, conversation_id: int, trigger: str,
                         through_message_id: int) -> MemoryPass:
    # The database lets one chat pass per conversation wait (a partial unique index, see
    # MemoryPass.Meta): two replies recording at once cannot both insert, the second
    # waits for the first to commit and then fails here, and joins it.
    memory_pass = MemoryPass.objects.create(
        **owner.lookup, trigger=trigger, through_message_id=through_message_id,
        first_through_message_id=through_message_id, conversation_id=conversation_id,
    )
    pass_publish_on_commit(memory_pass.pk)
    return memory_pass


def pass_follow_removed(*, conversation_id: int, removed_from: int, successor: int) -> bool:
    """Messages from `removed_from` on were removed (an edit, a regenerate): the passes
    that were to read through one and have not started read through `successor` instead.
    True when any pass had read, or was to read, a removed message."""
    covering = MemoryPass.objects.filter(conversation_id=conversation_id).filter(
        Q(through_message_id__gte=removed_from) | Q(first_through_message_id__gte=removed_from))
    covered = covering.exists()
    # Only passes still queued (waiting, or waiting for a retry): one a worker is
    # running read its turns when it started.
    waiting = covering.filter(status=MemoryPass.Status.QUEUED)
    waiting.filter(through_message_id__gte=removed_from).update(through_message_id=successor)
    waiting.filter(first_through_message_id__gte=removed_from).update(first_through_message_id=successor)
    return covered


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
