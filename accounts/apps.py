from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts and guests"

    def ready(self) -> None:
        # Connects the allauth receivers that merge a guest into the account.
        from accounts import signals  # noqa: F401
