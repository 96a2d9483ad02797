"""python manage.py memory_eval [--model M] [--scenarios DIR] [--verbose]

Runs every scenario in DIR through the memory pass and prints one row per scenario and
`score: P/N passed`. Exits 0 whatever the score; non-zero only when it cannot run.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from memory.evaluation import ScenarioError, scenario_run, scenarios_load

DEFAULT_SCENARIOS = Path(__file__).resolve().parents[2] / "eval_scenarios"


class Command(BaseCommand):
    help = "Score the memory pass against evaluation scenarios (docs/DESIGN.md §6)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--model", default=None,
                            help="memory model to evaluate (default: WHIZI_MEMORY_MODEL)")
        parser.add_argument("--scenarios", default=str(DEFAULT_SCENARIOS),
                            help="folder of *.json scenario files (default: memory/eval_scenarios)")
        parser.add_argument("--verbose", action="store_true", help="also print each saved list")

    def handle(self, *args, **options) -> None:
        model = options["model"] or settings.WHIZI_MEMORY_MODEL
        try:
            scenarios = scenarios_load(directory=Path(options["scenarios"]))
        except ScenarioError as exc:
            raise CommandError(str(exc)) from exc
        if not scenarios:
            raise CommandError(f"no scenarios in {options['scenarios']}")
        self.stdout.write(f"memory model: {model}")
        width = max(len(s.name) for s in scenarios)
        passed = 0
        for scenario in scenarios:
            verdict = scenario_run(scenario=scenario, model=model)
            passed += verdict.passed
            status = "PASS" if verdict.passed else "FAIL"
            detail = "; ".join(verdict.reasons)
            self.stdout.write(
                f"{status}  {scenario.name:<{width}}  {scenario.language:<7}  {scenario.source:<5}  "
                f"{verdict.outcome:<9}  {verdict.tokens:>4} tok  {detail}".rstrip()
            )
            if options["verbose"]:
                for line in verdict.lines:
                    self.stdout.write(f"        - {line}")
        self.stdout.write(f"score: {passed}/{len(scenarios)} passed")
