from django.db import models

from accounts.models import OwnedModel


class Project(OwnedModel):
    """A body of work whose instructions apply only to its own chats."""

    name = models.CharField(max_length=200)
    instructions = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(OwnedModel.Meta):
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Conversation(OwnedModel):
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="conversations"
    )
    title = models.CharField(max_length=200, blank=True)
    model = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)
    # Memory passes read only turns after this: a guest cleared their memory before the
    # conversation moved to their account (the clear stays with what it covered).
    memory_read_after = models.DateTimeField(null=True, blank=True)

    class Meta(OwnedModel.Meta):
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        # Never the title: it is the user's own words, and str() ends up in logs and admin.
        return f"Conversation {self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    content = models.TextField()
    model = models.CharField(max_length=200, blank=True)
    # Usage the provider reported for the reply (assistant messages only).
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    # The content's own size (tiktoken), counted once when saved, so trimming the
    # history to a model's context budget never re-tokenises old messages.
    content_tokens = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.role} message {self.pk}"


class VoiceSession(OwnedModel):
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    memory_read_after = models.DateTimeField(null=True, blank=True)  # as Conversation

    class Meta(OwnedModel.Meta):
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"Voice session {self.pk}"


class VoiceTurn(models.Model):
    session = models.ForeignKey(VoiceSession, on_delete=models.CASCADE, related_name="turns")
    role = models.CharField(max_length=16, choices=Message.Role.choices)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.role} voice turn {self.pk}"
