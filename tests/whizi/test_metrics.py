"""/metrics is for the operator's scraper only (whizi.probes): not there at all until a
token or an allowlist is set, then refused to everyone without it.

Personas: a visitor (no token, any address); the scraper (the bearer token, or an address
in WHIZI_METRICS_ALLOW).
"""

import pytest
from django.test import Client

from accounts.models import Guest

pytestmark = pytest.mark.django_db

TOKEN = "scrape-3f9a7c1e5b2d4a60"


def test_a_visitor_cannot_read_the_metrics_in_the_default_configuration():
    response = Client().get("/metrics")

    assert response.status_code == 404
    assert b"whizi_" not in response.content


def test_with_a_token_only_the_scraper_that_sends_it_reads_the_metrics(settings):
    settings.WHIZI_METRICS_TOKEN = TOKEN
    client = Client()

    assert client.get("/metrics").status_code == 403
    wrong = {"Authorization": "Bearer wrong-token-wrong-token"}
    assert client.get("/metrics", headers=wrong).status_code == 403
    response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert b"# TYPE whizi_http_request_duration_seconds histogram" in response.content
    assert not response.cookies and Guest.objects.count() == 0


def test_with_an_allowlist_only_those_addresses_read_the_metrics(settings):
    settings.WHIZI_METRICS_ALLOW = ["10.20.0.0/16", "192.0.2.7"]

    assert Client().get("/metrics").status_code == 403  # the test client's 127.0.0.1
    assert Client(REMOTE_ADDR="10.20.3.4").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="192.0.2.7").get("/metrics").status_code == 200


def test_with_both_the_scraper_needs_the_token_and_an_allowed_address(settings):
    settings.WHIZI_METRICS_TOKEN = TOKEN
    settings.WHIZI_METRICS_ALLOW = ["10.20.0.0/16"]
    bearer = {"Authorization": f"Bearer {TOKEN}"}

    assert Client(REMOTE_ADDR="10.20.3.4").get("/metrics").status_code == 403
    assert Client().get("/metrics", headers=bearer).status_code == 403
    assert Client(REMOTE_ADDR="10.20.3.4").get("/metrics", headers=bearer).status_code == 200
