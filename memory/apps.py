from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self) -> None:
        from memory.selectors import pass_queue_gauges
        from whizi.metrics import metric_gauges_on_scrape

        metric_gauges_on_scrape(pass_queue_gauges)
