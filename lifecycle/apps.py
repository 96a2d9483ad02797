from django.apps import AppConfig


class LifecycleConfig(AppConfig):
    name = "lifecycle"
    verbose_name = "Account lifecycle"

    def ready(self) -> None:
        # Connects the allauth receivers that merge a guest into the account, and
        # registers the deploy check of email verification.
        from lifecycle import checks, signals  # noqa: F401
