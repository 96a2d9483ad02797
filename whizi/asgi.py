import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

application = get_asgi_application()

from django.core import signals  # noqa: E402
from django.db import close_old_connections, reset_queries  # noqa: E402

# Load litellm, the Router and the tokenizers as the process starts, not inside the
# first chats, on the event loop every request shares (whizi.llm.llm_warm).
from whizi.llm import llm_warm  # noqa: E402


def request_start_without_thread() -> None:
    """Under ASGI each request runs its sync code in a thread of its own (asgiref's
    ThreadSensitiveContext per request; Django's database connections are per thread), so
    that thread starts with no connection and no query log: request_started's two
    database receivers have nothing to do. Yet running them cost every request a thread,
    made before anything else of it ran, and a turn on the event loop: under a burst of
    300 chats, 300 threads at once in front of every page, before the chats' line could
    hold them back (docs/PERFORMANCE.md). request_finished still closes the connections."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_started.disconnect(reset_queries)


request_start_without_thread()
llm_warm()
