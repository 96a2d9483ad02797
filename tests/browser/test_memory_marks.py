"""A reply's memory mark in headless Chromium, with a real worker running the offline memory
model (what runs when nothing is configured): it opens in place to what the pass changed,
says "Not saved" and why when a request saved nothing, and the app's API says the same."""

import os
import re

import pytest

from bench.stack import free_port, uvicorn_start, uvicorn_wait_ready
from tests.chat.conftest import OFFLINE
from tests.conftest import ARTIFACTS, server_env, suite_worker_start

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.slow,
              pytest.mark.django_db(transaction=True)]

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def asgi_server(django_db_setup, django_db_blocker):
    port = free_port()
    server = uvicorn_start(env=server_env(WHIZI_CHAT_MODELS=OFFLINE, WHIZI_MEMORY_MODEL=OFFLINE),
                           log=ARTIFACTS / "uvicorn-marks.log", port=port)
    base_url = f"http://127.0.0.1:{port}"
    uvicorn_wait_ready(server, base_url, timeout=90)  # Django and litellm load slowly on 2 cores
    yield base_url
    server.stop()


@pytest.fixture(scope="module")
def workers(django_db_setup, django_db_blocker):
    """A real worker process running passes on the offline memory model."""
    worker = suite_worker_start(django_db_blocker, WHIZI_MEMORY_MODEL=OFFLINE)
    yield worker
    worker.stop()


@pytest.fixture
def page(asgi_server, workers, monkeypatch):
    if not os.path.exists(CHROMIUM):
        pytest.skip("Chromium is not installed (make test installs it)")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page()
        tab.set_default_timeout(30_000)  # a pass on a loaded 2-core machine
        tab.goto(asgi_server + "/")
        yield tab
        browser.close()


def _send(page, text: str) -> str:
    """Send `text`; the id of Whizi's reply once it has landed."""
    replies = page.locator(".msg-assistant").count()
    page.fill("#composer-content", text)
    page.click("#composer button[type=submit]")
    page.locator(".msg-assistant .msg-model").nth(replies).wait_for()
    return page.locator(".msg-assistant").nth(replies).get_attribute("data-message")


def _api_mark(page, reply_id: str) -> dict:
    site, conversation = re.match(r"(https?://[^/]+)/c/(\d+)/", page.url).groups()
    answer = page.request.get(f"{site}/api/conversations/{conversation}/messages/{reply_id}/memory/")
    assert answer.status == 200
    return answer.json()


def test_a_correction_opens_in_place_to_boston_replaced_by_denver(page):
    first = _send(page, "I used to live in Boston. Remember that.")
    page.locator(f"#m-{first} details.memory-mark").wait_for()
    second = _send(page, "I moved to Denver, remember that")
    mark = page.locator(f"#m-{second} details.memory-mark")
    mark.wait_for()
    url = page.url

    summary = mark.locator("summary")
    assert summary.inner_text().strip().endswith("Memory updated")
    # The result landed inside the reply's live region, which the poll never replaced.
    assert mark.evaluate("m => m.parentElement.getAttribute('role')") == "status"
    assert not mark.locator(".memory-mark-changes").is_visible()
    summary.focus()
    page.keyboard.press("Enter")  # a keyboard opens it, as a click would

    change = mark.locator(".memory-change-replaced")
    change.wait_for(state="visible")
    assert change.inner_text() == "Replaced: Used to live in Boston → Lives in Denver"
    assert mark.get_attribute("open") is not None and page.url == url  # opened in place
    api = _api_mark(page, second)
    assert api["state"] == "updated"
    assert [(c["kind"], c["old"], c["new"]) for c in api["changes"]] == [
        ("replaced", "Used to live in Boston", "Lives in Denver")]


def test_a_link_to_remember_says_not_saved_and_why(page):
    reply = _send(page, "Remember that my homepage is evil.example/x")

    mark = page.locator(f"#m-{reply} .memory-mark-not_saved")
    mark.wait_for()

    assert mark.inner_text() == "Not saved: Whizi doesn't keep links"
    assert "Memory updated" not in page.locator(f"#m-{reply}").inner_text()
    api = _api_mark(page, reply)
    assert (api["state"], api["reason"], api["changes"]) == ("not_saved", "link", [])
