"""Conversations and projects: starting, finding, renaming, deleting and searching them.

The page (chat.views) and the JSON API (chat.api) call the same services, so a rule such
as "another owner's conversation is a 404" or "a title is at most 200 characters" lives
here once. Deleting a conversation deletes its messages and nothing else: the owner's
memory is untouched (a pass waiting on it reads nothing and changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.locks import owned_row_lock, owner_hold
from accounts.owner import Owner
from chat.errors import ChatInputError
from chat.limits import (
    MAX_PROJECT_INSTRUCTIONS_CHARS,
    MAX_PROJECT_NAME_CHARS,
    MAX_RENAMED_TITLE_CHARS,
    MAX_SEARCH_CHARS,
)
from chat.model_choice import chat_model_choose
from chat.models import Conversation, Message, Project
from whizi.db import sql_model_row, sql_row, sql_table, sql_value
from whizi.text import storable_text


def conversation_for_owner(*, owner: Owner, conversation_id: object) -> Conversation:
    """The owner's conversation with this id; 404 for anything else, guessed ids included."""
    try:
        pk = int(str(conversation_id))
    except ValueError:
        raise Http404 from None
    if not -(2**63) <= pk < 2**63:  # no row has it, and SQLite would refuse the number
        raise Http404
    # The ORM's `get_object_or_404(…for_owner(owner).select_related("project"), pk=pk)`,
    # written as SQL: every message reads it, and the ORM's build cost more than the read.
    mine, key = owner.sql_match(Conversation, "t")
    found = sql_model_row(Conversation, f"t.id = %s AND {mine}", [pk, key], related="project")
    if found is None:
        raise Http404("No conversation matches the given query.")
    return found


def project_fields_check(*, name: str, instructions: str) -> dict[str, str]:
    """A project's name and instructions, cleaned. Raises ChatInputError."""
    name = storable_text(name or "").strip()
    instructions = storable_text(instructions or "").strip()
    if not name:
        raise ChatInputError(_("Give the project a name."), field="name")
    if len(name) > MAX_PROJECT_NAME_CHARS:
        raise ChatInputError(
            _("A project name can be at most %(count)d characters.") % {"count": MAX_PROJECT_NAME_CHARS},
            field="name",
        )
    if len(instructions) > MAX_PROJECT_INSTRUCTIONS_CHARS:
        raise ChatInputError(
            _("Project instructions can be at most %(count)d characters.")
            % {"count": MAX_PROJECT_INSTRUCTIONS_CHARS},
            field="instructions",
        )
    return {"name": name, "instructions": instructions}


def project_create(*, owner: Owner, name: str, instructions: str) -> Project:
    fields = project_fields_check(name=name, instructions=instructions)
    with transaction.atomic():
        owner_hold(owner=owner)  # an owner deleted meanwhile is a 404 (accounts.locks)
        return Project.objects.create(**owner.lookup, **fields)


def conversation_start(*, owner: Owner, model: str | None = None,
                       project: Project | None = None) -> Conversation:
    """A new, empty conversation. Raises ChatInputError for an unknown model."""
    chosen = chat_model_choose(requested=model, owner=owner)
    if project is not None and Owner.of(project) != owner:
        raise ChatInputError(_("That project was not found."), field="project")
    with transaction.atomic():
        owner_hold(owner=owner)  # an owner deleted meanwhile is a 404 (accounts.locks)
        return Conversation.objects.create(**owner.lookup, model=chosen, project=project)


def conversation_title_check(title: object) -> str:
    """A title the owner typed, on one line. Raises ChatInputError."""
    text = " ".join(storable_text(title).split()) if isinstance(title, str) else ""
    if not text:
        raise ChatInputError(_("Give the chat a name."), field="title")
    if len(text) > MAX_RENAMED_TITLE_CHARS:
        raise ChatInputError(
            _("A chat name can be at most %(count)d characters.") % {"count": MAX_RENAMED_TITLE_CHARS},
            field="title",
        )
    return text


def conversation_rename(*, conversation: Conversation, title: object) -> Conversation:
    """Give the conversation the owner's own title. Raises ChatInputError (nothing changed)
    or Http404 when it was deleted meanwhile."""
    text = conversation_title_check(title)
    with transaction.atomic():
        owned_row_lock(Conversation, pk=conversation.pk)  # as every write to it (accounts.locks)
        # Renaming is not using the chat: its place in the list (updated_at) stays.
        Conversation.objects.filter(pk=conversation.pk).update(title=text)
    conversation.title = text
    return conversation


def conversation_delete(*, conversation: Conversation) -> None:
    """Delete the conversation and its messages. Memory is untouched."""
    with transaction.atomic():
        locked = owned_row_lock(Conversation, pk=conversation.pk)
        locked.delete()


def _listed(owner: Owner) -> QuerySet[Conversation]:
    # Conversations with at least one message: a chat started and never used is not listed.
    used = Message.objects.filter(conversation_id=OuterRef("pk"))
    return (Conversation.objects.for_owner(owner).filter(Exists(used))
            .select_related("project").order_by("-updated_at", "-id"))


def conversation_list_head(*, owner: Owner | None) -> tuple[int, str, date] | None:
    """The newest chat of the side column (id, title, the day it was last used): when a
    send leaves it the same, the column has not changed.

    `_listed` written as SQL, for every streamed message reads it: the ORM's build of
    this one query cost twice its run (tests/chat/test_conversation_list.py holds the
    two to the same rows)."""
    if owner is None:
        return None
    mine, key = owner.sql_match(Conversation, "c")
    head = sql_row(
        f"SELECT c.id, c.title, c.updated_at FROM {sql_table(Conversation)} c WHERE {mine} "
        f"AND EXISTS (SELECT 1 FROM {sql_table(Message)} m WHERE m.conversation_id = c.id) "
        "ORDER BY c.updated_at DESC, c.id DESC LIMIT 1", [key])
    if head is None:
        return None
    return head[0], head[1], timezone.localdate(sql_value(Conversation, "updated_at", head[2]))


def conversation_search(*, owner: Owner | None, query: str = "", offset: int = 0,
                        limit: int = 50) -> tuple[list[Conversation], bool]:
    """The owner's conversations, newest first, whose title or any message holds `query`
    (case-insensitive; everything when empty); and whether more follow this page."""
    if owner is None:
        return [], False
    rows = _listed(owner)
    words = " ".join(str(query or "").split())[:MAX_SEARCH_CHARS]
    if words:
        said = Message.objects.filter(conversation_id=OuterRef("pk"), content__icontains=words)
        rows = rows.filter(Q(title__icontains=words) | Exists(said))
    page = list(rows[offset: offset + limit + 1])
    return page[:limit], len(page) > limit


def conversation_messages_page(*, conversation: Conversation, before: int | None = None,
                               limit: int = 50) -> tuple[list[Message], int | None]:
    """The conversation's newest `limit` messages older than message `before` (all when
    None), oldest first, and the cursor for the page before them (None at the start).
    A cursor, not a page number: messages sent meanwhile do not shift what comes next."""
    rows = conversation.messages.order_by("-id")
    if before is not None:
        rows = rows.filter(id__lt=before)
    page = list(rows[: limit + 1])
    older = page[limit - 1].pk if len(page) > limit else None
    return page[:limit][::-1], older


@dataclass(frozen=True)
class ConversationGroup:
    key: str  # today, yesterday, week, month, older
    label: str
    conversations: list[Conversation]


def conversation_groups(conversations: list[Conversation], *,
                        today: date | None = None) -> list[ConversationGroup]:
    """The list as the side column shows it: by when each conversation was last used."""
    today = today or timezone.localdate()
    labels = [("today", _("Today")), ("yesterday", _("Yesterday")), ("week", _("Previous 7 days")),
              ("month", _("Previous 30 days")), ("older", _("Older"))]
    buckets: dict[str, list[Conversation]] = {key: [] for key, _label in labels}
    for item in conversations:
        age = (today - timezone.localdate(item.updated_at)).days
        key = ("today" if age <= 0 else "yesterday" if age == 1 else "week" if age <= 7
               else "month" if age <= 30 else "older")
        buckets[key].append(item)
    return [ConversationGroup(key, label, buckets[key]) for key, label in labels if buckets[key]]
