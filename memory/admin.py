"""Admin for support staff: memory rows and the pass log, read-only.

Nobody edits fact text here, support staff or superuser: the product has no way to
edit a single fact (docs/DESIGN.md §2.6), and an edit that skipped the version bump would be
overwritten by the next pass anyway. The one write is the "Clear memory" action,
which goes through memory.store.memory_clear (so passes in flight are discarded)
and is recorded in the admin log. It needs the `memory.clear_memory` permission,
which the Support group has (accounts migration 0003).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.owner import Owner
from memory.models import Memory, MemoryPass
from memory.store import MemoryClearFailed, memory_clear
from whizi.admin import ReadOnlyAdmin


def _owner_label(obj: Memory | MemoryPass) -> str:
    if obj.user_id is not None:
        email = obj.user.email if obj.user else ""
        return f"{email or 'no email'} (account {obj.user_id})"
    return f"guest {obj.guest_id}"


@admin.register(Memory)
class MemoryAdmin(ReadOnlyAdmin):
    # A deleted row would lose its epoch and clear time, and the pass log is the record of
    # what ran: clearing is the only way facts go.
    deletable = False
    list_display = ("owner", "fact_count", "tokens", "version", "updated_at", "cleared_at")
    list_select_related = ("user",)
    search_fields = ("user__email", "=guest__id")
    search_help_text = "Search by account email address, or a guest's exact id."
    ordering = ("-updated_at",)
    fields = (
        "owner", "fact_count", "tokens", "facts", "version", "epoch", "cleared_at",
        "created_at", "updated_at", "pass_log",
    )
    readonly_fields = fields
    actions = ["clear_memory"]

    @admin.display(description="owner")
    def owner(self, obj: Memory) -> str:
        return _owner_label(obj)

    @admin.display(description="facts")
    def fact_count(self, obj: Memory) -> int:
        return len(obj.lines)

    @admin.display(description="saved facts")
    def facts(self, obj: Memory) -> str:
        if not obj.lines:
            return "Nothing remembered."
        items = format_html_join("", "<li>{}</li>", ((line,) for line in obj.lines))
        return format_html("<ol>{}</ol>", items)

    @admin.display(description="pass log")
    def pass_log(self, obj: Memory) -> str:
        url = reverse("admin:memory_memorypass_changelist")
        if obj.user_id is not None:
            query = f"user__id__exact={obj.user_id}"
        else:
            query = f"guest__id__exact={obj.guest_id}"
        count = MemoryPass.objects.for_owner(Owner.of(obj)).count()
        return format_html('<a href="{}?{}">{} passes</a>', url, query, count)

    def has_clear_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("memory.clear_memory")

    @admin.action(description="Clear memory of the selected owners", permissions=["clear"])
    def clear_memory(self, request: HttpRequest, queryset: QuerySet[Memory]) -> HttpResponse | None:
        rows = list(queryset.select_related("user"))
        if request.POST.get("confirmed") != "yes":
            # Clearing cannot be undone: ask first, like the user's own "Clear memory".
            return TemplateResponse(request, "admin/memory/memory/clear_memory.html", {
                **self.admin_site.each_context(request),
                "title": "Clear Whizi's memory?",
                "rows": [(row, _owner_label(row), len(row.lines)) for row in rows],
                "opts": self.model._meta,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            })
        cleared = 0
        for row in rows:
            facts = len(row.lines)
            try:
                memory_clear(owner=Owner.of(row))
            except MemoryClearFailed:
                self.message_user(
                    request, f"Couldn't clear the memory of {_owner_label(row)}. Please try again.",
                    messages.ERROR,
                )
                continue
            # The admin log says who cleared whose memory and how many facts went;
            # never the facts themselves.
            self.log_change(request, row, f"Cleared memory ({facts} facts).")
            cleared += 1
        if cleared:
            self.message_user(request, f"Cleared the memory of {cleared} owner(s).", messages.SUCCESS)
        return None


@admin.register(MemoryPass)
class MemoryPassAdmin(ReadOnlyAdmin):
    deletable = False
    list_display = (
        "created_at", "owner", "trigger", "status", "outcome", "model", "lines_before",
        "lines_after", "input_tokens", "output_tokens", "duration_ms", "error",
    )
    list_select_related = ("user",)
    list_filter = ("trigger", "status", "outcome")
    search_fields = ("user__email", "=guest__id")
    search_help_text = "Search by account email address, or a guest's exact id."
    date_hierarchy = "created_at"
    readonly_fields = (
        "owner", "trigger", "status", "outcome", "conversation_id", "first_through_message_id",
        "through_message_id", "voice_session_id", "model",
        "attempts", "input_tokens", "output_tokens", "lines_before", "lines_after",
        "duration_ms", "error", "created_at", "started_at", "finished_at",
    )
    fields = readonly_fields

    @admin.display(description="owner")
    def owner(self, obj: MemoryPass) -> str:
        return _owner_label(obj)
