import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

application = get_asgi_application()

# Load litellm, the Router and the tokenizers as the process starts, not inside the
# first chats, on the event loop every request shares (whizi.llm.llm_warm).
from whizi.llm import llm_warm  # noqa: E402

llm_warm()
