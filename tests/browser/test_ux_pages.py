# ruff: noqa: E501 - sample sentences in six languages
"""Every page and page state, in all six languages, on a phone (390×844) and a desktop
(1280×800): nothing scrolls sideways, the clear dialog fits the screen, axe-core finds no
serious or critical violation, and a screenshot of each state is written to
test-artifacts/screenshots/.

Personas:
- user: signed in, with chats (one whose reply never arrived), a project and a long memory.
- visitor: not signed in; sees sign-up, login and password reset.
"""

import pytest
from playwright.sync_api import expect

from chat.models import Conversation, Message, Project
from memory.models import Memory
from tests.browser.ux import LOCALES, SIZES, check_state, make_account, signed_in_context

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A first message long enough to become a long chat title, in each language.
FIRST_MESSAGES = {
    "en": "Could you help me plan a two-week itinerary through northern Vietnam with a focus on food markets?",
    "vi": "Bạn có thể giúp tôi lên kế hoạch cho chuyến đi hai tuần ở miền Bắc Việt Nam, tập trung vào các chợ ẩm thực không?",
    "zh-hans": "你能帮我规划一个为期两周的越南北部行程吗，重点是美食市场和当地的小吃，还有交通安排？",
    "ja": "来月の大阪出張に向けて、モデルケースのスケジュールとおすすめのレストランを一緒に考えてもらえますか",
    "ko": "다음 달 부산 출장을 위해 일정과 추천 식당을 함께 계획해 줄 수 있나요? 해산물 시장도 가고 싶어요",
    "ms": "Bolehkah anda membantu saya merancang jadual perjalanan dua minggu ke utara Vietnam dengan tumpuan pada pasar makanan?",
}
LONG_WORD = "https://example.com/an/address/without/any/spaces/that/runs/on/and/on/1234567890abcdef"
FACTS = [f"Fact number {n}: likes long walks by the Han river in Da Nang" for n in range(1, 13)] + [LONG_WORD]


def _user_with_history(language: str):
    user = make_account()
    Memory.objects.create(user=user, lines=FACTS, tokens=300, version=1)
    project = Project.objects.create(user=user, name="Thesis on coastal erosion in the Mekong delta, 2024–2026")
    first = FIRST_MESSAGES[language]
    chat = Conversation.objects.create(user=user, model="whizi/offline", title=first[:120], project=project)
    for n in range(3):
        Message.objects.create(conversation=chat, role="user", content=first if n == 0 else f"{LONG_WORD} {n}")
        Message.objects.create(conversation=chat, role="assistant", model="whizi/offline",
                               content=f"Reply {n}. " + first * 2)
    failed = Conversation.objects.create(user=user, model="whizi/offline", title="Plan my week")
    Message.objects.create(conversation=failed, role="user", content="Plan my week")
    return user, chat, failed


def _dialog_fits(page) -> None:
    dialog = page.locator("#memory-clear-dialog")
    expect(dialog).to_be_visible()
    width = page.viewport_size["width"]
    for part in (dialog, dialog.locator("button.danger"), dialog.get_by_text(dialog.locator("h2").inner_text())):
        box = part.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"{part} is cut off: {box}"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", LOCALES)
def test_every_page_fits_the_screen_and_passes_axe(browser, live_server, language, size):
    user, chat, failed = _user_with_history(language)
    viewport = SIZES[size]
    options = {"viewport": viewport, "locale": LOCALES[language]}
    name = f"{language}-{size}"

    context = signed_in_context(browser, live_server, user, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)

    page.goto(f"{live_server.url}/")
    check_state(page, f"chat-new-{name}")

    page.goto(f"{live_server.url}/c/{chat.pk}/")
    expect(page.locator(".msg")).to_have_count(6)
    check_state(page, f"chat-conversation-{name}")
    if size == "phone":
        # The conversation comes first; the side column waits behind the menu button.
        expect(page.locator("#chat-side")).to_be_hidden()
        page.locator("button.chat-menu").click()
        expect(page.locator("#chat-side")).to_be_visible()
        expect(page.locator("button.chat-menu")).to_have_attribute("aria-expanded", "true")
        check_state(page, f"chat-menu-open-{name}")
        page.keyboard.press("Escape")
        expect(page.locator("#chat-side")).to_be_hidden()

    page.goto(f"{live_server.url}/c/{failed.pk}/")
    expect(page.locator("#chat-error .chat-retry button")).to_be_visible()
    check_state(page, f"chat-failed-{name}")

    page.goto(f"{live_server.url}/settings/")
    check_state(page, f"settings-{name}")
    page.locator(".memory-row").click()
    expect(page.locator("#memory-list")).to_be_visible()
    check_state(page, f"settings-memory-open-{name}")
    page.locator(".memory-clear").click()
    _dialog_fits(page)
    check_state(page, f"settings-clear-dialog-{name}")

    page.goto(f"{live_server.url}/settings/memory/clear/")
    check_state(page, f"clear-confirm-page-{name}")
    # The same form with its token gone: the product's own "out of date" page.
    context.clear_cookies(name="csrftoken")
    page.locator("dialog button.danger").click()
    expect(page.locator(".error-page")).to_be_visible()
    check_state(page, f"error-csrf-{name}")

    page.goto(f"{live_server.url}/c/987654/")
    expect(page.locator(".error-page")).to_be_visible()
    check_state(page, f"error-404-{name}")

    page.goto(f"{live_server.url}/accounts/logout/")
    check_state(page, f"logout-{name}")
    context.close()

    visitor = browser.new_context(**options)
    page = visitor.new_page()
    page.set_default_timeout(10_000)
    for path, state in (("/accounts/signup/", "signup"), ("/accounts/login/", "login"),
                        ("/accounts/password/reset/", "password-reset")):
        page.goto(f"{live_server.url}{path}")
        check_state(page, f"{state}-{name}")
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("input[name=login]").fill("nobody@example.com")
    page.locator("input[name=password]").fill("wrong-password")
    page.locator("form button[type=submit]").click()
    expect(page.locator(".form-errors")).to_be_visible()
    check_state(page, f"login-error-{name}")
    visitor.close()

    assert Memory.objects.get(user=user).lines == FACTS  # no check above cleared anything
