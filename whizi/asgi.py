import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

application = get_asgi_application()

# litellm takes seconds to import: import it (and build the model router) as the process
# starts, not inside the first chats' database steps, which would hold their connections.
from whizi.llm.router import model_router  # noqa: E402

model_router()
