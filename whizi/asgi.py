import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "whizi.settings")

application = get_asgi_application()

# Import litellm (about 2.5 s) and register our providers before serving, so the first
# chat after a start does not wait for it.
from whizi.llm import litellm_module  # noqa: E402

litellm_module()
