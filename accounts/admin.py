from django.contrib import admin

from accounts.models import Guest, Preference


class _ViewOnlyAdmin(admin.ModelAdmin):
    """Guests and preferences change only through the product, never by hand."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Guest)
class GuestAdmin(_ViewOnlyAdmin):
    list_display = ("id", "created_at", "last_seen_at")
    readonly_fields = ("id", "created_at", "last_seen_at")
    search_fields = ("=id",)
    ordering = ("-last_seen_at",)


@admin.register(Preference)
class PreferenceAdmin(_ViewOnlyAdmin):
    list_display = ("__str__", "language", "chat_model", "updated_at")
    list_select_related = ("user",)
    search_fields = ("user__email", "=guest__id")
    fields = ("user", "guest", "language", "chat_model", "updated_at")
    readonly_fields = fields

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
