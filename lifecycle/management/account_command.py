"""What the commands that act on one account share: naming it by email address or id."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from lifecycle.deletion import AccountNotFound, account_find


class AccountCommand(BaseCommand):
    def add_arguments(self, parser) -> None:
        parser.add_argument("account", help="the account's email address or id")

    def account(self, identifier: str) -> Any:
        """The user named on the command line; a CommandError when there is none."""
        try:
            return account_find(identifier=identifier)
        except AccountNotFound as exc:
            raise CommandError(str(exc)) from None
