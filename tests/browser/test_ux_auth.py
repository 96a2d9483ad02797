"""Sign-up, login, logout and password reset as part of the product: its layout, one
wording ("Sign up", "Log in", "Log out"), the visitor's language, a flash that names the
email, and a guest's chats and memory carried into the new account.

Personas:
- guest: chatted before signing up; their chats and memory come along.
- user: has an account; logs in and out, resets a forgotten password.
"""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from chat.models import Conversation, Message
from memory.models import Memory
from tests.browser.ux import LOCALES, SIZES, check_state, guest_start_in, make_account

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
