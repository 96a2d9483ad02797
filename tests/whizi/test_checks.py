"""Start-up checks of the model configuration: `manage.py check` warns, `check --deploy`
refuses what would break users (whizi.checks)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "SECRET_KEY": "prod-" + "x9Q!z" * 12, "DEBUG": "false", "WHIZI_HTTPS": "true",
    "ALLOWED_HOSTS": "whizi.example",
}


def check(env_overrides: dict[str, str | None], *args: str) -> subprocess.CompletedProcess:
    """`manage.py check` with these variables set (None: unset)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("WHIZI_", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "OPENAI_", "ANTHROPIC_",
                                "OLLAMA_"))}
    env.update(env_overrides)
    env = {name: value for name, value in env.items() if value is not None}
    return subprocess.run([sys.executable, "manage.py", "check", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


def test_the_embedded_default_passes_the_plain_check():
    result = check({})

    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_unknown_providers_missing_keys_and_unknown_windows_are_warnings():
    result = check({"WHIZI_CHAT_MODELS": "openai/gpt-4o-mini,acme/foo,ollama_chat/llama3.1",
                    "WHIZI_MEMORY_MODEL": "anthropic/claude-3-5-haiku-latest"})
    out = result.stderr

    assert result.returncode == 0, out  # warnings do not stop a start
    assert "(whizi.W001) Model 'acme/foo': litellm knows no provider 'acme'" in out
    assert "(whizi.W002) Model 'openai/gpt-4o-mini': OPENAI_API_KEY not set" in out
    assert "(whizi.W002) Model 'anthropic/claude-3-5-haiku-latest': ANTHROPIC_API_KEY not set" in out
    assert "(whizi.W003) Model 'ollama_chat/llama3.1': context window unknown" in out
    assert "W003) Model 'openai/gpt-4o-mini'" not in out  # litellm knows its window


def test_a_models_file_names_the_key_variable_and_the_window(tmp_path):
    models = tmp_path / "models.toml"
    models.write_text('chat_models = ["local"]\nmemory_model = "local"\n\n[models.local]\n'
                      'model = "openai/llama-3.1-8b"\napi_base = "http://127.0.0.1:9/v1"\n'
                      'api_key_env = "LOCAL_LLM_KEY"\ncontext_window = 32768\n')

    missing = check({"WHIZI_MODELS_FILE": str(models)})
    present = check({"WHIZI_MODELS_FILE": str(models), "LOCAL_LLM_KEY": "none"})

    assert "(whizi.W002) Model 'local': LOCAL_LLM_KEY not set" in missing.stderr
    assert "W003" not in missing.stderr
    assert "no issues" in present.stdout, present.stderr


@pytest.mark.parametrize(("env", "error"), [
    ({"WHIZI_CHAT_MODELS": "openai/gpt-4o-mini", "WHIZI_MEMORY_MODEL": "openai/gpt-4o-mini"},
     "(whizi.E002) Model 'openai/gpt-4o-mini': OPENAI_API_KEY not set"),
    ({"WHIZI_CHAT_MODELS": "acme/foo", "WHIZI_MEMORY_MODEL": "openai/gpt-4o-mini", "OPENAI_API_KEY": "sk"},
     "(whizi.E001) Model 'acme/foo'"),
    ({"WHIZI_CHAT_MODELS": "openai/gpt-4o-mini", "OPENAI_API_KEY": "sk"},
     "(whizi.E004) The memory model is the offline model."),
], ids=["missing-key", "unknown-provider", "offline-memory-model"])
def test_the_deploy_check_refuses_what_would_break_users(env, error):
    result = check({**PRODUCTION, **env}, "--deploy")

    assert result.returncode != 0
    assert error in result.stderr


def test_the_deploy_check_warns_when_metrics_are_on_without_a_shared_directory():
    env = {**PRODUCTION, "WHIZI_METRICS_TOKEN": "scrape-3f9a7c1e5b2d4a60"}
    alone = check({**env, "PROMETHEUS_MULTIPROC_DIR": None}, "--deploy")
    shared = check(env, "--deploy")  # the suite's own directory (tests/isolation.py)

    assert "(whizi.W005) Metrics are on but PROMETHEUS_MULTIPROC_DIR is not set" in alone.stderr
    assert "W005" not in shared.stderr
