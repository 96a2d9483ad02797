"""The memory wording users see on the web and in the app (docs/STRINGS.md), translated lazily.

The web templates use the same English msgids, so a language has one translation of each.
"What Whizi remembers" has two contexts because Japanese words the web settings row
(Whiziが記憶している内容) and the app's alert title (Whiziが記憶していること) differently.
"""

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

READ_FAILED = _("Memory is unavailable right now. Please try again later.")
READ_FAILED_TITLE = _("Memory unavailable")
CLEAR_FAILED = _("Couldn't clear memory. Please try again.")
CLEAR_FAILED_TITLE = _("Memory could not be cleared")
CLEARED_TITLE = _("Memory cleared")
CLEARED_MESSAGE = _("Whizi no longer remembers anything about you.")

# The app's own labels around the list, so it can show them in the user's language.
APP_SETTINGS_ROW = _("What Whizi knows about me")
APP_ALERT_TITLE = pgettext_lazy("app alert title", "What Whizi remembers")
APP_CLOSE = _("Close")
APP_FORGET = _("Forget everything")
