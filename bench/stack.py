"""The real stack's processes for benchmarks and tests: start them, wait until they are
ready, stop them; a database and Redis of their own.

The test suite imports this module too (pytest runs from the repository root, where
`bench` is importable as a namespace package), so a test's Celery worker and uvicorn
are launched by the same lines as a benchmark's: one command line to keep right.

Each process is started as the leader of its own session (process group), so stopping
it also ends what it forked (uvicorn's workers, Celery's pool) and its CPU time can be
read per session. Nothing here imports Django at module level: bench/load.py drives the
stack from outside; helpers that need Django (the ping round trip, the broker, a
migrated database) import it when called.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import redis

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
LOCAL_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
LOCAL_REDIS = ("127.0.0.1", 6379)


class StackError(RuntimeError):
    """A process did not start, exited early, or a bounded wait ran out."""


# ---------------------------------------------------------------- processes


@dataclass
class Process:
    """One started process, leader of its own session. How it stops is chosen at
    launch (a test's worker stops cold, a benchmark's warm)."""

    name: str
    popen: subprocess.Popen
    log_path: Path
    stop_signal: int = signal.SIGTERM
    stop_timeout: float = 20.0

    @property
    def pid(self) -> int:
        return self.popen.pid

    def running(self) -> bool:
        return self.popen.poll() is None

    def check_alive(self) -> None:
        if not self.running():
            raise StackError(f"{self.name} exited with code {self.popen.returncode}; see {self.log_path}")

    def send(self, sig: int) -> None:
        """Send `sig` to the whole process group (the leader and what it forked)."""
        if self.running():
            os.killpg(self.pid, sig)

    def wait_or_kill(self, deadline: float) -> None:
        try:
            self.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.send(signal.SIGKILL)
            self.popen.wait(timeout=10)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """End the whole group at once, as a crash would."""
        self.send(sig)
        self.popen.wait(timeout=30)

    def stop(self, timeout: float | None = None) -> None:
        """Stop with the process's own signal; SIGKILL whatever outlives the timeout."""
        self.send(self.stop_signal)
        self.wait_or_kill(time.monotonic() + (self.stop_timeout if timeout is None else timeout))


def process_start(name: str, argv: Sequence[str], *, env: dict[str, str], log: Path,
                  stop_signal: int = signal.SIGTERM, stop_timeout: float = 20.0,
                  cwd: Path = ROOT) -> Process:
    """Start `argv` from the repository root (or `cwd`: another checkout, for a
    benchmark of the code before a change), its output appended to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as handle:  # the child keeps its own copy of the descriptor
        popen = subprocess.Popen(list(argv), cwd=cwd, env=env, stdout=handle, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
    return Process(name=name, popen=popen, log_path=log, stop_signal=stop_signal, stop_timeout=stop_timeout)


@dataclass
class Stack:
    """The processes one run started; stop() ends exactly these, by process group."""

    processes: list[Process] = field(default_factory=list)

    def add(self, process: Process) -> Process:
        self.processes.append(process)
        return process

    def check_alive(self) -> None:
        for process in self.processes:
            process.check_alive()

    def stop(self) -> None:
        # Signal all first, then wait on one deadline: they shut down side by side.
        for process in self.processes:
            process.send(process.stop_signal)
        deadline = time.monotonic() + max((p.stop_timeout for p in self.processes), default=0)
        for process in self.processes:
            process.wait_or_kill(deadline)
        self.processes.clear()


# gevent is not offered: with litellm's HTTP path a greenlet's asyncio loop made Django
# refuse the other passes' database calls (SynchronousOnlyOperation), in one process.
WORKER_POOLS = ("prefork", "threads")


def worker_start(*, env: dict[str, str], log: Path, concurrency: int = 2, pool: str = "prefork",
                 loglevel: str = "INFO", hostname: str | None = None, cold_stop: bool = False,
                 cwd: Path = ROOT) -> Process:
    """A real `celery worker`, with the pool and concurrency scripts/run.sh takes from
    WHIZI_WORKER_POOL and WHIZI_WORKER_CONCURRENCY. whizi.celery imports the model layer
    before a prefork pool forks, so a pool process that replaces a killed one is ready at once.

    cold_stop: stop with SIGQUIT; a warm stop waits for the pool, which a pass held at a
    scripted gate can keep busy for a minute, and a test's worker has nothing to finish.
    """
    if pool not in WORKER_POOLS:
        raise StackError(f"unknown worker pool {pool!r}; one of {', '.join(WORKER_POOLS)}")
    argv = [PYTHON, "-m", "celery", "-A", "whizi", "worker", f"--pool={pool}",
            f"--concurrency={concurrency}", "--without-gossip", "--without-mingle", f"--loglevel={loglevel}"]
    if hostname:
        argv.append(f"--hostname={hostname}")
    if cold_stop:
        return process_start("celery worker", argv, env=env, log=log, stop_signal=signal.SIGQUIT,
                             stop_timeout=15.0, cwd=cwd)
    return process_start("celery worker", argv, env=env, log=log, cwd=cwd)


def uvicorn_start(*, env: dict[str, str], log: Path, port: int, workers: int = 1,
                  options: Sequence[str] = (), cwd: Path = ROOT) -> Process:
    """uvicorn serving whizi.asgi:application on 127.0.0.1:`port`."""
    argv = [PYTHON, "-m", "uvicorn", "whizi.asgi:application", "--host", "127.0.0.1",
            "--port", str(port), "--workers", str(workers), *options]
    return process_start("uvicorn", argv, env=env, log=log, cwd=cwd)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------- bounded waits


def wait_until(condition: Callable[[], object], *, timeout: float, what: str,
               watch: Iterable[Process] = (), interval: float = 0.2) -> object:
    """Poll `condition` until it is truthy (and return it); raise StackError when
    `timeout` seconds pass or a watched process exits first."""
    watched = list(watch)
    deadline = time.monotonic() + timeout
    while True:
        for process in watched:
            process.check_alive()
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise StackError(f"{what} within {timeout:.0f} s")
        time.sleep(interval)


def http_ok(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def uvicorn_wait_ready(web: Process, base_url: str, *, timeout: float, watch: Iterable[Process] = ()) -> None:
    """Ready once it serves a static file (no database involved, so nothing is written).
    A server that does not answer in time is stopped."""
    url = f"{base_url}/static/css/whizi.css"
    try:
        wait_until(lambda: http_ok(url), timeout=timeout, what=f"{url} did not answer",
                   watch=[web, *watch], interval=0.3)
    except StackError:
        web.stop()
        raise


def stack_ready(stack: Stack, *, web: Process, port: int, worker: Process | None = None) -> str:
    """The base URL, once uvicorn answers and the worker has logged "ready." (at INFO)."""
    base_url = f"http://127.0.0.1:{port}"
    uvicorn_wait_ready(web, base_url, timeout=90, watch=stack.processes)
    if worker is not None:
        wait_for_log(worker, "ready.", timeout=90, watch=stack.processes)
    return base_url


def bench_logs(logs: Path | None, *, prefix: str) -> Path:
    """The servers' logs folder (a new temporary one unless given). From here a SIGTERM
    unwinds through the finally blocks that stop the stack, as Ctrl-C does."""

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    logs = logs or Path(tempfile.mkdtemp(prefix=prefix))
    logs.mkdir(parents=True, exist_ok=True)
    return logs


def wait_for_log(process: Process, marker: str, *, timeout: float, watch: Iterable[Process] = ()) -> None:
    """Wait for `marker` in the process's log (a worker logs "ready." at INFO)."""
    path = process.log_path
    wait_until(lambda: path.exists() and marker in path.read_text(errors="replace"), timeout=timeout,
               what=f"no {marker!r} in {path}", watch=[process, *watch], interval=0.3)


def worker_wait_ping(worker: Process, *, timeout: float = 60.0) -> None:
    """Ready once a ping task has made the full round trip (broker, worker, cache).
    Needs Django set up in this process, on the worker's broker and cache. A worker
    that does not answer is stopped."""
    from django.core.cache import cache

    from whizi.celery import ping

    token = uuid.uuid4().hex
    ping.delay(token)
    try:
        wait_until(lambda: cache.get(f"ping:{token}") == "pong", timeout=timeout,
                   what=f"the worker ({worker.log_path}) did not answer a ping", watch=[worker],
                   interval=0.05)
    except StackError:
        worker.stop()
        raise


# ---------------------------------------------------------------- CPU time


def _proc_stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after "pid (comm) ": [1] parent, [3] session,
    [11] user and [12] system CPU in clock ticks. None once the process is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rfind(")") + 2:].split()


def _live_pids() -> Iterator[str]:
    return (entry.name for entry in os.scandir("/proc") if entry.name.isdigit())


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (a worker's pool processes)."""
    children = []
    for child in _live_pids():
        fields = _proc_stat(child)
        if fields is not None and int(fields[1]) == pid:
            children.append(int(child))
    return children


def cpu_seconds_by_session() -> dict[int, float]:
    """CPU seconds (user + system) of every live process, summed per session id: a
    started process's id is its session's, so this is the CPU of its whole tree."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds: dict[int, float] = defaultdict(float)
    for pid in _live_pids():
        fields = _proc_stat(pid)
        if fields is not None:
            seconds[int(fields[3])] += (int(fields[11]) + int(fields[12])) / ticks
    return seconds


def cpu_seconds_of(pids: Iterable[int]) -> dict[int, float]:
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    for pid in pids:
        fields = _proc_stat(pid)
        if fields is not None:
            seconds[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return seconds


# ---------------------------------------------------------------- databases and Redis


def database_url(name: str, *, like: str | None = None) -> str:
    """The URL of database `name` on the server of `like` (default: DATABASE_URL, else
    the local PostgreSQL)."""
    parts = urlsplit(like or os.environ.get("DATABASE_URL") or LOCAL_DATABASE_URL)
    return urlunsplit(parts._replace(path=f"/{name}"))


def env_on_database(name: str, **overrides: str) -> dict[str, str]:
    """This process's environment for a server on database `name` (its test database)."""
    env = dict(os.environ)
    env["DATABASE_URL"] = database_url(name)
    env.pop("WHIZI_TEST_DATABASE_NAME", None)  # a server uses DATABASE_URL's name as it is
    env.update(overrides)
    return env


def admin_connection() -> psycopg.Connection:
    return psycopg.connect(database_url("postgres"), autocommit=True)


def database_recreate(name: str) -> None:
    with admin_connection() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def database_drop(name: str) -> None:
    with admin_connection() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def database_migrate(env: dict[str, str], *, cwd: Path = ROOT) -> None:
    """Migrate the database of env's DATABASE_URL, as a deploy would."""
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=cwd, env=env,
                   check=True, timeout=300)


def database_backends_cpu(name: str) -> dict[int, float]:
    """CPU seconds of each PostgreSQL backend connected to database `name`."""
    with admin_connection() as conn:
        pids = [row[0] for row in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", [name]).fetchall()]
    return cpu_seconds_of(pids)


@contextlib.contextmanager
def django_database(suffix: str) -> Iterator[str]:
    """This process's Django (set up already) on a fresh, migrated PostgreSQL database
    named WHIZI_TEST_DATABASE_NAME (else test_whizi) + `suffix`, dropped on the way out."""
    from django.db import connection

    if connection.vendor != "postgresql":
        raise StackError("set DATABASE_URL to the local PostgreSQL")
    base = os.environ.get("WHIZI_TEST_DATABASE_NAME", "test_whizi")
    connection.settings_dict["TEST"]["NAME"] = base + suffix
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield connection.settings_dict["NAME"]
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


def redis_flush(db: int) -> None:
    """Empty the broker database `db` and the cache's, the next one (as settings pair them)."""
    for number in (db, db + 1):
        redis.Redis(host=LOCAL_REDIS[0], port=LOCAL_REDIS[1], db=number).flushdb()


def broker_purge(*, unacknowledged: bool = False) -> None:
    """Empty the task queue of this process's broker; with `unacknowledged`, also forget
    the messages a killed worker never acknowledged, so no later worker takes them back."""
    from whizi.celery import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        channel.queue_purge("celery")
        if unacknowledged:
            channel.client.delete(channel.unacked_key, channel.unacked_index_key)


# ---------------------------------------------------------------- the servers' metrics

BENCH_METRICS_TOKEN = "bench-metrics-token-not-a-secret"


def metrics_env(env: dict[str, str], directory: Path) -> dict[str, str]:
    """A server environment whose processes count into `directory` (emptied first) and whose
    /metrics the bench may read (whizi.metrics)."""
    import shutil

    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return {**env, "PROMETHEUS_MULTIPROC_DIR": str(directory), "WHIZI_METRICS_TOKEN": BENCH_METRICS_TOKEN}


def memory_read_skips_scraped(base_url: str) -> dict[str, int] | None:
    """The web's chats that went on without the memory read, by reason, from its /metrics;
    None when the code under test has no /metrics (a checkout from before it)."""
    from prometheus_client.parser import text_string_to_metric_families

    response = httpx.get(f"{base_url}/metrics", timeout=30,
                         headers={"Authorization": f"Bearer {BENCH_METRICS_TOKEN}"})
    if response.status_code == 404:
        return None
    response.raise_for_status()
    skips = {"timeout": 0, "error": 0}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            if sample.name == "whizi_memory_reads_total" and sample.labels.get("result") == "skipped":
                reason = sample.labels.get("reason", "")
                skips[reason] = skips.get(reason, 0) + int(sample.value)
    return skips


def stack_args_check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A bench's own database and Redis numbers, which it empties: never the developer's."""
    if not args.database.startswith("bench_"):
        parser.error("--database must start with bench_ (it is dropped and created)")
    if not 2 <= args.redis_db <= 14:
        parser.error("--redis-db must be 2..14 (it and the next are emptied; 0/1 are the dev defaults)")
    if hasattr(args, "code"):
        args.code = args.code.resolve()
