"""What a new account is told about the guest data that came into it."""

from __future__ import annotations

from django.db.models import Exists, OuterRef
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from chat.models import Conversation, Message
from lifecycle.guest_merge import GuestMerge

# Set on the request that showed the sign-up notice (allauth's own notices then stay out).
SIGNUP_NOTICE_ATTRIBUTE = "_whizi_signup_notice"


def signup_notice(merge: GuestMerge | None, *, user_id: int) -> str:
    """"2 chats and 4 facts from this browser are now in your account." (empty: nothing came)."""
    if merge is None:
        return ""
    # A new account's chats all came from the guest; a chat never used is not one (nor listed).
    used = Message.objects.filter(conversation_id=OuterRef("pk"))
    chats = Conversation.objects.filter(user_id=user_id).filter(Exists(used)).count()
    facts = merge.facts_added
    if chats and facts:
        return _("%(chats)s and %(facts)s from this browser are now in your account.") % {
            "chats": ngettext("%(count)d chat", "%(count)d chats", chats) % {"count": chats},
            "facts": ngettext("%(count)d fact", "%(count)d facts", facts) % {"count": facts},
        }
    if chats:
        return ngettext("%(count)d chat from this browser is now in your account.",
                        "%(count)d chats from this browser are now in your account.",
                        chats) % {"count": chats}
    if facts:
        return ngettext("%(count)d fact from this browser is now in your account.",
                        "%(count)d facts from this browser are now in your account.",
                        facts) % {"count": facts}
    return ""
