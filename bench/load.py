"""Load benchmark: the real stack on this machine, driven by N concurrent guests.

For each mode (memory on, then memory off) it:

1. creates a fresh PostgreSQL database (the name must start with "bench_") and
   migrates it, and empties its own two Redis databases (broker and cache);
2. starts the real stack: uvicorn serving whizi.asgi:application (--web-workers
   processes) and a Celery worker (--worker-concurrency prefork processes) on Redis,
   both on the offline model (WHIZI_CHAT_MODELS=whizi/offline,
   WHIZI_MEMORY_MODEL=whizi/offline), with WHIZI_MEMORY_ENABLED=true or false;
3. drives N guests at once. Each guest has its own cookie jar and language: GET / (a
   guest identity and the csrftoken cookie), then for each iteration: POST
   /api/conversations/, four POST …/messages/ (small talk and one fact: "My name is …"
   + "Remember that.", "Remember that I live in …", a birthday, a liking, in English,
   Vietnamese, Chinese, Japanese, Korean and Malay), GET /settings/, GET /api/memory/;
   every --clear-every'th guest also sends DELETE /api/memory/ (X-CSRFToken) once,
   after its second iteration. Guests wait --think seconds (on average) between
   requests, as people do;
4. records per endpoint: count, requests/s, median and p95 latency, 4xx, 5xx and
   transport errors; and the server's CPU time (uvicorn's processes, the worker's and
   the database backends), which a busy shared machine disturbs far less than latency;
5. memory on only: waits (bounded) until the worker has finished every queued pass,
   then reads each guest's memory through GET /api/memory/ and counts
   - lost facts: a fact the guest asked to remember after its last clear (or ever, if
     it never cleared) that is not in its memory;
   - resurrected facts: a fact asked before the clear, and not again after it, that is
     back in its memory;
6. stops everything it started, drops the database and empties its Redis databases.

At the end it prints both runs side by side with the memory on/off ratios. With
--rounds R the modes run R times each, alternating their order (on, off, off, on, ...),
and each mode's samples are pooled.

Rate limits are switched off for the run (WHIZI_RATE_LIMITS_ENABLED=false): every
guest comes from 127.0.0.1, so the per-IP limit would otherwise refuse most of them.
All traffic goes to 127.0.0.1; every phase is bounded in time (--max-seconds for the
load, --drain-timeout for the passes) and the script stops by itself.

    python bench/load.py --guests 50 --iterations 3 --rounds 2 \\
        --database bench_whizi --redis-db 14 --port 18080

(PostgreSQL on 127.0.0.1:5432 as user postgres, Redis on 127.0.0.1:6379.) Results
and the machine they were measured on are in docs/PERFORMANCE.md.

The parts: bench/load_workload.py (what guests say), bench/load_driver.py (the run),
bench/load_report.py (summaries and JSON), bench/stack.py (the processes).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load_driver import run_mode  # noqa: E402
from bench.load_report import (  # noqa: E402
    RunReport,
    combine,
    machine,
    print_comparison,
    print_report,
    report_failed,
    reports_write_json,
)
from bench.stack import bench_logs, database_drop, redis_flush, stack_args_check  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--guests", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=3, help="conversations per guest")
    parser.add_argument("--think", type=float, default=3.0,
                        help="mean pause between a guest's requests, in seconds (0.5x-1.5x)")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which guests arrive")
    parser.add_argument("--clear-every", type=int, default=5,
                        help="every Nth guest clears its memory once (0: none)")
    parser.add_argument("--max-seconds", type=float, default=300,
                        help="no guest starts a new iteration after this")
    parser.add_argument("--drain-timeout", type=float, default=300,
                        help="longest wait for the worker to finish the passes")
    parser.add_argument("--modes", default="on,off", help="on, off or on,off")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat the modes, alternating their order (on,off / off,on ...), "
                             "so a busy moment on a shared machine weighs on both")
    parser.add_argument("--web-workers", type=int, default=2, help="uvicorn processes")
    parser.add_argument("--worker-concurrency", type=int, default=2, help="Celery prefork processes")
    parser.add_argument("--pool-size", type=int, default=20,
                        help="WHIZI_DB_POOL_MAX_SIZE: PostgreSQL connections per server process")
    parser.add_argument("--port", type=int, default=18080)
    parser.add_argument("--database", default="bench_whizi")
    parser.add_argument("--redis-db", type=int, default=14, help="broker db; the cache uses the next")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the reports here")
    parser.add_argument("--logs", type=Path, help="server logs folder (default: a temporary one)")
    args = parser.parse_args()

    stack_args_check(parser, args)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in ("on", "off") for m in modes):
        parser.error("--modes takes on, off or on,off")

    logs = bench_logs(args.logs, prefix="whizi-bench-")
    print(f"machine: {machine()}")
    print(f"server logs: {logs}")
    runs: dict[str, list[RunReport]] = {mode: [] for mode in modes}
    try:
        for round_ in range(1, args.rounds + 1):
            for mode in (modes if round_ % 2 else modes[::-1]):
                runs[mode].append(run_mode(args, memory=mode == "on", logs=logs, round_=round_))
    finally:
        database_drop(args.database)
        redis_flush(args.redis_db)
    reports = {mode: combine(reports) for mode, reports in runs.items()}
    if args.rounds > 1:
        for report in reports.values():
            print_report(report)
    if "on" in reports and "off" in reports:
        print_comparison(reports["on"], reports["off"], list(zip(runs["on"], runs["off"], strict=True)))
    if args.json:
        reports_write_json(args.json, args=vars(args), reports=reports, runs=runs)
    sys.exit(1 if any(report_failed(r) for r in reports.values()) else 0)


if __name__ == "__main__":
    main()
