"""The memory pass (DESIGN 2.2–2.5 and 3): read, ask the memory model, check, fit, save.

Two entry points share one implementation:

- `pass_compute()` is the pass on plain values: an existing list and some turns in,
  the list to save and an outcome out. It calls the model but touches no database
  row, so `memory_eval` runs exactly what a worker runs, minus the queue.
- `pass_run()` is the pass as the Celery task runs it: claim the MemoryPass row, read
  the owner's list and the turns, `pass_compute()`, save with a compare-and-swap on
  the list's version, and record the outcome (metrics only, never fact text).

No transaction or row lock is held while the model is called: the save is a single
filtered UPDATE that succeeds only over the exact version the pass read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError
from django.db.models import F, Q, Subquery
from django.utils import timezone

from accounts.owner import Owner
from memory.budget import tail_within, trim_to_budget
from memory.lines import line_key
from memory.models import Memory, MemoryPass
from memory.parse import AnswerError, parse_answer
from memory.prompts import Turn, compaction_messages, pass_messages
from memory.requests import is_forget_request, is_memory_request
from memory.safety import safe_lines
from memory.tokens import count_list_tokens, count_tokens
from whizi import llm

log = logging.getLogger(__name__)

Outcome = MemoryPass.Outcome

# A pass is tried at most this many times for retryable model errors (timeouts, rate
# limits, provider errors); each retry waits longer (memory.tasks). Beyond that the
# pass is recorded as failed and the list stays as it was.
MAX_ATTEMPTS = 3
# A pass may be claimed (taken by a worker) at most this many times: its retries, plus
# one delivery after a worker died holding it. A pass claimed more often than this is a
# poison pass (something kills its worker every time): the next claim, or the sweep
# (memory.sweep), records it as failed and the list stays as it was.
MAX_CLAIMS = MAX_ATTEMPTS + 1
# How many times a pass re-runs on a fresher list after losing a compare-and-swap to a
# concurrent pass, before it gives up (discarded). Each round is one more model call.
MAX_CONFLICT_ROUNDS = 3
# A rewrite may drop lines (that is how junk is cleaned up), but one that loses more
# than half of a list this long, with no forget request in the input, is far likelier
# a model fault than the user's wish, and is held back.
WIPE_GUARD_MIN_LINES = 4
# A line counts as carried into the rewrite when at least this share of its character
# pairs appears in one new line (so rewording and folding are not counted as losses).
CARRIED_SHARE = 0.5


class PassRetry(Exception):
    """A retryable model failure: the pass is queued again and the task retries it."""


@dataclass(frozen=True)
class PassResult:
    """What one pass decided. `lines` is the list to save (the existing list when the
    outcome is unchanged, failed or discarded)."""

    outcome: str
    lines: tuple[str, ...]
    existing: tuple[str, ...]
    input_tokens: int = 0
    output_tokens: int = 0
    model_seconds: float = 0.0
    model_calls: int = 0
    error: str = ""
    retryable: bool = False

    @property
    def changed(self) -> bool:
        return self.lines != self.existing

    @property
    def tokens(self) -> int:
        return count_list_tokens(list(self.lines))


@dataclass(frozen=True)
class PassReport:
    """What pass_run() did, for the task log and for measurements."""

    pass_id: int
    outcome: str
    seconds: float
    model_seconds: float
    error: str = ""


@dataclass
class _Meter:
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    calls: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, result: PassResult) -> None:
        self.input_tokens += result.input_tokens
        self.output_tokens += result.output_tokens
        self.seconds += result.model_seconds
        self.calls += result.model_calls


# ---------------------------------------------------------------------------- input


def _turn_tokens(turn: Turn) -> int:
    return count_tokens(f"[{turn.role}] {turn.content}") + 1


def cap_turns(turns: Sequence[Turn], *, max_tokens: int) -> list[Turn]:
    """The most recent turns that fit in `max_tokens`; the oldest one that does not
    fit whole keeps its end (the most recent words)."""
    kept: list[Turn] = []
    left = max_tokens
    for turn in reversed(turns):
        cost = _turn_tokens(turn)
        if cost <= left:
            kept.append(turn)
            left -= cost
            continue
        room = left - count_tokens(f"[{turn.role}] ") - 1
        tail = tail_within(turn.content, room).strip() if room > 0 else ""
        if tail:
            kept.append(Turn(role=turn.role, content=tail))
        break
    kept.reverse()
    return kept


def pass_window(turns: Sequence[Turn], *, source: str) -> list[Turn]:
    """What a pass reads: the last WHIZI_MEMORY_PASS_TURNS chat turns, or a whole
    voice transcript, either capped to its most recent transcript-cap tokens."""
    turns = [turn for turn in turns if turn.content and turn.content.strip()]
    if source == "chat":
        turns = turns[-settings.WHIZI_MEMORY_PASS_TURNS:]
    return cap_turns(turns, max_tokens=settings.WHIZI_MEMORY_TRANSCRIPT_MAX_TOKENS)


def _messages_tokens(messages: Iterable[dict[str, str]]) -> int:
    return sum(count_tokens(message["content"]) for message in messages)


def _pass_input(existing: list[str], turns: list[Turn], source: str) -> list[dict[str, str]]:
    """The rewrite prompt, within WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS.

    With the list under 2,000 tokens and the transcript under 20,000 this is always
    well under the 50,000 cap; the cuts below only bite on a list stored by hand.
    """
    cap = settings.WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS
    shown = existing
    frame = _messages_tokens(pass_messages(existing=shown, turns=[], source=source))
    if frame > cap // 2:
        shown = trim_to_budget(existing, max_tokens=cap // 4)
        frame = _messages_tokens(pass_messages(existing=shown, turns=[], source=source))
    room = cap - frame
    while True:
        turns = cap_turns(turns, max_tokens=room)
        messages = pass_messages(existing=shown, turns=turns, source=source)
        over = _messages_tokens(messages) - cap
        if over <= 0 or not turns:
            return messages
        room -= over + 16


# ---------------------------------------------------------------------------- checks


def _pairs(line: str) -> set[str]:
    text = "".join(line_key(line).split())
    return {text[i : i + 2] for i in range(len(text) - 1)} or {text}


def lines_lost(existing: Sequence[str], rewritten: Sequence[str]) -> int:
    """How many existing lines the rewrite does not carry (same key, or reworded or
    folded into a new line)."""
    keys = {line_key(line) for line in rewritten}
    new_pairs = [_pairs(line) for line in rewritten[:2000]]
    lost = 0
    for line in existing:
        if line_key(line) in keys:
            continue
        pairs = _pairs(line)
        if not any(len(pairs & other) >= CARRIED_SHARE * len(pairs) for other in new_pairs):
            lost += 1
    return lost


def looks_like_wipe(existing: Sequence[str], rewritten: Sequence[str]) -> bool:
    """Would this rewrite drop most of a non-trivial list?"""
    if len(existing) < WIPE_GUARD_MIN_LINES:
        return False
    return lines_lost(existing, rewritten) * 2 > len(existing)


def _checked_lines(lines: list[str], *, existing: Sequence[str], turns: Sequence[Turn]) -> list[str]:
    """The answer's lines minus links, markup, overrides and directives nobody asked for."""
    requests = [t.content for t in turns if t.role == "user" and is_memory_request(t.content)]
    kept, refused = safe_lines(lines, explicit_requests=[*requests, *existing])
    if refused:
        log.warning("memory pass refused %d line(s) that failed the safety check", refused)
    return kept


def _asks_to_forget(turns: Sequence[Turn]) -> bool:
    return any(turn.role == "user" and is_forget_request(turn.content) for turn in turns)


# ---------------------------------------------------------------------------- model


def _call(model: str, messages: list[dict[str, str]], meter: _Meter) -> str:
    """One memory-model call, measured. Raises llm.ModelError."""
    meter.input_tokens += _messages_tokens(messages)
    meter.calls += 1
    started = time.perf_counter()
    try:
        completion = llm.complete(
            model=model, messages=messages, timeout=settings.WHIZI_MEMORY_MODEL_TIMEOUT
        )
    finally:
        meter.seconds += time.perf_counter() - started
    meter.output_tokens += count_tokens(completion.text)
    return completion.text


def _compact(lines: list[str], model: str, meter: _Meter) -> list[str] | None:
    """The compaction pass; None when it fails or answers with nothing usable."""
    tokens = count_list_tokens(lines)
    shown = lines
    cap = settings.WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS
    frame = _messages_tokens(compaction_messages(lines=[], tokens=tokens))
    if frame + tokens > cap:
        # A runaway answer: show the model what fits; the rest would be trimmed anyway.
        shown = trim_to_budget(lines, max_tokens=cap - frame - 64)
    try:
        text = _call(model, compaction_messages(lines=shown, tokens=tokens), meter)
    except llm.ModelError as exc:
        meter.errors.append(f"compaction:{exc.kind}")
        return None
    try:
        compacted, _ = safe_lines(parse_answer(text), explicit_requests=lines)
    except AnswerError as exc:
        meter.errors.append(f"compaction:{exc.kind}")
        return None
    if not compacted:
        meter.errors.append("compaction:emptied")
        return None
    return compacted


def _fit_budget(lines: list[str], model: str, meter: _Meter) -> tuple[list[str], str | None]:
    """Over WHIZI_MEMORY_MAX_TOKENS: compaction, then the positional trim if needed."""
    if count_list_tokens(lines) <= settings.WHIZI_MEMORY_MAX_TOKENS:
        return lines, None
    compacted = _compact(lines, model, meter)
    if compacted is not None and count_list_tokens(compacted) <= settings.WHIZI_MEMORY_MAX_TOKENS:
        return compacted, Outcome.COMPACTED
    return trim_to_budget(compacted or lines), Outcome.TRIMMED


def _result(outcome: str, lines: Sequence[str], existing: Sequence[str], meter: _Meter,
            *, error: str = "", retryable: bool = False) -> PassResult:
    return PassResult(
        outcome=outcome, lines=tuple(lines), existing=tuple(existing),
        input_tokens=meter.input_tokens, output_tokens=meter.output_tokens,
        model_seconds=meter.seconds, model_calls=meter.calls,
        error=error or ",".join(meter.errors), retryable=retryable,
    )


def pass_compute(
    *, existing: Sequence[str], turns: Sequence[Turn], source: str = "chat", model: str | None = None
) -> PassResult:
    """One pass over plain values: the list to save, and what happened.

    1. Window the input: the last 6 chat turns (or the voice transcript), capped to
       the most recent 20,000 tokens; the whole prompt capped at 50,000.
    2. Nothing to read: the list is unchanged and the model is not called (unless the
       list is over budget, which goes straight to step 5).
    3. Ask the fixed memory model for the whole rewritten list. A failure leaves the
       list untouched (`retryable` says whether trying again may help).
    4. Parse and check the answer. Nothing usable (an empty reply, no list, bad lines)
       leaves the list untouched. Lines that read as attempts to override Whizi's
       instructions, links, markup or rules nobody asked to keep are dropped
       (memory.safety). A rewrite that would drop most of a non-trivial
       list with no forget request in the input is held back (discarded).
    5. Over 2,000 tokens: the compaction pass toward 1,500, and if that fails or is
       still over, the positional trim. The result is always within budget.
    """
    model = model or settings.WHIZI_MEMORY_MODEL
    existing = list(existing)
    meter = _Meter()
    window = pass_window(turns, source=source)
    if not window:
        if count_list_tokens(existing) <= settings.WHIZI_MEMORY_MAX_TOKENS:
            return _result(Outcome.UNCHANGED, existing, existing, meter)
        candidate = existing
    else:
        messages = _pass_input(existing, window, source)
        try:
            text = _call(model, messages, meter)
        except llm.ModelError as exc:
            return _result(Outcome.FAILED, existing, existing, meter,
                           error=f"model:{exc.kind}", retryable=exc.retryable)
        try:
            candidate = _checked_lines(parse_answer(text), existing=existing, turns=window)
        except AnswerError as exc:
            return _result(Outcome.FAILED, existing, existing, meter, error=f"answer:{exc.kind}")
        if looks_like_wipe(existing, candidate) and not _asks_to_forget(window):
            log.warning(
                "memory rewrite held back: it would drop %d of %d lines with no forget request",
                lines_lost(existing, candidate), len(existing),
            )
            return _result(Outcome.DISCARDED, existing, existing, meter, error="guard:wipe")
    lines, fitted = _fit_budget(candidate, model, meter)
    if fitted is not None:
        outcome = fitted
    else:
        outcome = Outcome.UNCHANGED if lines == existing else Outcome.UPDATED
    return _result(outcome, lines, existing, meter)


# ---------------------------------------------------------------------------- the task's pass


@dataclass(frozen=True)
class _MemoryRow:
    pk: int
    lines: list[str]
    version: int
    epoch: int
    cleared_at: datetime | None


_ROW_FIELDS = ("pk", "lines", "version", "epoch", "cleared_at")


def _memory_row(owner: Owner) -> _MemoryRow | None:
    """The owner's Memory row (created empty on first use); None when the owner is gone."""
    try:
        memory, _ = Memory.objects.get_or_create(**owner.lookup)
    except IntegrityError:
        # The user or guest was deleted after the pass was queued.
        return None
    return _MemoryRow(pk=memory.pk, lines=memory.lines, version=memory.version,
                      epoch=memory.epoch, cleared_at=memory.cleared_at)


def _reload(**lookup: object) -> _MemoryRow | None:
    values = Memory.objects.filter(**lookup).values(*_ROW_FIELDS).first()
    return _MemoryRow(**values) if values else None


def _current_owner(pass_id: int) -> Owner | None:
    """Who the pass belongs to now (a guest's passes move to the account on signup)."""
    values = MemoryPass.objects.filter(pk=pass_id).values("user_id", "guest_id").first()
    return Owner(**values) if values else None


def _read_turns(memory_pass: MemoryPass, cleared_at: datetime | None) -> list[Turn]:
    """The pass's input, never older than the last clear (so cleared facts are not
    read back out of old messages)."""
    from chat.models import Message, VoiceTurn

    if memory_pass.voice_session_id is not None:
        rows = VoiceTurn.objects.filter(session_id=memory_pass.voice_session_id)
        if cleared_at is not None:
            rows = rows.filter(created_at__gt=cleared_at)
        return [Turn(role=role, content=text)
                for role, text in rows.order_by("id").values_list("role", "text")]
    if memory_pass.through_message_id is None:
        return []
    conversation = Message.objects.filter(pk=memory_pass.through_message_id).values("conversation_id")
    rows = Message.objects.filter(conversation_id=Subquery(conversation),
                                  id__lte=memory_pass.through_message_id)
    if cleared_at is not None:
        rows = rows.filter(created_at__gt=cleared_at)
    latest = rows.order_by("-id").values_list("role", "content")[: settings.WHIZI_MEMORY_PASS_TURNS]
    return [Turn(role=role, content=content) for role, content in reversed(latest)]


def _claim(pass_id: int, *, redelivered: bool) -> MemoryPass | None:
    """Take the pass for this run: a queued one, or a running one whose worker is gone.

    A filtered UPDATE decides, so when a task is delivered twice only one run claims
    it. A running pass is reclaimed when its message was redelivered (the worker
    died mid-pass) or when it started longer ago than any task may run.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimable = Q(status=MemoryPass.Status.QUEUED) | Q(
        status=MemoryPass.Status.RUNNING, started_at__lt=stale
    )
    if redelivered:
        claimable |= Q(status=MemoryPass.Status.RUNNING)
    claimed = MemoryPass.objects.filter(claimable, pk=pass_id).update(
        status=MemoryPass.Status.RUNNING, attempts=F("attempts") + 1, started_at=now,
        model=settings.WHIZI_MEMORY_MODEL, error="",
    )
    if not claimed:
        return None
    return MemoryPass.objects.filter(pk=pass_id).first()


def pass_release(*, pass_id: int, error: str = "") -> None:
    """Hand a running pass back to the queue, for a retry."""
    MemoryPass.objects.filter(pk=pass_id, status=MemoryPass.Status.RUNNING).update(
        status=MemoryPass.Status.QUEUED, error=error[:200]
    )


def _finish(memory_pass: MemoryPass, *, outcome: str, started: float, meter: _Meter,
            error: str = "", lines_before: int = 0, lines_after: int = 0) -> PassReport:
    seconds = time.perf_counter() - started
    MemoryPass.objects.filter(pk=memory_pass.pk, status=MemoryPass.Status.RUNNING).update(
        status=MemoryPass.Status.DONE, outcome=outcome, error=error[:200],
        input_tokens=meter.input_tokens, output_tokens=meter.output_tokens,
        lines_before=lines_before, lines_after=lines_after,
        duration_ms=round(seconds * 1000), model_ms=round(meter.seconds * 1000),
        finished_at=timezone.now(),
    )
    log.info(
        "memory pass %s for %s: %s%s (%d model calls, %.0f ms)", memory_pass.pk,
        Owner.of(memory_pass).key, outcome, f" [{error}]" if error else "", meter.calls,
        seconds * 1000,
    )
    return PassReport(pass_id=memory_pass.pk, outcome=outcome, seconds=seconds,
                      model_seconds=meter.seconds, error=error)


def _time_for_another_round(started: float) -> bool:
    """Can one more rewrite and compaction, at their timeouts, finish within the task's
    soft time limit?"""
    elapsed = time.perf_counter() - started
    return elapsed + 2 * settings.WHIZI_MEMORY_MODEL_TIMEOUT < settings.CELERY_TASK_SOFT_TIME_LIMIT


def pass_run(*, pass_id: int, redelivered: bool = False) -> PassReport | None:
    """Run one queued memory pass. Raises PassRetry for a retryable model failure.

    1. Claim the pass (returns None if it is done, gone or running elsewhere).
    2. Read the owner's list, version, epoch and last clear; read the turns newer
       than that clear.
    3. pass_compute(), holding no transaction or lock.
    4. Save only over the version read: UPDATE … WHERE version = <read>. If another
       write got there first, reload: a clear (epoch moved) or a deleted owner means
       discard — never write cleared facts back; a guest merged into an account means
       re-run on the account's list; otherwise re-run on the fresh list.
    5. Record the outcome and metrics on the pass row (no fact text).
    """
    started = time.perf_counter()
    memory_pass = _claim(pass_id, redelivered=redelivered)
    if memory_pass is None:
        log.info("memory pass %s not claimed: done, gone or running elsewhere", pass_id)
        return None
    meter = _Meter()
    if memory_pass.attempts > MAX_CLAIMS:
        # Delivered over and over (a worker dying mid-pass each time): stop here.
        return _finish(memory_pass, outcome=Outcome.FAILED, started=started, meter=meter,
                       error="attempts")
    row = _memory_row(Owner.of(memory_pass))
    if row is None:
        return _finish(memory_pass, outcome=Outcome.DISCARDED, started=started, meter=meter,
                       error="owner_gone")
    source = "voice" if memory_pass.voice_session_id is not None else "chat"
    turns = _read_turns(memory_pass, row.cleared_at)
    before = len(row.lines)
    for _ in range(MAX_CONFLICT_ROUNDS):
        result = pass_compute(existing=row.lines, turns=turns, source=source,
                              model=settings.WHIZI_MEMORY_MODEL)
        meter.add(result)
        if result.outcome == Outcome.FAILED and result.retryable and memory_pass.attempts < MAX_ATTEMPTS:
            pass_release(pass_id=pass_id, error=result.error)
            raise PassRetry(result.error)
        if not result.changed:
            return _finish(memory_pass, outcome=result.outcome, started=started, meter=meter,
                           error=result.error, lines_before=before, lines_after=len(row.lines))
        saved = Memory.objects.filter(pk=row.pk, version=row.version).update(
            lines=list(result.lines), tokens=result.tokens, version=F("version") + 1,
            updated_at=timezone.now(),
        )
        if saved:
            return _finish(memory_pass, outcome=result.outcome, started=started, meter=meter,
                           error=result.error, lines_before=before, lines_after=len(result.lines))
        fresh = _reload(pk=row.pk)
        if fresh is None:
            # The row is gone: its owner was deleted, or was a guest who has since signed
            # up or logged in, in which case this pass moved to the account with
            # everything else. Follow it there and run again on the account's list.
            moved_to = _current_owner(pass_id)
            fresh = _memory_row(moved_to) if moved_to not in (None, Owner.of(memory_pass)) else None
            if fresh is None:
                return _finish(memory_pass, outcome=Outcome.DISCARDED, started=started, meter=meter,
                               error="owner_gone", lines_before=before, lines_after=0)
            memory_pass = MemoryPass.objects.get(pk=pass_id)
            turns = _read_turns(memory_pass, fresh.cleared_at)
            before = len(fresh.lines)
            row = fresh
            continue
        if fresh.epoch != row.epoch:
            # Memory was cleared while the model was thinking: the clear wins.
            return _finish(memory_pass, outcome=Outcome.DISCARDED, started=started, meter=meter,
                           error="conflict:cleared", lines_before=before,
                           lines_after=len(fresh.lines))
        if not _time_for_another_round(started) and memory_pass.attempts < MAX_ATTEMPTS:
            # Another rewrite (and compaction) might outlast the task's time limit:
            # start again as a fresh attempt instead.
            pass_release(pass_id=pass_id, error="conflict:time")
            raise PassRetry("conflict:time")
        row = fresh
    return _finish(memory_pass, outcome=Outcome.DISCARDED, started=started, meter=meter,
                   error="conflict:retries", lines_before=before, lines_after=len(row.lines))
