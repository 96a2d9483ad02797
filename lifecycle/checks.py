"""`check --deploy`: production should not let anyone sign up with another person's address."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Warning, register


@register("whizi_accounts", deploy=True)
def email_verification_check(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if settings.ACCOUNT_EMAIL_VERIFICATION == "mandatory":
        return []
    return [Warning(
        f"Email verification is {settings.ACCOUNT_EMAIL_VERIFICATION!r}: anyone can sign up with "
        "another person's address and use that account until its owner resets the password.",
        hint="Set WHIZI_EMAIL_VERIFICATION=mandatory (the default with WHIZI_HTTPS=true) and a real "
             "EMAIL_BACKEND. A reset of a never-verified account empties it (docs/DESIGN.md §8).",
        id="lifecycle.W001",
    )]
