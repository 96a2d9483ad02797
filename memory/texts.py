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

# A reply's memory mark (memory.selectors.PassMark): what the pass after it did, in plain words.
MARK_UPDATED = _("Memory updated")
MARK_RETRYING = _("Memory not updated yet. It will be retried.")
MARK_FAILED = _("Memory not updated")
MARK_CLEARED = _("Memory cleared since this reply")
# Why an explicit remember or forget request changed nothing, by reason category.
NOT_SAVED = {
    "link": _("Not saved: Whizi doesn't keep links"),
    "instruction": _("Not saved: Whizi doesn't keep instructions about how to answer"),
    "code": _("Not saved: Whizi doesn't keep code or encoded text"),
    "not_yours": _("Not saved: Whizi only keeps what you said yourself"),
    "rules": _("Not saved: Whizi doesn't keep this kind of detail"),
    "already": _("Already remembered"),
    "nothing_to_forget": _("Nothing to forget"),
}
CHANGE_ADDED = _("Added: %(new)s")
CHANGE_REPLACED = _("Replaced: %(old)s → %(new)s")
# A removed line, by its removal reason (memory.prompts); any other reason reads as "rule".
CHANGE_REMOVED = {
    "forgotten": _("Removed, as you asked: %(old)s"),
    "superseded": _("Removed, replaced by a newer fact: %(old)s"),
    "rule": _("Removed, not kept under the rules: %(old)s"),
}
CHANGE_COMPACTED = ("Memory compacted: %(count)d line merged.", "Memory compacted: %(count)d lines merged.")
