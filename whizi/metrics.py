"""Whizi's metrics for Prometheus, and the one place anything is counted (docs/DEPLOY.md →
Metrics).

Every label is bounded by the code or the configuration: a route's name (never the path),
a model of the catalogue, a trigger, an outcome, a check. Never a person, an address, a
conversation or anything someone wrote.

Each process counts in memory. With PROMETHEUS_MULTIPROC_DIR set before the processes
start, each one (gunicorn's workers, Celery's pool) writes its counts to files there and a
scrape adds them up, so one scrape sees the whole machine. A count that cannot be written
never fails the work it counts.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from decimal import Decimal
from typing import ParamSpec

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from whizi.db import db_release
from whizi.degraded import degraded_note

__all__ = ["CONTENT_TYPE_LATEST", "metric_chat_first_token", "metric_chat_reply", "metric_gauges_on_scrape",
           "metric_http_request", "metric_memory_pass", "metric_memory_pass_retry", "metric_memory_pass_wait",
           "metric_memory_read", "metric_memory_refused", "metric_model_usage", "metric_total",
           "metric_worker_task", "metrics_exposition", "metrics_registry"]

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROCESS_DIR:
    os.makedirs(MULTIPROCESS_DIR, exist_ok=True)

_registry = CollectorRegistry(auto_describe=False)
P = ParamSpec("P")

# ---------------------------------------------------------------- what is counted

_http_seconds = Histogram(
    "whizi_http_request_duration_seconds",
    "Time until the response starts, by route (URL pattern name), method and status; "
    "_count is the number of requests.",
    ["route", "method", "status"], registry=_registry,
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
_chat_replies = Counter(
    "whizi_chat_replies", "Chat replies by chat model, mode (stream, whole) and outcome: ok, or the "
    "class of failure.", ["model", "mode", "outcome"], registry=_registry)
_chat_first_token = Histogram(
    "whizi_chat_time_to_first_token_seconds", "From a streamed chat request's arrival to the first "
    "piece of its reply, by chat model.", ["model"], registry=_registry,
    buckets=(0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 60))
_model_tokens = Counter(
    "whizi_model_tokens", "Tokens the models read and wrote, by model, use (chat, memory) and "
    "direction (input, output).", ["model", "use", "direction"], registry=_registry)
_model_cost = Counter(
    "whizi_model_cost_usd", "What model calls cost, in US dollars, by model and use (a model that "
    "cannot be priced adds nothing).", ["model", "use"], registry=_registry)
_memory_reads = Counter(
    "whizi_memory_reads", "Memory reads of chat and voice requests: used, or skipped (the request "
    "went on without memory) by reason, timeout or error.", ["result", "reason"], registry=_registry)
_memory_passes = Counter(
    "whizi_memory_passes", "Memory passes finished, by trigger and outcome.", ["trigger", "outcome"],
    registry=_registry)
_memory_pass_seconds = Histogram(
    "whizi_memory_pass_duration_seconds", "How long a memory pass ran, from its claim to its record, "
    "by trigger.", ["trigger"], registry=_registry,
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300))
_memory_pass_wait = Histogram(
    "whizi_memory_pass_wait_seconds", "How long a memory pass waited for a worker, from being "
    "recorded to its first claim, by trigger.", ["trigger"], registry=_registry,
    buckets=(0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600))
_memory_pass_failures = Counter(
    "whizi_memory_pass_failures", "Memory passes that failed (the list stayed as it was), by error "
    "class.", ["error"], registry=_registry)
_memory_pass_retries = Counter(
    "whizi_memory_pass_retries", "Tries of a memory pass handed back to be tried again later, by "
    "error class.", ["error"], registry=_registry)
_memory_refused = Counter(
    "whizi_memory_refused_changes", "Changes a memory model proposed that a check refused (the saved "
    "list kept its line), by check.", ["check"], registry=_registry)
_worker_tasks = Counter(
    "whizi_worker_tasks", "Celery tasks that ran, by task and state (SUCCESS, RETRY, FAILURE, …).",
    ["task", "state"], registry=_registry)

_METHODS = frozenset(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])


def _bounded(value: object) -> str:
    # Every value already comes from code or configuration; this only keeps a label short.
    return str(value)[:100]


def _error_class(error: str) -> str:
    """"model:timeout,compaction:no_change" -> "model:timeout"."""
    return _bounded(error.split(",")[0] or "unknown")


def _never_fails(count: Callable[P, None]) -> Callable[P, None]:
    """A count that cannot be written (the multiprocess directory gone) is noted, never raised."""

    @functools.wraps(count)
    def counted(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            count(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - monitoring must not take the work down
            degraded_note("metrics", "counting", exc)

    return counted


@_never_fails
def metric_http_request(*, route: str, method: str, status: int, seconds: float) -> None:
    method = method if method in _METHODS else "other"
    _http_seconds.labels(_bounded(route), method, str(status)).observe(seconds)


@_never_fails
def metric_chat_reply(*, model: str, streamed: bool, outcome: str) -> None:
    """One chat reply: outcome "ok", or the failure's kind (whizi.llm.errors)."""
    _chat_replies.labels(_bounded(model), "stream" if streamed else "whole", _bounded(outcome)).inc()


@_never_fails
def metric_chat_first_token(*, model: str, seconds: float) -> None:
    _chat_first_token.labels(_bounded(model)).observe(seconds)


@_never_fails
def metric_model_usage(*, model: str, use: str, input_tokens: int, output_tokens: int,
                       cost: Decimal | None) -> None:
    model = _bounded(model)
    _model_tokens.labels(model, use, "input").inc(max(0, input_tokens))
    _model_tokens.labels(model, use, "output").inc(max(0, output_tokens))
    if cost is not None and cost > 0:
        _model_cost.labels(model, use).inc(float(cost))


@_never_fails
def metric_memory_read(*, result: str, reason: str = "") -> None:
    """A request's memory read: "used", or "skipped" with its reason ("timeout", "error")."""
    _memory_reads.labels(result, reason).inc()


@_never_fails
def metric_memory_pass(*, trigger: str, outcome: str, seconds: float | None, error: str = "") -> None:
    """A pass recorded as done (`seconds` None: it never ran, the sweep gave up on it); a
    failed one is also counted by its error class."""
    _memory_passes.labels(trigger, outcome).inc()
    if seconds is not None:
        _memory_pass_seconds.labels(trigger).observe(seconds)
    if outcome == "failed":
        _memory_pass_failures.labels(_error_class(error)).inc()


@_never_fails
def metric_memory_pass_wait(*, trigger: str, seconds: float) -> None:
    _memory_pass_wait.labels(trigger).observe(max(0.0, seconds))


@_never_fails
def metric_memory_pass_retry(*, error: str) -> None:
    _memory_pass_retries.labels(_error_class(error)).inc()


@_never_fails
def metric_memory_refused(*, check: str, amount: int = 1) -> None:
    """Changes a check refused: memory's checks call this with their own name."""
    if amount > 0:
        _memory_refused.labels(_bounded(check)).inc(amount)


@_never_fails
def metric_worker_task(*, task: str, state: str) -> None:
    _worker_tasks.labels(_bounded(task), _bounded(state)).inc()


# ---------------------------------------------------------------- gauges read at scrape time

ScrapedGauge = tuple[str, str, float]  # name, help, value
_scraped: list[Callable[[], Iterable[ScrapedGauge]]] = []


def metric_gauges_on_scrape(read: Callable[[], Iterable[ScrapedGauge]]) -> None:
    """Gauges that are a fact of the shared state (passes waiting: rows in PostgreSQL), read
    when the web's metrics are scraped rather than kept by each process. An app registers
    its reader at start-up (AppConfig.ready)."""
    if read not in _scraped:
        _scraped.append(read)


# Gauges read from the database wait on it: a scrape gives them this long, one read at a
# time, so a database outage (when the other metrics matter most) never makes the scrape
# outlast Prometheus's timeout (10 s by default); late gauges are left out of that scrape.
SCRAPED_GAUGES_SECONDS = 2.0
_gauge_reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="whizi-metrics-gauges")
_gauge_reading: Future | None = None
_gauge_lock = threading.Lock()


def _gauges_read() -> list[ScrapedGauge]:
    gauges: list[ScrapedGauge] = []
    try:
        for read in _scraped:
            try:
                gauges += list(read())
            except Exception as exc:  # noqa: BLE001 - the other gauges are still worth reading
                degraded_note("metrics", "reading a gauge", exc)
    finally:
        db_release()  # this thread's connection goes back between scrapes
    return gauges


class _ScrapedGauges:
    def describe(self) -> list[Metric]:
        return []  # read only when scraped: registering must not query anything

    def collect(self) -> Iterator[Metric]:
        global _gauge_reading
        with _gauge_lock:
            if _gauge_reading is not None and not _gauge_reading.done():
                return  # the last scrape's read is still waiting on the database
            _gauge_reading = reading = _gauge_reader.submit(_gauges_read)
        try:
            gauges = reading.result(timeout=SCRAPED_GAUGES_SECONDS)
        except FutureTimeout as exc:
            degraded_note("metrics", "reading the gauges in time", exc)
            return
        for name, documentation, value in gauges:
            yield GaugeMetricFamily(name, documentation, value=value)


# ---------------------------------------------------------------- the scrape


def metrics_registry(*, scraped_gauges: bool = True) -> CollectorRegistry:
    """What a scrape reads: this process's counts, or every process's in the multiprocess
    directory; with the gauges read at scrape time unless asked not to (the worker's own
    endpoint leaves the database to the web's)."""
    registry = CollectorRegistry(auto_describe=False)
    if MULTIPROCESS_DIR:
        MultiProcessCollector(registry, path=MULTIPROCESS_DIR)
    else:
        registry.register(_registry)
    if scraped_gauges:
        registry.register(_ScrapedGauges())
    return registry


def metrics_exposition() -> bytes:
    """The metrics in Prometheus's text format (CONTENT_TYPE_LATEST)."""
    return generate_latest(metrics_registry())


def metric_total(sample: str, **labels: str) -> float:
    """The sum of a sample over every series with these labels, across every process
    counting here (the tests' and benchmarks' reading; an operator reads Prometheus)."""
    total = 0.0
    for metric in metrics_registry(scraped_gauges=False).collect():
        for each in metric.samples:
            if each.name == sample and all(each.labels.get(k) == v for k, v in labels.items()):
                total += each.value
    return total
