"""The suite's settings: the product's, plus the scripted provider the tests drive
(whizi.llm.scripted). Production never registers it. Server and worker processes the
suite starts inherit DJANGO_SETTINGS_MODULE, so they register it too."""

from whizi.settings import *  # noqa: F403
from whizi.settings import WHIZI_LLM_PROVIDERS as _PRODUCT_PROVIDERS

WHIZI_LLM_PROVIDERS = {**_PRODUCT_PROVIDERS, "scripted": "whizi.llm.scripted.ScriptedLLM"}
