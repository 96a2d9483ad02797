"""What every page state is checked for in the browser tests: no sideways scroll, no
serious or critical axe-core violation; and a screenshot of it for people to look at."""

from __future__ import annotations

from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth import get_user_model
from django.test import Client

from tests.conftest import ARTIFACTS

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SIZES = {"phone": PHONE, "desktop": DESKTOP}
# Browser locales for the six languages (Accept-Language picks the page's language).
LOCALES = {"en": "en-US", "vi": "vi-VN", "zh-hans": "zh-CN", "ja": "ja-JP", "ko": "ko-KR", "ms": "ms-MY"}
SCREENSHOTS = ARTIFACTS / "screenshots"

_axe = Axe()


def overflow(page) -> int:
    """How many CSS pixels the page is wider than the window (0: no sideways scroll)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def serious_axe_violations(page) -> list[str]:
    results = _axe.run(page)
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]} {v['help']}"
        for v in results.response["violations"] if v["impact"] in ("serious", "critical")
    ]


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def check_state(page, name: str, *, shoot: bool = True) -> None:
    """The promises every page state keeps, at whatever size and language the page has."""
    assert overflow(page) <= 0, f"{name}: the page scrolls sideways by {overflow(page)}px"
    violations = serious_axe_violations(page)
    assert violations == [], f"{name}: axe-core found {violations}"
    if shoot:
        screenshot(page, name)


def make_account(email: str = "mai@example.com"):
    return get_user_model().objects.create_user(email.split("@")[0], email, "a-long-pass-phrase")


def signed_in_context(browser, live_server, user, **options):
    client = Client()
    client.force_login(user)
    context = browser.new_context(**options)
    context.add_cookies([{
        "name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url,
    }])
    return context


def guest_start_in(page, live_server):
    """The browser's guest, made the way the product makes it: by a first kept request
    (here an empty conversation, which the chat list does not show). Needs a page of
    the site open, for the csrftoken cookie."""
    from accounts.models import Guest

    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    response = page.request.post(f"{live_server.url}/api/conversations/", data="{}",
                                 headers={"X-CSRFToken": token, "Content-Type": "application/json"})
    assert response.status == 201, response.text()
    return Guest.objects.get()
