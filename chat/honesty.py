"""The chat honesty set (docs/EVALUATION.md, "Chat honesty"): scripted exchanges from the
correction guide's test list, rendered as the exact messages the product sends the chat
model, and the blind answers recorded against them, shown beside each rubric for review.

An exchange (chat/eval_honesty/exchanges.json) holds: id ("x01"), language, category, the
saved memory lines (may be empty), the earlier turns of the conversation, the user's last
message and a rubric (plain must / must-not statements a reviewer checks).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from chat.prompt import chat_request_compose
from memory.services import MemorySnapshot

EXCHANGES = Path(__file__).resolve().parent / "eval_honesty" / "exchanges.json"
PROMPT_DIGESTS = "PROMPTS.sha256"
# Files an answers folder may hold besides one answer per exchange (and its prompt).
ANSWERS_EXTRAS = frozenset({PROMPT_DIGESTS, "README.md", "MODEL.txt"})
LANGUAGES = ("en", "vi", "zh", "ja", "ko", "ms")
_ID = re.compile(r"^x\d{2,3}$")


class HonestyError(Exception):
    """Bad exchanges, or answers that cannot be reviewed as they are (nothing is changed)."""


@dataclass(frozen=True)
class Exchange:
    id: str
    language: str
    category: str
    saved: tuple[str, ...]
    earlier: tuple[tuple[str, str], ...]  # (role, content), oldest first
    user: str
    rubric: tuple[str, ...]


def _text(entry: dict, field: str, where: str) -> str:
    value = entry.get(field)
    if not isinstance(value, str) or not value.strip():
        raise HonestyError(f"{where}: {field!r} must be non-empty text")
    return value


def _texts(entry: dict, field: str, where: str, *, may_be_empty: bool) -> tuple[str, ...]:
    value = entry.get(field)
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise HonestyError(f"{where}: {field!r} must be a list of non-empty texts")
    if not value and not may_be_empty:
        raise HonestyError(f"{where}: {field!r} must not be empty")
    return tuple(value)


def _exchange(entry: object, index: int) -> Exchange:
    if not isinstance(entry, dict):
        raise HonestyError(f"exchange {index}: must be an object")
    where = f"exchange {entry.get('id', index)!s}"
    exchange_id = _text(entry, "id", where)
    if not _ID.match(exchange_id):
        raise HonestyError(f"{where}: id must look like x01")
    language = _text(entry, "language", where)
    if language not in LANGUAGES:
        raise HonestyError(f"{where}: language must be one of {', '.join(LANGUAGES)}")
    earlier = entry.get("earlier")
    if not isinstance(earlier, list):
        raise HonestyError(f"{where}: 'earlier' must be a list of turns")
    turns = []
    for turn in earlier:
        if (not isinstance(turn, dict) or turn.get("role") not in ("user", "assistant")
                or not isinstance(turn.get("content"), str) or not turn["content"].strip()):
            raise HonestyError(f"{where}: each earlier turn needs a role (user or assistant) and content")
        turns.append((turn["role"], turn["content"]))
    return Exchange(
        id=exchange_id, language=language, category=_text(entry, "category", where),
        saved=_texts(entry, "saved", where, may_be_empty=True), earlier=tuple(turns),
        user=_text(entry, "user", where), rubric=_texts(entry, "rubric", where, may_be_empty=False),
    )


def exchanges_load(path: Path = EXCHANGES) -> list[Exchange]:
    """The exchanges in `path`. Raises HonestyError naming the first bad one."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise HonestyError(f"cannot read {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise HonestyError(f"{path} is not JSON: {exc}") from exc
    if not isinstance(entries, list) or not entries:
        raise HonestyError(f"{path} must hold a non-empty list of exchanges")
    exchanges = [_exchange(entry, index) for index, entry in enumerate(entries, 1)]
    seen: set[str] = set()
    for exchange in exchanges:
        if exchange.id in seen:
            raise HonestyError(f"exchange {exchange.id}: the id is used twice")
        seen.add(exchange.id)
    return exchanges


def exchange_messages(exchange: Exchange, *, model: str) -> list[dict[str, str]]:
    """The exact messages the product sends the chat model for this exchange: the same
    request assembly (system messages, history within budget) as a live chat, with the
    saved list as the memory read would bring it."""
    request = chat_request_compose(
        model=model, project=None, new_content=exchange.user,
        earlier=[(role, content, None) for role, content in reversed(exchange.earlier)],
    )
    return request.with_memory(MemorySnapshot(lines=exchange.saved, tokens=0, version=1)).messages


def _rendered(exchange: Exchange, *, model: str) -> bytes:
    body = {"messages": exchange_messages(exchange, model=model)}
    return (json.dumps(body, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def prompts_render(*, exchanges: list[Exchange], model: str) -> dict[str, bytes]:
    """Each exchange's rendered file ("x01.json": its bytes), and PROMPTS.sha256."""
    files = {f"{exchange.id}.json": _rendered(exchange, model=model) for exchange in exchanges}
    digests = "".join(f"{hashlib.sha256(body).hexdigest()} {name}\n" for name, body in sorted(files.items()))
    return {**files, PROMPT_DIGESTS: digests.encode("utf-8")}


def prompts_write(*, out: Path, exchanges: list[Exchange], model: str) -> list[str]:
    """Write the rendered files into `out` (created if missing); their names, in order."""
    out.mkdir(parents=True, exist_ok=True)
    files = prompts_render(exchanges=exchanges, model=model)
    for name, body in files.items():
        (out / name).write_bytes(body)
    return sorted(files)


def _digests(text: str) -> dict[str, str]:
    found = {}
    for line in text.splitlines():
        if line.strip():
            digest, _, name = line.partition(" ")
            found[name.strip()] = digest
    return found


@dataclass(frozen=True)
class Reviewed:
    exchange: Exchange
    answer: str


def answers_check(*, answers: Path, exchanges: list[Exchange], model: str) -> list[Reviewed]:
    """Each exchange with its recorded answer, once the folder holds exactly one answer
    per exchange (xNN.txt), recorded against the prompts as they are now rendered.
    Raises HonestyError saying what is missing, extra or stale."""
    if not answers.is_dir():
        raise HonestyError(f"{answers} is not a folder of answers")
    recorded = answers / PROMPT_DIGESTS
    if not recorded.is_file():
        raise HonestyError(f"{answers} has no {PROMPT_DIGESTS}: copy the one `render` wrote beside the "
                           "prompts the answers were recorded from")
    fresh = _digests(prompts_render(exchanges=exchanges, model=model)[PROMPT_DIGESTS].decode("utf-8"))
    then = _digests(recorded.read_text(encoding="utf-8"))
    stale = sorted(name for name in fresh.keys() | then.keys() if fresh.get(name) != then.get(name))
    if stale:
        raise HonestyError("the prompts changed since the answers were recorded: " + ", ".join(stale)
                           + ". Render them again and record those answers again, blind.")
    expected = {f"{exchange.id}.txt" for exchange in exchanges}
    present = {path.name for path in answers.iterdir() if path.is_file()}
    missing = sorted(expected - present)
    # The rendered prompts may be kept beside the answers they were given.
    extra = sorted(present - expected - ANSWERS_EXTRAS - fresh.keys())
    if missing or extra:
        problems = ([f"missing: {', '.join(missing)}"] if missing else []) + (
            [f"not an exchange: {', '.join(extra)}"] if extra else [])
        raise HonestyError(f"{answers}: " + "; ".join(problems))
    reviewed = []
    for exchange in exchanges:
        answer = (answers / f"{exchange.id}.txt").read_text(encoding="utf-8").strip()
        if not answer:
            raise HonestyError(f"{answers}: {exchange.id}.txt is empty")
        reviewed.append(Reviewed(exchange=exchange, answer=answer))
    return reviewed
