import uuid

from django.conf import settings
from django.db import models


class Guest(models.Model):
    """A visitor who has not signed up. Its id lives only in their server-side session."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"guest {self.id}"


def one_owner_constraint(name: str) -> models.CheckConstraint:
    """Each owned row belongs to exactly one of a user or a guest."""
    return models.CheckConstraint(
        condition=(
            models.Q(user__isnull=False, guest__isnull=True)
            | models.Q(user__isnull=True, guest__isnull=False)
        ),
        name=name,
    )


class OwnedQuerySet(models.QuerySet):
    def for_owner(self, owner) -> "OwnedQuerySet":
        return self.filter(**owner.lookup)


class OwnedModel(models.Model):
    """Something that belongs to exactly one memory owner: a user or a guest."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="+",
    )
    guest = models.ForeignKey(
        Guest, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True
        constraints = [
            one_owner_constraint("%(app_label)s_%(class)s_one_owner")
        ]


class PerOwnerModel(models.Model):
    """At most one row per memory owner (a user or a guest): memory, preferences."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
        related_name="%(class)s",
    )
    guest = models.OneToOneField(
        Guest, null=True, blank=True, on_delete=models.CASCADE, related_name="%(class)s"
    )

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True
        constraints = [
            one_owner_constraint("%(app_label)s_%(class)s_one_owner")
        ]


class Preference(PerOwnerModel):
    """Settings → Preferences, per account (or per guest until they sign up)."""

    # A code from settings.LANGUAGES; blank means "follow the browser".
    language = models.CharField(max_length=16, blank=True)
    # One of settings.WHIZI_CHAT_MODELS; blank means the first configured model.
    chat_model = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Preferences of {'user ' + str(self.user_id) if self.user_id else 'a guest'}"
