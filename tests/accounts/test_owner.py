"""Guests get one identity per session, created lazily; the owner helper resolves both kinds."""

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory

from accounts.models import Guest
from accounts.owner import GUEST_SESSION_KEY, Owner, owner_for_request

pytestmark = pytest.mark.django_db


def test_a_visitor_gets_a_guest_identity_on_first_use(client):
    assert Guest.objects.count() == 0
    response = client.get("/")
    assert response.status_code == 200
    assert Guest.objects.count() == 1
    assert client.session[GUEST_SESSION_KEY] == str(Guest.objects.get().pk)


def test_the_guest_identity_is_stable_across_requests(client):
    client.get("/")
    first = client.session[GUEST_SESSION_KEY]
    client.get("/")
    client.get("/")
    assert client.session[GUEST_SESSION_KEY] == first
    assert Guest.objects.count() == 1


def test_two_visitors_get_two_guests(client):
    from django.test import Client

    client.get("/")
    Client().get("/")
    assert Guest.objects.count() == 2


def test_a_page_that_needs_no_owner_creates_no_guest(client):
    client.get("/accounts/login/")
    assert Guest.objects.count() == 0


def test_a_removed_guest_is_replaced_with_a_fresh_one(client):
    client.get("/")
    Guest.objects.all().delete()
    client.get("/")
    assert Guest.objects.count() == 1
    assert client.session[GUEST_SESSION_KEY] == str(Guest.objects.get().pk)


def test_the_owner_of_a_signed_in_request_is_the_user(client):
    user = get_user_model().objects.create_user("ann", "ann@example.com", "pw-123456")
    client.force_login(user)
    request = RequestFactory().get("/")
    request.user = user
    request.session = client.session
    owner = owner_for_request(request)
    assert owner == Owner(user_id=user.pk)
    assert owner.lookup == {"user_id": user.pk}
    assert Guest.objects.count() == 0


def test_the_owner_of_a_guest_request_is_the_guest(client):
    client.get("/")
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    request.session = client.session
    owner = owner_for_request(request)
    assert owner.is_guest
    assert owner.lookup == {"guest_id": Guest.objects.get().pk}
    assert owner.key == f"guest:{Guest.objects.get().pk}"


def test_an_owner_is_exactly_one_of_user_or_guest():
    with pytest.raises(ValueError):
        Owner()
    with pytest.raises(ValueError):
        Owner(user_id=1, guest_id=Guest().pk)
