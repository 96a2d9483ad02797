from django.urls import path

from chat import api, views

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
    path("api/conversations/", api.conversations, name="api_conversations"),
    path("api/conversations/<int:conversation_id>/", api.conversation, name="api_conversation"),
    path("api/conversations/<int:conversation_id>/messages/", api.messages, name="api_messages"),
    path("api/voice/sessions/", api.voice_sessions, name="api_voice_sessions"),
    path("api/voice/sessions/<int:session_id>/transcript/", api.voice_transcript,
         name="api_voice_transcript"),
    path("api/voice/sessions/<int:session_id>/end/", api.voice_end, name="api_voice_end"),
]
