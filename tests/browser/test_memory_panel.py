"""The memory block in a real browser: open the list, clear it through the dialog.

Personas:
- user: signed in; sees their facts, clears them.
- guest: no account, browsing in Japanese; the same promises in their language.
"""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import expect

from accounts.models import Guest
from memory.models import Memory
from tests.browser.ux import guest_start_in
from tests.db_faults import other_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FACTS = ["Name is Mai Nguyen", "Works as a nurse in Da Nang", "<script>alert(1)</script>"]
JA_FACTS = ["名前は佐藤花子", "大阪に住んでいる"]
EMPTY = "Nothing remembered yet. Facts you share in chat will show up here."


@pytest.fixture
def user():
    return get_user_model().objects.create_user("mai", "mai@example.com", "pw-123456")


def signed_in_page(browser, live_server, user, **context_options):
    client = Client()
    client.force_login(user)
    context = browser.new_context(**context_options)
    context.add_cookies([{
        "name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url,
    }])
    page = context.new_page()
    page.set_default_timeout(10_000)
    return page


def open_list(page):
    row = page.locator(".memory-row")
    row.click()
    expect(page.locator("#memory-list")).to_be_visible()
    expect(page.locator(".memory-row")).to_have_attribute("aria-expanded", "true")


def test_a_user_sees_each_fact_and_the_count_then_clears_through_the_dialog(
    browser, live_server, user, artifacts
):
    Memory.objects.create(user=user, lines=FACTS, tokens=30, version=1)
    page = signed_in_page(browser, live_server, user)
    alerts = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    page.goto(f"{live_server.url}/settings/")

    row = page.locator(".memory-row")
    expect(row).to_contain_text("What Whizi remembers")
    expect(page.locator(".memory-count")).to_have_text("3 facts")
    expect(row).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_text("Name is Mai Nguyen")).to_have_count(0)

    open_list(page)
    assert page.url == f"{live_server.url}/settings/"  # opened in place by htmx, not a reload
    expect(page.locator(".memory-facts li")).to_have_text(FACTS)  # the script is text
    assert alerts == []
    clear = page.locator(".memory-clear")
    expect(clear).to_have_text("Clear memory")
    assert clear.evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(198, 40, 40)"
    page.screenshot(path=str(artifacts / "memory-panel-expanded.png"), full_page=True)

    clear.click()
    dialog = page.get_by_role("dialog", name="Clear Whizi's memory?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(
        "This permanently deletes everything Whizi remembers about you, across web and mobile. "
        "This can't be undone."
    )
    expect(clear).to_have_attribute("aria-expanded", "true")
    expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
    page.screenshot(path=str(artifacts / "memory-clear-dialog.png"), full_page=True)

    dialog.get_by_role("button", name="Clear memory").click()
    expect(page.locator(".memory-empty")).to_have_text(EMPTY)
    expect(page.locator(".memory-row")).to_have_count(0)
    expect(page.locator(".memory-clear")).to_have_count(0)
    expect(page.locator("dialog[open]")).to_have_count(0)
    assert Memory.objects.get(user=user).lines == []


def test_the_same_in_japanese(browser, live_server, artifacts):
    context = browser.new_context(locale="ja-JP")
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/settings/")
    expect(page.locator(".memory-empty")).to_have_text(
        "まだ何も記憶されていません。チャットで共有した内容がここに表示されます"
    )
    Memory.objects.create(guest=guest_start_in(page, live_server), lines=JA_FACTS, tokens=12, version=1)
    page.reload()

    expect(page.locator(".memory-row")).to_contain_text("Whiziが記憶している内容")
    expect(page.locator(".memory-count")).to_have_text("2 件の事実")
    open_list(page)
    expect(page.locator(".memory-facts li")).to_have_text(JA_FACTS)
    page.screenshot(path=str(artifacts / "memory-panel-expanded-ja.png"), full_page=True)

    page.locator(".memory-clear").click()
    dialog = page.get_by_role("dialog", name="Whiziのメモリを消去しますか？")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(
        "これにより、ウェブとモバイルの両方で、Whiziがあなたについて記憶しているすべての内容が"
        "完全に削除されます。この操作は元に戻せません"
    )
    page.screenshot(path=str(artifacts / "memory-clear-dialog-ja.png"), full_page=True)
    dialog.get_by_role("button", name="メモリを消去").click()
    expect(page.locator(".memory-empty")).to_have_text(
        "まだ何も記憶されていません。チャットで共有した内容がここに表示されます"
    )
    assert Memory.objects.get(guest=Guest.objects.get()).lines == []


def test_cancel_leaves_the_list_alone(browser, live_server, user):
    Memory.objects.create(user=user, lines=FACTS, tokens=30, version=1)
    page = signed_in_page(browser, live_server, user)
    page.goto(f"{live_server.url}/settings/")
    open_list(page)
    clear = page.locator(".memory-clear")
    clear.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    expect(clear).to_have_attribute("aria-expanded", "false")
    expect(clear).to_be_focused()
    expect(page.locator(".memory-facts li")).to_have_text(FACTS)
    assert page.url == f"{live_server.url}/settings/"
    assert Memory.objects.get(user=user).lines == FACTS


def test_the_keyboard_opens_the_list_and_the_dialog_and_escape_closes_it(browser, live_server, user):
    Memory.objects.create(user=user, lines=FACTS, tokens=30, version=1)
    page = signed_in_page(browser, live_server, user)
    page.goto(f"{live_server.url}/settings/")
    page.locator(".memory-row").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#memory-list")).to_be_visible()
    expect(page.locator(".memory-row")).to_be_focused()  # focus stays on the swapped-in row

    page.keyboard.press("Tab")
    clear = page.locator(".memory-clear")
    expect(clear).to_be_focused()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(clear).to_have_attribute("aria-expanded", "true")

    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(clear).to_have_attribute("aria-expanded", "false")
    expect(clear).to_be_focused()
    expect(page.locator(".memory-facts li")).to_have_text(FACTS)
    assert Memory.objects.get(user=user).lines == FACTS


def test_everything_works_without_javascript(browser, live_server, user):
    Memory.objects.create(user=user, lines=FACTS, tokens=30, version=1)
    page = signed_in_page(browser, live_server, user, java_script_enabled=False)
    page.goto(f"{live_server.url}/settings/")
    page.locator(".memory-row").click()
    page.wait_for_url("**/settings/?memory=open#memory")
    expect(page.locator(".memory-facts li")).to_have_text(FACTS)

    page.locator(".memory-clear").click()
    # A GET form with no fields: the confirmation page, with an empty query string.
    page.wait_for_url(re.compile(r"/settings/memory/clear/\??$"))
    expect(page.get_by_role("heading", name="Clear Whizi's memory?")).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    page.wait_for_url("**/settings/?memory=open#memory")
    assert Memory.objects.get(user=user).lines == FACTS

    page.locator(".memory-clear").click()
    page.get_by_role("button", name="Clear memory").click()
    page.wait_for_url("**/settings/#memory")
    expect(page.locator(".memory-empty")).to_have_text(EMPTY)
    assert Memory.objects.get(user=user).lines == []


def test_a_failed_clear_shows_the_error_and_keeps_the_list_then_clearing_again_works(
    browser, live_server, user, wait_for, artifacts
):
    """The store really fails: another session holds the row, and the server's waiting
    UPDATE is cancelled in PostgreSQL, as a statement timeout would."""
    Memory.objects.create(user=user, lines=FACTS, tokens=30, version=1)
    page = signed_in_page(browser, live_server, user)
    page.goto(f"{live_server.url}/settings/")
    open_list(page)

    with other_session() as other, other_session() as watcher:
        other.execute("SELECT id FROM memory_memory WHERE user_id = %s FOR UPDATE", [user.pk])
        page.locator(".memory-clear").click()
        page.get_by_role("dialog").get_by_role("button", name="Clear memory").click()
        watcher.autocommit = True  # a fresh pg_stat_activity snapshot on every look
        waiting = wait_for(lambda: watcher.execute(
            "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND query LIKE 'UPDATE \"memory_memory\"%'"
        ).fetchall())
        watcher.execute("SELECT pg_cancel_backend(%s)", [waiting[0][0]])
        expect(page.locator("#memory-clear-error")).to_have_text("Couldn't clear memory. Please try again.")
        other.rollback()

    expect(page.get_by_role("dialog")).to_be_hidden()
    expect(page.locator(".memory-facts li")).to_have_text(FACTS)
    expect(page.locator(".memory-clear")).to_be_focused()
    page.screenshot(path=str(artifacts / "memory-clear-failed.png"), full_page=True)
    assert Memory.objects.get(user=user).lines == FACTS

    page.locator(".memory-clear").click()
    page.get_by_role("dialog").get_by_role("button", name="Clear memory").click()
    expect(page.locator(".memory-empty")).to_have_text(EMPTY)
    assert Memory.objects.get(user=user).lines == []
