"""A real model's correct work is never refused: the blind corpus through the whole pass
(docs/EVALUATION.md, "The blind corpus").

tests/memory/blind_answers holds what a capable language model answered to the exact pass
prompt of every scenario in memory/eval_scenarios (its top-level files, heldout, natural,
natural_extra, and blind: a set written by someone who never saw the code), rendered with
`memory_eval --prompts DIR --today 2026-12-01`. The answerer saw only those prompts, never
the scenarios' expectations or the code. Replayed through pass_compute() (parsing, every
check, the budget), the corpus must pass at 97 % or more, and every failure must be one
labelled below as the model's own mistake: a correct change refused is a bug in the checks.

PROMPTS.sha256 holds each recorded prompt's digest. When a prompt changes (the pass rules,
the own-words split, a scenario), its answer no longer answers it: re-render the prompts
whose digest changed, have them answered blind, and record the new digests (see
docs/EVALUATION.md).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory.evaluation.files import prompt_digest, scenarios_load
from memory.evaluation.scoring import EvalPlan, scenario_evaluate

pytestmark = pytest.mark.slow

SCENARIOS = Path(__file__).resolve().parents[2] / "memory" / "eval_scenarios"
SETS = ("", "heldout", "natural", "natural_extra", "blind")
ANSWERS = Path(__file__).resolve().parent / "blind_answers"
DIGESTS = ANSWERS / "PROMPTS.sha256"
TODAY = date(2026, 12, 1)
MIN_SCORE = 0.97

# Failures that are the model's mistake, not the product's, with what it did.
MODEL_ERRORS: dict[str, str] = {}


def _scenarios():
    return [scenario for name in SETS for scenario in scenarios_load(path=SCENARIOS / name)]


def _recorded_digests() -> dict[str, str]:
    lines = DIGESTS.read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split(maxsplit=1) for line in lines if line.strip())}


def test_every_scenario_has_a_blind_answer_to_its_current_prompt():
    recorded = _recorded_digests()
    scenarios = _scenarios()
    assert len(scenarios) >= 200
    assert {s.language for s in scenarios} == {"en", "vi", "zh-hans", "ja", "ko", "ms"}
    missing = [s.name for s in scenarios if not (ANSWERS / f"{s.name}.txt").is_file()]
    assert not missing, f"no recorded answer for {missing}"
    stale = [s.name for s in scenarios if recorded.get(s.name) != prompt_digest(scenario=s, today=TODAY)]
    assert not stale, f"the prompt changed since these answers were recorded: re-record {stale}"


def test_the_blind_corpus_passes_and_every_failure_is_the_models():
    plan = EvalPlan(model="unused", answers=ANSWERS, today=TODAY)
    reports = [scenario_evaluate(scenario=scenario, plan=plan) for scenario in _scenarios()]
    failed = {report.scenario.name: "; ".join(report.shown.reasons)
              for report in reports if not report.passed}
    unlabelled = {name: why for name, why in failed.items() if name not in MODEL_ERRORS}
    assert not unlabelled, f"a correct change refused, or a model error to label: {unlabelled}"
    assert set(MODEL_ERRORS) <= set(failed), f"labelled failures now pass: {set(MODEL_ERRORS) - set(failed)}"
    assert (len(reports) - len(failed)) / len(reports) >= MIN_SCORE
