"""Production requires a verified address to sign in; `make run` and the tests do not.

Each case starts Django in a fresh process with exactly the environment given, as a
deployment would, and reports the setting and what `check --deploy` says about it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"SECRET_KEY": "prod-" + "x9Q!z" * 12, "DEBUG": "false", "WHIZI_HTTPS": "true",
              "ALLOWED_HOSTS": "whizi.example"}
REPORT = """
import json, django
django.setup()
from django.conf import settings
from django.core.checks import run_checks
found = run_checks(include_deployment_checks=True, tags=["whizi_accounts"])
print(json.dumps({"verification": settings.ACCOUNT_EMAIL_VERIFICATION,
                  "checks": [f"{c.id}: {c.msg}" for c in found]}))
"""


def _report(env_overrides: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WHIZI_", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "EMAIL_"))}
    env["DJANGO_SETTINGS_MODULE"] = "whizi.settings"
    env.update(env_overrides)
    return subprocess.run([sys.executable, "-c", REPORT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _settings(env_overrides: dict[str, str]) -> dict:
    result = _report(env_overrides)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("env", "verification"), [
    ({}, "optional"),
    ({"DEBUG": "true", "WHIZI_HTTPS": "true"}, "optional"),
    (PRODUCTION, "mandatory"),
    ({**PRODUCTION, "WHIZI_EMAIL_VERIFICATION": "optional"}, "optional"),
    ({"WHIZI_EMAIL_VERIFICATION": "Mandatory"}, "mandatory"),
], ids=["make-run", "debug", "production", "production-opted-out", "chosen-locally"])
def test_verification_is_mandatory_in_production_unless_the_operator_opts_out(env, verification):
    assert _settings(env)["verification"] == verification


def test_the_deploy_check_warns_when_production_lets_unverified_addresses_in():
    opted_out = _settings({**PRODUCTION, "WHIZI_EMAIL_VERIFICATION": "optional"})["checks"]
    default = _settings(PRODUCTION)["checks"]

    assert len(opted_out) == 1 and opted_out[0].startswith("lifecycle.W001: Email verification is 'optional'")
    assert default == []


def test_an_unknown_verification_mode_fails_loudly():
    result = _report({"WHIZI_EMAIL_VERIFICATION": "sometimes"})

    assert result.returncode != 0
    assert "WHIZI_EMAIL_VERIFICATION must be none, optional or mandatory" in result.stderr
