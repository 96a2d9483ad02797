"""memory_eval's runs and scores (docs/DESIGN.md §6): each scenario through
pass_compute() — what a worker runs, minus the queue and the database — judged against
its expectations and the shape of a memory, then tallied."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from pathlib import Path

from django.conf import settings

from memory.compute import PassResult, pass_compute
from memory.evaluation.files import Scenario, answer_path, answers_load, answers_save
from memory.evaluation.providers import record_answers, record_start, replay_missing, replay_start
from memory.lines import line_key
from memory.models import MemoryPass
from memory.safety import is_directive

# A saved line aims at about 55 characters (docs/DESIGN.md §2.5), and a fact with its
# scope, names and a date runs to 100–120. Over 200 (nearly four times the aim) it is a
# pasted paragraph or several facts run together: the shape is wrong, not just long.
LINE_CHARS_MAX = 200

# What a model writes where a line would be, meaning "nothing here", in the six
# languages. Kept apart from the parser's own list on purpose: this is the check of it.
_PLACEHOLDER = re.compile(
    r"^\W*(?:none|n/?a|nil|null|nothing|empty|tbd|unknown|no ?change|unchanged|không có(?: gì)?|"
    r"không|无|無|没有|沒有|なし|特になし|없음|없습니다|tiada|tidak ada)\W*$"
    r"|^\W*no\s+(?:(?:other|new|more|further|additional|durable|relevant)\s+){1,3}"
    r"(?:facts?|changes?|updates?|info(?:rmation)?|details?|lines?|memor(?:y|ies)|items?|entries)\b"
    r"|^\W*no\s+(?:facts?|changes?|updates?|info(?:rmation)?)\b|^\W*\(\s*no other\b"
    r"|^\W*nothing\s+(?:new|else|more|to\s+(?:add|remember|save|store|update|change|report))\b"
    r"|không có (?:gì|thông tin|thay đổi) mới|(?:没有|無|无)新的?(?:信息|事实|事實|内容)"
    r"|新しい(?:情報|事実)は(?:ありません|なし)|새로운 (?:정보|사실)\S* 없|tiada (?:maklumat|fakta) baru",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    """One run of a scenario: what the pass decided, and what is wrong with it."""

    scenario: Scenario
    result: PassResult
    reasons: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.reasons

    @property
    def outcome(self) -> str:
        return self.result.outcome

    @property
    def lines(self) -> tuple[str, ...]:
        return self.result.lines

    @property
    def tokens(self) -> int:
        return self.result.tokens

    @property
    def refused_by(self) -> dict[str, int]:
        """Changes the checks refused, by check."""
        return self.result.refused_by


@dataclass(frozen=True)
class ScenarioReport:
    """Every run of one scenario. It passes only if every run passed."""

    scenario: Scenario
    runs: tuple[Verdict, ...]

    @property
    def runs_passed(self) -> int:
        return sum(verdict.passed for verdict in self.runs)

    @property
    def passed(self) -> bool:
        return self.runs_passed == len(self.runs)

    @property
    def flaky(self) -> bool:
        return 0 < self.runs_passed < len(self.runs)

    @property
    def shown(self) -> Verdict:
        """The run to show: the first that failed, or the last."""
        return next((verdict for verdict in self.runs if not verdict.passed), self.runs[-1])


@dataclass(frozen=True)
class EvalPlan:
    """How to run the scenarios: on `model`, `repeat` times each; replaying the answers
    recorded in `answers` instead of calling a model, or recording the model's in `record`."""

    model: str
    repeat: int = 1
    answers: Path | None = None
    record: Path | None = None
    today: date | None = None  # the date the prompt gives the model; None: the real today


# ---------------------------------------------------------------- judging

def _quoted(line: str) -> str:
    return repr(line if len(line) <= 60 else line[:57] + "…")


def line_shape_problems(lines: Iterable[str]) -> list[str]:
    """What is wrong with the shape of a saved list, line by line: a line saved twice
    (same memory.lines.line_key), a placeholder, an order to the assistant, a line far
    over the length a memory line aims at."""
    problems: list[str] = []
    seen: set[str] = set()
    for line in lines:
        key = line_key(line)
        if key in seen:
            problems.append(f"duplicate line {_quoted(line)}")
        seen.add(key)
        if _PLACEHOLDER.search(line):
            problems.append(f"placeholder line {_quoted(line)}")
        elif is_directive(line):
            problems.append(f"order to the assistant {_quoted(line)}")
        if len(line) > LINE_CHARS_MAX:
            problems.append(f"line over {LINE_CHARS_MAX} characters ({len(line)}) {_quoted(line)}")
    return problems


def scenario_judge(scenario: Scenario, result: PassResult) -> Verdict:
    """Check a pass result against the scenario's expectations and a memory's shape."""
    lines, tokens = result.lines, result.tokens
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
    reasons += line_shape_problems(lines)
    return Verdict(scenario=scenario, result=result, reasons=tuple(reasons))


# ---------------------------------------------------------------- running

def scenario_run(*, scenario: Scenario, model: str, today: date | None = None) -> Verdict:
    """Run one scenario through the real pass and judge it."""
    result = pass_compute(existing=scenario.existing, turns=scenario.turns,
                          source=scenario.source, model=model, today=today)
    return scenario_judge(scenario, result)


def _replayed_run(scenario: Scenario, answers: dict[str, str], today: date | None) -> Verdict:
    verdict = scenario_run(scenario=scenario, model=replay_start(answers), today=today)
    missing = tuple(f"no recorded {kind} answer ({answer_path(Path(), scenario.name, kind).name})"
                    for kind in replay_missing())
    return replace(verdict, reasons=missing + verdict.reasons)


def _recorded_run(scenario: Scenario, model: str, directory: Path, today: date | None) -> Verdict:
    verdict = scenario_run(scenario=scenario, model=record_start(model), today=today)
    answers_save(directory=directory, name=scenario.name, answers=record_answers())
    return verdict


def scenario_evaluate(*, scenario: Scenario, plan: EvalPlan) -> ScenarioReport | None:
    """Run one scenario as the plan says. None when replaying and nothing was recorded for
    it. When recording, the first run's answers are kept."""
    runs: list[Verdict] = []
    if plan.answers is not None:
        answers = answers_load(directory=plan.answers, name=scenario.name)
        if answers is None:
            return None
        runs = [_replayed_run(scenario, answers, plan.today) for _ in range(plan.repeat)]
    else:
        for index in range(plan.repeat):
            if plan.record is not None and index == 0:
                runs.append(_recorded_run(scenario, plan.model, plan.record, plan.today))
            else:
                runs.append(scenario_run(scenario=scenario, model=plan.model, today=plan.today))
    return ScenarioReport(scenario=scenario, runs=tuple(runs))


# ---------------------------------------------------------------- the score

def reports_tally(reports: Iterable[ScenarioReport],
                  key: Callable[[Scenario], str]) -> dict[str, tuple[int, int]]:
    """(passed, total) per value of `key`, in key order."""
    tally: dict[str, list[int]] = {}
    for report in reports:
        counts = tally.setdefault(key(report.scenario) or "-", [0, 0])
        counts[0] += report.passed
        counts[1] += 1
    return {name: (passed, total) for name, (passed, total) in sorted(tally.items())}


def score_fraction(text: str) -> Fraction:
    """A minimum score, exactly: "0.9" or "90%" is 9/10. A bare number over 1 is refused
    rather than guessed at (was "90" meant as 90%?)."""
    value = text.strip()
    percent = value.endswith("%")
    try:
        number = Fraction(value.removesuffix("%").strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{text!r} is not a fraction (0.9) or a percentage (90%)") from None
    fraction = number / 100 if percent else number
    if not 0 <= fraction <= 1:
        raise ValueError(f"{text!r} is outside 0–1 (or 0%–100%)")
    return fraction
