"""The chat page's promises in headless Chromium, against a real uvicorn (replies stream):
Send and Stop are never one click apart and nothing typed is lost (a double click, Stop
mid-stream, Stop before the first token, a dropped connection, each checked after a
reload); replies render their Markdown safely, while streaming and once saved; Copy,
Regenerate and Edit; honest limits in the composer; and chats renamed, found and deleted.

Persona: guest (a visitor without an account). Replies come from the scripted model, or
from the fake OpenAI-protocol provider on loopback when they must drip token by token.
"""

from __future__ import annotations

import re
import socket
import threading

import pytest
from playwright.sync_api import expect

from bench.stack import free_port, uvicorn_start, uvicorn_wait_ready
from chat.models import Conversation, Message
from tests.browser.ux import SIZES, _axe, overflow, screenshot
from tests.chat.conftest import CHAT_A, OFFLINE
from tests.conftest import ARTIFACTS, server_env
from whizi.llm.scripted import Script

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRIP = "openai/drip"  # the fake provider, one piece of text at a time

MARKDOWN_REPLY = """Here is the plan:

- **Monday**: soup
- *Tuesday*: rice

| Day | Meal |
|-----|------|
| Mon | Soup |
| Tue | Rice |

```python
print("ready")
```
"""

HOSTILE_REPLY = """Look: <script>window.pwned = 1</script> <img src=x onerror="window.pwned = 2">
[click me](javascript:window.pwned=3) <a href="javascript:window.pwned=4">or me</a>
<svg onload="window.pwned=5"></svg> ![pixel](https://tracker.example/p.png)"""


class Cutter:
    """A loopback TCP proxy in front of the server: `cut()` drops every open connection
    mid-response, as a lost network would; new connections go through again."""

    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.open += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        with self.lock:
            for end in self.open:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                    end.close()
                except OSError:
                    pass
            self.open = []

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, fake_provider_server):
    port = free_port()
    env = server_env(WHIZI_CHAT_MODELS=",".join([CHAT_A, DRIP, OFFLINE]), WHIZI_CHAT_RETRIES="0",
                     OPENAI_API_BASE=fake_provider_server.base_url, OPENAI_API_KEY="sk-fake")
    web = uvicorn_start(env=env, log=ARTIFACTS / "uvicorn-chat-page.log", port=port)
    base_url = f"http://127.0.0.1:{port}"
    uvicorn_wait_ready(web, base_url, timeout=90)
    yield base_url
    web.stop()


@pytest.fixture
def script() -> Script:
    script = Script("chat-a").reset()
    yield script
    script.reset()


@pytest.fixture
def drip(fake_provider_server):
    provider = fake_provider_server.provider.reset()
    yield provider
    provider.reset()


def open_chat(browser, base: str, *, model: str = CHAT_A, size: str = "desktop", **options):
    context = browser.new_context(viewport=SIZES[size], **options)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(base + "/")
    page.select_option("select[name=model]", model)
    return page


def saved() -> list[tuple[str, str]]:
    return list(Message.objects.order_by("id").values_list("role", "content"))


def replies_saved(page, count: int) -> None:
    # The model label appears once a reply is saved (the server's HTML), not while streaming.
    expect(page.locator(".msg-assistant .msg-model")).to_have_count(count, timeout=30_000)


# --- Send and Stop


def test_a_double_click_on_send_sends_once(browser, server, script):
    script.reply("Hello once.").reply("A second reply nobody asked for.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "Hi Whizi")

    page.locator(".composer-send").dblclick(delay=40)

    replies_saved(page, 1)
    expect(page.locator(".msg-user")).to_have_count(1)
    page.reload()
    expect(page.locator(".msg-user")).to_have_count(1)
    expect(page.locator(".msg-assistant .msg-body")).to_have_text("Hello once.")
    assert saved() == [("user", "Hi Whizi"), ("assistant", "Hello once.")]
    assert script.remaining() == 1  # the model was asked once


def test_stop_is_its_own_control_away_from_send(browser, server, script):
    script.gate("slow", "Never wanted.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "Write me a poem")
    send_box = page.locator(".composer-send").bounding_box()

    page.locator(".composer-send").click()
    assert script.wait_arrived("slow")

    stop = page.locator("[data-chat-stop]")
    expect(stop).to_be_visible()
    stop_box = stop.bounding_box()
    centre_x, centre_y = send_box["x"] + send_box["width"] / 2, send_box["y"] + send_box["height"] / 2
    inside = (stop_box["x"] <= centre_x <= stop_box["x"] + stop_box["width"]
              and stop_box["y"] <= centre_y <= stop_box["y"] + stop_box["height"])
    assert not inside, "Stop is where Send was"
    expect(page.locator(".composer-send")).to_be_disabled()  # a second click does nothing
    page.locator(".composer-send").click(force=True)
    expect(page.locator(".msg-user")).to_have_count(1)
    script.release("slow")
    replies_saved(page, 1)


def test_stop_mid_stream_keeps_the_message_and_the_new_chat(browser, server, drip):
    drip.drip("drip", "One two three four five six seven eight nine ten eleven twelve.", every=0.4, chunks=12)
    page = open_chat(browser, server, model=DRIP)
    page.fill("#composer-content", "Count for me")
    page.locator(".composer-send").click()
    expect(page.locator(".msg.streaming .msg-body")).to_contain_text("two", timeout=30_000)

    page.locator("[data-chat-stop]").click()

    expect(page.locator("#chat-error")).to_contain_text("You stopped the reply")
    chat = Conversation.objects.get()
    assert page.url.endswith(f"/c/{chat.pk}/")
    page.reload()
    expect(page.locator(".msg-user .msg-body")).to_have_text("Count for me")
    expect(page.locator("#chat-error")).to_contain_text("The reply didn't arrive")
    expect(page.locator("#conversation-list")).to_contain_text("Count for me")
    assert saved() == [("user", "Count for me")]


def test_stop_before_the_first_token_keeps_the_message(browser, server, script):
    script.gate("thinking", "Too late.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "Plan my week")
    page.locator(".composer-send").click()
    assert script.wait_arrived("thinking")
    expect(page.locator(".msg-waiting")).to_contain_text("Whizi is thinking")
    # The page knows the message is saved (the stream's start): the new chat's address.
    expect(page).to_have_url(re.compile(r"/c/\d+/$"))

    page.locator("[data-chat-stop]").click()

    expect(page.locator("#chat-error")).to_contain_text("You stopped the reply")
    expect(page.locator(".composer-send")).to_be_visible()
    script.release("thinking")
    page.reload()
    expect(page.locator(".msg-user .msg-body")).to_have_text("Plan my week")
    expect(page.get_by_role("button", name="Try again")).to_be_visible()
    assert saved() == [("user", "Plan my week")]

    script.reply("Here is your week.")
    page.get_by_role("button", name="Try again").click()
    replies_saved(page, 1)
    assert saved() == [("user", "Plan my week"), ("assistant", "Here is your week.")]


def test_a_dropped_connection_keeps_the_message_and_offers_try_again(browser, server, drip):
    cutter = Cutter(int(server.rsplit(":", 1)[1]))
    try:
        drip.drip("drip", "Alpha beta gamma delta epsilon zeta eta theta iota kappa.", every=0.4, chunks=10)
        page = open_chat(browser, f"http://127.0.0.1:{cutter.port}", model=DRIP)
        page.fill("#composer-content", "Greek letters please")
        page.locator(".composer-send").click()
        expect(page.locator(".msg.streaming .msg-body")).to_contain_text("beta", timeout=30_000)

        cutter.cut()

        expect(page.locator("#chat-error")).to_contain_text("The connection to Whizi was lost")
        page.reload()
        expect(page.locator(".msg-user .msg-body")).to_have_text("Greek letters please")
        expect(page.locator("#chat-error")).to_contain_text("The reply didn't arrive")
        assert saved() == [("user", "Greek letters please")]
    finally:
        cutter.close()


def test_a_refused_message_goes_back_into_the_composer(browser, server, script):
    page = open_chat(browser, server)
    # Another window deleted the chat meanwhile: the page's send is refused, nothing saved.
    script.reply("First.")
    page.fill("#composer-content", "Hello")
    page.locator(".composer-send").click()
    replies_saved(page, 1)
    Conversation.objects.all().delete()

    page.fill("#composer-content", "Are you there?")
    page.locator(".composer-send").click()

    expect(page.locator("#chat-send-error")).to_contain_text("That conversation was not found.")
    expect(page.locator("#composer-content")).to_have_value("Are you there?")


# --- Markdown, safely


def test_a_reply_with_a_table_a_list_and_code_renders_and_the_code_copies(browser, server, script):
    script.reply(MARKDOWN_REPLY)
    page = open_chat(browser, server, permissions=["clipboard-read", "clipboard-write"])
    page.fill("#composer-content", "Plan meals")
    page.locator(".composer-send").click()
    replies_saved(page, 1)

    body = page.locator(".msg-assistant .msg-body")
    expect(body.locator("ul > li")).to_have_count(2)
    expect(body.locator("li strong")).to_have_text("Monday")
    expect(body.locator("table tr")).to_have_count(3)
    expect(body.locator("pre code")).to_have_text('print("ready")\n')

    body.get_by_role("button", name="Copy code").click()
    expect(body.locator(".code-copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == 'print("ready")\n'
    page.locator(".msg-assistant .msg-copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == MARKDOWN_REPLY  # as written

    page.reload()
    expect(page.locator(".msg-assistant table tr")).to_have_count(3)


def test_markdown_renders_while_the_reply_streams(browser, server, drip):
    drip.drip("drip", "- **first** point\n- second point\n- third point and more words to come", every=0.3,
              chunks=12)
    page = open_chat(browser, server, model=DRIP)
    page.fill("#composer-content", "List")
    page.locator(".composer-send").click()

    expect(page.locator(".msg.streaming .msg-body li strong")).to_have_text("first", timeout=30_000)
    replies_saved(page, 1)
    expect(page.locator(".msg-assistant .msg-body li")).to_have_count(3)


def hostile_markup(page) -> list[str]:
    """Anything a hostile reply could have made the page build or run."""
    found = page.locator(".msg-body script, .msg-body img, .msg-body svg, .msg-body iframe, "
                         ".msg-body [onerror], .msg-body [onload], .msg-body [style], "
                         ".msg-body a[href^='javascript' i]").count()
    pwned = page.evaluate("window.pwned === undefined ? null : window.pwned")
    return [f"{found} hostile element(s)"] * bool(found) + [f"window.pwned = {pwned}"] * (pwned is not None)


def test_a_hostile_reply_never_becomes_markup_streaming_or_saved(browser, server, drip):
    drip.drip("drip", HOSTILE_REPLY, every=0.15, chunks=16)
    page = open_chat(browser, server, model=DRIP)
    page.fill("#composer-content", "Say something <b>odd</b> <img src=x onerror=\"window.pwned=9\">")
    page.locator(".composer-send").click()

    expect(page.locator(".msg.streaming .msg-body")).to_contain_text("click me", timeout=30_000)
    assert hostile_markup(page) == []
    replies_saved(page, 1)
    assert hostile_markup(page) == []
    expect(page.locator(".msg-assistant .msg-body")).to_contain_text("<script>window.pwned = 1</script>")
    expect(page.locator(".msg-user .msg-body")).to_contain_text("<b>odd</b>")  # the user's words, as words
    pixel = page.locator(".msg-assistant .msg-body a", has_text="pixel")
    assert pixel.get_attribute("rel") == "noopener nofollow"  # a link to the picture, never loaded
    page.reload()
    assert hostile_markup(page) == []


MEMORY_PAYLOADS = [
    "Name is <script>window.pwned = 6</script>Ann",
    "Likes <img src=x onerror=\"window.pwned = 7\"> tea",
    "Website is [home](javascript:window.pwned=8)",
    "Pet is <a href=\"javascript:window.pwned=9\">Rex</a>",
]


def test_hostile_memory_lines_stay_words_in_a_reply_and_on_settings(browser, server):
    from memory.models import Memory

    page = open_chat(browser, server, model=OFFLINE)
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    started = page.request.post(f"{server}/api/conversations/", data="{}",
                                headers={"X-CSRFToken": token, "Content-Type": "application/json"})
    assert started.status == 201
    chat = Conversation.objects.get(pk=started.json()["id"])
    Memory.objects.create(guest_id=chat.guest_id, lines=MEMORY_PAYLOADS, tokens=40, version=1)

    page.fill("#composer-content", "What do you remember about me?")
    page.locator(".composer-send").click()
    replies_saved(page, 1)

    expect(page.locator(".msg-assistant .msg-body")).to_contain_text("Likes <img src=x")  # as words
    assert hostile_markup(page) == []
    page.goto(server + "/settings/?memory=open")
    expect(page.locator("#memory")).to_contain_text("<script>window.pwned = 6</script>")
    built = page.locator("#memory script, #memory img, #memory [onerror], #memory a[href^='javascript' i]")
    assert built.count() == 0
    assert page.evaluate("window.pwned === undefined")


# --- message actions


def test_regenerate_replaces_the_last_reply(browser, server, script):
    script.reply("A dull answer.").reply("A better answer.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "Tell me a fact")
    page.locator(".composer-send").click()
    replies_saved(page, 1)

    page.get_by_role("button", name="Regenerate").click()

    expect(page.locator(".msg-assistant .msg-body")).to_have_text("A better answer.")
    replies_saved(page, 1)
    page.reload()
    expect(page.locator(".msg-assistant .msg-body")).to_have_text("A better answer.")
    assert saved() == [("user", "Tell me a fact"), ("assistant", "A better answer.")]


def test_a_stopped_regenerate_keeps_the_earlier_reply(browser, server, script):
    script.reply("The first answer.").gate("again", "Never shown.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "Tell me a fact")
    page.locator(".composer-send").click()
    replies_saved(page, 1)

    page.get_by_role("button", name="Regenerate").click()
    assert script.wait_arrived("again")
    page.locator("[data-chat-stop]").click()

    expect(page.locator(".msg-assistant .msg-body")).to_have_text("The first answer.")
    script.release("again")
    page.reload()
    expect(page.locator(".msg-assistant .msg-body")).to_have_text("The first answer.")
    assert saved() == [("user", "Tell me a fact"), ("assistant", "The first answer.")]


def test_the_last_message_can_be_edited_and_sent_again(browser, server, script):
    script.reply("Paris is lovely.").reply("Rome is lovely.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "Tell me about Paris")
    page.locator(".composer-send").click()
    replies_saved(page, 1)

    page.locator(".msg-user .msg-edit summary").click()
    page.locator(".msg-edit textarea").fill("Tell me about Rome")
    page.locator(".msg-edit").get_by_role("button", name="Send").click()

    expect(page.locator(".msg-assistant .msg-body")).to_have_text("Rome is lovely.")
    replies_saved(page, 1)
    page.reload()
    expect(page.locator(".msg-user .msg-body")).to_have_text("Tell me about Rome")
    assert saved() == [("user", "Tell me about Rome"), ("assistant", "Rome is lovely.")]


# --- honest limits


def test_the_composer_says_its_limit_and_never_cuts_a_long_message(browser, server):
    page = open_chat(browser, server)
    send = page.locator(".composer-send")
    expect(send).to_be_disabled()
    page.fill("#composer-content", "    ")
    expect(send).to_be_disabled()
    page.locator("#composer-content").press("Enter")
    expect(page.locator("#composer-count")).to_have_text("Type a message first.")

    page.fill("#composer-content", "a" * 18_500)
    expect(page.locator("#composer-count")).to_have_text("18,500 / 20,000")
    expect(send).to_be_enabled()

    page.fill("#composer-content", "a" * 20_050)
    expect(page.locator("#composer-count")).to_contain_text("A message can be at most 20000 characters.")
    expect(send).to_be_disabled()
    assert len(page.locator("#composer-content").input_value()) == 20_050  # nothing cut
    assert Message.objects.count() == 0


def test_the_composer_grows_to_a_few_lines_then_scrolls(browser, server):
    page = open_chat(browser, server, size="phone")
    box = page.locator("#composer-content")
    one_line = box.bounding_box()["height"]
    box.fill("line\n" * 3)
    three = box.bounding_box()["height"]
    box.fill("line\n" * 30)
    many = box.bounding_box()["height"]

    assert three > one_line * 1.8
    assert many < one_line * 5  # a few lines at most, then it scrolls
    assert page.evaluate("document.getElementById('composer-content').scrollHeight") > many


def test_the_phone_title_is_one_line_and_the_keyboard_resizes_the_page(browser, server, script):
    script.reply("Sure.")
    page = open_chat(browser, server, size="phone")
    page.fill("#composer-content", "A very long first message that becomes a very long title for this chat")
    page.locator(".composer-send").click()
    replies_saved(page, 1)
    page.reload()

    title = page.locator("#chat-title")
    line = page.evaluate("parseFloat(getComputedStyle(document.getElementById('chat-title')).lineHeight)")
    assert title.bounding_box()["height"] <= line * 1.3
    viewport = page.locator("meta[name=viewport]").get_attribute("content")
    assert "interactive-widget=resizes-content" in viewport


# --- managing chats


def test_a_chat_is_renamed_found_by_search_and_deleted(browser, server, script):
    script.reply("Pho needs star anise.").reply("Soup it is.")
    page = open_chat(browser, server)
    page.fill("#composer-content", "How do I make pho?")
    page.locator(".composer-send").click()
    replies_saved(page, 1)
    expect(page.locator(".chat-options summary")).to_be_visible()  # a new chat has them at once
    page.goto(server + "/")
    page.select_option("select[name=model]", CHAT_A)
    page.fill("#composer-content", "Something else")
    page.locator(".composer-send").click()
    replies_saved(page, 1)
    pho = Conversation.objects.get(title="How do I make pho?")

    page.goto(f"{server}/c/{pho.pk}/")
    page.locator(".chat-options summary").click()
    screenshot(page, "chat-options-desktop")
    page.fill("#chat-rename-title", "Pho night")
    page.get_by_role("button", name="Rename").click()
    expect(page.locator("#chat-title")).to_have_text("Pho night")

    page.fill("#chat-search-q", "star anise")  # found by what was said
    expect(page.locator("#conversation-list a")).to_have_count(1)
    expect(page.locator("#conversation-list")).to_contain_text("Pho night")
    page.fill("#chat-search-q", "")
    expect(page.locator("#conversation-list a")).to_have_count(2)

    page.locator(".chat-options summary").click()
    page.get_by_role("link", name="Delete chat").click()
    dialog = page.locator("#chat-delete-dialog")
    expect(dialog).to_contain_text("What Whizi remembers about you is not changed.")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    screenshot(page, "chat-delete-dialog-desktop")
    dialog.get_by_role("button", name="Delete chat").click()

    expect(page.locator(".flash")).to_contain_text("Chat deleted.")
    expect(page.locator("#conversation-list a")).to_have_count(1)
    assert not Conversation.objects.filter(pk=pho.pk).exists()
    assert not Message.objects.filter(conversation_id=pho.pk).exists()
    page.locator("[data-flash-close]").click()
    expect(page.locator(".flash")).to_have_count(0)


def test_switching_chats_logs_no_content_security_policy_error(browser, server, script):
    script.reply("One.").reply("Two.")
    page = open_chat(browser, server)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    for text in ("First chat", "Second chat"):
        page.goto(server + "/")
        page.select_option("select[name=model]", CHAT_A)
        page.fill("#composer-content", text)
        page.locator(".composer-send").click()
        replies_saved(page, 1)

    page.locator("#conversation-list a", has_text="First chat").click()
    expect(page.locator("#chat-title")).to_have_text("First chat")
    page.locator("#conversation-list a", has_text="Second chat").click()
    expect(page.locator("#chat-title")).to_have_text("Second chat")
    page.fill("#chat-search-q", "First")
    expect(page.locator("#conversation-list a")).to_have_count(1)

    assert [error for error in errors if "Content Security Policy" in error or "Refused" in error] == []


# --- both themes, both sizes


def axe_violations(page) -> list[str]:
    """Every axe-core violation, whatever its impact."""
    results = _axe.run(page)
    return [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]} {v['help']}"
            for v in results.response["violations"]]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
def test_chat_settings_and_account_pages_are_axe_clean_in_both_themes(browser, server, script, theme, size):
    script.reply(MARKDOWN_REPLY).error("timeout")
    page = open_chat(browser, server, size=size, color_scheme=theme)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (theme == "dark")
    page.fill("#composer-content", "Plan meals")
    page.locator(".composer-send").click()
    replies_saved(page, 1)
    page.fill("#composer-content", "And drinks?")
    page.locator(".composer-send").click()
    expect(page.locator("#chat-error")).to_be_visible(timeout=30_000)
    page.fill("#composer-content", "x" * 19_000)
    states = {"chat": page.url}
    for name, path in {"chat": None, "settings": "/settings/?memory=open", "login": "/accounts/login/",
                       "signup": "/accounts/signup/", "new-chat": "/"}.items():
        if path:
            page.goto(server + path)
        found = axe_violations(page)
        assert found == [], f"{name} ({theme}, {size}): {found}"
        assert overflow(page) <= 0, f"{name} ({theme}, {size}) scrolls sideways"
        screenshot(page, f"{name}-{theme}-{size}")
    assert states
