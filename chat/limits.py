"""What a chat accepts: the size of a message, a project, a voice turn (and the check)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from chat.errors import ChatInputError
from whizi.text import storable_text

# Input caps. A message is held well under the 20,000-token transcript cap of a memory
# pass (docs/DESIGN.md §2.5): 20,000 characters is at most ~20,000 tokens even for CJK text.
MAX_MESSAGE_CHARS = 20_000
MAX_PROJECT_NAME_CHARS = 200
MAX_PROJECT_INSTRUCTIONS_CHARS = 8_000
MAX_TITLE_CHARS = 60  # a title made from the first message
MAX_RENAMED_TITLE_CHARS = 200  # a title the owner typed (the column's size)
MAX_SEARCH_CHARS = 200
# A voice turn is one utterance; a session of 400 turns is well over an hour of talk.
VOICE_MAX_TURN_CHARS = 4_000
VOICE_MAX_TURNS = 400


def message_content_check(content: object) -> str:
    """The message text to save. Raises ChatInputError for empty or oversized text."""
    if isinstance(content, str):
        content = storable_text(content)
    if not isinstance(content, str) or not content.strip():
        raise ChatInputError(_("Type a message first."))
    content = content.strip()
    if len(content) > MAX_MESSAGE_CHARS:
        raise ChatInputError(message_too_long_text())
    return content


def message_too_long_text() -> str:
    """What a message over the limit is told, by the server and by the page's counter."""
    return _("A message can be at most %(count)d characters.") % {"count": MAX_MESSAGE_CHARS}
