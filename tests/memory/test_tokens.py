"""Tokens are counted with o200k_base, offline: no network is touched."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.tokens import count_list_tokens, count_tokens

ROOT = Path(__file__).resolve().parents[2]

NO_NETWORK = """
import socket
def refuse(*a, **k):
    raise OSError("network used")
socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
import whizi  # sets TIKTOKEN_CACHE_DIR and LITELLM_LOCAL_MODEL_COST_MAP
from memory.tokens import count_tokens
print(count_tokens("Tên tôi là Nguyễn Thị Mai. 我叫小明。"))
import litellm  # must not reach for the cost map online either
print("ok")
"""


@pytest.mark.slow
def test_it_counts_tokens_with_no_network():
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR",)}
    env["DJANGO_SETTINGS_MODULE"] = "whizi.settings"
    result = subprocess.run([sys.executable, "-c", NO_NETWORK], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    count, ok = result.stdout.split()[-2:]
    assert int(count) > 5
    assert ok == "ok"


def test_it_uses_o200k_base():
    # "hello world" is 2 tokens in o200k_base; a list renders as "- " bullets.
    assert count_tokens("hello world") == 2
    assert count_list_tokens([]) == 0
    assert count_list_tokens(["hello world"]) == count_tokens("- hello world")
