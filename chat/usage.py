"""What each owner's chats and memory passes used and cost (the admin's usage page).

Replies carry the provider's token counts and cost (chat.exchange); memory passes carry
their own, kept apart because memory costs Whizi, never the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q, Sum

from chat.models import Message
from memory.selectors import pass_usage_by_owner


@dataclass
class OwnerUsage:
    user_id: int | None
    guest_id: object
    email: str = ""
    replies: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    chat_cost: Decimal = Decimal(0)
    unpriced_replies: int = 0
    passes: int = 0
    memory_input_tokens: int = 0
    memory_output_tokens: int = 0
    memory_cost: Decimal = Decimal(0)

    @property
    def total_cost(self) -> Decimal:
        return self.chat_cost + self.memory_cost


def usage_by_owner(*, search: str = "", limit: int = 100) -> list[OwnerUsage]:
    """Per-owner totals, costliest first (at most `limit` owners); `search` matches an
    account's email or a guest's exact id."""
    replies = Message.objects.filter(role=Message.Role.ASSISTANT)
    if search:
        replies = replies.filter(Q(conversation__user__email__icontains=search)
                                 | Q(conversation__guest__id__iexact=search))
    owners: dict[tuple, OwnerUsage] = {}
    per_owner = replies.values("conversation__user", "conversation__user__email", "conversation__guest")
    for row in per_owner.annotate(
            replies=Count("id"), input_tokens=Sum("input_tokens"), output_tokens=Sum("output_tokens"),
            cost_sum=Sum("cost"), unpriced=Count("id", filter=Q(cost__isnull=True))):
        key = (row["conversation__user"], row["conversation__guest"])
        owners[key] = OwnerUsage(
            user_id=key[0], guest_id=key[1], email=row["conversation__user__email"] or "",
            replies=row["replies"], input_tokens=row["input_tokens"] or 0,
            output_tokens=row["output_tokens"] or 0, chat_cost=row["cost_sum"] or Decimal(0),
            unpriced_replies=row["unpriced"])
    for row in pass_usage_by_owner(search=search):
        key = (row["user"], row["guest"])
        usage = owners.setdefault(key, OwnerUsage(user_id=key[0], guest_id=key[1],
                                                  email=row["user__email"] or ""))
        usage.passes = row["passes"]
        usage.memory_input_tokens = row["input_tokens"] or 0
        usage.memory_output_tokens = row["output_tokens"] or 0
        usage.memory_cost = row["cost_sum"] or Decimal(0)
    ranked = sorted(owners.values(), key=lambda u: (u.total_cost, u.input_tokens + u.output_tokens),
                    reverse=True)
    return ranked[:limit]
