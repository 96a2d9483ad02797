"""memory_eval's files (docs/DESIGN.md §6): scenario files, recorded answers, and the
prompts written for a model or a person to answer elsewhere, with their digests."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from memory.compute import pass_prompt
from memory.sources import Turn

PASS_ANSWER = "pass"
COMPACTION_ANSWER = "compaction"
_ANSWER_SUFFIX = {PASS_ANSWER: ".txt", COMPACTION_ANSWER: ".compaction.txt"}
_FILE_NAME = re.compile(r"\w[\w.-]*")
PROMPT_SUFFIX = ".prompt.txt"
PROMPT_DIGESTS = "PROMPTS.sha256"
_PROMPT_ROLE = "===== {role} ====="


class ScenarioError(Exception):
    """A scenario or answer file that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class Scenario:
    name: str
    language: str
    source: str
    existing: tuple[str, ...]
    turns: tuple[Turn, ...]
    contains: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    unchanged: bool = False
    file: str = ""
    category: str = ""


# ---------------------------------------------------------------- scenario files

def _strings(value: Any, where: str, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ScenarioError(f"{where}: {what} must be a list of strings")
    return tuple(value)


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: {key} must be a string")
    return value


def _turns(turns: Any, where: str) -> tuple[Turn, ...]:
    if not isinstance(turns, list):
        raise ScenarioError(f"{where}: turns must be a list")
    parsed = []
    for index, turn in enumerate(turns):
        if (
            not isinstance(turn, dict)
            or turn.get("role") not in ("user", "assistant")
            or not isinstance(turn.get("content"), str)
        ):
            raise ScenarioError(f"{where}: turn {index} needs a role (user or assistant) and a content")
        parsed.append(Turn(role=turn["role"], content=turn["content"]))
    return tuple(parsed)


def _scenario(data: Any, where: str, file: str) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError(f"{where}: a scenario must be a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ScenarioError(f"{where}: name is required")
    where = f"{where} ({name})"
    source = data.get("source", "chat")
    if source not in ("chat", "voice"):
        raise ScenarioError(f"{where}: source must be chat or voice, not {source!r}")
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise ScenarioError(f"{where}: expect must be an object")
    unchanged = expect.get("unchanged", False)
    if not isinstance(unchanged, bool):
        raise ScenarioError(f"{where}: expect.unchanged must be true or false")
    return Scenario(
        name=name, language=_text(data, "language", where), source=source,
        existing=_strings(data.get("existing"), where, "existing"), turns=_turns(data.get("turns"), where),
        contains=_strings(expect.get("contains"), where, "expect.contains"),
        absent=_strings(expect.get("absent"), where, "expect.absent"),
        unchanged=unchanged, file=file, category=_text(data, "category", where) or Path(file).stem,
    )


def _scenario_file(path: Path) -> list[Scenario]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ScenarioError(f"{path.name}: not readable JSON ({exc})") from exc
    if not isinstance(data, list):
        raise ScenarioError(f"{path.name}: the file must hold a JSON list of scenarios")
    return [_scenario(item, f"{path.name}[{index}]", path.name) for index, item in enumerate(data)]


def scenarios_load(*, path: Path) -> list[Scenario]:
    """The scenarios of one file, or of every *.json file directly in a folder (not its
    subfolders), files in name order. Names must be unique: answers are filed by name."""
    if path.is_dir():
        files = sorted(path.glob("*.json"))
    elif path.is_file():
        files = [path]
    else:
        raise ScenarioError(f"{path}: no such file or folder")
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for file in files:
        for scenario in _scenario_file(file):
            if scenario.name in seen:
                raise ScenarioError(
                    f"{file.name}: the name {scenario.name!r} is also used in {seen[scenario.name]}")
            seen[scenario.name] = file.name
            scenarios.append(scenario)
    return scenarios


# ---------------------------------------------------------------- recorded answers

def answer_kind(messages: Sequence[dict[str, Any]]) -> str:
    """Which question a call asks: the compaction shows its list in <memory_to_compact>."""
    last = str(messages[-1].get("content") or "") if messages else ""
    return COMPACTION_ANSWER if "<memory_to_compact" in last else PASS_ANSWER


def answer_path(directory: Path, name: str, kind: str) -> Path:
    if not _FILE_NAME.fullmatch(name):
        raise ScenarioError(f"{name!r}: a scenario name used as a file name may hold only letters, digits, "
                            "'.', '_' and '-'")
    return directory / f"{name}{_ANSWER_SUFFIX[kind]}"


def answers_load(*, directory: Path, name: str) -> dict[str, str] | None:
    """The answers recorded for one scenario, by kind; None when nothing was recorded."""
    answers: dict[str, str] = {}
    for kind in _ANSWER_SUFFIX:
        path = answer_path(directory, name, kind)
        if path.is_file():
            try:
                answers[kind] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ScenarioError(f"{path.name}: not readable UTF-8 text ({exc})") from exc
    return answers or None


def answers_save(*, directory: Path, name: str, answers: dict[str, str]) -> None:
    """Keep what the model answered. A compaction answer left from an older recording
    goes when this one needed none; a call that failed records nothing."""
    if not answers:
        return
    directory.mkdir(parents=True, exist_ok=True)
    for kind in _ANSWER_SUFFIX:
        path = answer_path(directory, name, kind)
        if kind in answers:
            path.write_text(answers[kind], encoding="utf-8")
        elif kind == COMPACTION_ANSWER:
            path.unlink(missing_ok=True)


# ---------------------------------------------------------------- prompts

def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """Messages as one readable file: each under a line naming its role."""
    return "\n".join(f"{_PROMPT_ROLE.format(role=m['role'])}\n{m['content']}\n" for m in messages)


def _scenario_prompt(scenario: Scenario, today: date | None) -> str | None:
    messages = pass_prompt(existing=scenario.existing, turns=scenario.turns, source=scenario.source,
                           today=today)
    return None if messages is None else prompt_text(messages)


def prompt_digest(*, scenario: Scenario, today: date | None = None) -> str:
    """The digest of the prompt a scenario's pass sends: an answer recorded for another
    digest answered another prompt."""
    return hashlib.sha256((_scenario_prompt(scenario, today) or "").encode()).hexdigest()


def scenario_prompt_save(*, scenario: Scenario, directory: Path, today: date | None = None) -> str | None:
    """Write the exact messages the pass would send for this scenario to
    DIR/<name>.prompt.txt, for a model or a person to answer elsewhere (their answer goes
    in DIR/<name>.txt, replayed by --answers). Returns the prompt's digest; None when the
    pass would not call the model."""
    text = _scenario_prompt(scenario, today)
    if text is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    answer_path(directory, scenario.name, PASS_ANSWER)  # the name must make a file name
    (directory / f"{scenario.name}{PROMPT_SUFFIX}").write_text(text, encoding="utf-8")
    return hashlib.sha256(text.encode()).hexdigest()


def prompt_digests_save(*, directory: Path, digests: dict[str, str]) -> None:
    """Add these digests to DIR/PROMPTS.sha256 ("<digest> <name>" lines, by name)."""
    path = directory / PROMPT_DIGESTS
    known: dict[str, str] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                digest, name = line.split(maxsplit=1)
                known[name] = digest
    known.update(digests)
    path.write_text("".join(f"{known[name]} {name}\n" for name in sorted(known)), encoding="utf-8")
