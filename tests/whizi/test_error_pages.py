"""Error answers: the product's own page in the visitor's language for people, a fragment
for htmx, and JSON `{"error": {"title", "message"}}` on the API."""


import pytest
from django.test import Client, RequestFactory

from chat.models import Conversation
from tests.db_faults import table_missing
from whizi.views import server_error

pytestmark = pytest.mark.django_db


def test_a_missing_page_is_the_products_page_in_the_visitors_language(client):
    response = client.get("/no-such-page/", headers={"Accept-Language": "vi"})
    assert response.status_code == 404
    body = response.content.decode()
    assert 'class="topbar"' in body and "Không tìm thấy trang" in body
    assert 'href="/"' in body


def test_a_missing_api_address_answers_json(client):
    response = client.get("/api/no-such-thing/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    error = {"title": "Not found", "message": "There is nothing at this address."}
    assert response.json() == {"error": error}


def test_htmx_gets_a_fragment_it_can_show_in_place(client):
    response = client.get("/no-such-page/", headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 404
    assert "<html" not in body and 'class="alert"' in body and "Page not found" in body


def test_a_server_error_page_needs_no_database_and_the_api_gets_json():
    page = server_error(RequestFactory().get("/"))
    assert page.status_code == 500 and b"Something went wrong" in page.content
    api = server_error(RequestFactory().get("/api/memory/"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"


@pytest.mark.django_db(transaction=True)
def test_a_server_error_on_the_api_is_a_json_500():
    client = Client(raise_request_exception=False)
    client.get("/api/memory/")  # the csrftoken cookie, as the app reads it first
    with table_missing(Conversation):
        response = client.post("/api/conversations/", data="{}", content_type="application/json",
                               headers={"X-CSRFToken": client.cookies["csrftoken"].value})
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["title"] == "Something went wrong"
