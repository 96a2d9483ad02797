from django.contrib import admin
from django.urls import include, path

urlpatterns = [
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
