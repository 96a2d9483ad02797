"""Memory in the JSON API (docs/DESIGN.md §2.7, §4): the app reads and clears the saved
list; a reply's memory mark has its schema here (MemoryMarkOut).
Guests and accounts alike; no plan check."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Router, Schema
from ninja.decorators import decorate_view

from accounts.owner import owner_seen
from accounts.ratelimit import rate_limited
from memory import texts
from memory.services import MemoryClearFailed, MemoryUnavailable, memory_settings_clear, memory_settings_read
from whizi.api import refusals
from whizi.http import json_error

router = Router(tags=["memory"])


class MemoryChangeOut(Schema):
    """One line the pass changed, with its words (they go with a clear of memory)."""

    kind: Literal["added", "replaced", "removed", "compacted"]
    old: str | None = Field(description="The line as it was (replaced, removed); null otherwise.")
    new: str | None = Field(description="The line as saved (added, replaced); null otherwise.")
    reason: Literal["forgotten", "superseded", "rule"] | None = Field(
        description="Why a line was removed: the user asked to forget it, a newer fact replaced it, "
                    "or the rules do not keep it; null for other kinds.")
    count: int | None = Field(description="How many lines a compaction merged (it lists none of them); "
                                          "null for other kinds.")
    text: str = Field(description="The change in plain words, in the request's language.")


MarkReason = Literal["link", "instruction", "code", "not_yours", "rules", "already", "nothing_to_forget"]


class MemoryMarkOut(Schema):
    """What the memory pass after a reply did, as the chat page's mark shows it: the shape
    of memory.selectors.PassMark.as_json."""

    state: Literal["pending", "retrying", "updated", "not_saved", "failed", "cleared", "none"] = Field(
        description='"pending" while the pass is queued or running; "retrying" when it failed for now and '
                    'waits for its next try (ask again); "updated" when it changed the list (`changes`); '
                    '"not_saved" when the user asked to remember or forget and nothing changed (`reason`); '
                    '"failed"; "cleared" when memory was cleared since (nothing it saved is shown); '
                    '"none" when there was no pass or it did nothing worth saying.')
    reason: MarkReason | None = (
        Field(None, description="Why an explicit request saved nothing (not_saved), or, on an updated mark, "
                                "why part of it was not saved; null otherwise."))
    label: str | None = Field(None, description="The mark's words, in the request's language; null for "
                                                "pending and none.")
    changes: list[MemoryChangeOut] = Field([], description="What the pass changed, line by line (updated "
                                                           "only; empty once memory was cleared).")


class MemoryLabels(Schema):
    settings_row: str
    close: str
    forget: str


class MemoryOut(Schema):
    facts: list[str]
    count: int
    tokens: int
    title: str  # the app's alert, in the request's language (docs/STRINGS.md)
    labels: MemoryLabels


class MemoryClearedOut(Schema):
    title: str
    message: str


@router.get("/memory/", response={200: MemoryOut, **refusals(429, 503)}, url_name="memory",
            summary="Read what Whizi remembers")
@decorate_view(rate_limited("memory_read", fail_open=True))
def memory_get(request: HttpRequest) -> dict[str, object] | HttpResponse:
    """The saved facts, with the alert's wording; 503 when memory cannot be read (nothing
    was changed)."""
    owner = owner_seen(request)
    try:
        snapshot = memory_settings_read(owner=owner)
    except MemoryUnavailable:
        return json_error(503, texts.READ_FAILED_TITLE, texts.READ_FAILED)
    return {"facts": list(snapshot.lines), "count": snapshot.count, "tokens": snapshot.tokens,
            "title": str(texts.APP_ALERT_TITLE),
            "labels": {"settings_row": str(texts.APP_SETTINGS_ROW), "close": str(texts.APP_CLOSE),
                       "forget": str(texts.APP_FORGET)}}


# Fail open: a person must be able to clear their memory while Redis is down.
@router.delete("/memory/", response={200: MemoryClearedOut, **refusals(403, 429, 503)}, url_name="memory",
               summary="Forget everything")
@decorate_view(rate_limited("memory_clear", fail_open=True))
def memory_delete(request: HttpRequest) -> dict[str, str] | HttpResponse:
    """Clear every saved fact, everywhere; 503 when the clear failed (the list is still
    there, and clearing again works)."""
    owner = owner_seen(request)
    try:
        memory_settings_clear(owner=owner)
    except MemoryClearFailed:
        return json_error(503, texts.CLEAR_FAILED_TITLE, texts.CLEAR_FAILED)
    return {"title": str(texts.CLEARED_TITLE), "message": str(texts.CLEARED_MESSAGE)}
