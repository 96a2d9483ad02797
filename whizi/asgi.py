import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

application = get_asgi_application()

# litellm and the tokenizer take seconds to load: load them (and build the model router)
# as the process starts, not inside the first chats' database steps.
import tiktoken  # noqa: E402

from whizi.llm.router import model_router  # noqa: E402

model_router()
tiktoken.get_encoding("o200k_base")  # kept by tiktoken: every later count uses it
