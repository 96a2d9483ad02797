"""Admin for support staff: who owns what, on which model, and how much — never the text.

Chats and voice transcripts are the user's words; support answers questions about
accounts without reading them, so these pages show metadata only and change nothing.
"""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Sum
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import path

from chat.models import Conversation, Project, VoiceSession
from chat.usage import usage_by_owner
from whizi.admin import ReadOnlyAdmin


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "guest", "model", "project", "turns", "tokens", "cost", "created_at",
                    "updated_at"]
    list_filter = ["model"]
    search_fields = ["user__email", "=guest__id", "=id"]
    fields = ["user", "guest", "model", "project", "turns", "tokens", "cost", "created_at", "updated_at"]
    readonly_fields = fields
    list_select_related = ["user", "project"]
    change_list_template = "admin/chat/conversation/change_list.html"

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            turn_count=Count("messages"), token_count=Sum("messages__input_tokens") + Sum(
                "messages__output_tokens"), cost_sum=Sum("messages__cost"))

    @admin.display(ordering="turn_count")
    def turns(self, obj: Conversation) -> int:
        return obj.turn_count

    @admin.display(ordering="token_count", description="tokens (in + out)")
    def tokens(self, obj: Conversation) -> int:
        return obj.token_count or 0

    @admin.display(ordering="cost_sum", description="cost (USD)")
    def cost(self, obj: Conversation) -> str:
        return f"{obj.cost_sum:.4f}" if obj.cost_sum is not None else "–"

    def get_urls(self) -> list:
        usage = path("usage/", self.admin_site.admin_view(self.usage_view), name="chat_usage_by_owner")
        return [usage, *super().get_urls()]

    def usage_view(self, request: HttpRequest) -> TemplateResponse:
        """Per-owner totals: chat replies (the user's) and memory passes (Whizi's own)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        search = request.GET.get("q", "").strip()
        return TemplateResponse(request, "admin/chat/usage.html", {
            **self.admin_site.each_context(request), "title": "Usage by owner", "search": search,
            "rows": usage_by_owner(search=search), "opts": self.model._meta,
        })


@admin.register(Project)
class ProjectAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "user", "guest", "created_at"]
    search_fields = ["user__email", "=guest__id", "=id"]
    fields = ["name", "user", "guest", "created_at"]
    readonly_fields = fields


@admin.register(VoiceSession)
class VoiceSessionAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "guest", "turns", "started_at", "ended_at"]
    search_fields = ["user__email", "=guest__id", "=id"]
    fields = ["user", "guest", "turns", "started_at", "ended_at"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(turn_count=Count("turns"))

    @admin.display(ordering="turn_count")
    def turns(self, obj: VoiceSession) -> int:
        return obj.turn_count
