from django.contrib import admin
from django.urls import include, path

from whizi.api import api_build, api_urls

# The JSON API: each app's router, by dotted path (whizi imports no app), in one
# OpenAPI document (whizi.api). The version is the contract's: raise it when it changes.
api = api_build(routers=["chat.api.router", "memory.api.router"], version="1.1.0")

urlpatterns = [
    path("api/", api_urls(api)),
    path("admin/", admin.site.urls),
    path("accounts/", include("allauth.urls")),
    path("", include("lifecycle.urls")),
    path("", include("memory.urls")),
    path("", include("chat.urls")),
]

handler400 = "whizi.views.bad_request"
handler403 = "whizi.views.permission_denied"
handler404 = "whizi.views.page_not_found"
handler500 = "whizi.views.server_error"
