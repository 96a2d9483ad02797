"""Settings come from the environment, and production settings pass `check --deploy`."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

PRINT_SETTINGS = """
import json, django
from django.conf import settings
django.setup()
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "name": str(db["NAME"]), "debug": settings.DEBUG,
    "secret": settings.SECRET_KEY, "hosts": settings.ALLOWED_HOSTS,
    "broker": settings.CELERY_BROKER_URL, "cache": settings.CACHES["default"]["LOCATION"],
    "chat_models": settings.WHIZI_CHAT_MODELS, "memory_model": settings.WHIZI_MEMORY_MODEL,
    "providers": sorted(settings.WHIZI_LLM_PROVIDERS),
}))
"""


def _run(env_overrides: dict[str, str], code: str = PRINT_SETTINGS) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHIZI_", "DATABASE_URL",
                                                                     "REDIS", "SECRET_KEY",
                                                                     "DEBUG", "ALLOWED_HOSTS"))}
    env["DJANGO_SETTINGS_MODULE"] = "whizi.settings"
    env.update(env_overrides)
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _settings(env_overrides: dict[str, str]) -> dict:
    result = _run(env_overrides)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_it_runs_on_the_embedded_default_with_nothing_set():
    s = _settings({})
    assert s["engine"] == "django.db.backends.sqlite3"
    assert s["name"].endswith("var/whizi.sqlite3")
    assert s["debug"] is False
    assert len(s["secret"]) >= 50
    assert s["chat_models"] == ["whizi/offline"]
    assert s["memory_model"] == "whizi/offline"
    assert s["broker"] == "redis://127.0.0.1:6379/0"
    assert s["providers"] == ["whizi"]  # the suite's scripted provider only under tests.settings


@pytest.mark.slow
def test_it_reads_every_setting_from_the_environment():
    s = _settings({
        "DATABASE_URL": "postgres://alice:pw@db.internal:6543/whizi",
        "REDIS_URL": "redis://cache.internal:6380/2",
        "SECRET_KEY": "k" * 60,
        "DEBUG": "true",
        "ALLOWED_HOSTS": "whizi.example,api.whizi.example",
        "WHIZI_CHAT_MODELS": "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest",
        "WHIZI_MEMORY_MODEL": "openai/gpt-4o-mini",
    })
    assert s["engine"] == "django.db.backends.postgresql"
    assert s["name"] == "whizi"
    assert s["debug"] is True
    assert s["secret"] == "k" * 60
    assert s["hosts"] == ["whizi.example", "api.whizi.example"]
    assert s["chat_models"] == ["openai/gpt-4o-mini", "anthropic/claude-3-5-haiku-latest"]
    assert s["memory_model"] == "openai/gpt-4o-mini"
    # Broker and cache live in separate Redis databases.
    assert s["broker"] == "redis://cache.internal:6380/2"
    assert s["cache"] == "redis://cache.internal:6380/3"


def test_a_bad_boolean_fails_loudly():
    result = _run({"DEBUG": "maybe"})
    assert result.returncode != 0
    assert "DEBUG must be true or false" in result.stderr


@pytest.mark.parametrize(("env", "error"), [
    ({"WHIZI_LOG_FORMAT": "xml"}, "WHIZI_LOG_FORMAT must be text or json"),
    ({"WHIZI_METRICS_TOKEN": "short"}, "WHIZI_METRICS_TOKEN must be at least 16 characters"),
    ({"WHIZI_METRICS_ALLOW": "10.0.0.0/8,intranet"}, "WHIZI_METRICS_ALLOW must list addresses or networks"),
    ({"WHIZI_WORKER_METRICS_PORT": "9808", "PROMETHEUS_MULTIPROC_DIR": ""},
     "WHIZI_WORKER_METRICS_PORT needs PROMETHEUS_MULTIPROC_DIR"),
], ids=["log-format", "short-token", "allowlist", "worker-port"])
def test_a_bad_logging_or_metrics_setting_fails_loudly(env, error):
    result = _run(env)
    assert result.returncode != 0
    assert error in result.stderr


@pytest.mark.slow
def test_production_settings_pass_check_deploy():
    env = {
        "SECRET_KEY": "prod-" + "x9Q!z" * 12,
        "DEBUG": "false",
        "WHIZI_HTTPS": "true",
        "ALLOWED_HOSTS": "whizi.example",
        "DATABASE_URL": os.environ.get("DATABASE_URL", ""),
        # Production runs real models (the offline memory model is refused: tests/whizi/test_checks.py).
        "WHIZI_CHAT_MODELS": "openai/gpt-4o-mini",
        "WHIZI_MEMORY_MODEL": "openai/gpt-4o-mini",
        "OPENAI_API_KEY": "sk-production",
    }
    result = _run(env, code=(
        "import sys; from django.core.management import execute_from_command_line;"
        "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])"
    ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


GUEST_ON_SQLITE = """
import json, django
django.setup()
from django.db import connection
from django.test import Client
from django.test.utils import setup_test_environment
from accounts.preferences import chat_models
from chat.models import Conversation

setup_test_environment()
connection.creation.create_test_db(verbosity=0)  # in memory: var/whizi.sqlite3 is untouched
browser = Client()
json_post = dict(content_type="application/json")
answers = {
    "home": browser.get("/").status_code,
    "message": browser.post("/send/", {"content": "My name is Mai. Remember that."}).status_code,
    "conversation": browser.post("/api/conversations/", "{}", **json_post).status_code,
    "voice": browser.post("/api/voice/sessions/", "{}", **json_post).status_code,
    "project": browser.post("/projects/", {"name": "Trip to Hue"}).status_code,
    "preferences": browser.post("/settings/", {"language": "vi", "chat_model": chat_models()[0]}).status_code,
    "clear": browser.post("/settings/memory/clear/").status_code,
    "signup": browser.post("/accounts/signup/", {"email": "mai@example.com",
                                                  "password1": "a-long-pass-phrase",
                                                  "password2": "a-long-pass-phrase"}).status_code,
}
answers["conversations_of_the_account"] = Conversation.objects.filter(user__email="mai@example.com").count()
print(json.dumps(answers))
"""


@pytest.mark.slow
def test_a_guests_every_write_works_on_the_embedded_sqlite_default():
    """`make run` serves SQLite: the owner lock and everything a guest keeps work there too."""
    redis = {"REDIS_URL": os.environ["REDIS_URL"]}  # this test's own Redis for the broker
    result = _run(redis, GUEST_ON_SQLITE)

    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    assert answers == {"home": 200, "message": 302, "conversation": 201, "voice": 201, "project": 302,
                       "preferences": 302, "clear": 302, "signup": 302, "conversations_of_the_account": 2}
