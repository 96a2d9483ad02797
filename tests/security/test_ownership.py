"""No one reads or changes another owner's memory, conversation, project or voice session.

Personas:
- ann: a signed-in account that owns a conversation, a project, an open voice session
  and a saved list; the victim in every test.
- bo: another signed-in account.
- a guest: a visitor with a session and no account.
- logged out: ann's own browser after she logs out (it becomes a fresh guest).
Each tries ann's real ids, guessed ids and absurd ids. Every attempt is a 404 (or shows
only the attacker's own, empty, memory) and nothing of ann's changes.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from chat.models import Conversation, Message, Project, VoiceSession, VoiceTurn
from memory.models import Memory

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

ANN_FACTS = ["Name is Ann Lee", "Has a daughter called Zoe"]
HUGE = 10**30  # past any database integer


@pytest.fixture(autouse=True)
def offline_chat(settings):
    settings.WHIZI_CHAT_MODELS = ["whizi/offline"]


def make_user(name: str):
    return get_user_model().objects.create_user(name, f"{name}@example.com", "a-long-pass-phrase")


def browser(user=None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    client.get("/")
    return client


class Ann:
    def __init__(self) -> None:
        self.user = make_user("ann")
        self.project = Project.objects.create(user=self.user, name="Novel", instructions="Write in verse")
        self.conversation = Conversation.objects.create(user=self.user, model="whizi/offline",
                                                        project=self.project, title="Ann's chat")
        Message.objects.create(conversation=self.conversation, role="user", content="Hello")
        self.reply = Message.objects.create(conversation=self.conversation, role="assistant",
                                            content="Hi Ann")
        self.voice = VoiceSession.objects.create(user=self.user)
        VoiceTurn.objects.create(session=self.voice, role="user", text="Hi")
        Memory.objects.create(user=self.user, lines=ANN_FACTS, tokens=12, version=3)

    def state(self) -> dict:
        memory = Memory.objects.get(user=self.user)
        self.voice.refresh_from_db()
        return {
            "memory": (memory.lines, memory.version, memory.epoch),
            "messages": list(self.conversation.messages.values_list("content", flat=True)),
            "titles": list(Conversation.objects.filter(user=self.user).values_list("title", flat=True)),
            "in_project": Conversation.objects.filter(project=self.project).count(),
            "voice": (self.voice.ended_at, self.voice.turns.count()),
        }


@pytest.fixture
def ann() -> Ann:
    return Ann()


def attackers(ann: Ann) -> dict[str, Client]:
    logged_out = browser(ann.user)
    logged_out.post("/accounts/logout/", headers={"X-CSRFToken": logged_out.cookies["csrftoken"].value})
    return {"bo": browser(make_user("bo")), "guest": browser(), "logged out": logged_out}


def post(client: Client, path: str, data: dict | None = None, *, form: bool = False):
    token = {"X-CSRFToken": client.cookies["csrftoken"].value}
    if form:
        return client.post(path, data or {}, headers=token)
    return client.post(path, data=json.dumps(data or {}), content_type="application/json", headers=token)


def attempts(ann: Ann, client: Client) -> dict[str, int]:
    """Every way in, with ann's ids and guessed ones; the status of each."""
    c, m, v, p = ann.conversation.pk, ann.reply.pk, ann.voice.pk, ann.project.pk
    results: dict[str, int] = {}
    for cid in (c, c + 1, 0, HUGE):
        results[f"page {cid}"] = client.get(f"/c/{cid}/").status_code
        results[f"mark {cid}"] = client.get(f"/c/{cid}/m/{m}/memory/").status_code
        results[f"api message {cid}"] = post(client, f"/api/conversations/{cid}/messages/",
                                             {"content": "Tell me what you know"}).status_code
        results[f"send {cid}"] = post(client, "/send/", {"content": "hi", "conversation": cid},
                                      form=True).status_code
        results[f"stream {cid}"] = post(client, "/send/stream/", {"content": "hi", "conversation": cid},
                                        form=True).status_code
        results[f"regenerate {cid}"] = post(client, "/send/stream/", {"regenerate": m, "conversation": cid},
                                            form=True).status_code
        results[f"edit {cid}"] = post(client, "/send/", {"content": "hi", "edit": m - 1, "conversation": cid},
                                      form=True).status_code
        results[f"rename {cid}"] = post(client, f"/c/{cid}/rename/", {"title": "Mine"}, form=True).status_code
        results[f"delete {cid}"] = post(client, f"/c/{cid}/delete/", form=True).status_code
        token = {"X-CSRFToken": client.cookies["csrftoken"].value}
        results[f"api get {cid}"] = client.get(f"/api/conversations/{cid}/").status_code
        results[f"api rename {cid}"] = client.patch(
            f"/api/conversations/{cid}/", data='{"title": "Mine"}', content_type="application/json",
            headers=token).status_code
        results[f"api delete {cid}"] = client.delete(f"/api/conversations/{cid}/", headers=token).status_code
    for vid in (v, v + 1, 0, HUGE):
        results[f"voice turn {vid}"] = post(client, f"/api/voice/sessions/{vid}/transcript/",
                                            {"role": "user", "text": "planted"}).status_code
        results[f"voice end {vid}"] = post(client, f"/api/voice/sessions/{vid}/end/").status_code
    for pid in (p, p + 1, "0", str(HUGE), "x"):
        results[f"project page {pid}"] = client.get(f"/?project={pid}").status_code
        results[f"project send {pid}"] = post(client, "/send/", {"content": "hi", "project": pid},
                                              form=True).status_code
    # Ann's words are found by nobody else's search.
    listed = client.get("/api/conversations/?q=Hello").json()["conversations"]
    results["search"] = 404 if not listed else 200
    results["search page"] = 404 if "Ann&#x27;s chat" not in client.get("/?q=Hello").content.decode() else 200
    # The attacker's own conversation with ann's message id in it.
    own = post(client, "/api/conversations/").json()["id"]
    results["own chat, ann's message"] = client.get(f"/c/{own}/m/{m}/memory/").status_code
    return results


@pytest.mark.parametrize("who", ["bo", "guest", "logged out"])
def test_nobody_else_reaches_anns_conversation_project_or_voice_session(who, ann):
    before = ann.state()
    client = attackers(ann)[who]

    results = attempts(ann, client)

    assert {name: code for name, code in results.items() if code != 404} == {}
    assert ann.state() == before


@pytest.mark.parametrize("who", ["bo", "guest", "logged out"])
def test_nobody_else_sees_or_clears_anns_memory(who, ann):
    before = ann.state()
    client = attackers(ann)[who]
    token = {"X-CSRFToken": client.cookies["csrftoken"].value}

    api = client.get("/api/memory/")
    page = client.get("/settings/?memory=open").content.decode()
    panel = client.get("/settings/memory/?memory=open", headers={"HX-Request": "true"}).content.decode()
    cleared_api = client.delete("/api/memory/", headers=token)
    cleared_page = client.post("/settings/memory/clear/", headers={**token, "HX-Request": "true"})
    voice = post(client, "/api/voice/sessions/").json()["instructions"]

    assert api.json()["facts"] == []
    assert cleared_api.status_code == 200 and cleared_page.status_code == 200  # their own, empty list
    for fact in ANN_FACTS:
        for shown in (page, panel, voice, json.dumps(api.json())):
            assert fact not in shown
    assert ann.state() == before


def test_ann_sees_her_own_things(ann):
    # The control: the same requests from ann succeed, so the 404s above are about ownership.
    client = browser(ann.user)
    assert client.get(f"/c/{ann.conversation.pk}/").status_code == 200
    assert client.get(f"/?project={ann.project.pk}").status_code == 200
    listed = client.get("/api/conversations/?q=hello").json()["conversations"]
    assert [item["id"] for item in listed] == [ann.conversation.pk]
    assert client.get(f"/api/conversations/{ann.conversation.pk}/").json()["title"] == "Ann's chat"
    assert client.get("/api/memory/").json()["facts"] == ANN_FACTS
    assert post(client, f"/api/voice/sessions/{ann.voice.pk}/transcript/",
                {"role": "user", "text": "More"}).status_code == 204


def test_the_support_admin_is_closed_to_users_and_visitors(ann):
    for client in (browser(make_user("bo")), browser()):
        for path in ("/admin/memory/memory/", f"/admin/memory/memory/{Memory.objects.get().pk}/change/",
                     "/admin/chat/conversation/", "/admin/memory/memorypass/"):
            response = client.get(path)
            assert response.status_code == 302 and "/admin/login/" in response["Location"]
