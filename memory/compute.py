"""The memory pass on plain values: an existing list and some turns in, the list to save
and an outcome out (docs/DESIGN.md, "The pass").

It calls the model but touches no database row, so `memory_eval` runs exactly what a
worker runs (memory.run), minus the queue and the save.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings

from memory.budget import trim_to_budget
from memory.grammar import is_forget_request, is_memory_request
from memory.lines import line_key
from memory.models import MemoryPass
from memory.parse import AnswerError, parse_answer
from memory.prompts import Turn, compaction_messages
from memory.safety import safe_lines
from memory.tokens import count_list_tokens, count_tokens
from memory.window import messages_tokens, pass_input, pass_window
from whizi import llm

log = logging.getLogger(__name__)

Outcome = MemoryPass.Outcome

# A rewrite may drop lines (that is how junk is cleaned up), but one that loses more
# than half of a list this long, with no forget request in the input, is far likelier
# a model fault than the user's wish, and is held back.
WIPE_GUARD_MIN_LINES = 4
# A line counts as carried into the rewrite when at least this share of its character
# pairs appears in one new line (so rewording and folding are not counted as losses).
CARRIED_SHARE = 0.5


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
    cost: Decimal | None = None

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


def _call(model: str, messages: list[dict[str, str]], meter: Meter) -> str:
    """One memory-model call, measured. Raises llm.ModelError."""
    meter.input_tokens += messages_tokens(messages)
    meter.calls += 1
    started = time.perf_counter()
    try:
        completion = llm.complete(
            model=model, messages=messages, timeout=settings.WHIZI_MEMORY_MODEL_TIMEOUT
        )
    finally:
        meter.seconds += time.perf_counter() - started
    meter.output_tokens += count_tokens(completion.text)
    meter.add_cost(completion.cost)
    return completion.text


def _compact(lines: list[str], model: str, meter: Meter) -> list[str] | None:
    """The compaction pass; None when it fails or answers with nothing usable."""
    tokens = count_list_tokens(lines)
    shown = lines
    cap = settings.WHIZI_MEMORY_MODEL_INPUT_MAX_TOKENS
    frame = messages_tokens(compaction_messages(lines=[], tokens=tokens))
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


def _result(outcome: str, lines: Sequence[str], existing: Sequence[str], meter: Meter,
            *, error: str = "", retryable: bool = False) -> PassResult:
    return PassResult(
        outcome=outcome, lines=tuple(lines), existing=tuple(existing),
        input_tokens=meter.input_tokens, output_tokens=meter.output_tokens,
        model_seconds=meter.seconds, model_calls=meter.calls,
        error=error or ",".join(meter.errors), retryable=retryable, cost=meter.cost,
    )


def pass_compute(
    *, existing: Sequence[str], turns: Sequence[Turn], source: str = "chat", model: str | None = None,
    compact_above: int | None = None,
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
    5. Over `compact_above` tokens (the 2,000 cap, unless the caller asks for less: a
       merged list is compacted from above the 1,500 target): the compaction pass
       toward 1,500, and if that fails or the list is still over the cap, the
       positional trim. The result is always within budget.
    """
    model = model or settings.WHIZI_MEMORY_MODEL
    compact_above = settings.WHIZI_MEMORY_MAX_TOKENS if compact_above is None else compact_above
    existing = list(existing)
    meter = Meter()
    window = pass_window(turns, source=source)
    if not window:
        if count_list_tokens(existing) <= compact_above:
            return _result(Outcome.UNCHANGED, existing, existing, meter)
        candidate = existing
    else:
        messages = pass_input(existing, window, source)
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
    lines, fitted = _fit_budget(candidate, model, meter, compact_above=compact_above)
    if fitted is not None:
        outcome = fitted
    else:
        outcome = Outcome.UNCHANGED if lines == existing else Outcome.UPDATED
    return _result(outcome, lines, existing, meter)
