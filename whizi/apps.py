from django.apps import AppConfig


class WhiziConfig(AppConfig):
    """The project package as an app, only so its system checks are registered at start-up
    (whizi.checks); it has no models and imports no other app."""

    name = "whizi"

    def ready(self) -> None:
        from whizi import checks  # noqa: F401 - registers the checks
