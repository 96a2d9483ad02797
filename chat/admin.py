"""Admin for support staff: who owns what, on which model, and how much — never the text.

Chats and voice transcripts are the user's words; support answers questions about
accounts without reading them, so these pages show metadata only and change nothing.
"""

from django.contrib import admin
from django.db.models import Count

from chat.models import Conversation, Project, VoiceSession
from whizi.admin import ReadOnlyAdmin


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdmin):
    list_display = ["id", "user", "guest", "model", "project", "turns", "created_at", "updated_at"]
    list_filter = ["model"]
    search_fields = ["user__email", "=guest__id", "=id"]
    fields = ["user", "guest", "model", "project", "turns", "created_at", "updated_at"]
    readonly_fields = fields
    list_select_related = ["user", "project"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(turn_count=Count("messages"))

    @admin.display(ordering="turn_count")
    def turns(self, obj: Conversation) -> int:
        return obj.turn_count


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
