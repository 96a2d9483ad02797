from django.urls import path

from lifecycle import views

app_name = "lifecycle"

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
]
