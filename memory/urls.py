from django.urls import path

from memory import views

app_name = "memory"

urlpatterns = [
    path("settings/memory/", views.memory_panel, name="panel"),
    path("settings/memory/clear/", views.memory_clear_page, name="clear"),
]
