"""python manage.py memory_eval [--model M] [--scenarios PATH] [--repeat N] [--min-score F]
                                [--answers DIR | --record DIR | --prompts DIR] [--today DATE]
                                [--verbose]

Runs scenarios through the memory pass (memory/evaluation/) and prints one row per
scenario, the passed/total per category and per language, and `score: P/N passed`.
Exits 0 whatever the score unless --min-score is given; non-zero when it cannot run.
"""

from __future__ import annotations

import argparse
from datetime import date
from fractions import Fraction
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory.evaluation.files import ScenarioError, prompt_digests_save, scenario_prompt_save, scenarios_load
from memory.evaluation.scoring import (
    EvalPlan,
    ScenarioReport,
    reports_tally,
    scenario_evaluate,
    score_fraction,
)

DEFAULT_SCENARIOS = Path(__file__).resolve().parents[2] / "eval_scenarios"


def _runs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of runs, 1 or more")
    return int(text)


def _today(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def _min_score(text: str) -> Fraction:
    try:
        return score_fraction(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


class Command(BaseCommand):
    help = (
        "Score the memory pass against evaluation scenarios (docs/DESIGN.md §6): one row per "
        "scenario, passed/total per category and per language, then 'score: P/N passed'. Besides "
        "its expectations, every saved list must be within the token cap and hold no line twice, "
        "no placeholder, no order to the assistant and no line over 200 characters."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--model", default=None,
                            help="memory model to evaluate (default: WHIZI_MEMORY_MODEL)")
        parser.add_argument("--scenarios", default=str(DEFAULT_SCENARIOS), metavar="PATH",
                            help="a scenario file, or a folder whose *.json files are all read (its "
                                 "subfolders are not) (default: memory/eval_scenarios)")
        parser.add_argument("--repeat", type=_runs, default=1, metavar="N",
                            help="run each scenario N times; it passes only if every run passes, and "
                                 "one that passed some runs is reported as flaky (default: 1)")
        parser.add_argument("--min-score", type=_min_score, default=None, metavar="F",
                            help="exit non-zero when the share of scenarios passed is under F, a "
                                 "fraction (0.9) or a percentage (90%%); without it the exit status "
                                 "ignores the score")
        answers = parser.add_mutually_exclusive_group()
        answers.add_argument("--answers", default=None, metavar="DIR",
                             help="replay recorded answers instead of calling a model: DIR/<scenario "
                                  "name>.txt is the model's answer to the pass, DIR/<scenario "
                                  "name>.compaction.txt its answer to the compaction (where the list "
                                  "went over the cap); scenarios with neither file are skipped")
        answers.add_argument("--record", default=None, metavar="DIR",
                             help="save the answers the model gives in DIR, in the --answers layout "
                                  "(with --repeat, the first run's)")
        answers.add_argument("--prompts", default=None, metavar="DIR",
                             help="run nothing: write DIR/<scenario name>.prompt.txt, the exact messages "
                                  "the pass would send the memory model, for a model or a person to "
                                  "answer elsewhere, and their digests in DIR/PROMPTS.sha256; the "
                                  "answers in DIR/<scenario name>.txt are then replayed with --answers "
                                  "DIR (give both the same --today)")
        parser.add_argument("--today", type=_today, default=None, metavar="DATE",
                            help="the date the prompt tells the model it is, YYYY-MM-DD (default: today)")
        parser.add_argument("--verbose", action="store_true", help="also print each saved list")

    def handle(self, *args, **options) -> None:
        plan = self._plan(options)
        try:
            scenarios = scenarios_load(path=Path(options["scenarios"]))
        except ScenarioError as exc:
            raise CommandError(str(exc)) from exc
        if not scenarios:
            raise CommandError(f"no scenarios in {options['scenarios']}")
        if options["prompts"]:
            self._prompts(scenarios, Path(options["prompts"]), options["today"])
            return
        self._header(plan)
        width = max(len(s.name) for s in scenarios)
        reports: list[ScenarioReport] = []
        skipped: list[str] = []
        for scenario in scenarios:
            try:
                report = scenario_evaluate(scenario=scenario, plan=plan)
            except ScenarioError as exc:
                raise CommandError(str(exc)) from exc
            if report is None:
                skipped.append(scenario.name)
                continue
            reports.append(report)
            self._row(report, width, plan, verbose=options["verbose"])
        if not reports:
            raise CommandError(
                f"no recorded answers in {plan.answers} for any of the {len(scenarios)} scenarios")
        self._summary(reports, skipped, plan, verbose=options["verbose"])
        self._check_score(reports, options["min_score"])

    def _prompts(self, scenarios, directory: Path, today: date | None) -> None:
        digests: dict[str, str] = {}
        try:
            for scenario in scenarios:
                digest = scenario_prompt_save(scenario=scenario, directory=directory, today=today)
                if digest is not None:
                    digests[scenario.name] = digest
            prompt_digests_save(directory=directory, digests=digests)
        except (ScenarioError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        written = len(digests)
        skipped = len(scenarios) - written
        self.stdout.write(f"prompts: {written} written to {directory}"
                          + (f"; {skipped} with nothing to read (no model call)" if skipped else ""))

    def _plan(self, options) -> EvalPlan:
        answers = Path(options["answers"]) if options["answers"] else None
        if answers is not None and options["model"]:
            raise CommandError("--answers replays recorded answers: --model does not apply")
        if answers is not None and not answers.is_dir():
            raise CommandError(f"{answers}: not a folder of recorded answers")
        return EvalPlan(model=options["model"] or settings.WHIZI_MEMORY_MODEL, repeat=options["repeat"],
                        answers=answers, record=Path(options["record"]) if options["record"] else None,
                        today=options["today"])

    def _header(self, plan: EvalPlan) -> None:
        if plan.answers is not None:
            self.stdout.write(f"memory model: answers recorded in {plan.answers}, replayed through the pass")
        elif plan.record is not None:
            self.stdout.write(f"memory model: {plan.model} (its answers recorded in {plan.record})")
        else:
            self.stdout.write(f"memory model: {plan.model}")
        if plan.repeat > 1:
            self.stdout.write(f"runs per scenario: {plan.repeat}")

    def _row(self, report: ScenarioReport, width: int, plan: EvalPlan, *, verbose: bool) -> None:
        scenario, verdict = report.scenario, report.shown
        detail = "; ".join(verdict.reasons)
        if plan.repeat > 1 and not report.passed:
            detail = f"passed {report.runs_passed}/{plan.repeat} runs; {detail}"
        status = "PASS" if report.passed else "FAIL"
        self.stdout.write(
            f"{status}  {scenario.name:<{width}}  {scenario.language:<7}  {scenario.source:<5}  "
            f"{verdict.outcome:<9}  {verdict.tokens:>4} tok  {detail}".rstrip()
        )
        if verbose:
            if verdict.refused_by:
                refused = ", ".join(f"{check} {n}" for check, n in sorted(verdict.refused_by.items()))
                self.stdout.write(f"        refused: {refused}")
            for line in verdict.lines:
                self.stdout.write(f"        - {line}")

    def _summary(self, reports: list[ScenarioReport], skipped: list[str], plan: EvalPlan, *,
                 verbose: bool) -> None:
        for title, key in (("category", lambda s: s.category), ("language", lambda s: s.language)):
            tally = reports_tally(reports, key)
            width = max(len(name) for name in tally)
            self.stdout.write(f"by {title}:")
            for name, (passed, total) in tally.items():
                self.stdout.write(f"  {name:<{width}}  {passed:>3}/{total}")
        if plan.repeat > 1:
            flaky = [f"{r.scenario.name} ({r.runs_passed}/{plan.repeat})" for r in reports if r.flaky]
            self.stdout.write(f"flaky (passed some runs, not all): {', '.join(flaky) or 'none'}")
        refused: dict[str, int] = {}
        for report in reports:
            for verdict in report.runs:
                for check, count in verdict.refused_by.items():
                    refused[check] = refused.get(check, 0) + count
        self.stdout.write("changes refused, by check: "
                          + (", ".join(f"{check} {n}" for check, n in sorted(refused.items())) or "none"))
        if skipped:
            self.stdout.write(f"skipped, no recorded answers in {plan.answers}: {len(skipped)}"
                              + (f" ({', '.join(skipped)})" if verbose else ""))
        self.stdout.write(f"score: {sum(r.passed for r in reports)}/{len(reports)} passed")

    def _check_score(self, reports: list[ScenarioReport], minimum: Fraction | None) -> None:
        passed = sum(r.passed for r in reports)
        if minimum is not None and Fraction(passed, len(reports)) < minimum:
            raise CommandError(f"score {passed}/{len(reports)} ({passed / len(reports):.1%}) is under "
                               f"--min-score {float(minimum):.1%}")
