"""The memory block of Settings → Preferences: see the list, open it, clear it.

Personas:
- guest: a visitor with no account; sees and clears only their own guest memory.
- user: a signed-in account; sees and clears only their own memory.
- other user: another account; never sees or loses anything through the user's requests.
"""

import html
import re

import pytest
from django.test import Client

from accounts.models import Guest
from accounts.owner import Owner
from memory.models import Memory
from tests.conftest import guest_start, make_user
from tests.db_faults import memory_row_locked, memory_unreadable

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

FACTS = ["Name is Mai Nguyen", "Works as a nurse in Da Nang", "Prefers short answers"]
HTMX = {"HTTP_HX_REQUEST": "true"}

INTRO = (
    "Whizi remembers durable facts you share in conversations, like your name, preferences and "
    "goals. It uses them across your chats on web and mobile."
)
EMPTY = "Nothing remembered yet. Facts you share in chat will show up here."
READ_FAILED = "Memory is unavailable right now. Please try again later."
CLEAR_FAILED = "Couldn't clear memory. Please try again."
DIALOG_TITLE = "Clear Whizi's memory?"
DIALOG_BODY = (
    "This permanently deletes everything Whizi remembers about you, across web and mobile. "
    "This can't be undone."
)


def remember(owner_kwargs: dict, lines: list[str]) -> Memory:
    return Memory.objects.create(**owner_kwargs, lines=lines, tokens=9 * len(lines), version=1)


def text(response) -> str:
    """The response body as a reader sees it (entities decoded)."""
    return html.unescape(response.content.decode())


def memory_block(body: str) -> str:
    match = re.search(r'<section id="memory".*?</section>', body, re.S)
    assert match, "no memory block"
    # Each render masks the CSRF token differently; everything else must be identical.
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", match.group(0))


def test_it_shows_the_intro_and_the_number_of_facts_with_the_list_closed(user_client, user):
    remember({"user": user}, FACTS)
    body = text(user_client.get("/settings/"))
    assert INTRO in body
    assert "What Whizi remembers" in body
    assert '<span class="memory-count">3 facts</span>' in body  # a count with its unit
    assert 'aria-expanded="false"' in body
    for fact in FACTS:
        assert fact not in body
    assert "Clear memory" not in body


def test_the_memory_block_is_the_last_block_of_preferences(user_client, user):
    remember({"user": user}, FACTS)
    body = user_client.get("/settings/").content.decode()
    preferences = body.index('id="preferences-title"')
    assert body.index('name="language"') > preferences
    assert body.index('name="chat_model"') < body.index('id="memory"')
    # Nothing follows the memory block inside Preferences.
    assert re.search(r'<section id="memory".*?</section>\s*</section>', body, re.S)


def test_opening_the_row_shows_every_fact_and_a_red_clear_action(user_client, user):
    remember({"user": user}, FACTS)
    body = text(user_client.get("/settings/?memory=open"))
    for fact in FACTS:
        assert f"<li>{fact}</li>" in body
    assert 'aria-expanded="true"' in body
    # A button (an action), not a link; without JavaScript its form loads the confirmation.
    assert re.search(r'<form class="memory-clear-form" method="get" action="/settings/memory/clear/">\s*'
                     r'<button type="submit" class="button danger memory-clear"[^>]*>Clear memory</button>',
                     body, re.S)
    assert DIALOG_TITLE in body and DIALOG_BODY in body


def test_htmx_gets_the_same_block_as_the_page(user_client, user):
    remember({"user": user}, FACTS)
    page = user_client.get("/settings/?memory=open").content.decode()
    fragment = user_client.get("/settings/memory/?memory=open", **HTMX)
    assert fragment.status_code == 200
    assert "<html" not in fragment.content.decode()
    assert memory_block(fragment.content.decode()) == memory_block(page)
    assert "HX-Request" in fragment["Vary"]
    closed = user_client.get("/settings/memory/", **HTMX).content.decode()
    assert memory_block(closed) == memory_block(user_client.get("/settings/").content.decode())


def test_without_htmx_the_block_address_leads_to_the_settings_page_in_that_state(user_client, user):
    remember({"user": user}, FACTS)
    response = user_client.get("/settings/memory/?memory=open")
    assert response.status_code == 302
    assert response["Location"] == "/settings/?memory=open#memory"
    assert "HX-Request" in response["Vary"]


def test_the_row_and_the_clear_button_work_without_javascript(user_client, user):
    remember({"user": user}, FACTS)
    closed = user_client.get("/settings/").content.decode()
    # The row is a button in a GET form: submitted without htmx it loads the page open.
    assert re.search(r'<form class="memory-row-form" method="get" action="/settings/#memory">\s*'
                     r'<input type="hidden" name="memory" value="open">\s*'
                     r'<button type="submit" class="memory-row"'
                     r'\s+hx-get="/settings/memory/\?memory=open"', closed)
    opened = user_client.get("/settings/?memory=open").content.decode()
    assert re.search(r'<form class="memory-row-form" method="get" action="/settings/#memory">\s*'
                     r'<button type="submit" class="memory-row"\s+hx-get="/settings/memory/"', opened)
    assert 'method="get" action="/settings/memory/clear/"' in opened


def test_with_nothing_stored_the_empty_text_replaces_the_row(user_client, user):
    for path in ("/settings/", "/settings/?memory=open"):
        body = text(user_client.get(path))
        assert EMPTY in body
        assert "What Whizi remembers" not in body
        assert "Clear memory" not in body
    remember({"user": user}, [])
    assert EMPTY in text(user_client.get("/settings/?memory=open"))


def test_fact_text_is_escaped(user_client, user):
    remember({"user": user}, ["<script>alert(1)</script>", 'Likes "quotes" & <b>tags</b>'])
    body = user_client.get("/settings/?memory=open").content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>" in body
    assert "<b>tags</b>" not in body


def test_the_confirmation_page_asks_first(user_client, user):
    remember({"user": user}, FACTS)
    response = user_client.get("/settings/memory/clear/")
    body = text(response)
    assert response.status_code == 200
    assert DIALOG_TITLE in body and DIALOG_BODY in body
    assert '<dialog id="memory-clear-dialog"' in body and " open>" in body
    assert 'method="post" action="/settings/memory/clear/"' in body
    # Cancel is a button whose form goes back to the open list.
    assert re.search(r'<form id="memory-clear-cancel" method="get" action="/settings/#memory">\s*'
                     r'<input type="hidden" name="memory" value="open">', body)
    assert re.search(r'<button type="submit" form="memory-clear-cancel"[^>]*>Cancel</button>', body)
    assert Memory.objects.get(user=user).lines == FACTS


def test_confirming_without_javascript_clears_and_shows_the_empty_state(user_client, user):
    remember({"user": user}, FACTS)
    response = user_client.post("/settings/memory/clear/")
    assert response.status_code == 302
    assert response["Location"] == "/settings/#memory"
    assert Memory.objects.get(user=user).lines == []
    body = text(user_client.get(response["Location"]))
    assert EMPTY in body
    assert 'role="status"' in body
    assert "<li>Memory cleared</li><li>Whizi no longer remembers anything about you.</li>" in body
    for fact in FACTS:
        assert fact not in body


def test_confirming_with_htmx_re_renders_the_block_empty(user_client, user):
    remember({"user": user}, FACTS)
    response = user_client.post("/settings/memory/clear/", **HTMX)
    assert response.status_code == 200
    body = text(response)
    assert body.lstrip().startswith('<section id="memory"')
    assert EMPTY in body
    assert "Clear memory" not in body
    assert Memory.objects.get(user=user).lines == []


def test_the_dialog_form_posts_with_htmx_and_a_csrf_token(user_client, user):
    remember({"user": user}, FACTS)
    body = user_client.get("/settings/?memory=open").content.decode()
    dialog = re.search(r"<dialog.*?</dialog>", body, re.S).group(0)
    assert 'hx-post="/settings/memory/clear/" hx-target="#memory" hx-swap="outerHTML"' in dialog
    assert 'name="csrfmiddlewaretoken"' in dialog
    assert "hx-headers" in body and "x-csrftoken" in body


def test_clearing_needs_the_csrf_token(user):
    remember({"user": user}, FACTS)
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/settings/memory/clear/").status_code == 403
    assert Memory.objects.get(user=user).lines == FACTS
    client.get("/settings/")
    token = client.cookies["csrftoken"].value
    response = client.post("/settings/memory/clear/", HTTP_X_CSRFTOKEN=token, **HTMX)
    assert response.status_code == 200
    assert Memory.objects.get(user=user).lines == []


def test_clearing_touches_only_the_requesters_memory(user_client, user):
    other = make_user("other")
    remember({"user": user}, FACTS)
    remember({"user": other}, ["Other person's fact"])
    body = text(user_client.get("/settings/?memory=open"))
    assert "Other person's fact" not in body
    user_client.post("/settings/memory/clear/")
    assert Memory.objects.get(user=other).lines == ["Other person's fact"]


def test_a_guest_sees_and_clears_their_own_memory(client):
    client.get("/settings/")
    guest = Guest.objects.get(pk=guest_start(client).guest_id)
    remember({"guest": guest}, ["Guest likes tea"])
    assert "<li>Guest likes tea</li>" in text(client.get("/settings/?memory=open"))
    assert "Guest likes tea" not in text(Client().get("/settings/?memory=open"))
    client.post("/settings/memory/clear/")
    assert Memory.objects.get(guest=guest).lines == []


def test_the_block_speaks_the_request_language(user_client, user):
    remember({"user": user}, FACTS)
    body = text(user_client.get("/settings/?memory=open", HTTP_ACCEPT_LANGUAGE="ja"))
    assert "Whiziが記憶している内容" in body
    assert "メモリを消去" in body
    assert "Whiziのメモリを消去しますか？" in body
    assert '<html lang="ja">' in body


# Failures: the store really fails (a lock held by another database session), and
# nothing is deleted.


@pytest.mark.django_db(transaction=True)
def test_a_failed_read_says_so_and_shows_no_list(user_client, user):
    remember({"user": user}, FACTS)
    with memory_unreadable():
        page = user_client.get("/settings/?memory=open")
        fragment = user_client.get("/settings/memory/?memory=open", **HTMX)
    for response in (page, fragment):
        body = text(response)
        assert READ_FAILED in body
        assert 'role="alert"' in body
        for fact in FACTS:
            assert fact not in body
        assert "What Whizi remembers" not in body
        assert "Clear memory" not in body
    assert Memory.objects.get(user=user).lines == FACTS
    assert "<li>Name is Mai Nguyen</li>" in text(user_client.get("/settings/?memory=open"))


@pytest.mark.django_db(transaction=True)
def test_a_failed_clear_with_htmx_leaves_the_list_on_screen_and_in_memory(user_client, user):
    remember({"user": user}, FACTS)
    with memory_row_locked(Owner(user_id=user.pk)):
        response = user_client.post("/settings/memory/clear/", **HTMX)
    assert response.status_code == 503
    # Only the alert slot changes; the list on screen is not swapped.
    assert response["HX-Retarget"] == "#memory-clear-error"
    assert response["HX-Reswap"] == "innerHTML"
    assert text(response).strip() == CLEAR_FAILED
    assert Memory.objects.get(user=user).lines == FACTS
    # Clearing again works once the store is back.
    assert user_client.post("/settings/memory/clear/", **HTMX).status_code == 200
    assert Memory.objects.get(user=user).lines == []


@pytest.mark.django_db(transaction=True)
def test_a_failed_clear_without_javascript_says_so_and_offers_to_try_again(user_client, user):
    remember({"user": user}, FACTS)
    with memory_row_locked(Owner(user_id=user.pk)):
        response = user_client.post("/settings/memory/clear/")
    assert response.status_code == 503
    body = text(response)
    assert CLEAR_FAILED in body
    assert 'method="post" action="/settings/memory/clear/"' in body
    assert Memory.objects.get(user=user).lines == FACTS
    listed = text(user_client.get("/settings/?memory=open"))
    for fact in FACTS:
        assert f"<li>{fact}</li>" in listed


def test_the_settings_page_answers_the_failed_clear_htmx_response(user_client, user):
    """htmx leaves 4xx and 5xx answers unswapped by default: the base layout tells it to swap
    them, and the list names the slot its errors go to (static/js/whizi.js)."""
    remember({"user": user}, FACTS)
    body = html.unescape(user_client.get("/settings/?memory=open").content.decode())
    assert '{"code": "[45]..", "swap": true, "error": true}' in body
    assert 'data-error-slot="#memory-clear-error"' in body
    assert '<div id="memory-clear-error" class="memory-error" role="alert"></div>' in body

