"""python manage.py export_account <email|id> [--output FILE]"""

import os
from pathlib import Path

from django.core.management.base import CommandError

from lifecycle.export import account_export
from lifecycle.management.account_command import AccountCommand


class _Stream:
    """Writes chunks to the command's stdout as they come, with no added newlines."""

    def __init__(self, stdout) -> None:
        self._stdout = stdout

    def write(self, text: str) -> None:
        self._stdout.write(text, ending="")


class Command(AccountCommand):
    help = (
        "Export one account as a JSON document: the account, preferences, memory (under "
        "`memory`), projects, conversations with messages, voice sessions with turns."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--output", "-o", help="write to this file instead of standard output")

    def handle(self, *args, account: str, output: str | None, **options):
        user = self.account(account)

        if not output:
            summary = account_export(user=user, out=_Stream(self.stdout))
            self.stdout.flush()
        else:
            target = Path(output)
            if target.is_dir():
                raise CommandError(f"{output} is a directory; give a file name.")
            # Written beside the target and renamed at the end, so a failed export
            # never leaves a half-written file under the name asked for.
            partial = target.with_name(target.name + ".partial")
            try:
                with open(partial, "w", encoding="utf-8") as out:
                    summary = account_export(user=user, out=out)
                os.replace(partial, target)
            except OSError as exc:
                partial.unlink(missing_ok=True)
                raise CommandError(f"Could not write {output}: {exc.strerror or exc}") from None
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
        # The summary goes to stderr so standard output stays one clean JSON document.
        self.stderr.write(
            f"Exported account {user.pk}: {summary.facts} facts, {summary.projects} projects, "
            f"{summary.conversations} conversations, {summary.messages} messages, "
            f"{summary.voice_sessions} voice sessions.",
            style_func=str,
        )
