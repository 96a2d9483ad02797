"""Evaluation scenarios for the memory pass (docs/DESIGN.md §6), run through pass_compute() —
the same code a worker runs, minus the queue and the database.

A scenario file is a JSON list of objects:

    {"name": str, "language": str, "category": str, "source": "chat" | "voice",
     "existing": [str, …], "turns": [{"role": "user" | "assistant", "content": str}, …],
     "expect": {"contains": [str, …], "absent": [str, …], "unchanged": bool}}

`contains` is a case-sensitive substring of some saved line, `absent` must not appear
(case-insensitively) in any saved line, `unchanged` means the saved list equals
`existing`. `category` is optional and groups scenarios in the summary; without one a
scenario is grouped under its file's name. A pass that fails (the model errored or
answered with no usable list) fails its scenario.

Every saved list must also have the shape of a memory: within WHIZI_MEMORY_MAX_TOKENS,
no line twice, no placeholder where a fact should be, no order to the assistant, and no
line over LINE_CHARS_MAX characters.

Recorded answers: `DIR/<scenario name>.txt` holds the model's answer to the pass and
`DIR/<scenario name>.compaction.txt` its answer to the compaction (only where the list
went over the cap), each exactly as the model wrote it. A replay answers the real
pass_compute() with them through an in-process litellm provider, so parsing, checks
and budget run as they would for the model that gave them; a recording passes each
call on to the real model and keeps what it answered.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

from django.conf import settings
from litellm.llms.custom_llm import CustomLLM

from memory.compute import PassResult, pass_compute, pass_prompt
from memory.lines import line_key
from memory.models import MemoryPass
from memory.prompts import Turn
from memory.safety import is_directive
from memory.tokens import count_list_tokens
from whizi import llm
from whizi.llm.provider import TextLLM

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

PASS_ANSWER = "pass"
COMPACTION_ANSWER = "compaction"
_ANSWER_SUFFIX = {PASS_ANSWER: ".txt", COMPACTION_ANSWER: ".compaction.txt"}
_FILE_NAME = re.compile(r"\w[\w.-]*")

REPLAY_PROVIDER = "memory-eval-replay"
RECORD_PROVIDER = "memory-eval-record"
REPLAY_MODEL = f"{REPLAY_PROVIDER}/recorded"


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


@dataclass(frozen=True)
class Verdict:
    scenario: Scenario
    passed: bool
    outcome: str
    lines: tuple[str, ...]
    tokens: int
    reasons: tuple[str, ...] = field(default_factory=tuple)
    refused_by: dict[str, int] = field(default_factory=dict)  # changes the checks refused, by check


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
    reasons += line_shape_problems(lines)
    return Verdict(scenario=scenario, passed=not reasons, outcome=result.outcome, lines=lines,
                   tokens=tokens, reasons=tuple(reasons), refused_by=dict(result.refused_by))


# ---------------------------------------------------------------- recorded answers

def _answer_kind(messages: Sequence[dict[str, Any]]) -> str:
    """Which question a call asks: the compaction shows its list in <memory_to_compact>."""
    last = str(messages[-1].get("content") or "") if messages else ""
    return COMPACTION_ANSWER if "<memory_to_compact" in last else PASS_ANSWER


def _answer_path(directory: Path, name: str, kind: str) -> Path:
    if not _FILE_NAME.fullmatch(name):
        raise ScenarioError(f"{name!r}: a scenario name used as a file name may hold only letters, digits, "
                            "'.', '_' and '-'")
    return directory / f"{name}{_ANSWER_SUFFIX[kind]}"


def answers_load(*, directory: Path, name: str) -> dict[str, str] | None:
    """The answers recorded for one scenario, by kind; None when nothing was recorded."""
    answers: dict[str, str] = {}
    for kind in _ANSWER_SUFFIX:
        path = _answer_path(directory, name, kind)
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
        path = _answer_path(directory, name, kind)
        if kind in answers:
            path.write_text(answers[kind], encoding="utf-8")
        elif kind == COMPACTION_ANSWER:
            path.unlink(missing_ok=True)


class ReplayLLM(TextLLM):
    """A memory model that answers each call with the recorded answer of its kind."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[str, str] = {}
        self.missing: list[str] = []

    def load(self, answers: dict[str, str]) -> None:
        self.answers, self.missing = dict(answers), []

    def respond(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        kind = _answer_kind(messages)
        if kind not in self.answers:
            self.missing.append(kind)
            raise llm.litellm_module().APIError(status_code=500, message=f"no recorded {kind} answer",
                                                llm_provider=REPLAY_PROVIDER, model=model)
        return self.answers[kind]


class RecordingLLM(CustomLLM):
    """Passes each call on to the model named after the provider (`memory-eval-record/<model>`)
    with the same parameters, answers with its response as it is, and keeps its text."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[str, str] = {}

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Any:
        params = kwargs.get("optional_params") or {}
        response = llm.litellm_module().completion(
            model=model, messages=messages, timeout=kwargs.get("timeout"), num_retries=0, **params)
        self.answers[_answer_kind(messages)] = response.choices[0].message.content or ""
        return response


_REPLAY = ReplayLLM()
_RECORDER = RecordingLLM()


def _providers_register() -> None:
    """Put the replay and recording providers beside the ones settings registers."""
    litellm = llm.litellm_module()
    ours = {REPLAY_PROVIDER: _REPLAY, RECORD_PROVIDER: _RECORDER}
    litellm.custom_provider_map = [
        item for item in litellm.custom_provider_map if item["provider"] not in ours
    ] + [{"provider": name, "custom_handler": handler} for name, handler in ours.items()]


# ---------------------------------------------------------------- running

def scenario_run(*, scenario: Scenario, model: str, today: date | None = None) -> Verdict:
    """Run one scenario through the real pass and judge it."""
    result = pass_compute(existing=scenario.existing, turns=scenario.turns,
                          source=scenario.source, model=model, today=today)
    return scenario_judge(scenario, result)


PROMPT_SUFFIX = ".prompt.txt"
_PROMPT_ROLE = "===== {role} ====="


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """Messages as one readable file: each under a line naming its role."""
    return "\n".join(f"{_PROMPT_ROLE.format(role=m['role'])}\n{m['content']}\n" for m in messages)


PROMPT_DIGESTS = "PROMPTS.sha256"


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
    _answer_path(directory, scenario.name, PASS_ANSWER)  # the name must make a file name
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


def _replayed_run(scenario: Scenario, answers: dict[str, str], today: date | None) -> Verdict:
    _providers_register()
    _REPLAY.load(answers)
    verdict = scenario_run(scenario=scenario, model=REPLAY_MODEL, today=today)
    missing = tuple(f"no recorded {kind} answer ({_answer_path(Path(), scenario.name, kind).name})"
                    for kind in dict.fromkeys(_REPLAY.missing))
    return replace(verdict, passed=False, reasons=missing + verdict.reasons) if missing else verdict


def _recorded_run(scenario: Scenario, model: str, directory: Path, today: date | None) -> Verdict:
    _providers_register()
    _RECORDER.answers = {}
    verdict = scenario_run(scenario=scenario, model=f"{RECORD_PROVIDER}/{model}", today=today)
    answers_save(directory=directory, name=scenario.name, answers=_RECORDER.answers)
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
