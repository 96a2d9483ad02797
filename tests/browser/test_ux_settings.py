"""The memory block's finish: a long list keeps "Clear memory" close, the dialog closes on
its backdrop, the count stays readable on hover, the row's edge can be seen, focus is
visible after a clear, and no page asks for a favicon that is not there.

Persona: user, signed in, with a long memory.
"""

import pytest
from playwright.sync_api import expect

from memory.models import Memory
from tests.browser.ux import SIZES, check_state, make_account, signed_in_context

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FACTS = [f"Fact {n}: has a dog called Bao and walks him by the river every morning" for n in range(1, 50)]


def _luminance(rgb: str) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (float(part) for part in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3])
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(one: str, other: str) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("size", SIZES)
def test_forty_nine_facts_leave_clear_memory_within_reach(browser, live_server, size):
    user = make_account()
    Memory.objects.create(user=user, lines=FACTS, tokens=900, version=1)
    page = signed_in_context(browser, live_server, user, viewport=SIZES[size]).new_page()
    missing = []
    page.on("response", lambda response: response.status == 404 and missing.append(response.url))
    page.goto(f"{live_server.url}/settings/?memory=open#memory")

    row = page.locator(".memory-row")
    expect(page.locator(".memory-count")).to_have_text("49 facts")
    clear = page.locator(".memory-clear")
    row_box, clear_box = row.bounding_box(), clear.bounding_box()
    # The list scrolls in its own box: the action is a short way under the row, not 2,900px.
    assert clear_box["y"] - (row_box["y"] + row_box["height"]) < 600
    box = page.locator(".memory-facts-scroll")
    assert box.evaluate("el => el.scrollHeight > el.clientHeight")
    expect(box).to_have_attribute("tabindex", "0")  # reachable and scrollable by keyboard
    check_state(page, f"settings-49-facts-{size}")

    # The row's edge: at least 3:1 against the card; the count keeps its colours on hover.
    edge = row.evaluate("el => getComputedStyle(el).borderTopColor")
    card = page.locator(".settings-section").evaluate("el => getComputedStyle(el).backgroundColor")
    assert contrast(edge, card) >= 3
    count = page.locator(".memory-count")
    before = count.evaluate("el => getComputedStyle(el).backgroundColor")
    row.hover()
    hovered_row = row.evaluate("el => getComputedStyle(el).backgroundColor")
    assert count.evaluate("el => getComputedStyle(el).backgroundColor") == before
    assert contrast(before, hovered_row) >= 3

    # A click on the backdrop closes the dialog, like Cancel.
    clear.click()
    dialog = page.locator("#memory-clear-dialog")
    expect(dialog).to_be_visible()
    page.mouse.click(3, 3)
    expect(dialog).to_be_hidden()
    expect(clear).to_be_focused()
    assert Memory.objects.get(user=user).lines == FACTS
    assert missing == []  # the favicon is ours, no 404 on any load


def test_after_a_clear_the_keyboard_user_sees_where_focus_went(browser, live_server):
    user = make_account()
    Memory.objects.create(user=user, lines=FACTS[:3], tokens=60, version=1)
    page = signed_in_context(browser, live_server, user, viewport=SIZES["desktop"]).new_page()
    page.goto(f"{live_server.url}/settings/")
    page.locator(".memory-row").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#memory-list")).to_be_visible()
    expect(page.locator(".memory-row")).to_be_focused()  # focus comes back to the row once swapped in
    page.keyboard.press("Tab")
    expect(page.locator(".memory-clear")).to_be_focused()
    page.keyboard.press("Space")  # a button: Space works as well as Enter
    dialog = page.locator("#memory-clear-dialog")
    expect(dialog).to_be_visible()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")

    heading = page.locator("#memory-title")
    expect(heading).to_be_focused()
    assert heading.evaluate("el => getComputedStyle(el).outlineStyle") != "none"
    expect(page.locator("#memory-status")).to_have_text("Memory cleared")
    check_state(page, "settings-cleared-desktop")
    assert Memory.objects.get(user=user).lines == []
