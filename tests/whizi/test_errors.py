"""Every refusal on /api/ is the one JSON shape, `{"error": {"title", "message"}}`, with its
status: an address that does not exist and a server error included. Pages keep HTML."""

import contextlib

import psycopg
import pytest
from django.db import connection
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)


def error_of(response) -> dict:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and {"title", "message"} <= set(body["error"])
    return body["error"]


def test_an_unknown_api_address_is_a_json_404():
    response = Client().get("/api/nothing-here/")
    assert response.status_code == 404
    assert error_of(response)["title"] == "Not found"


def test_an_unknown_page_is_still_an_html_404():
    response = Client().get("/nothing-here/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@contextlib.contextmanager
def conversations_table_gone():
    db = connection.settings_dict
    with psycopg.connect(dbname=db["NAME"], user=db["USER"] or "postgres", host=db["HOST"] or "127.0.0.1",
                         port=db["PORT"] or 5432, autocommit=True) as other:
        other.execute("ALTER TABLE chat_conversation RENAME TO chat_conversation_away")
        try:
            yield
        finally:
            other.execute("ALTER TABLE chat_conversation_away RENAME TO chat_conversation")


def test_a_server_error_on_the_api_is_a_json_500():
    client = Client(raise_request_exception=False)
    client.get("/api/memory/")  # the csrftoken cookie, as the app reads it first
    with conversations_table_gone():
        response = client.post("/api/conversations/", data="{}", content_type="application/json",
                               headers={"X-CSRFToken": client.cookies["csrftoken"].value})
    assert response.status_code == 500
    assert error_of(response)["title"] == "Something went wrong"
