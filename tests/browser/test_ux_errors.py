"""Errors a person can act on, on a phone and a desktop: a tab left open while the session
changed, a rate limit on the memory block and a stale chat page each say what happened
and what to do, in words, and leave what was on screen in place.

Personas:
- guest who signs up in another tab: the old tab still shows the guest's list.
- user: signed in, going too fast on "Clear memory".
"""

import pytest
from django.core.cache import cache
from playwright.sync_api import expect

from memory.models import Memory
from tests.browser.ux import SIZES, check_state, guest_start_in, make_account, signed_in_context

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FACTS = ["Name is Mai Nguyen", "Works as a nurse in Da Nang", "Likes green tea"]
STALE_TITLE = "This page is out of date"


def open_list(page) -> None:
    page.locator(".memory-row").click()
    expect(page.locator("#memory-list")).to_be_visible()


def confirm_clear(page) -> None:
    page.locator(".memory-clear").click()
    page.get_by_role("dialog").get_by_role("button", name="Clear memory").click()


@pytest.mark.parametrize("size", SIZES)
def test_clearing_from_a_tab_that_went_stale_says_so_and_leaves_the_list(browser, live_server, size):
    context = browser.new_context(viewport=SIZES[size])
    old_tab = context.new_page()
    old_tab.set_default_timeout(10_000)
    old_tab.goto(f"{live_server.url}/settings/")
    Memory.objects.create(guest=guest_start_in(old_tab, live_server), lines=FACTS, tokens=20, version=1)
    old_tab.reload()
    open_list(old_tab)

    # In another tab the guest signs up: the session and its CSRF token change.
    new_tab = context.new_page()
    new_tab.goto(f"{live_server.url}/accounts/signup/")
    new_tab.locator("input[name=email]").fill("mai@example.com")
    new_tab.locator("input[name=password1]").fill("a-long-pass-phrase")
    new_tab.locator("input[name=password2]").fill("a-long-pass-phrase")
    new_tab.locator("form button[type=submit]").click()
    expect(new_tab.locator(".flash")).to_contain_text("3 facts from this browser are now in your account.")

    confirm_clear(old_tab)
    alert = old_tab.locator("#memory-clear-error")
    expect(alert).to_contain_text(STALE_TITLE)
    expect(alert).to_contain_text("Reload the page, then try again.")
    expect(old_tab.get_by_role("dialog")).to_be_hidden()
    expect(old_tab.locator(".memory-facts li")).to_have_text(FACTS)  # the list stays
    assert "{" not in old_tab.locator("#memory").inner_text()
    check_state(old_tab, f"settings-clear-stale-tab-{size}")
    assert Memory.objects.get(user__email="mai@example.com").lines == FACTS

    # The way forward: reload, and clearing works.
    alert.get_by_role("link", name="Reload the page").click()
    open_list(old_tab)
    confirm_clear(old_tab)
    expect(old_tab.locator(".memory-empty")).to_be_visible()
    expect(old_tab.locator("#memory-status")).to_have_text("Memory cleared")
    assert Memory.objects.get(user__email="mai@example.com").lines == []


@pytest.mark.parametrize("size", SIZES)
def test_too_many_clears_are_said_in_words_and_the_list_stays(browser, live_server, settings, size):
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.WHIZI_RATE_LIMITS = {**settings.WHIZI_RATE_LIMITS, "memory_clear": (0, 1000)}
    cache.clear()
    user = make_account()
    Memory.objects.create(user=user, lines=FACTS, tokens=20, version=1)
    page = signed_in_context(browser, live_server, user, viewport=SIZES[size]).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/settings/")
    open_list(page)

    confirm_clear(page)
    alert = page.locator("#memory-clear-error")
    expect(alert).to_contain_text("Too many requests")
    expect(alert).to_contain_text("Please wait a moment and try again.")
    block = page.locator("#memory").inner_text()
    assert '"error"' not in block and "{" not in block  # never the JSON itself
    expect(page.locator(".memory-facts li")).to_have_text(FACTS)
    check_state(page, f"settings-clear-rate-limited-{size}")
    assert Memory.objects.get(user=user).lines == FACTS


def test_a_chat_page_left_open_says_how_to_go_on_instead_of_forbidden(browser, live_server):
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/")
    context.clear_cookies(name="csrftoken")  # what a session change in another tab does to this page

    page.fill("#composer-content", "Hello?")
    page.locator("#composer .composer-send").click()
    error = page.locator("#chat-send-error")
    expect(error).to_contain_text(STALE_TITLE)
    expect(error.get_by_role("link", name="Reload the page")).to_be_visible()
    assert "Forbidden" not in page.locator("body").inner_text()
    expect(page.locator("#composer-content")).to_have_value("Hello?")  # nothing typed is lost
    check_state(page, "chat-stale-page-phone")


def test_no_javascript_stale_clear_gets_the_products_page_with_a_way_back(browser, live_server):
    user = make_account()
    Memory.objects.create(user=user, lines=FACTS, tokens=20, version=1)
    context = signed_in_context(browser, live_server, user, java_script_enabled=False,
                                viewport=SIZES["phone"])
    page = context.new_page()
    page.goto(f"{live_server.url}/settings/memory/clear/")
    context.clear_cookies(name="csrftoken")
    page.get_by_role("button", name="Clear memory").click()
    expect(page.get_by_role("heading", name=STALE_TITLE)).to_be_visible()
    page.get_by_role("link", name="Reload the page").click()
    page.get_by_role("button", name="Clear memory").click()
    expect(page.locator(".memory-empty")).to_be_visible()
    assert Memory.objects.get(user=user).lines == []
