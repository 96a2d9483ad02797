"""python manage.py chat_honesty render --out DIR [--exchanges FILE] [--model M]
python manage.py chat_honesty check --answers DIR [--exchanges FILE] [--model M]

`render` writes, per exchange of the chat honesty set (chat/eval_honesty/exchanges.json),
the exact messages the product sends the chat model (DIR/x01.json …) and their digests
(DIR/PROMPTS.sha256). `check` makes sure DIR holds one answer per exchange (x01.txt …),
recorded against the prompts as they are rendered now, and prints each answer beside its
rubric for review. How answers are recorded: tests/chat/honesty_answers/README.md.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from chat.honesty import EXCHANGES, HonestyError, answers_check, exchanges_load, prompts_write


class Command(BaseCommand):
    help = ("Render the chat honesty set's exact chat-model messages, or check recorded answers "
            "against them and print each beside its rubric (docs/EVALUATION.md, Chat honesty).")

    def add_arguments(self, parser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        render = actions.add_parser("render", help="Write DIR/xNN.json and DIR/PROMPTS.sha256.")
        render.add_argument("--out", type=Path, required=True, help="Folder to write the prompts into.")
        check = actions.add_parser("check", help="Check DIR/xNN.txt against the current prompts; "
                                                 "print each answer beside its rubric.")
        check.add_argument("--answers", type=Path, required=True, help="Folder of recorded answers.")
        for sub in (render, check):
            sub.add_argument("--exchanges", type=Path, default=EXCHANGES, help="The exchanges (JSON).")
            sub.add_argument("--model", default=None,
                             help="The chat model whose history budget applies (default: the first "
                                  "configured chat model; the set's short conversations fit any).")

    def handle(self, *args, **options) -> None:
        model = options["model"] or settings.WHIZI_CHAT_MODELS[0]
        try:
            exchanges = exchanges_load(options["exchanges"])
            if options["action"] == "render":
                names = prompts_write(out=options["out"], exchanges=exchanges, model=model)
                self.stdout.write(f"{len(names) - 1} prompts and PROMPTS.sha256 written to {options['out']}")
                return
            reviewed = answers_check(answers=options["answers"], exchanges=exchanges, model=model)
        except HonestyError as exc:
            raise CommandError(str(exc)) from exc
        for item in reviewed:
            exchange = item.exchange
            self.stdout.write(f"=== {exchange.id} ({exchange.language}, {exchange.category})")
            self.stdout.write(f"User: {exchange.user}")
            self.stdout.write("Answer:")
            self.stdout.write("    " + item.answer.replace("\n", "\n    "))
            self.stdout.write("Rubric:")
            for statement in exchange.rubric:
                self.stdout.write(f"  [ ] {statement}")
            self.stdout.write("")
        self.stdout.write(f"{len(reviewed)} answers, recorded against the current prompts: review each "
                          "against its rubric.")
