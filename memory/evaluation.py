"""Evaluation scenarios for the memory pass (docs/DESIGN.md §6), run through pass_compute() —
the same code a worker runs, minus the queue and the database.

A scenario file is a JSON list of objects:

    {"name": str, "language": str, "source": "chat" | "voice",
     "existing": [str, …], "turns": [{"role": "user" | "assistant", "content": str}, …],
     "expect": {"contains": [str, …], "absent": [str, …], "unchanged": bool}}

`contains` is a case-sensitive substring of some saved line, `absent` must not appear
(case-insensitively) in any saved line, `unchanged` means the saved list equals
`existing`. Every saved list must also be within WHIZI_MEMORY_MAX_TOKENS. A pass that
fails (the model errored or answered with no usable list) fails its scenario.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from memory.compute import PassResult, pass_compute
from memory.models import MemoryPass
from memory.prompts import Turn
from memory.tokens import count_list_tokens


class ScenarioError(Exception):
    """A scenario file that cannot be read; the message says which and why."""


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


@dataclass(frozen=True)
class Verdict:
    scenario: Scenario
    passed: bool
    outcome: str
    lines: tuple[str, ...]
    tokens: int
    reasons: tuple[str, ...] = field(default_factory=tuple)


def _strings(value: Any, where: str, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ScenarioError(f"{where}: {what} must be a list of strings")
    return tuple(value)


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
    turns = data.get("turns")
    if not isinstance(turns, list):
        raise ScenarioError(f"{where}: turns must be a list")
    parsed_turns = []
    for index, turn in enumerate(turns):
        if (
            not isinstance(turn, dict)
            or turn.get("role") not in ("user", "assistant")
            or not isinstance(turn.get("content"), str)
        ):
            raise ScenarioError(f"{where}: turn {index} needs a role (user or assistant) and a content")
        parsed_turns.append(Turn(role=turn["role"], content=turn["content"]))
    expect = data.get("expect", {})
    if not isinstance(expect, dict):
        raise ScenarioError(f"{where}: expect must be an object")
    unchanged = expect.get("unchanged", False)
    if not isinstance(unchanged, bool):
        raise ScenarioError(f"{where}: expect.unchanged must be true or false")
    language = data.get("language", "")
    if not isinstance(language, str):
        raise ScenarioError(f"{where}: language must be a string")
    return Scenario(
        name=name, language=language, source=source,
        existing=_strings(data.get("existing"), where, "existing"), turns=tuple(parsed_turns),
        contains=_strings(expect.get("contains"), where, "expect.contains"),
        absent=_strings(expect.get("absent"), where, "expect.absent"),
        unchanged=unchanged, file=file,
    )


def scenarios_load(*, directory: Path) -> list[Scenario]:
    """Every scenario in every *.json file of `directory`, files in name order."""
    if not directory.is_dir():
        raise ScenarioError(f"{directory}: not a directory")
    scenarios: list[Scenario] = []
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ScenarioError(f"{path.name}: not readable JSON ({exc})") from exc
        if not isinstance(data, list):
            raise ScenarioError(f"{path.name}: the file must hold a JSON list of scenarios")
        scenarios.extend(
            _scenario(item, f"{path.name}[{index}]", path.name) for index, item in enumerate(data)
        )
    return scenarios


def scenario_judge(scenario: Scenario, result: PassResult) -> Verdict:
    """Check a pass result against the scenario's expectations."""
    lines = result.lines
    tokens = count_list_tokens(list(lines))
    reasons: list[str] = []
    if result.outcome == MemoryPass.Outcome.FAILED:
        reasons.append(f"pass failed ({result.error})")
    if tokens > settings.WHIZI_MEMORY_MAX_TOKENS:
        reasons.append(f"over budget ({tokens} tokens)")
    for wanted in scenario.contains:
        if not any(wanted in line for line in lines):
            reasons.append(f"missing {wanted!r}")
    for unwanted in scenario.absent:
        if any(unwanted.casefold() in line.casefold() for line in lines):
            reasons.append(f"kept {unwanted!r}")
    if scenario.unchanged and lines != scenario.existing:
        reasons.append("list changed")
    return Verdict(scenario=scenario, passed=not reasons, outcome=result.outcome, lines=lines,
                   tokens=tokens, reasons=tuple(reasons))


def scenario_run(*, scenario: Scenario, model: str) -> Verdict:
    """Run one scenario through the real pass and judge it."""
    result = pass_compute(existing=scenario.existing, turns=scenario.turns,
                          source=scenario.source, model=model)
    return scenario_judge(scenario, result)
