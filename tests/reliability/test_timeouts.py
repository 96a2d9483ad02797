"""Every model call and every task ends well before the broker would hand its message to
a second worker (the visibility timeout), so a slow pass is never run twice at once, and
a delayed retry is never mistaken for a lost one.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from memory.run import retry_countdown
from memory.tasks import run_memory_pass_task, sweep_memory_passes_task
from whizi import llm

ROOT = Path(__file__).resolve().parents[2]
VISIBILITY = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]


def _in_production(code: str) -> list[str]:
    """What `code` prints in a process of its own with nothing set, as production starts."""
    setup = "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'whizi.settings'; django.setup()\n"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WHIZI_", "DJANGO_"))}
    return subprocess.run([sys.executable, "-c", setup + code], env=env, cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.split()


@pytest.mark.slow
def test_the_production_figures():
    figures = _in_production(
        "from django.conf import settings as s\n"
        "print(s.CELERY_TASK_TIME_LIMIT, s.CELERY_TASK_SOFT_TIME_LIMIT,"
        " s.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'], s.WHIZI_MEMORY_MODEL_TIMEOUT,"
        " s.WHIZI_CHAT_TIMEOUT, s.WHIZI_MEMORY_RETRY_BASE_SECONDS, s.WHIZI_MEMORY_RETRY_MAX_SECONDS)")
    assert figures == ["300", "270", "3600", "60.0", "60.0", "30.0", "600.0"]


@pytest.mark.slow
def test_in_production_a_pass_waits_out_a_ten_minute_outage_and_each_retry_is_due_before_redelivery():
    # The waits memory.run gives a pass (jitter included), as the task asks for them.
    waited, latest_due, visibility = _in_production(
        "from django.conf import settings as s\n"
        "from memory.run import MAX_ATTEMPTS, retry_countdown\n"
        "from memory.tasks import run_memory_pass_task as task\n"
        "waited = sum(retry_countdown(n) for n in range(MAX_ATTEMPTS - 1))\n"
        "due = max(retry_countdown(n, retry_after=86400)\n"
        "          for n in range(task.max_retries) for _ in range(200))\n"
        "print(waited, s.CELERY_TASK_TIME_LIMIT + due,"
        " s.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'])")
    assert float(waited) > 600
    # A worker holds a retry's message unacknowledged until it is due; were that later than
    # the visibility timeout, the broker would hand the message to another worker early.
    assert float(latest_due) < float(visibility)


def test_a_task_is_stopped_long_before_the_visibility_timeout():
    assert settings.CELERY_TASK_SOFT_TIME_LIMIT < settings.CELERY_TASK_TIME_LIMIT < VISIBILITY


@pytest.mark.parametrize("retries", range(run_memory_pass_task.max_retries))
def test_a_delayed_retry_is_due_before_the_visibility_timeout_whatever_the_provider_asks(retries):
    # A Retry-After of a day is held to the longest wait.
    for _ in range(50):
        countdown = retry_countdown(retries, retry_after=86400)
        assert settings.WHIZI_MEMORY_RETRY_BASE_SECONDS <= countdown
        assert settings.CELERY_TASK_TIME_LIMIT + countdown < VISIBILITY


def test_chat_calls_end_before_any_task_would_be_redelivered():
    assert 0 < settings.WHIZI_MEMORY_READ_TIMEOUT < settings.WHIZI_CHAT_TIMEOUT < VISIBILITY


def test_tasks_are_acknowledged_after_they_run_and_requeued_when_their_worker_dies():
    assert settings.CELERY_TASK_ACKS_LATE and settings.CELERY_TASK_REJECT_ON_WORKER_LOST
    assert run_memory_pass_task.acks_late is True
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1


@pytest.mark.parametrize("task", [run_memory_pass_task, sweep_memory_passes_task])
def test_every_published_task_carries_the_configured_time_limits(task):
    # The publisher writes its limits into the message and the worker enforces those, so
    # the web process and the worker must read the same settings (they do: one module).
    assert (task.time_limit, task.soft_time_limit) == (
        settings.CELERY_TASK_TIME_LIMIT, settings.CELERY_TASK_SOFT_TIME_LIMIT)


@pytest.mark.parametrize("call", [llm.complete, llm.stream, llm.astream])
def test_every_model_call_must_name_its_timeout(call):
    timeout = inspect.signature(call).parameters["timeout"]
    assert timeout.kind is inspect.Parameter.KEYWORD_ONLY
    assert timeout.default is inspect.Parameter.empty


def test_no_code_calls_litellm_except_through_whizi_llm():
    direct = re.compile(r"\blitellm\.a?completion\(|\bfrom litellm import .*\ba?completion\b")
    offenders = []
    for path in ROOT.glob("*/**/*.py"):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in {".venv", "tests", "bench", "var"} or relative.parts[:2] == ("whizi", "llm"):
            continue
        if direct.search(path.read_text(errors="replace")):
            offenders.append(str(relative))
    assert offenders == []


def test_a_memory_model_timeout_that_would_outlast_the_task_is_refused_at_start_up():
    env = {k: v for k, v in os.environ.items() if not k.startswith("WHIZI_")}
    env.update(DJANGO_SETTINGS_MODULE="whizi.settings", WHIZI_MEMORY_MODEL_TIMEOUT="200")
    result = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "WHIZI_MEMORY_MODEL_TIMEOUT must be under half the task time limit" in result.stderr
