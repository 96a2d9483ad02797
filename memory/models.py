from django.db import models

from accounts.models import OwnedModel, PerOwnerModel


class Memory(PerOwnerModel):
    """One owner's list of durable facts.

    `version` goes up on every write, so a pass saves only over the list it read
    (compare-and-swap). `epoch` goes up on every clear, so a pass that started before
    a clear is discarded rather than retried, and `cleared_at` bounds which turns any
    later pass may read.
    """

    lines = models.JSONField(default=list)
    tokens = models.PositiveIntegerField(default=0)
    version = models.PositiveBigIntegerField(default=0)
    epoch = models.PositiveIntegerField(default=0)
    cleared_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta(PerOwnerModel.Meta):
        verbose_name_plural = "memories"

    def __str__(self) -> str:
        who = f"user {self.user_id}" if self.user_id else f"guest {self.guest_id}"
        return f"Memory of {who}"


class MemoryPass(OwnedModel):
    """One memory pass: when it was asked for, and what it did. Never any fact text."""

    class Trigger(models.TextChoices):
        CADENCE = "cadence", "every 6 turns"
        REQUEST = "request", "remember/forget request"
        VOICE = "voice", "end of voice session"
        MERGE = "merge", "guest merged into account"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"

    class Outcome(models.TextChoices):
        UPDATED = "updated"
        UNCHANGED = "unchanged"
        COMPACTED = "compacted"
        TRIMMED = "trimmed"
        DISCARDED = "discarded"
        FAILED = "failed"

    trigger = models.CharField(max_length=16, choices=Trigger.choices)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    # What the pass reads: the conversation up to this reply, or this voice session. Plain
    # ids, not foreign keys: conversations are chat's, which reads them for memory
    # (memory.sources); a pass whose turns are gone reads nothing.
    through_message_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    # A chat pass also records its conversation and the reply it was first recorded
    # through: later turns of that conversation join the pass while it waits for a worker
    # (memory.passes), moving through_message_id on, and the pass reads them all.
    conversation_id = models.BigIntegerField(null=True, blank=True)
    first_through_message_id = models.BigIntegerField(null=True, blank=True)
    voice_session_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    model = models.CharField(max_length=200, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    # What the pass's model calls cost, in US dollars (null when the model cannot be
    # priced). Whizi's own cost, never the user's: memory uses none of their messages.
    cost = models.DecimalField(max_digits=14, decimal_places=8, null=True, blank=True)
    lines_before = models.PositiveIntegerField(default=0)
    # What the pass did to each line, as counts by kind and reason (never text):
    # {"kept", "edited", "added", "removed": {"forgotten" | "superseded" | "rule" | …: n}, "refused"}.
    changes = models.JSONField(default=dict, blank=True)
    lines_after = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)
    # Of duration_ms, the time spent waiting on the memory model (both calls).
    model_ms = models.PositiveIntegerField(default=0)
    # Error class and kind only: a model's error text may quote the user's facts.
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta(OwnedModel.Meta):
        ordering = ["-created_at"]
        verbose_name_plural = "memory passes"
        constraints = [
            *OwnedModel.Meta.constraints,
            # At most one chat pass per conversation waits for a worker: two replies at
            # once cannot both record one (the loser joins the winner's, memory.passes).
            models.UniqueConstraint(
                fields=["conversation_id"], name="memory_pass_one_waiting_per_conversation",
                condition=models.Q(status="queued", started_at__isnull=True, conversation_id__isnull=False),
            ),
        ]


class MemoryChange(OwnedModel):
    """One line a pass changed, with its words: what the reply's mark opens to.

    The text lives here, with the owner's memory, and goes with it: a clear deletes the
    owner's rows (memory.store.memory_clear), as do the account's deletion and the guest's
    (cascade). The pass log (MemoryPass) stays text-free. Written in the transaction that
    saves the list, so a row exists exactly when its change was saved.
    """

    class Kind(models.TextChoices):
        ADDED = "added"
        REPLACED = "replaced"
        REMOVED = "removed"
        COMPACTED = "compacted"

    # Plain ids, as MemoryPass reads chat: the pass, and the reply it ran through.
    memory_pass = models.ForeignKey(MemoryPass, on_delete=models.CASCADE, related_name="line_changes")
    reply_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    old_text = models.TextField(blank=True)
    new_text = models.TextField(blank=True)
    # Why a line was removed: a removal reason of memory.prompts (forgotten, superseded,
    # rule, merged, dropped); blank for other kinds.
    reason = models.CharField(max_length=32, blank=True)
    count = models.PositiveIntegerField(default=0)  # a compaction's merged lines
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta(OwnedModel.Meta):
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} (pass {self.memory_pass_id})"
