"""The chat page in headless Chromium, served by a real uvicorn (ASGI) process on the
test database: the streamed reply lands in the page, a failure offers "Try again", and
the "Memory updated" mark appears by polling once the pass changed the list."""

import os

import pytest
from playwright.sync_api import expect

from bench.stack import free_port, uvicorn_start, uvicorn_wait_ready
from chat.models import Conversation, Message
from memory.models import MemoryPass
from tests.chat.conftest import CHAT_A, CHAT_B, OFFLINE
from tests.conftest import ARTIFACTS, server_env

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def asgi_server(django_db_setup, django_db_blocker):
    port = free_port()
    # One scripted answer per call (tests/chat/conftest.py): no retries.
    env = server_env(WHIZI_CHAT_MODELS=",".join([CHAT_A, CHAT_B, OFFLINE]), WHIZI_CHAT_RETRIES="0")
    server = uvicorn_start(env=env, log=ARTIFACTS / "uvicorn-chat.log", port=port)
    base_url = f"http://127.0.0.1:{port}"
    # Loading Django and litellm takes a loaded 2-core machine well over 30 s.
    uvicorn_wait_ready(server, base_url, timeout=90)
    yield base_url
    server.stop()


@pytest.fixture
def page(asgi_server, monkeypatch):
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (make test installs it)")
    # Playwright's sync API runs an event loop in this thread; the test's own ORM
    # reads are still plain synchronous code.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page()
        tab.set_default_timeout(15_000)
        tab.goto(asgi_server + "/")
        yield tab
        browser.close()


def _send(page, text: str) -> None:
    page.fill("#composer-content", text)
    page.click("#composer button[type=submit]")


def test_a_guest_sends_a_message_and_the_streamed_reply_lands_in_the_page(page, script_a, script_b):
    script_a.reply("Hello! How can I help today?")
    script_b.reply("Model B here.")
    page.select_option("select[name=model]", CHAT_A)

    _send(page, "Hi Whizi")
    page.wait_for_selector(".msg-assistant .msg-model")

    conversation = Conversation.objects.get()
    assert page.url.endswith(f"/c/{conversation.pk}/")
    assert page.inner_text(".msg-assistant .msg-body") == "Hello! How can I help today?"
    assert "Hi Whizi" in page.inner_text("#conversation-list")
    assert page.inner_text(".chat-head h1") == "Hi Whizi"

    page.select_option("select[name=model]", CHAT_B)
    _send(page, "Now you")
    # A locator wait, not wait_for_function: the page's CSP forbids evaluating strings.
    expect(page.locator(".msg-assistant .msg-model")).to_have_count(2)

    assert page.inner_text(".msg-assistant >> nth=1 >> .msg-body").startswith("Model B here.")
    assert Conversation.objects.get().model == CHAT_B


def test_a_failed_reply_offers_try_again_without_repeating_the_message(page, script_a):
    script_a.error("timeout").reply("Here you go.")
    page.select_option("select[name=model]", CHAT_A)

    _send(page, "Plan my week")
    page.wait_for_selector("#chat-error:not([hidden])")
    assert "took too long" in page.inner_text("#chat-error")

    page.click("#chat-error button[type=submit]")
    page.wait_for_selector(".msg-assistant .msg-model")

    assert page.is_hidden("#chat-error")
    assert list(Message.objects.values_list("role", "content")) == [
        ("user", "Plan my week"), ("assistant", "Here you go."),
    ]


def test_the_memory_mark_appears_once_the_pass_changed_the_list(page, script_a, wait_for):
    script_a.reply("I'll remember that.")
    page.select_option("select[name=model]", CHAT_A)

    _send(page, "Remember that I am vegetarian")
    page.wait_for_selector(".msg-assistant .msg-model")
    memory_pass = wait_for(lambda: MemoryPass.objects.first())
    # What the memory worker records when its pass rewrote the list (memory.run).
    MemoryPass.objects.filter(pk=memory_pass.pk).update(status="done", outcome="updated")

    mark = page.wait_for_selector("a.memory-mark")
    assert mark.get_attribute("href") == "/settings/?memory=open#memory"
    assert mark.inner_text().strip().endswith("Memory updated")
