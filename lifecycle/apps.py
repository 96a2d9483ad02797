from django.apps import AppConfig


class LifecycleConfig(AppConfig):
    name = "lifecycle"
    verbose_name = "Account lifecycle"

    def ready(self) -> None:
        # Connects the allauth receivers that merge a guest into the account.
        from lifecycle import signals  # noqa: F401
