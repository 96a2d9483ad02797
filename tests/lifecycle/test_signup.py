"""Email signup, login and logout under /accounts/, in the site's own templates."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_signup_creates_a_user_and_signs_them_in(client):
    page = client.get("/accounts/signup/")
    assert page.status_code == 200
    assert b'class="topbar"' in page.content  # the site's layout, not allauth's bare one
    response = client.post("/accounts/signup/", {
        "email": "mai@example.com", "password1": "a-long-pass-phrase", "password2": "a-long-pass-phrase",
    })
    assert response.status_code == 302
    user = get_user_model().objects.get(email="mai@example.com")
    assert client.session["_auth_user_id"] == str(user.pk)


def test_login_and_logout(client):
    get_user_model().objects.create_user("bo", "bo@example.com", "a-long-pass-phrase")
    response = client.post("/accounts/login/", {"login": "bo@example.com", "password": "a-long-pass-phrase"})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session
    client.post("/accounts/logout/")
    assert "_auth_user_id" not in client.session


def test_admin_is_served_under_admin(client):
    response = client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
