from allauth.account.adapter import DefaultAccountAdapter


class AccountAdapter(DefaultAccountAdapter):
    """Hook point for the guest-to-account merge (see lifecycle.signals)."""
