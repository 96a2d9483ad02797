"""Pages cannot load anything from elsewhere, so a planted line cannot exfiltrate data."""

import pytest

pytestmark = pytest.mark.django_db


def test_every_page_sends_a_same_origin_content_security_policy(client):
    for path in ("/", "/accounts/login/", "/accounts/signup/"):
        policy = client.get(path)["Content-Security-Policy"]
        assert "default-src 'self'" in policy
        assert "img-src 'self' data:" in policy
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert "frame-ancestors 'none'" in policy
