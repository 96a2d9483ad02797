"""Conversations and projects: starting them, and finding one that belongs to the owner."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from accounts.locks import owner_hold
from accounts.owner import Owner
from chat.errors import ChatInputError
from chat.limits import MAX_PROJECT_INSTRUCTIONS_CHARS, MAX_PROJECT_NAME_CHARS
from chat.model_choice import chat_model_choose
from chat.models import Conversation, Project
from whizi.text import storable_text


def conversation_for_owner(*, owner: Owner, conversation_id: object) -> Conversation:
    """The owner's conversation with this id; 404 for anything else, guessed ids included."""
    try:
        pk = int(str(conversation_id))
    except ValueError:
        raise Http404 from None
    return get_object_or_404(Conversation.objects.for_owner(owner).select_related("project"), pk=pk)


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
