"""Guests: one identity per session, made only when the visitor first does something that
must be kept; reading, refused requests and 404s write no row."""

import json

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.models import Session
from django.test import Client, RequestFactory

from accounts.models import Guest, Preference
from accounts.owner import GUEST_SESSION_KEY, Owner, owner_for_write, owner_seen
from accounts.preferences import chat_models
from chat.models import Conversation

from ..conftest import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def _rows() -> tuple[int, int]:
    return Guest.objects.count(), Session.objects.count()


def _send(client: Client, text: str = "Hello there"):
    return client.post("/send/", {"content": text})


def test_a_visitor_who_only_reads_gets_no_guest_and_no_session(client):
    client.get("/")  # sets the csrftoken cookie, as a browser would keep it
    token = client.cookies["csrftoken"].value
    responses = [
        client.get("/"),
        client.get("/settings/"),
        client.get("/settings/?memory=open"),
        client.get("/api/memory/"),
        client.get("/c/1/"),
        client.get("/no-such-page/"),
        client.get("/api/conversations/"),  # the list: empty
        client.post("/api/conversations/1/messages/", data='{"content": "hi"}',
                    content_type="application/json", headers={"X-CSRFToken": token}),
        client.delete("/api/memory/", headers={"X-CSRFToken": token}),
    ]

    assert [r.status_code for r in responses] == [200, 200, 200, 200, 404, 404, 200, 404, 200]
    assert _rows() == (0, 0)
    assert client.get("/api/memory/").json()["facts"] == []


def test_a_request_refused_by_its_rate_limit_writes_no_row(client, settings):
    settings.WHIZI_RATE_LIMITS_ENABLED = True
    settings.WHIZI_RATE_LIMITS = {**settings.WHIZI_RATE_LIMITS, "chat_message": (0, 0)}

    response = _send(client)

    assert response.status_code == 429
    assert _rows() == (0, 0)


def test_a_refused_message_makes_no_guest(client):
    response = _send(client, "   ")

    assert response.status_code == 400
    assert _rows() == (0, 0)


def test_the_first_message_makes_the_guest_and_its_session(client):
    response = _send(client)

    assert response.status_code == 302
    guest = Guest.objects.get()
    assert client.session[GUEST_SESSION_KEY] == str(guest.pk)
    assert Conversation.objects.get().guest_id == guest.pk
    assert Session.objects.count() == 1


def test_saving_a_preference_makes_the_guest(client):
    client.get("/settings/")
    response = client.post("/settings/", {"language": "vi", "chat_model": chat_models()[0]})

    assert response.status_code == 302
    assert Preference.objects.get().guest_id == Guest.objects.get().pk


def test_the_guest_identity_is_stable_across_requests(client):
    _send(client)
    first = client.session[GUEST_SESSION_KEY]
    _send(client, "And again")
    client.get("/")
    assert client.session[GUEST_SESSION_KEY] == first
    assert Guest.objects.count() == 1
    assert Conversation.objects.filter(guest_id=first).count() == 2


def test_a_guest_who_only_reads_is_still_seen(client):
    _send(client)
    guest = Guest.objects.get()
    Guest.objects.update(last_seen_at=guest.created_at)

    client.get("/")

    assert Guest.objects.get().last_seen_at > guest.created_at


def test_two_visitors_get_two_guests(client):
    _send(client)
    _send(Client())
    assert Guest.objects.count() == 2


def test_a_removed_guest_is_replaced_on_the_next_write_only(client):
    _send(client)
    Guest.objects.all().delete()

    client.get("/")
    assert Guest.objects.count() == 0
    _send(client)

    assert client.session[GUEST_SESSION_KEY] == str(Guest.objects.get().pk)


def test_the_owner_of_a_signed_in_request_is_the_user(client):
    user = make_user("ann", "ann@example.com")
    request = RequestFactory().get("/")
    request.user = user
    request.session = client.session

    assert owner_seen(request) == Owner(user_id=user.pk)
    assert owner_for_write(request).lookup == {"user_id": user.pk}
    assert Guest.objects.count() == 0


def test_the_owner_of_a_guest_request_is_the_guest(client):
    _send(client)
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    request.session = client.session

    owner = owner_seen(request)

    assert owner.is_guest
    assert owner.lookup == {"guest_id": Guest.objects.get().pk}
    assert owner.key == f"guest:{Guest.objects.get().pk}"


def test_the_api_makes_the_guest_with_the_first_conversation(client):
    client.get("/")
    response = client.post("/api/conversations/", data=json.dumps({}), content_type="application/json",
                           headers={"X-CSRFToken": client.cookies["csrftoken"].value})

    assert response.status_code == 201
    assert Conversation.objects.get(pk=response.json()["id"]).guest_id == Guest.objects.get().pk


def test_an_owner_is_exactly_one_of_user_or_guest():
    with pytest.raises(ValueError):
        Owner()
    with pytest.raises(ValueError):
        Owner(user_id=1, guest_id=Guest().pk)
