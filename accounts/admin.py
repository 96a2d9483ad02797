from django.contrib import admin

from accounts.models import Guest


@admin.register(Guest)
class GuestAdmin(admin.ModelAdmin):
    list_display = ("id", "created_at", "last_seen_at")
    readonly_fields = ("id", "created_at", "last_seen_at")
    search_fields = ("id",)
