from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("", views.home, name="home"),
    path("c/<int:conversation_id>/", views.conversation, name="conversation"),
    path("c/<int:conversation_id>/rename/", views.conversation_rename_view, name="conversation_rename"),
    path("c/<int:conversation_id>/delete/", views.conversation_delete_view, name="conversation_delete"),
    path("c/<int:conversation_id>/m/<int:message_id>/memory/", views.memory_mark, name="memory_mark"),
    path("send/", views.send, name="send"),
    path("send/stream/", views.send_stream, name="send_stream"),
    path("projects/", views.project_new, name="project_new"),
]
