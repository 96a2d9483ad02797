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


class OwnedQuerySet(models.QuerySet):
    def for_owner(self, owner) -> "OwnedQuerySet":
        return self.filter(**owner.lookup)


def _owner_fields(field: type[models.ForeignKey], related_name: str) -> tuple[models.Field, models.Field]:
    """A user field and a guest field of this kind; exactly one is set (_OneOwner)."""
    return (
        field(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
              related_name=related_name),
        field(Guest, null=True, blank=True, on_delete=models.CASCADE, related_name=related_name),
    )


class _OneOwner(models.Model):
    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True
        # Each owned row belongs to exactly one of a user or a guest.
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(user__isnull=False, guest__isnull=True)
                           | models.Q(user__isnull=True, guest__isnull=False)),
                name="%(app_label)s_%(class)s_one_owner",
            )
        ]


class OwnedModel(_OneOwner):
    """Something that belongs to exactly one memory owner: a user or a guest."""

    user, guest = _owner_fields(models.ForeignKey, "+")

    class Meta(_OneOwner.Meta):
        abstract = True


class PerOwnerModel(_OneOwner):
    """At most one row per memory owner (a user or a guest): memory, preferences."""

    user, guest = _owner_fields(models.OneToOneField, "%(class)s")

    class Meta(_OneOwner.Meta):
        abstract = True


class Preference(PerOwnerModel):
    """Settings → Preferences, per account (or per guest until they sign up)."""

    # A code from settings.LANGUAGES; blank means "follow the browser".
    language = models.CharField(max_length=16, blank=True)
    # One of settings.WHIZI_CHAT_MODELS; blank means the first configured model.
    chat_model = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Preferences of {'user ' + str(self.user_id) if self.user_id else 'a guest'}"
