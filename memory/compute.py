"""The memory pass on plain values: an existing list and some turns in, the list to save
and what happened out (docs/DESIGN.md §2.2–2.5, §7).

It calls the model but touches no database row, so `memory_eval` runs exactly what a
worker runs (memory.run), minus the queue and the save.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.conf import settings

from memory.apply import Applied, Context, LineChange, answer_apply, request_already_saved
from memory.budget import trim_to_budget
from memory.grammar import memory_requests_in
from memory.models import MemoryPass
from memory.parse import Answer, AnswerError, parse_answer
from memory.prompts import compaction_messages
from memory.safety import blocked_reason
from memory.sources import Turn
from memory.tokens import count_list_tokens, count_tokens
from memory.window import messages_tokens, pass_input, pass_window
from whizi import llm
from whizi.metrics import metric_memory_refused

log = logging.getLogger(__name__)

Outcome = MemoryPass.Outcome

# Room for the answer: the changes are short, but a model may re-type the whole list.
ANSWER_TOKENS_MIN = 600
ANSWER_TOKENS_MAX = 4000


@dataclass(frozen=True)
class PassResult:
    """What one pass decided. `lines` is the list to save (the existing list when the
    outcome is unchanged, failed or discarded); the counts say what happened to each line."""

    outcome: str
    lines: tuple[str, ...]
    existing: tuple[str, ...]
    input_tokens: int = 0
    output_tokens: int = 0
    model_seconds: float = 0.0
    model_calls: int = 0
    error: str = ""
    retryable: bool = False
    retry_after: float | None = None
    kept: int = 0
    edited: int = 0
    added: int = 0
    removed: dict[str, int] = field(default_factory=dict)
    refused: int = 0
    refused_by: dict[str, int] = field(default_factory=dict)  # check -> changes it refused
    cost: Decimal | None = None  # the memory model's, never the user's
    # Each changed line with its words: saved with the list (memory.store), never in the pass log.
    line_changes: tuple[LineChange, ...] = ()
    # What the user asked of memory in the turn that called the pass ("remember", "forget"
    # or ""), and, for a remember, whether a saved line already said it: the reply's mark
    # tells an unchanged list apart ("Already remembered", "Not saved: …", "Nothing to forget").
    asked: str = ""
    already: bool = False
    blocked: str = ""  # the line check the request's own words fail (memory.safety), if any

    @property
    def changed(self) -> bool:
        return self.lines != self.existing

    @property
    def tokens(self) -> int:
        return count_list_tokens(list(self.lines))


@dataclass
class Meter:
    """Model calls, tokens and time, across every call of a pass (and its re-runs)."""

    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0
    calls: int = 0
    errors: list[str] = field(default_factory=list)
    cost: Decimal | None = None  # None until a priced call is made

    def add(self, result: PassResult) -> None:
        self.input_tokens += result.input_tokens
        self.output_tokens += result.output_tokens
        self.seconds += result.model_seconds
        self.calls += result.model_calls
        self.add_cost(result.cost)

    def add_cost(self, cost: Decimal | None) -> None:
        if cost is not None:
            self.cost = (self.cost or Decimal(0)) + cost


def answer_budget(lines: Sequence[str]) -> int:
    """max_tokens for an answer about this list: room to re-type it, within bounds."""
    return max(ANSWER_TOKENS_MIN, min(ANSWER_TOKENS_MAX, count_list_tokens(list(lines)) + ANSWER_TOKENS_MIN))


def _call(model: str, messages: list[dict[str, str]], meter: Meter, *, max_tokens: int) -> llm.Completion:
    """One memory-model call, measured: temperature 0 (a rewrite of someone's memory is no
    place for variety) and an output bound. Raises llm.ModelError."""
    meter.input_tokens += messages_tokens(messages)
    meter.calls += 1
    started = time.perf_counter()
    try:
        completion = llm.complete(model=model, messages=messages, timeout=settings.WHIZI_MEMORY_MODEL_TIMEOUT,
                                  temperature=0, max_tokens=max_tokens)
    finally:
        meter.seconds += time.perf_counter() - started
    meter.output_tokens += count_tokens(completion.text)
    meter.add_cost(completion.cost)
    return completion


def _answer(completion: llm.Completion) -> Answer:
    return parse_answer(completion.text, truncated=completion.finish_reason == "length")


def _compact(lines: list[str], model: str, meter: Meter) -> list[str] | None:
    """The compaction pass; None when it fails or answers with nothing usable."""
    tokens = count_list_tokens(lines)
    shown = lines
    cap = settings.WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS
    frame = messages_tokens(compaction_messages(lines=[], tokens=tokens))
    if frame + tokens > cap:
        # A runaway list: show the model what fits; the rest would be trimmed anyway.
        shown = trim_to_budget(lines, max_tokens=cap - frame - 64)
    try:
        completion = _call(model, compaction_messages(lines=shown, tokens=tokens), meter,
                           max_tokens=answer_budget(shown))
        answer = _answer(completion)
    except (llm.ModelError, AnswerError) as exc:
        meter.errors.append(f"compaction:{exc.kind}")
        return None
    applied = answer_apply(shown, answer, Context(own_words="", compaction=True))
    if not applied.changed:
        meter.errors.append("compaction:no_change")
        return None
    return applied.lines + lines[len(shown):]


def _fit_budget(lines: list[str], model: str, meter: Meter, *,
                compact_above: int) -> tuple[list[str], str | None]:
    """Over `compact_above` tokens: the compaction pass toward the target; then, if the
    list is still over WHIZI_MEMORY_MAX_TOKENS, the positional trim."""
    max_tokens = settings.WHIZI_MEMORY_MAX_TOKENS
    tokens = count_list_tokens(lines)
    if tokens <= compact_above:
        return lines, None
    compacted = _compact(lines, model, meter)
    if compacted is not None and count_list_tokens(compacted) <= max_tokens:
        return compacted, Outcome.COMPACTED
    if tokens <= max_tokens:
        return lines, None  # compaction failed, but the list is within the cap as it is
    return trim_to_budget(compacted or lines), Outcome.TRIMMED


@dataclass(frozen=True)
class Asked:
    """What the newest user turn that asks anything of memory asks: "remember", "forget",
    or "" when none does; for a remember, whether a saved line already says it, and the
    line check its words fail (a link, an order), if any."""

    kind: str = ""
    already: bool = False
    blocked: str = ""


def request_asked(turns: Sequence[Turn], existing: Sequence[str]) -> Asked:
    for turn in reversed(turns):
        if turn.role != "user":
            continue
        found = memory_requests_in(turn.content)
        if not found:
            continue
        if any(request.kind.value == "forget" for request in found):
            return Asked("forget")
        content = " ".join(request.content for request in found) or turn.content
        return Asked("remember", already=request_already_saved(content, existing),
                     blocked=blocked_reason(content) or "")
    return Asked()


def _result(outcome: str, lines: Sequence[str], existing: Sequence[str], meter: Meter, *,
            applied: Applied | None = None, error: str = "", retryable: bool = False,
            retry_after: float | None = None, line_changes: Sequence[LineChange] = (),
            asked: Asked = Asked()) -> PassResult:
    counts = {}
    if applied is not None:
        counts = {"kept": applied.kept, "edited": applied.edited, "added": applied.added,
                  "removed": dict(applied.removed), "refused": applied.refused,
                  "refused_by": dict(applied.refused_by)}
    return PassResult(
        outcome=outcome, lines=tuple(lines), existing=tuple(existing),
        input_tokens=meter.input_tokens, output_tokens=meter.output_tokens,
        model_seconds=meter.seconds, model_calls=meter.calls,
        error=error or ",".join(meter.errors), retryable=retryable, retry_after=retry_after,
        cost=meter.cost, line_changes=tuple(line_changes), asked=asked.kind, already=asked.already,
        blocked=asked.blocked, **counts,
    )


def pass_prompt(*, existing: Sequence[str], turns: Sequence[Turn], source: str = "chat",
                today: date | None = None, max_turns: int | None = None) -> list[dict[str, str]] | None:
    """The exact messages a pass over these values sends the memory model (steps 1–3 of
    pass_compute); None when there is nothing to read and the model would not be called."""
    window = pass_window(turns, source=source, max_turns=max_turns)
    return pass_input(list(existing), window, source, today=today) if window else None


def pass_compute(
    *, existing: Sequence[str], turns: Sequence[Turn], source: str = "chat", model: str | None = None,
    compact_above: int | None = None, today: date | None = None, max_turns: int | None = None,
) -> PassResult:
    """One pass over plain values: the list to save, and what happened.

    1. Window the input: the last 6 chat turns (`max_turns` when later turns joined
       the pass), or the voice transcript, capped to the most recent 20,000 tokens;
       the whole prompt capped at 50,000.
    2. Nothing to read: the list is unchanged and the model is not called (unless the
       list is over `compact_above`, which goes straight to step 5).
    3. Ask the fixed memory model for its changes. A failure leaves the list untouched
       (`retryable` and `retry_after` say whether and when trying again may help); so
       does an answer with nothing usable (empty, a refusal: worth asking again).
    4. Apply the changes one by one, each checked (memory.apply): a line goes only when
       the answer removes it by id for an allowed reason; a new or edited line must
       pass the line check and be grounded in the user's own words.
    5. Over `compact_above` tokens (the 2,000 cap, unless the caller asks for less: a
       merged list is compacted from above the 1,500 target): the compaction pass
       toward 1,500, and if that fails or the list is still over the cap, the
       positional trim. The result is always within budget.
    """
    model = model or settings.WHIZI_MEMORY_MODEL
    compact_above = settings.WHIZI_MEMORY_MAX_TOKENS if compact_above is None else compact_above
    existing = list(existing)
    meter = Meter()
    applied = None
    window = pass_window(turns, source=source, max_turns=max_turns)
    asked = request_asked(window, existing)
    if not window:
        if count_list_tokens(existing) <= compact_above:
            return _result(Outcome.UNCHANGED, existing, existing, meter)
        candidate = existing
    else:
        applied = _changes_applied(existing, window, source, model, meter, today=today, asked=asked)
        if isinstance(applied, PassResult):
            return applied  # the model failed, or answered nothing usable
        candidate = applied.lines
    lines, fitted = _fit_budget(candidate, model, meter, compact_above=compact_above)
    outcome = fitted or (Outcome.UNCHANGED if lines == existing else Outcome.UPDATED)
    line_changes = list(applied.changes) if applied is not None else []
    if fitted:
        # One row for the whole compaction (or trim): how many lines it merged, not which.
        line_changes.append(LineChange("compacted", count=max(len(candidate) - len(lines), 0)))
    return _result(outcome, lines, existing, meter, applied=applied, line_changes=line_changes, asked=asked)


def _changes_applied(existing: list[str], window: Sequence[Turn], source: str, model: str, meter: Meter, *,
                     today: date | None, asked: bool) -> Applied | PassResult:
    """Steps 3 and 4 of pass_compute: the model's changes, each checked; or the failed
    pass, the list untouched."""
    messages = pass_input(existing, window, source, today=today)
    try:
        answer = _answer(_call(model, messages, meter, max_tokens=answer_budget(existing)))
    except llm.ModelError as exc:
        log.warning("memory pass failed: model %s (%s)", exc.kind, model)
        return _result(Outcome.FAILED, existing, existing, meter, error=f"model:{exc.kind}",
                       retryable=exc.retryable, retry_after=getattr(exc, "retry_after", None), asked=asked)
    except AnswerError as exc:
        log.warning("memory pass failed: answer %s (%s)", exc.kind, model)
        return _result(Outcome.FAILED, existing, existing, meter, error=f"answer:{exc.kind}",
                       retryable=exc.kind in ("empty_answer", "refused"), asked=asked)
    if answer.no_change:
        return Applied(lines=list(existing), kept=len(existing))
    applied = answer_apply(existing, answer, Context.of(window))
    if applied.refused:
        # The checks' names only, never the text: a check that refuses good work shows here.
        log.warning("memory pass refused %d change(s): %s", applied.refused,
                    ", ".join(f"{check}={n}" for check, n in sorted(applied.refused_by.items())))
        for check, count in applied.refused_by.items():
            metric_memory_refused(check=check, amount=count)
    return applied

