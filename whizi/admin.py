"""The one base for Whizi's admin pages: support staff look, the product changes."""

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows change only through the product, never by hand. Set `deletable = False` where
    deleting a row by hand would lose a record the product relies on."""

    deletable = True

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return self.deletable and super().has_delete_permission(request, obj)
