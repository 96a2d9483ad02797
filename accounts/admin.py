from django.contrib import admin

from accounts.models import Guest, Preference
from whizi.admin import ReadOnlyAdmin


@admin.register(Guest)
class GuestAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "last_seen_at")
    readonly_fields = ("id", "created_at", "last_seen_at")
    search_fields = ("=id",)
    ordering = ("-last_seen_at",)


@admin.register(Preference)
class PreferenceAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "language", "chat_model", "updated_at")
    list_select_related = ("user",)
    search_fields = ("user__email", "=guest__id")
    fields = ("user", "guest", "language", "chat_model", "updated_at")
    readonly_fields = fields
    deletable = False
