"""The chat page as a person uses it, on a phone and a desktop, against the real ASGI
server (replies stream): the newest reply and its "Memory updated" mark stay in view
above the composer, there is something to see while Whizi thinks, Stop ends a reply and
keeps the message, and a reply that never arrived offers "Try again", even after a reload.

Persona: guest (a visitor without an account); chat replies come from the scripted model.
"""

import pytest
from playwright.sync_api import expect

from chat.models import Conversation, Message
from memory.models import MemoryPass
from tests.browser.ux import SIZES, check_state
from tests.chat.conftest import CHAT_A
from tests.chat.test_browser import asgi_server  # noqa: F401 - the fixture
from whizi.llm.scripted import Script

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_REPLY = "\n".join(
    f"Line {n} of a reply long enough to fill a good part of a phone screen." for n in range(6)
)


@pytest.fixture
def script() -> Script:
    script = Script("chat-a").reset()
    yield script
    script.reset()


def open_chat(browser, server: str, size: str):
    context = browser.new_context(viewport=SIZES[size])
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(server + "/")
    page.select_option("select[name=model]", CHAT_A)
    return page


def send(page, text: str) -> None:
    page.fill("#composer-content", text)
    page.locator("#composer .composer-send").click()


def assert_fully_above_the_composer(page, item) -> None:
    """The item's whole box is on screen, below the heading and above the composer."""
    box = item.bounding_box()
    composer = page.locator("#composer").bounding_box()
    scroll = page.locator("#chat-scroll").bounding_box()
    assert box["y"] >= scroll["y"] - 0.5, f"{box} starts above the conversation's box {scroll}"
    assert box["y"] + box["height"] <= composer["y"] + 0.5, f"{box} ends under the composer {composer}"
    assert box["y"] + box["height"] <= page.viewport_size["height"]


@pytest.mark.parametrize("size", SIZES)
def test_the_newest_reply_and_its_mark_stay_in_view_through_eight_exchanges(
    browser, asgi_server, script, size  # noqa: F811
):
    page = open_chat(browser, asgi_server, size)
    for n in range(1, 8):
        script.reply(f"Reply {n}.\n{LONG_REPLY}")
        send(page, f"Message {n}: tell me more.")
        # The first call in a fresh server process loads the model library: allow for it.
        expect(page.locator(".msg-assistant .msg-model")).to_have_count(n, timeout=30_000)
        assert_fully_above_the_composer(page, page.locator(".msg-assistant").last)

    # The eighth reply waits at a gate: a visible waiting state, in view, while Whizi thinks.
    script.gate("eighth", f"Reply 8.\n{LONG_REPLY}")
    send(page, "Remember that I like green tea.")
    waiting = page.locator(".msg-waiting")
    expect(waiting).to_contain_text("Whizi is thinking")
    assert script.wait_arrived("eighth")
    assert_fully_above_the_composer(page, waiting)
    expect(page.locator("[data-chat-stop]")).to_be_visible()
    check_state(page, f"chat-waiting-{size}")
    script.release("eighth")

    last = page.locator(".msg-assistant").last
    expect(page.locator(".msg-assistant .msg-model")).to_have_count(8)
    expect(last.locator(".msg-body")).to_contain_text("Reply 8.")
    assert_fully_above_the_composer(page, last)
    # Announced once, when finished; the log itself is no live region.
    expect(page.locator("#chat-announce")).to_have_text(f"Whizi replied: Reply 8.\n{LONG_REPLY}")
    assert page.locator("#chat-log[aria-live], #chat-scroll[aria-live]").count() == 0

    # The memory pass of the "remember" request changes the list: the mark appears, in view.
    memory_pass = MemoryPass.objects.order_by("-id").first()  # the "remember" request's pass
    MemoryPass.objects.filter(pk=memory_pass.pk).update(status="done", outcome="updated")
    expect(last.locator("a.memory-mark")).to_be_visible(timeout=10_000)
    assert_fully_above_the_composer(page, last)
    check_state(page, f"chat-eight-exchanges-{size}")

    # Reloaded, the conversation opens at its newest reply.
    page.reload()
    assert_fully_above_the_composer(page, page.locator(".msg-assistant").last)


@pytest.mark.parametrize("size", SIZES)
def test_a_failed_reply_offers_try_again_beside_the_message_and_after_a_reload(
    browser, asgi_server, script, size  # noqa: F811
):
    page = open_chat(browser, asgi_server, size)
    script.error("timeout")
    send(page, "Plan my week")

    failed = page.locator("#chat-error")
    expect(failed).to_contain_text("The chat model took too long to answer.", timeout=30_000)
    # Beside the message it answers, in view above the composer.
    expect(page.locator(".chat-log > li")).to_have_count(2)
    assert page.locator(".chat-log > li").nth(1).get_attribute("id") == "chat-error"
    assert_fully_above_the_composer(page, failed)
    check_state(page, f"chat-reply-failed-{size}")

    page.reload()
    failed = page.locator("#chat-error")
    expect(failed).to_contain_text("The reply didn't arrive")
    expect(failed.get_by_role("button", name="Try again")).to_be_visible()
    check_state(page, f"chat-reply-failed-reloaded-{size}")

    script.reply("Here is your week.")
    failed.get_by_role("button", name="Try again").click()
    expect(page.locator(".msg-assistant .msg-model")).to_have_count(1)  # saved, not only streamed
    expect(page.locator(".msg-assistant .msg-body")).to_have_text("Here is your week.")
    expect(page.locator("#chat-error")).to_have_count(0)
    assert list(Message.objects.values_list("role", "content")) == [
        ("user", "Plan my week"), ("assistant", "Here is your week."),
    ]


def test_stop_ends_the_reply_and_keeps_the_message_for_a_later_try(browser, asgi_server, script):  # noqa: F811
    page = open_chat(browser, asgi_server, "phone")
    script.gate("slow", "A reply that is never wanted.")
    send(page, "Write me a long poem")
    assert script.wait_arrived("slow", timeout=30)

    page.locator("[data-chat-stop]").click()
    failed = page.locator("#chat-error")
    expect(failed).to_contain_text("You stopped the reply")
    expect(page.locator(".composer-send")).to_be_visible()
    check_state(page, "chat-stopped-phone")
    script.release("slow")

    page.reload()
    expect(page.locator(".msg-user .msg-body")).to_have_text("Write me a long poem")
    expect(page.locator("#chat-error")).to_contain_text("The reply didn't arrive")
    assert list(Conversation.objects.get().messages.values_list("role", flat=True)) == ["user"]

    script.reply("Roses are red.")
    page.get_by_role("button", name="Try again").click()
    expect(page.locator(".msg-assistant .msg-body")).to_have_text("Roses are red.")
    expect(page.locator(".msg-assistant .msg-model")).to_have_count(1)  # saved, not only streamed
    assert Message.objects.filter(role="assistant", content="Roses are red.").exists()


def test_messages_say_who_wrote_them(browser, asgi_server, script):  # noqa: F811
    page = open_chat(browser, asgi_server, "desktop")
    script.reply("Hello!")
    send(page, "Hi")
    expect(page.locator(".msg-assistant .msg-model")).to_have_count(1, timeout=30_000)
    expect(page.locator(".msg-user .msg-author")).to_have_text("You")
    expect(page.locator(".msg-assistant .msg-author")).to_have_text("Whizi")
    page.reload()
    expect(page.locator(".msg-user .msg-author")).to_have_text("You")
    expect(page.locator(".msg-assistant .msg-author")).to_have_text("Whizi")
