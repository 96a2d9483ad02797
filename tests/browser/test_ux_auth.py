"""Sign-up, login, logout and password reset as part of the product: its layout, one
wording ("Sign up", "Log in", "Log out"), the visitor's language, a flash that names the
email, a guest's chats and memory carried into the new account, and offered to an
existing account that logs in.

Personas:
- guest: chatted before signing up; their chats and memory come along. Before a login to
  an existing account, whoever used the browser: nothing of theirs moves unasked.
- user: has an account; logs in and out, resets a forgotten password, and adds or
  discards what the browser held before the login.
"""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from chat.models import Conversation, Message
from memory.models import Memory
from tests.browser.ux import LOCALES, SIZES, check_state, guest_start_in, make_account, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# allauth's own words for the same things, which must never show.
OTHER_WORDINGS = re.compile(r"Sign In|Sign Out|Sign Up|Signup|signed in|signed out|Successfully")


def visible_words(page) -> list[str]:
    """Every label, heading, button, link, paragraph and placeholder a visitor reads."""
    texts = page.locator("main h1, main p, main label, main button, main a, .topbar a").all_inner_texts()
    placeholders = [
        field.get_attribute("placeholder") or ""
        for field in page.locator("main input").all()
    ]
    return [text.strip() for text in texts + placeholders if text.strip()]


def test_the_vietnamese_sign_up_page_has_no_english_label(browser, live_server):
    pages = {}
    for language in ("en", "vi"):
        page = browser.new_context(locale=LOCALES[language], viewport=SIZES["phone"]).new_page()
        page.goto(f"{live_server.url}/accounts/signup/")
        pages[language] = visible_words(page)
        if language == "vi":
            check_state(page, "signup-vi-checked-phone")

    english, vietnamese = pages["en"], pages["vi"]
    assert len(english) == len(vietnamese) >= 12
    same = [vi for en, vi in zip(english, vietnamese, strict=True) if en == vi and en != "Whizi"]
    assert same == [], f"left in English on the Vietnamese page: {same}"
    assert "Đăng ký" in vietnamese and "Mật khẩu" in vietnamese


@pytest.mark.parametrize("language", LOCALES)
def test_every_account_page_speaks_the_visitors_language(browser, live_server, language):
    page = browser.new_context(locale=LOCALES[language]).new_page()
    english = browser.new_context(locale="en-US").new_page()
    for path in ("/accounts/signup/", "/accounts/login/", "/accounts/password/reset/"):
        page.goto(f"{live_server.url}{path}")
        english.goto(f"{live_server.url}{path}")
        ours, theirs = visible_words(page), visible_words(english)
        assert len(ours) == len(theirs)
        if language != "en":
            same = [w for en, w in zip(theirs, ours, strict=True) if en == w and en != "Whizi"]
            assert same == [], f"{path} in {language}: {same}"
        assert not OTHER_WORDINGS.search(" ".join(ours))


def test_a_guest_signs_up_keeps_their_chats_and_memory_and_is_told_so_in_one_line(browser, live_server):
    page = browser.new_context(viewport=SIZES["desktop"]).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/")
    guest = guest_start_in(page, live_server)
    chat = Conversation.objects.create(guest=guest, model="whizi/offline", title="Trip to Hue")
    Message.objects.create(conversation=chat, role="user", content="Trip to Hue")
    Message.objects.create(conversation=chat, role="assistant", content="Sounds lovely.",
                           model="whizi/offline")
    Memory.objects.create(guest=guest, lines=["Likes green tea"], tokens=5, version=1)

    page.get_by_role("link", name="Sign up").click()
    expect(page.get_by_role("heading", name="Sign up")).to_be_visible()
    expect(page.locator(".auth-note")).to_have_text(
        "Your chats and what Whizi remembers from this browser come with you into your new account."
    )
    check_state(page, "signup-desktop-guest")
    page.get_by_label("Email").fill("lan@example.com")
    page.get_by_label("Password", exact=True).fill("a-long-pass-phrase")
    page.get_by_label("Password (again)").fill("a-long-pass-phrase")
    page.get_by_role("button", name="Sign up").click()

    flash = page.locator(".flash li")
    expect(flash).to_have_text(["1 chat and 1 fact from this browser are now in your account."])
    page.get_by_role("button", name="Dismiss").click()
    expect(page.locator(".flash")).to_have_count(0)
    expect(page.locator("#conversation-list")).to_contain_text("Trip to Hue")
    expect(page.locator(".topbar")).to_contain_text("lan@example.com")
    check_state(page, "signed-up-desktop")
    assert Memory.objects.get(user__email="lan@example.com").lines == ["Likes green tea"]


@pytest.mark.parametrize("size", SIZES)
def test_log_in_and_log_out_use_one_wording(browser, live_server, size):
    make_account("bo@example.com")
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/")
    page.locator(".topbar").get_by_role("link", name="Log in").click()
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_label("Email").fill("bo@example.com")
    page.get_by_label("Password").fill("a-long-pass-phrase")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".flash li")).to_have_text("Logged in as bo@example.com.")

    page.goto(f"{live_server.url}/accounts/logout/")
    expect(page.get_by_role("heading", name="Log out")).to_be_visible()
    page.locator("main").get_by_role("button", name="Log out").click()
    expect(page.locator(".flash li")).to_have_text("You have logged out.")
    check_state(page, f"logged-out-{size}")
    assert not OTHER_WORDINGS.search(page.locator("body").inner_text())


def test_a_forgotten_password_is_reset_through_the_products_pages(browser, live_server):
    make_account("bo@example.com")
    page = browser.new_context(viewport=SIZES["phone"]).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    expect(page.get_by_role("heading", name="Reset your password")).to_be_visible()
    page.get_by_label("Email").fill("bo@example.com")
    page.get_by_role("button", name="Send the link").click()
    expect(page.get_by_role("heading", name="Check your email")).to_be_visible()
    check_state(page, "password-reset-sent-phone")

    link = re.search(r"https?://\S+/accounts/password/reset/key/\S+", mail.outbox[-1].body).group(0)
    page.goto(link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    check_state(page, "password-reset-choose-phone")
    page.get_by_label("New Password", exact=True).fill("another-long-phrase")
    page.get_by_label("New Password (again)").fill("another-long-phrase")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_role("heading", name="Password changed")).to_be_visible()
    check_state(page, "password-reset-done-phone")


def _guest_with_data(page, live_server) -> None:
    """This browser's guest, with a chat and two facts (one of them private)."""
    guest = guest_start_in(page, live_server)
    chat = Conversation.objects.create(guest=guest, model="whizi/offline", title="Trip to Hue")
    Message.objects.create(conversation=chat, role="user", content="Trip to Hue")
    Message.objects.create(conversation=chat, role="assistant", content="Sounds lovely.",
                           model="whizi/offline")
    Memory.objects.create(guest=guest, lines=["My PIN is 4321", "Likes green tea"], tokens=12, version=1)


def _log_in_through_the_page(page, live_server, email: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("input[name=login]").fill(email)
    page.locator("input[name=password]").fill("a-long-pass-phrase")
    page.locator("main form button[type=submit]").click()


def _tab_to(page, target) -> None:
    """Reach `target` with the Tab key alone, from the top of the page."""
    page.locator("body").focus()
    for _ in range(40):
        page.keyboard.press("Tab")
        if target.evaluate("node => node === document.activeElement"):
            return
    raise AssertionError("the Tab key never reached it")


@pytest.mark.parametrize("size", SIZES)
def test_logging_in_offers_the_browsers_guest_data_and_adds_it_only_when_asked(browser, live_server, size):
    user = make_account("bo@example.com")
    Memory.objects.create(user=user, lines=["Name is Bo"], tokens=4, version=1)
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/")
    _guest_with_data(page, live_server)
    page.goto(f"{live_server.url}/accounts/login/")
    expect(page.locator(".auth-note")).to_have_text(
        "After you log in, you choose whether what you did in this browser is added to your account.")

    _log_in_through_the_page(page, live_server, "bo@example.com")

    offer = page.get_by_role("region", name="Add this browser's 2 facts and 1 chat to your account?")
    expect(offer).to_be_visible()
    expect(page.locator("#conversation-list")).not_to_contain_text("Trip to Hue")
    assert Memory.objects.get(user=user).lines == ["Name is Bo"]  # nothing moved at login
    summary = offer.get_by_text("See what would be added")
    _tab_to(page, summary)
    page.keyboard.press("Enter")
    expect(offer.get_by_text("My PIN is 4321")).to_be_visible()
    expect(offer.get_by_text("Trip to Hue")).to_be_visible()
    check_state(page, f"guest-offer-open-{size}")
    _tab_to(page, offer.get_by_role("button", name="Add to my account"))
    page.keyboard.press("Enter")

    expect(page.locator(".flash")).to_contain_text("Added to your account.")
    expect(page.locator("#guest-offer")).to_have_count(0)
    expect(page.locator("#conversation-list")).to_contain_text("Trip to Hue")
    check_state(page, f"guest-offer-added-{size}")
    assert Memory.objects.get(user=user).lines == ["Name is Bo", "My PIN is 4321", "Likes green tea"]


def test_without_javascript_the_offer_is_discarded_by_a_plain_form_in_the_visitors_language(
        browser, live_server):
    user = make_account("bo@example.com")
    page = browser.new_context(locale=LOCALES["vi"], viewport=SIZES["phone"],
                               java_script_enabled=False).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/")
    _guest_with_data(page, live_server)
    _log_in_through_the_page(page, live_server, "bo@example.com")
    page.goto(f"{live_server.url}/settings/")

    question = "Thêm 2 sự kiện và 1 cuộc trò chuyện từ trình duyệt này vào tài khoản của bạn?"
    offer = page.get_by_role("region", name=question)
    expect(offer).to_be_visible()
    offer.get_by_text("Xem những gì sẽ được thêm").click()
    expect(offer.get_by_text("My PIN is 4321")).to_be_visible()
    screenshot(page, "guest-offer-settings-vi-nojs-phone")  # axe-core needs JavaScript: checked above
    offer.get_by_role("button", name="Bỏ đi").click()

    expect(page.locator(".flash")).to_contain_text("Đã bỏ đi.")
    expect(page.locator("#guest-offer")).to_have_count(0)
    assert not Memory.objects.filter(guest__isnull=False).exists()
    assert not Conversation.objects.filter(title="Trip to Hue").exists()
    assert not Memory.objects.filter(user=user).exists()
