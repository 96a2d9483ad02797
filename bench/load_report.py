"""The load benchmark's report: per-endpoint summaries of the recorded samples, one
mode's rounds pooled, the side-by-side comparison of memory on and off, and the JSON
that --json writes. It reads what bench/load_driver.py measured and sends nothing.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.load_workload import CHAT, ENDPOINTS


@dataclass
class Samples:
    """What one endpoint answered during a run."""

    ms: list[float] = field(default_factory=list)
    client_errors: int = 0  # 4xx
    server_errors: int = 0  # 5xx
    transport_errors: int = 0  # no answer at all (refused, reset, timed out)
    first_failures: list[str] = field(default_factory=list)


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


Row = dict[str, float]


def summarise(samples: dict[str, Samples], seconds: float) -> tuple[dict[str, Row], Row]:
    """Per endpoint and for all: count, requests/s, median and p95 latency, errors."""
    endpoints: dict[str, dict[str, float]] = {}
    every: list[float] = []
    totals = Counter()
    for endpoint in ENDPOINTS:
        s = samples.get(endpoint)
        if s is None or not (s.ms or s.transport_errors):
            continue
        every += s.ms
        row = {
            "count": len(s.ms) + s.transport_errors,
            "rps": (len(s.ms) + s.transport_errors) / seconds,
            "median_ms": statistics.median(s.ms) if s.ms else 0.0,
            "p95_ms": percentile(s.ms, 95) if s.ms else 0.0,
            "4xx": s.client_errors,
            "5xx": s.server_errors,
            "transport_errors": s.transport_errors,
        }
        endpoints[endpoint] = row
        for key in ("count", "4xx", "5xx", "transport_errors"):
            totals[key] += row[key]
    total = {
        "count": totals["count"], "rps": totals["count"] / seconds,
        "median_ms": statistics.median(every) if every else 0.0,
        "p95_ms": percentile(every, 95) if every else 0.0,
        "4xx": totals["4xx"], "5xx": totals["5xx"], "transport_errors": totals["transport_errors"],
    }
    return endpoints, total


@dataclass
class RunReport:
    mode: str
    guests: int
    seconds: float
    samples: dict[str, Samples]  # per endpoint
    aborted_guests: int
    passes: dict[str, int] = field(default_factory=dict)
    drain_seconds: float | None = None
    drained: bool | None = None
    facts_expected: int | None = None
    lost_facts: int | None = None
    lost_facts_not_cleared: int | None = None
    resurrected_facts: int | None = None
    memory_read_skips: dict[str, int] = field(default_factory=dict)
    peak_db_connections: int = 0
    load_average: tuple[float, float] = (0.0, 0.0)  # 1-minute load at start and end (shared machine)
    server_log_errors: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # seconds: web, worker, db, client

    @property
    def endpoints(self) -> dict[str, dict[str, float]]:
        return summarise(self.samples, self.seconds)[0]

    @property
    def total(self) -> dict[str, float]:
        return summarise(self.samples, self.seconds)[1]

    @property
    def first_failures(self) -> dict[str, list[str]]:
        return {k: v.first_failures for k, v in self.samples.items() if v.first_failures}

    @property
    def server_cpu(self) -> float:
        return self.cpu.get("web", 0.0) + self.cpu.get("worker", 0.0) + self.cpu.get("db", 0.0)

    def as_json(self) -> dict[str, object]:
        data = {k: v for k, v in self.__dict__.items() if k != "samples"}
        data.update(endpoints=self.endpoints, total=self.total, first_failures=self.first_failures)
        return data


def combine(reports: list[RunReport]) -> RunReport:
    """One mode's rounds as one report: samples pooled, counts added."""
    if len(reports) == 1:
        return reports[0]
    pooled: dict[str, Samples] = defaultdict(Samples)
    for report in reports:
        for endpoint, samples in report.samples.items():
            merged = pooled[endpoint]
            merged.ms += samples.ms
            merged.client_errors += samples.client_errors
            merged.server_errors += samples.server_errors
            merged.transport_errors += samples.transport_errors
            merged.first_failures += samples.first_failures[: 3 - len(merged.first_failures)]

    def total(name: str) -> int | None:
        values = [getattr(r, name) for r in reports]
        return None if any(v is None for v in values) else sum(values)

    passes: Counter = Counter()
    skips: Counter = Counter()
    cpu: Counter = Counter()
    for report in reports:
        passes.update(report.passes)
        skips.update(report.memory_read_skips)
        cpu.update(report.cpu)
    return RunReport(
        mode=f"{reports[0].mode}, {len(reports)} rounds", guests=reports[0].guests,
        seconds=sum(r.seconds for r in reports), samples=pooled,
        aborted_guests=sum(r.aborted_guests for r in reports), passes=dict(passes),
        drain_seconds=max((r.drain_seconds or 0.0) for r in reports),
        drained=None if reports[0].drained is None else all(r.drained for r in reports),
        facts_expected=total("facts_expected"), lost_facts=total("lost_facts"),
        lost_facts_not_cleared=total("lost_facts_not_cleared"),
        resurrected_facts=total("resurrected_facts"), memory_read_skips=dict(skips),
        peak_db_connections=max(r.peak_db_connections for r in reports),
        load_average=(min(r.load_average[0] for r in reports), max(r.load_average[1] for r in reports)),
        server_log_errors=sum(r.server_log_errors for r in reports), cpu=dict(cpu),
    )


def print_report(report: RunReport) -> None:
    print(f"\n{report.mode}: {report.guests} guests, {report.seconds:.1f} s of load "
          f"(machine load average {report.load_average[0]:.1f} before, "
          f"{report.load_average[1]:.1f} after)")
    header = (f"  {'endpoint':40s} {'count':>6s} {'req/s':>7s} {'median':>8s} {'p95':>8s} "
              f"{'4xx':>4s} {'5xx':>4s} {'conn':>4s}")
    print(header)
    rows = list(report.endpoints.items()) + [("all", report.total)]
    for endpoint, row in rows:
        print(f"  {endpoint:40s} {row['count']:6d} {row['rps']:7.1f} {row['median_ms']:6.0f}ms "
              f"{row['p95_ms']:6.0f}ms {row['4xx']:4d} {row['5xx']:4d} {row['transport_errors']:4d}")
    print(f"  guests stopped by an error: {report.aborted_guests}; "
          f"tracebacks in server logs: {report.server_log_errors}")
    print(f"  memory passes: {report.passes}; memory reads skipped: {report.memory_read_skips}; "
          f"peak PostgreSQL connections: {report.peak_db_connections}")
    if report.lost_facts is not None:
        print(f"  drained: {report.drained} in {report.drain_seconds:.1f} s; facts checked: "
              f"{report.facts_expected}; lost facts: {report.lost_facts} "
              f"(guests that never cleared: {report.lost_facts_not_cleared}); "
              f"resurrected after a clear: {report.resurrected_facts}")
    if report.cpu:
        requests = report.total["count"] or 1
        print(f"  server CPU: web {report.cpu['web']:.1f} s, worker {report.cpu['worker']:.1f} s, "
              f"database {report.cpu['db']:.1f} s = {report.server_cpu / requests * 1000:.1f} ms per "
              f"request (the load client itself: {report.cpu['client']:.1f} s)")
    for endpoint, failures in report.first_failures.items():
        print(f"  first failures on {endpoint}: {failures}")


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def print_comparison(on: RunReport, off: RunReport, rounds: list[tuple[RunReport, RunReport]]) -> None:
    print(f"\nmemory on vs off, {on.guests} guests (ratio = on / off; above 1 means memory costs)")
    print(f"  {'endpoint':40s} {'median on':>9s} {'off':>7s} {'ratio':>6s}   "
          f"{'p95 on':>7s} {'off':>7s} {'ratio':>6s}   {'req/s on':>8s} {'off':>6s}")
    for endpoint in [*ENDPOINTS, "all"]:
        a = on.total if endpoint == "all" else on.endpoints.get(endpoint)
        b = off.total if endpoint == "all" else off.endpoints.get(endpoint)
        if not a or not b:
            continue
        print(f"  {endpoint:40s} {a['median_ms']:7.0f}ms {b['median_ms']:5.0f}ms "
              f"{ratio(a['median_ms'], b['median_ms']):>6s}   {a['p95_ms']:5.0f}ms {b['p95_ms']:5.0f}ms "
              f"{ratio(a['p95_ms'], b['p95_ms']):>6s}   {a['rps']:8.1f} {b['rps']:6.1f}")
    print(f"  wall time of the load: on {on.seconds:.1f} s, off {off.seconds:.1f} s "
          f"(ratio {ratio(on.seconds, off.seconds)})")
    on_ms = on.server_cpu / (on.total["count"] or 1) * 1000
    off_ms = off.server_cpu / (off.total["count"] or 1) * 1000
    print(f"  server CPU per request (web + worker + database): on {on_ms:.1f} ms, "
          f"off {off_ms:.1f} ms, ratio {ratio(on_ms, off_ms)}")
    if len(rounds) > 1:
        per_round = ", ".join(
            ratio(a.endpoints[CHAT]["median_ms"], b.endpoints[CHAT]["median_ms"]) for a, b in rounds)
        print(f"  chat median ratio per round: {per_round}")


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    return (f"{os.cpu_count()} cores ({cpu}), {memory_gb:.0f} GB RAM, {platform.platform()}, "
            f"Python {platform.python_version()}")



def reports_write_json(path: Path, *, args: dict[str, object], reports: dict[str, RunReport],
                       runs: dict[str, list[RunReport]]) -> None:
    """Each mode's pooled report and its rounds, with the machine and the options."""
    path.write_text(json.dumps(
        {"machine": machine(), "args": {k: str(v) for k, v in args.items()},
         "runs": {mode: report.as_json() for mode, report in reports.items()},
         "rounds": {mode: [r.as_json() for r in rounds] for mode, rounds in runs.items()}},
        indent=2, ensure_ascii=False, default=str))


def report_failed(report: RunReport) -> bool:
    """A server error, a request with no answer, or a fact lost or brought back."""
    return bool(report.total["5xx"] or report.total["transport_errors"] or report.lost_facts
                or report.resurrected_facts)
