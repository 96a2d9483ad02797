"""Support staff see who owns which chats and how large they are, never the words, and
change nothing (support staff persona: view-only admin access)."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from chat.models import Conversation, Message, VoiceSession, VoiceTurn

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def staff() -> Client:
    admin = get_user_model().objects.create_superuser("support", "support@example.com", "pw-123456")
    client = Client()
    client.force_login(admin)
    return client


@pytest.fixture
def chat(make_user) -> Conversation:
    conversation = Conversation.objects.create(user=make_user(), model="whizi/offline", title="Secret plans")
    Message.objects.create(conversation=conversation, role="user", content="My bank PIN is 4321")
    return conversation


def test_staff_see_conversations_without_their_text(staff, chat):
    listing = staff.get("/admin/chat/conversation/").content.decode()
    detail = staff.get(f"/admin/chat/conversation/{chat.pk}/change/").content.decode()

    assert ">ann<" in listing and "whizi/offline" in listing
    for html in (listing, detail):
        assert "4321" not in html and "Secret plans" not in html


def test_staff_cannot_change_or_add_conversations(staff, chat):
    response = staff.post(f"/admin/chat/conversation/{chat.pk}/change/", {"model": "other"})

    assert response.status_code == 403
    assert staff.get("/admin/chat/conversation/add/").status_code == 403
    chat.refresh_from_db()
    assert chat.model == "whizi/offline"


def test_staff_see_voice_sessions_without_the_transcript(staff, make_user):
    session = VoiceSession.objects.create(user=make_user())
    VoiceTurn.objects.create(session=session, role="user", text="I live at 12 Elm Street")

    html = staff.get(f"/admin/chat/voicesession/{session.pk}/change/").content.decode()

    assert "Elm Street" not in html


def test_staff_see_usage_and_cost_per_owner_with_memory_kept_apart(staff, make_user):
    from decimal import Decimal

    from memory.models import MemoryPass

    ann = make_user()
    conversation = Conversation.objects.create(user=ann, model="openai/gpt-4o-mini", title="Private")
    for cost in ("0.00120000", "0.00080000"):
        Message.objects.create(conversation=conversation, role="assistant", content="A reply with words",
                               model="openai/gpt-4o-mini", input_tokens=1000, output_tokens=100,
                               cost=Decimal(cost))
    MemoryPass.objects.create(user=ann, trigger="request", input_tokens=3000, output_tokens=20,
                              cost=Decimal("0.00050000"))

    html = staff.get("/admin/chat/conversation/usage/").content.decode()
    found = staff.get("/admin/chat/conversation/usage/?q=ann@").content.decode()
    missing = staff.get("/admin/chat/conversation/usage/?q=nobody@").content.decode()

    row = html.split("ann@example.com")[1].split("</tr>")[0]
    cells = [cell.split("</td>")[0] for cell in row.split("<td>")[1:]]
    assert cells == ["2", "2000", "200", "0.0020", "0", "1", "3020", "0.0005", "0.0025"]
    assert "A reply with words" not in html and "Private" not in html
    assert "ann@example.com" in found and "ann@example.com" not in missing
