"""The chat page at `/`: guests and users chat, pick a project and a model, get the reply
streamed (or, without JavaScript, in one piece), see a clear retryable error when the
model fails, and a "Memory updated" mark on the exchange whose pass changed the list."""

import json

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client

from chat.models import Conversation, Message, Project
from memory.models import MemoryPass
from tests.chat.conftest import CHAT_A, CHAT_B, OFFLINE, memory_messages, owner_of, save_memory
from tests.conftest import guest_start

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def visitor() -> Client:
    """A guest's browser (the page posts forms with the CSRF token, as a browser does)."""
    client = Client()
    client.get("/")
    guest_start(client)
    return client


def _send(client, content, **fields):
    return client.post("/send/", {"content": content, **fields})


def test_a_guest_gets_the_chat_page_with_every_configured_model(visitor):
    response = visitor.get("/")

    assert response.status_code == 200
    assert "csrftoken" in response.cookies or "csrftoken" in visitor.cookies
    html = response.content.decode()
    for model in (CHAT_A, CHAT_B, OFFLINE):
        assert f'<option value="{model}"' in html
    assert 'data-stream-url="/send/stream/"' in html and 'action="/send/"' in html


def test_without_javascript_a_message_gets_the_whole_reply(visitor, script_a):
    script_a.reply("Hello from the model.")

    response = _send(visitor, "Hi Whizi", model=CHAT_A)

    conversation = Conversation.objects.get()
    reply = conversation.messages.get(role="assistant")
    assert response.status_code == 302
    assert response["Location"] == f"/c/{conversation.pk}/#m-{reply.pk}"
    page = visitor.get(f"/c/{conversation.pk}/").content.decode()
    assert "Hi Whizi" in page and "Hello from the model." in page
    assert conversation.title == "Hi Whizi"


def test_the_model_can_be_switched_in_the_middle_of_a_conversation(visitor, script_a, script_b):
    script_a.reply("From A.")
    script_b.reply("From B.")
    save_memory(owner_of(visitor), ["Name is Ann"])
    _send(visitor, "First", model=CHAT_A)
    conversation = Conversation.objects.get()

    _send(visitor, "Second", model=CHAT_B, conversation=conversation.pk)

    conversation.refresh_from_db()
    assert conversation.model == CHAT_B
    assert memory_messages(script_b.calls()[0])
    page = visitor.get(f"/c/{conversation.pk}/").content.decode()
    assert f'<option value="{CHAT_B}" selected>' in page


def test_an_empty_message_is_refused_and_starts_no_conversation(visitor):
    response = _send(visitor, "   ", model=CHAT_A)

    assert response.status_code == 400
    assert "Type a message first." in response.content.decode()
    assert Conversation.objects.count() == 0


def test_a_model_failure_shows_a_retryable_error_and_keeps_the_message(visitor, script_a):
    script_a.error("timeout").reply("Sorry for the wait.")

    response = _send(visitor, "Plan my week", model=CHAT_A)

    assert response.status_code == 504
    html = response.content.decode()
    assert "The reply didn&#x27;t arrive" in html
    assert 'name="content" value="Plan my week"' in html  # the Try again form
    conversation = Conversation.objects.get()
    assert list(conversation.messages.values_list("role", "content")) == [("user", "Plan my week")]

    retry = _send(visitor, "Plan my week", model=CHAT_A, conversation=conversation.pk)

    assert retry.status_code == 302
    assert list(conversation.messages.values_list("role", "content")) == [
        ("user", "Plan my week"), ("assistant", "Sorry for the wait."),
    ]


def test_a_project_is_created_with_a_name_and_instructions_and_used_by_its_chats(visitor, script_a):
    response = visitor.post("/projects/", {"name": "Thesis", "instructions": "Use British spelling."})

    project = Project.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/?project={project.pk}"
    assert f'<option value="{project.pk}" selected>Thesis</option>' in visitor.get(
        response["Location"]).content.decode()
    script_a.reply("Understood.")

    _send(visitor, "Help me outline chapter 2", model=CHAT_A, project=project.pk)

    assert Conversation.objects.get().project == project
    assert any("Use British spelling." in m["content"] for m in script_a.calls()[0])


def test_a_project_needs_a_name(visitor):
    response = visitor.post("/projects/", {"name": " ", "instructions": "x"})

    assert response.status_code == 400
    assert "Give the project a name." in response.content.decode()
    assert Project.objects.count() == 0


def test_someone_elses_conversation_page_is_a_404(visitor, make_user, script_a):
    script_a.reply("Hi.")
    _send(visitor, "Private", model=CHAT_A)
    conversation = Conversation.objects.get()
    other = Client()
    other.force_login(make_user("mallory@example.com"))

    assert other.get(f"/c/{conversation.pk}/").status_code == 404
    assert other.post("/send/", {"content": "x", "conversation": conversation.pk}).status_code == 404
    assert conversation.messages.count() == 2


def test_a_signed_in_user_chats_on_the_page(make_user, script_a):
    user = make_user()
    client = Client()
    client.force_login(user)
    script_a.reply("Hello, Ann.")

    _send(client, "Hello", model=CHAT_A)

    assert Conversation.objects.get().user == user


# --- streaming


def _events(raw: bytes) -> list[tuple[str, object]]:
    events = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name = data = None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data = json.loads(line[len("data: "):])
        events.append((name, data))
    return events


def _stream(fields: dict) -> tuple[object, list[bytes]]:
    """POST to the streaming view through Django's ASGI handler, reading it chunk by chunk."""

    async def run():
        client = AsyncClient()
        await client.get("/")
        response = await client.post("/send/stream/", fields)
        chunks = []
        if response.streaming:
            async for chunk in response.streaming_content:
                chunks.append(chunk)
        return response, chunks

    return async_to_sync(run)()


def test_the_reply_is_streamed_its_first_piece_at_once(script_a):
    script_a.reply("Streaming replies arrive word by word.")

    response, chunks = _stream({"content": "Hi", "model": CHAT_A})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    events = [event for chunk in chunks for event in _events(chunk)]
    names = [name for name, _ in events]
    assert names[0] == "start" and names[-1] == "done"
    tokens = [data for name, data in events if name == "token"]
    # The first piece at once; the rest, all there by then, together (chat.streaming).
    assert tokens[0] == "Streaming " and len(chunks) == len(events)  # each event its own chunk
    assert "".join(tokens) == "Streaming replies arrive word by word."
    done = events[-1][1]
    reply = Message.objects.get(role="assistant")
    assert reply.content == "Streaming replies arrive word by word."
    assert done["message_id"] == reply.pk and done["turns"] == 2
    assert f'id="m-{reply.pk}"' in done["html"]
    assert events[0][1]["url"] == f"/c/{reply.conversation_id}/"


def test_a_streamed_reply_carries_its_memory_mark_only_when_it_made_a_pass_due(script_a):
    script_a.reply("Got it.").reply("Hello.")

    _, asked = _stream({"content": "Remember that I am vegetarian", "model": CHAT_A})
    _, plain = _stream({"content": "Hi", "model": CHAT_A})

    asked_done = [data for chunk in asked for name, data in _events(chunk) if name == "done"][0]
    plain_done = [data for chunk in plain for name, data in _events(chunk) if name == "done"][0]
    reply = Message.objects.get(pk=asked_done["message_id"])
    # The pass the request made is pending: the reply's mark polls for its outcome.
    assert MemoryPass.objects.filter(through_message_id=reply.pk).exists()
    assert f'hx-get="/c/{reply.conversation_id}/m/{reply.pk}/memory/"' in asked_done["html"]
    assert "/memory/" not in plain_done["html"]


def test_a_streamed_reply_that_fails_sends_an_error_event_and_keeps_the_message(script_a):
    script_a.error("rate_limit")

    response, chunks = _stream({"content": "Hi", "model": CHAT_A})

    events = [event for chunk in chunks for event in _events(chunk)]
    name, error = events[-1]
    assert name == "error"
    assert error["retryable"] is True and "saved" in error["message"]
    assert list(Message.objects.values_list("role", "content")) == [("user", "Hi")]


def test_a_bad_streamed_message_is_refused_before_streaming(script_a):
    response, _ = _stream({"content": "", "model": CHAT_A})

    assert response.status_code == 400
    assert json.loads(response.content)["error"]["message"] == "Type a message first."
    assert Conversation.objects.count() == 0


def test_the_offline_model_streams_too():
    response, chunks = _stream({"content": "Hello", "model": OFFLINE})

    events = [event for chunk in chunks for event in _events(chunk)]
    assert len([1 for name, _ in events if name == "token"]) > 1
    assert events[-1][0] == "done"


# --- the "Memory updated" mark


def _exchange_with_pass(visitor, script_a) -> tuple[Message, MemoryPass]:
    script_a.reply("Got it.")
    _send(visitor, "Remember that I am vegetarian", model=CHAT_A)
    reply = Message.objects.get(role="assistant")
    return reply, MemoryPass.objects.get(through_message_id=reply.pk)


def _finish(memory_pass: MemoryPass, outcome: str) -> None:
    # What the memory worker records when it finishes a pass (memory.run).
    MemoryPass.objects.filter(pk=memory_pass.pk).update(status=MemoryPass.Status.DONE, outcome=outcome)


def test_a_pending_pass_is_polled_until_it_is_done(visitor, script_a):
    reply, _ = _exchange_with_pass(visitor, script_a)
    mark_url = f"/c/{reply.conversation_id}/m/{reply.pk}/memory/"

    page = visitor.get(f"/c/{reply.conversation_id}/").content.decode()
    poll = visitor.get(mark_url, headers={"HX-Request": "true"})

    assert f'hx-get="{mark_url}" hx-trigger="every 2s"' in page
    assert poll.status_code == 200 and 'hx-trigger="every 2s"' in poll.content.decode()
    assert "Memory updated" not in page


@pytest.mark.parametrize("outcome", ["updated", "compacted", "trimmed"])
def test_a_pass_that_changed_the_list_shows_the_mark_and_stops_polling(visitor, script_a, outcome):
    reply, memory_pass = _exchange_with_pass(visitor, script_a)
    _finish(memory_pass, outcome)

    poll = visitor.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/", headers={"HX-Request": "true"})
    page = visitor.get(f"/c/{reply.conversation_id}/").content.decode()

    assert poll.status_code == 286
    # The mark opens settings with the list open, where the new fact is.
    assert ('<a class="memory-mark" href="/settings/?memory=open#memory">Memory updated</a>'
            in poll.content.decode())
    assert page.count("Memory updated") == 1 and "every 2s" not in page


@pytest.mark.parametrize(("outcome", "said"), [
    ("unchanged", "Not saved: Whizi doesn&#x27;t keep this kind of detail"),
    ("discarded", "Memory not updated"), ("failed", "Memory not updated")])
def test_a_request_whose_pass_changed_nothing_never_says_memory_updated(visitor, script_a, outcome, said):
    reply, memory_pass = _exchange_with_pass(visitor, script_a)
    _finish(memory_pass, outcome)

    poll = visitor.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/", headers={"HX-Request": "true"})
    page = visitor.get(f"/c/{reply.conversation_id}/").content.decode()

    assert poll.status_code == 286 and said in poll.content.decode()
    assert said in page and "Memory updated" not in page and "every 2s" not in page


def test_a_pass_nobody_asked_for_that_changed_nothing_shows_no_mark(visitor, script_a):
    reply, memory_pass = _exchange_with_pass(visitor, script_a)
    MemoryPass.objects.filter(pk=memory_pass.pk).update(trigger=MemoryPass.Trigger.CADENCE)
    _finish(memory_pass, "unchanged")

    poll = visitor.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/", headers={"HX-Request": "true"})

    assert poll.status_code == 286 and poll.content.decode().strip() == ""


def test_the_mark_is_only_on_the_exchange_whose_pass_changed_the_list(visitor, script_a):
    reply, memory_pass = _exchange_with_pass(visitor, script_a)
    _finish(memory_pass, "updated")
    script_a.reply("Sure.")
    _send(visitor, "What should I cook?", model=CHAT_A, conversation=reply.conversation_id)

    page = visitor.get(f"/c/{reply.conversation_id}/").content.decode()

    later = Message.objects.filter(role="assistant").last()
    mark_at = page.index("Memory updated")
    assert page.index(f'id="m-{reply.pk}"') < mark_at < page.index(f'id="m-{later.pk}"')
    assert page.count("Memory updated") == 1


def test_another_owner_cannot_poll_a_mark(visitor, script_a, make_user):
    reply, _ = _exchange_with_pass(visitor, script_a)
    other = Client()
    other.force_login(make_user("mallory@example.com"))

    assert other.get(f"/c/{reply.conversation_id}/m/{reply.pk}/memory/").status_code == 404


def test_the_page_speaks_the_browsers_language():
    page = Client(headers={"Accept-Language": "ja"}).get("/").content.decode()

    assert "新しいチャット" in page and "送信" in page
