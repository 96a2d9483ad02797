"""The memory block of the settings page (htmx partials, plain links and forms without
JavaScript); the app's memory API is memory.api. Guests and accounts alike; no plan check.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import reswap, retarget

from accounts.owner import owner_seen
from accounts.ratelimit import rate_limited
from memory import texts
from memory.services import MemoryClearFailed, memory_block_context, memory_settings_clear


def _settings_url(*, expanded: bool) -> str:
    query = "?memory=open" if expanded else ""
    return f"{reverse('lifecycle:settings')}{query}#memory"


@never_cache
@vary_on_headers("HX-Request")
@require_GET
def memory_panel(request: HttpRequest) -> HttpResponse:
    """The memory block alone, for htmx; a plain visit gets the settings page in that state."""
    expanded = request.GET.get("memory") == "open"
    if not request.htmx:
        return redirect(_settings_url(expanded=expanded))
    owner = owner_seen(request)
    return render(request, "memory/panel.html", memory_block_context(owner=owner, expanded=expanded))


@never_cache
@vary_on_headers("HX-Request")
@require_http_methods(["GET", "POST"])
# Fail open: a person must be able to clear their memory while Redis is down.
@rate_limited({"POST": "memory_clear"}, fail_open=True)
def memory_clear_page(request: HttpRequest) -> HttpResponse:
    """GET: the confirmation as a page of its own (the dialog without JavaScript).
    POST: clear the whole list.

    When the clear fails the list is untouched: htmx gets only the error, swapped into
    the block's alert slot so the list on screen stays exactly as it was; a plain form
    post gets the confirmation again with the error, to try once more.
    """
    if request.method == "GET":
        return render(request, "memory/confirm.html")
    owner = owner_seen(request)
    try:
        memory_settings_clear(owner=owner)
    except MemoryClearFailed:
        if request.htmx:
            response = render(request, "memory/list.html#clear-error", {"clear_failed": True}, status=503)
            return retarget(reswap(response, "innerHTML"), "#memory-clear-error")
        return render(request, "memory/confirm.html", {"clear_failed": True}, status=503)
    if request.htmx:
        return render(request, "memory/panel.html", memory_block_context(owner=owner, expanded=False))
    # Without JavaScript the page reloads: say what happened, as the dialog's flow does.
    messages.success(request, texts.CLEARED_TITLE)
    messages.success(request, texts.CLEARED_MESSAGE)
    return redirect(_settings_url(expanded=False))
