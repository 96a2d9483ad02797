"""python manage.py delete_account <email|id> [--noinput]"""

from django.core.management.base import CommandError

from lifecycle.deletion import AccountDeleteFailed, AccountNotFound, account_contents, account_delete
from lifecycle.management.account_command import AccountCommand


class Command(AccountCommand):
    help = (
        "Delete one account and everything it owns: memory, pass log, conversations, "
        "projects, voice sessions, preferences and cached entries."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive",
            help="do not ask for confirmation",
        )

    def handle(self, *args, account: str, interactive: bool, **options):
        user = self.account(account)

        label = f"account {user.pk} ({user.email or 'no email'})"
        if interactive:
            contents = account_contents(user_id=user.pk)
            self.stdout.write(f"This permanently deletes {label} and everything it owns:")
            for name, count in contents.items():
                self.stdout.write(f"  {name}: {count}")
            answer = input("Type 'yes' to delete it: ")
            if answer.strip().lower() != "yes":
                raise CommandError("Deletion cancelled; nothing was removed.")

        try:
            deletion = account_delete(user_id=user.pk)
        except (AccountNotFound, AccountDeleteFailed) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"Deleted {label}. Removed:")
        for name, count in deletion.removed.items():
            self.stdout.write(f"  {name}: {count}")
