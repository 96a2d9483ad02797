"""Pages cannot load anything from elsewhere, so a planted line cannot exfiltrate data."""

import pytest

pytestmark = pytest.mark.django_db


def test_every_page_sends_a_same_origin_content_security_policy(client):
    for path in ("/", "/accounts/login/", "/accounts/signup/"):
        policy = client.get(path)["Content-Security-Policy"]
        assert "default-src 'self'" in policy
        assert "img-src 'self' data:" in policy
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert "frame-ancestors 'none'" in policy


def test_pages_that_show_conversations_or_memory_are_never_stored(client):
    """On a shared device, the back button after logout must not show them again."""
    from accounts.models import Guest
    from chat.models import Conversation, Message
    from tests.conftest import guest_start

    client.get("/")
    guest = guest_start(client)
    chat = Conversation.objects.create(guest=Guest.objects.get(pk=guest.guest_id), model="whizi/offline")
    reply = Message.objects.create(conversation=chat, role="assistant", content="Hi", model="whizi/offline")

    pages = ["/", f"/c/{chat.pk}/", "/settings/", "/settings/?memory=open",
             f"/c/{chat.pk}/m/{reply.pk}/memory/"]
    for path in pages:
        response = client.get(path)
        assert response.status_code in (200, 286), path  # 286: htmx's "stop polling"
        assert "no-store" in response["Cache-Control"], path
    sent = client.post("/send/", {"content": "Hello", "conversation": chat.pk})
    assert sent.status_code == 302 and "no-store" in sent["Cache-Control"]
