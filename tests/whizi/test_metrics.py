"""/metrics is for the operator's scraper only (whizi.probes): not there at all until a
token or an allowlist is set, then refused to everyone without it.

Personas: a visitor (no token, any address); the scraper (the bearer token, or an address
in WHIZI_METRICS_ALLOW).
"""

import re
from pathlib import Path

import pytest
import yaml
from django.test import Client
from prometheus_client.metrics import MetricWrapperBase

from accounts.models import Guest
from memory.selectors import pass_queue_gauges
from whizi import metrics

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


def test_every_alert_in_deploy_md_reads_a_metric_whizi_exports(settings):
    """docs/DEPLOY.md's example rules: valid Prometheus rule YAML, each over series whizi
    exports (a renamed metric would leave an alert that never fires)."""
    text = (Path(settings.BASE_DIR) / "docs" / "DEPLOY.md").read_text(encoding="utf-8")
    section = text.split("## Alerts worth having", 1)[1]
    rules = yaml.safe_load(section.split("```yaml", 1)[1].split("```", 1)[0])["groups"][0]["rules"]
    suffixes = {"counter": ["_total"], "histogram": ["_count", "_sum", "_bucket"]}
    exported = {metric._name + suffix for metric in vars(metrics).values()
                if isinstance(metric, MetricWrapperBase) for suffix in suffixes[metric._type]}
    exported |= {name for name, _help, _value in pass_queue_gauges()}

    wanted = {"WhiziStreamedRepliesFailing", "WhiziMemoryReadsSkipped", "WhiziMemoryPassesWaiting",
              "WhiziMemoryChangesRefused"}
    assert wanted <= {rule["alert"] for rule in rules}
    for rule in rules:
        assert rule["expr"] and rule["annotations"]["summary"]
        for series in re.findall(r"\bwhizi_[a-z_]+", rule["expr"]):
            assert series in exported, f"{rule['alert']} reads {series}, which whizi does not export"
