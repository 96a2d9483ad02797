"""The web process loads what a model call needs as it starts, with no call to a
provider, so the first chats after a deploy don't pay for it on the shared event loop."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

# Loaded by litellm on its first real call (cost tables' tokenizer, the OpenAI client's
# stream and response handling), not by importing it.
LOADED_ON_FIRST_CALL = [
    "litellm.litellm_core_utils.default_encoding",
    "litellm.litellm_core_utils.streaming_handler",
]

PRINT_LOADED = f"""
import json, sys
import whizi.asgi
print(json.dumps({{name: name in sys.modules for name in {LOADED_ON_FIRST_CALL!r}}}))
"""


def _start_web_process(env_overrides: dict[str, str]) -> dict[str, bool]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "whizi.settings", **env_overrides}
    result = subprocess.run([sys.executable, "-c", PRINT_LOADED], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_web_process_is_ready_for_its_first_chat_without_calling_a_provider(fake_provider):
    loaded = _start_web_process({"WHIZI_CHAT_MODELS": "openai/chat-a"})

    assert loaded == dict.fromkeys(LOADED_ON_FIRST_CALL, True)
    assert fake_provider.models() == []  # nothing reached the provider


def test_the_web_process_starts_with_no_provider_configured():
    env = {"OPENAI_API_KEY": "", "OPENAI_API_BASE": "", "WHIZI_CHAT_MODELS": ""}
    assert all(_start_web_process(env).values())
