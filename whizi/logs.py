"""Log lines an operator can follow: each carries the id of the request it belongs to and,
in the worker, of the task and the memory pass (docs/DEPLOY.md → Logs).

The ids live in a context variable, so they follow a request into the threads asgiref
runs its sync code in, and into the Celery task it publishes (whizi.celery carries the
request id in the task's headers). WHIZI_LOG_FORMAT=json writes each line as one JSON
object. What a person wrote is never logged, in either format: a line names an owner, a
conversation or a pass by id, never a fact or a message.
"""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import Iterator
from contextvars import ContextVar, Token

from pythonjsonlogger.json import JsonFormatter

# The ids a line may carry, in the order the text format shows them.
FIELDS = ("request_id", "task_id", "pass_id")
_LABELS = {"request_id": "request", "task_id": "task", "pass_id": "pass"}
_context: ContextVar[dict[str, str] | None] = ContextVar("whizi_log_context", default=None)

# A request id given by the proxy (nginx's $request_id) is kept when it looks like one: a
# client cannot put a line break or anything else but an id into the logs through it.
_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


def request_id_for(given: str | None) -> str:
    """The id of a request: the proxy's X-Request-ID when it is a plain id, else a new one."""
    if given and _GIVEN_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


def log_context_bind(**ids: object) -> Token:
    """Add ids to every line logged from here in this context; log_context_reset() undoes it."""
    return _context.set({**(_context.get() or {}), **{k: str(v) for k, v in ids.items() if v is not None}})


def log_context_reset(token: Token) -> None:
    _context.reset(token)


@contextlib.contextmanager
def log_context(**ids: object) -> Iterator[None]:
    token = log_context_bind(**ids)
    try:
        yield
    finally:
        log_context_reset(token)


def log_context_get(field: str) -> str | None:
    return (_context.get() or {}).get(field)


class LogContextFilter(logging.Filter):
    """Puts the context's ids on each record the handler writes (from any logger: Django's,
    Celery's, uvicorn's), "-" where there is none."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = _context.get() or {}
        for field in FIELDS:
            if not hasattr(record, field):
                setattr(record, field, ids.get(field, "-"))
        return True


class TextFormatter(logging.Formatter):
    """`time level logger [request=… task=… pass=…] message`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(ids)s] %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        shown = [f"{_LABELS[f]}={getattr(record, f)}" for f in FIELDS if getattr(record, f, "-") != "-"]
        record.ids = " ".join(shown) or "-"
        return super().formatMessage(record)


class JsonLineFormatter(JsonFormatter):
    """One JSON object a line: time (ISO 8601, UTC), level, logger, message, the ids, and any
    traceback. Nothing else: a library's `extra` data (a task's arguments, a request) is left out."""

    KEYS = frozenset(["time", "level", "logger", "message", *FIELDS, "exc_info", "stack_info"])

    def __init__(self) -> None:
        super().__init__(["levelname", "name", "message", *FIELDS], timestamp="time",
                         rename_fields={"levelname": "level", "name": "logger"})

    def process_log_record(self, log_data: dict) -> dict:
        return {key: value for key, value in log_data.items() if key in self.KEYS}
