"""The account lifecycle: a guest becoming an account, export, deletion, abandoned guests.

Everything here is a keyword-only service; the allauth hooks (accounts.signals), the
management commands and the beat task only call these.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.db.models import F
from django.utils import timezone

from accounts.cache import OwnerCacheUnavailable, owner_cache_delete
from accounts.models import Guest, Preference
from accounts.owner import Owner
from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.merge import merge_memory_lines, trim_lines_to_budget
from memory.models import Memory, MemoryPass
from memory.tokens import count_list_tokens

log = logging.getLogger(__name__)

# Everything a guest owns that moves to the account as it is (Preference and Memory
# are one-per-owner and are merged instead).
_MOVED_WITH_GUEST: tuple[type[models.Model], ...] = (
    Project, Conversation, VoiceSession, MemoryPass,
)


# --------------------------------------------------------------------------------------
# Guest -> account


@dataclass(frozen=True)
class GuestMerge:
    """What a guest brought into an account."""

    facts_added: int
    facts_total: int
    tokens: int
    facts_trimmed: int
    compaction_pass_id: int | None
    moved: dict[str, int]


def guest_merge_into_user(*, guest_id: uuid.UUID, user_id: int) -> GuestMerge | None:
    """Move everything the guest owns into the account, then delete the guest.

    Returns None when the guest no longer exists (already merged, or swept away as
    abandoned), which is what makes the merge happen exactly once.

    1. Lock the guest row: a second merge of the same guest (double submit, signup
       then login) waits here and then finds nothing to do.
    2. Merge the guest's facts into the account's list line by line (memory.merge),
       keeping the account's wording. Over WHIZI_MEMORY_MAX_TOKENS, the stored list is
       trimmed to the cap at once and a compaction pass (trigger "merge") is queued.
    3. Save it with a version bump, so a pass in flight for the account fails its
       compare-and-swap and re-runs over the merged list instead of overwriting it.
    4. Move conversations, projects, voice sessions and every MemoryPass row, queued
       ones included: a pass queued for the guest then runs for the account.
    5. Merge preferences (the account's own choices win), delete the guest; its Memory
       row goes with it, so a guest pass still running finds no guest row to write.
    All in one transaction: either everything moved or nothing did.
    """
    with transaction.atomic():
        guest = Guest.objects.select_for_update().filter(pk=guest_id).first()
        if guest is None:
            return None
        owner = Owner(user_id=user_id)
        guest_memory = Memory.objects.select_for_update().filter(guest_id=guest_id).first()
        memory_result = _merge_memory(user_id=user_id, guest_memory=guest_memory)

        moved: dict[str, int] = {}
        for model in _MOVED_WITH_GUEST:
            moved[str(model._meta.verbose_name_plural)] = model.objects.filter(guest_id=guest_id).update(
                user_id=user_id, guest_id=None
            )
        _merge_preference(guest_id=guest_id, user_id=user_id)

        compaction_pass_id = None
        if memory_result.over_budget:
            compaction = MemoryPass.objects.create(
                **owner.lookup, trigger=MemoryPass.Trigger.MERGE
            )
            compaction_pass_id = compaction.pk
            _publish_pass_on_commit(compaction_pass_id)
        # Memory (and anything else still hanging off the guest) cascades.
        guest.delete()

    log.info(
        "guest merged into user %s: %s facts added, %s trimmed, moved %s",
        user_id, memory_result.added, memory_result.trimmed, moved,
    )
    return GuestMerge(
        facts_added=memory_result.added,
        facts_total=len(memory_result.lines),
        tokens=memory_result.tokens,
        facts_trimmed=memory_result.trimmed,
        compaction_pass_id=compaction_pass_id,
        moved=moved,
    )


@dataclass(frozen=True)
class _MemoryMerge:
    lines: list[str] = field(default_factory=list)
    tokens: int = 0
    added: int = 0
    trimmed: int = 0
    over_budget: bool = False


def _merge_memory(*, user_id: int, guest_memory: Memory | None) -> _MemoryMerge:
    if guest_memory is None or (not guest_memory.lines and guest_memory.cleared_at is None):
        row = Memory.objects.filter(user_id=user_id).values_list("lines", "tokens").first()
        lines, tokens = row if row else ([], 0)
        return _MemoryMerge(lines=list(lines), tokens=tokens)

    # get_or_create survives a pass creating the row at the same moment (it retries
    # the read on IntegrityError); the lock then keeps every other writer out until
    # commit.
    Memory.objects.get_or_create(user_id=user_id)
    account = Memory.objects.select_for_update().get(user_id=user_id)

    merged = merge_memory_lines(account.lines, guest_memory.lines)
    added = len(merged) - len(merge_memory_lines(account.lines, []))
    tokens = count_list_tokens(merged)
    max_tokens = settings.WHIZI_MEMORY_MAX_TOKENS
    over_budget = tokens > max_tokens
    trimmed = 0
    if over_budget:
        # Memory must never be stored over the cap, not even until compaction runs.
        kept = trim_lines_to_budget(merged, max_tokens=max_tokens)
        trimmed = len(merged) - len(kept)
        merged, tokens = kept, count_list_tokens(kept)

    # A guest who cleared their memory must not get those facts back from their own
    # old messages once the conversations are the account's: later passes read only
    # turns newer than the later of the two clears.
    cleared_at = max(
        (moment for moment in (account.cleared_at, guest_memory.cleared_at) if moment),
        default=None,
    )
    if merged == account.lines and cleared_at == account.cleared_at:
        return _MemoryMerge(lines=merged, tokens=tokens)

    # Versioned write: any pass that read the account's list before this point holds
    # an older version, so its compare-and-swap fails and it re-runs over this list.
    # The row is locked, so this cannot miss; the count check says so out loud.
    updated = Memory.objects.filter(pk=account.pk, version=account.version).update(
        lines=merged, tokens=tokens, version=F("version") + 1, cleared_at=cleared_at,
        updated_at=timezone.now(),
    )
    if updated != 1:
        raise RuntimeError("the account's memory changed under its row lock")
    return _MemoryMerge(
        lines=merged, tokens=tokens, added=added, trimmed=trimmed, over_budget=over_budget
    )


def _merge_preference(*, guest_id: uuid.UUID, user_id: int) -> None:
    guest_pref = Preference.objects.filter(guest_id=guest_id).first()
    if guest_pref is None:
        return
    account_pref = Preference.objects.select_for_update().filter(user_id=user_id).first()
    if account_pref is None:
        Preference.objects.filter(pk=guest_pref.pk).update(user_id=user_id, guest_id=None)
        return
    # Choices the account already made win; the guest's fill only what is unset.
    changed = []
    for name in ("language", "chat_model"):
        if not getattr(account_pref, name) and getattr(guest_pref, name):
            setattr(account_pref, name, getattr(guest_pref, name))
            changed.append(name)
    if changed:
        account_pref.save(update_fields=[*changed, "updated_at"])
    guest_pref.delete()


def _publish_pass_on_commit(pass_id: int) -> None:
    from memory.tasks import run_memory_pass_task

    transaction.on_commit(lambda: run_memory_pass_task.delay(pass_id))


# --------------------------------------------------------------------------------------
# Finding an account


class AccountNotFound(Exception):
    pass


def account_find(*, identifier: str) -> Any:
    """The user named by an id (all digits) or an email address (any case)."""
    User = get_user_model()
    identifier = identifier.strip()
    if not identifier:
        raise AccountNotFound("No account given: pass an email address or an account id.")
    if identifier.isdigit():
        user = User.objects.filter(pk=int(identifier)).first()
        if user is None:
            raise AccountNotFound(f"No account has the id {identifier}.")
        return user
    matches = list(User.objects.filter(email__iexact=identifier)[:2])
    if not matches:
        raise AccountNotFound(f"No account has the email address {identifier}.")
    if len(matches) > 1:
        raise AccountNotFound(
            f"More than one account has the email address {identifier}; pass the account id."
        )
    return matches[0]


# --------------------------------------------------------------------------------------
# Export

EXPORT_FORMAT = "whizi-account-export/1"
# Rows fetched per round trip from the server-side cursor: large enough that a
# 10,000-message account takes a handful of fetches, small enough to stay a few MB.
_EXPORT_CHUNK = 500


class Writable(Protocol):
    def write(self, text: str, /) -> object: ...


def _json(value: object) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def _write_array(write: Callable[[str], object], items: Iterable[object]) -> int:
    write("[")
    count = 0
    for item in items:
        if count:
            write(",")
        write("\n" + _json(item))
        count += 1
    write("]")
    return count


def _write_object_with_array(
    write: Callable[[str], object], head: dict[str, object], key: str, items: Iterable[object]
) -> int:
    """`head` as a JSON object with one more member, `key`, streamed from `items`."""
    opening = _json(head)[:-1]
    write(opening + ("," if head else "") + _json(key) + ":")
    count = _write_array(write, items)
    write("}")
    return count


@dataclass(frozen=True)
class AccountExport:
    conversations: int
    messages: int
    projects: int
    voice_sessions: int
    facts: int


def account_export(*, user: Any, out: Writable) -> AccountExport:
    """Write one JSON document with everything the account owns to `out`, as it reads it.

    Conversations, messages, voice sessions and turns come from server-side cursors
    (`.iterator()`) and are written one row at a time, so a large account is never
    held in memory whole. One transaction gives the cursors a stable view.
    """
    owner = Owner(user_id=user.pk)
    write = out.write
    counts = {"messages": 0}
    with transaction.atomic():
        memory = Memory.objects.filter(user_id=user.pk).first()
        preference = Preference.objects.filter(user_id=user.pk).first()
        write("{")
        write(_json("format") + ":" + _json(EXPORT_FORMAT))
        write("," + _json("exported_at") + ":" + _json(timezone.now()))
        write("," + _json("account") + ":" + _json({
            "id": user.pk, "email": user.email, "date_joined": user.date_joined,
            "last_login": user.last_login, "is_active": user.is_active,
        }))
        write("," + _json("preferences") + ":" + _json(
            {"language": preference.language, "chat_model": preference.chat_model,
             "updated_at": preference.updated_at} if preference else None
        ))
        lines = list(memory.lines) if memory else []
        write("," + _json("memory") + ":" + _json(lines))
        write("," + _json("memory_meta") + ":" + _json({
            "count": len(lines),
            "tokens": memory.tokens if memory else 0,
            "version": memory.version if memory else 0,
            "updated_at": memory.updated_at if memory else None,
            "cleared_at": memory.cleared_at if memory else None,
        }))

        write("," + _json("projects") + ":")
        projects = _write_array(write, (
            {"id": p.id, "name": p.name, "instructions": p.instructions, "created_at": p.created_at}
            for p in Project.objects.for_owner(owner).order_by("id").iterator(_EXPORT_CHUNK)
        ))

        def messages_of(conversation_id: int) -> Iterator[dict[str, object]]:
            for m in Message.objects.filter(conversation_id=conversation_id).order_by("id").iterator(
                _EXPORT_CHUNK
            ):
                counts["messages"] += 1
                yield {"id": m.id, "role": m.role, "content": m.content, "model": m.model,
                       "input_tokens": m.input_tokens, "output_tokens": m.output_tokens,
                       "created_at": m.created_at}

        write("," + _json("conversations") + ":[")
        conversations = 0
        for c in Conversation.objects.for_owner(owner).order_by("id").iterator(_EXPORT_CHUNK):
            if conversations:
                write(",")
            write("\n")
            _write_object_with_array(write, {
                "id": c.id, "title": c.title, "model": c.model, "project_id": c.project_id,
                "created_at": c.created_at, "updated_at": c.updated_at,
            }, "messages", messages_of(c.id))
            conversations += 1
        write("]")

        def turns_of(session_id: int) -> Iterator[dict[str, object]]:
            for t in VoiceTurn.objects.filter(session_id=session_id).order_by("id").iterator(
                _EXPORT_CHUNK
            ):
                yield {"id": t.id, "role": t.role, "text": t.text, "created_at": t.created_at}

        write("," + _json("voice_sessions") + ":[")
        sessions = 0
        for s in VoiceSession.objects.for_owner(owner).order_by("id").iterator(_EXPORT_CHUNK):
            if sessions:
                write(",")
            write("\n")
            _write_object_with_array(write, {
                "id": s.id, "started_at": s.started_at, "ended_at": s.ended_at,
            }, "turns", turns_of(s.id))
            sessions += 1
        write("]")

        # The pass log holds metrics only (never fact text), and it is the account's.
        write("," + _json("memory_passes") + ":")
        _write_array(write, (
            {"id": p.id, "trigger": p.trigger, "status": p.status, "outcome": p.outcome,
             "model": p.model, "lines_before": p.lines_before, "lines_after": p.lines_after,
             "input_tokens": p.input_tokens, "output_tokens": p.output_tokens,
             "created_at": p.created_at, "finished_at": p.finished_at}
            for p in MemoryPass.objects.for_owner(owner).order_by("id").iterator(_EXPORT_CHUNK)
        ))
        write("}\n")
    return AccountExport(
        conversations=conversations, messages=counts["messages"], projects=projects,
        voice_sessions=sessions, facts=len(lines),
    )


# --------------------------------------------------------------------------------------
# Deletion

# How the deletion report names what went, in the order it prints them.
_REMOVED_NAMES = {
    "auth.User": "account",
    "memory.Memory": "memory rows",
    "memory.MemoryPass": "memory passes",
    "chat.Conversation": "conversations",
    "chat.Message": "messages",
    "chat.Project": "projects",
    "chat.VoiceSession": "voice sessions",
    "chat.VoiceTurn": "voice turns",
    "accounts.Preference": "preferences",
    "account.EmailAddress": "email addresses",
}


def _removed_report(counts: dict[str, int]) -> dict[str, int]:
    report = {name: counts.get(label, 0) for label, name in _REMOVED_NAMES.items()}
    for label, count in counts.items():
        if label not in _REMOVED_NAMES and count:
            report[label] = count
    return report


def account_contents(*, user_id: int) -> dict[str, int]:
    """What deleting the account would remove, by the names the deletion report uses."""
    owner = Owner(user_id=user_id)
    counts = {
        "auth.User": 1,
        "memory.Memory": Memory.objects.filter(user_id=user_id).count(),
        "memory.MemoryPass": MemoryPass.objects.for_owner(owner).count(),
        "chat.Conversation": Conversation.objects.for_owner(owner).count(),
        "chat.Message": Message.objects.filter(conversation__user_id=user_id).count(),
        "chat.Project": Project.objects.for_owner(owner).count(),
        "chat.VoiceSession": VoiceSession.objects.for_owner(owner).count(),
        "chat.VoiceTurn": VoiceTurn.objects.filter(session__user_id=user_id).count(),
        "accounts.Preference": Preference.objects.filter(user_id=user_id).count(),
    }
    return _removed_report(counts)


@dataclass(frozen=True)
class AccountDeletion:
    removed: dict[str, int]
    cache_entries: int | None  # None: the cache could not be reached


def account_delete(*, user_id: int) -> AccountDeletion:
    """Delete the account and everything it owns; return what was removed.

    A pass still queued has its MemoryPass row deleted with the account, so the
    worker finds nothing to run. A pass already waiting on the model can write nothing
    back: its compare-and-swap finds no Memory row, and a new row for a user that no
    longer exists fails its foreign key. Locking the user and memory rows first makes
    a merge or a pass that is saving right now finish before the delete, or fail after.
    Cache entries named by accounts.cache.owner_cache_key go after the rows.
    """
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user_id)
        list(Memory.objects.select_for_update().filter(user_id=user_id).values_list("pk"))
        _, counts = user.delete()
    try:
        cache_entries: int | None = owner_cache_delete(owners=[Owner(user_id=user_id)])
    except OwnerCacheUnavailable:
        cache_entries = None
    log.info("account %s deleted", user_id)
    return AccountDeletion(removed=_removed_report(counts), cache_entries=cache_entries)


# --------------------------------------------------------------------------------------
# Abandoned guests

# Guests deleted per transaction: each takes its conversations, messages and passes
# with it, so a batch stays short enough not to hold locks for long.
GUEST_SWEEP_BATCH = 200


@dataclass(frozen=True)
class GuestCleanup:
    guests: int
    removed: dict[str, int]
    cache_entries: int | None


def guests_cleanup(*, batch_size: int = GUEST_SWEEP_BATCH) -> GuestCleanup:
    """Delete guests not seen for longer than a session lives, with all they own.

    A guest's id lives only in its session, so once SESSION_COOKIE_AGE has passed
    since the guest was last seen, nobody can reach it again. Rows are claimed with
    SKIP LOCKED, so a guest being merged into an account right now is left alone
    (and is gone after the merge anyway).
    """
    cutoff = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    total = 0
    removed: dict[str, int] = {}
    swept: list[Owner] = []
    while True:
        with transaction.atomic():
            ids = list(
                Guest.objects.select_for_update(skip_locked=True)
                .filter(last_seen_at__lt=cutoff)
                .order_by("last_seen_at")
                .values_list("pk", flat=True)[:batch_size]
            )
            if not ids:
                break
            # Filter on the cutoff again: the rows are locked, so this is the final word.
            _, counts = Guest.objects.filter(pk__in=ids, last_seen_at__lt=cutoff).delete()
        total += counts.get("accounts.Guest", 0)
        for label, count in counts.items():
            removed[label] = removed.get(label, 0) + count
        swept.extend(Owner(guest_id=guest_id) for guest_id in ids)
    try:
        cache_entries: int | None = owner_cache_delete(owners=swept)
    except OwnerCacheUnavailable:
        cache_entries = None
    if total:
        log.info("abandoned guests removed: %s", total)
    return GuestCleanup(guests=total, removed=removed, cache_entries=cache_entries)
