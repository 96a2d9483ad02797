"""Two replies of one conversation at once (the web and the mobile app), each in its own
transaction on its own PostgreSQL connection: one queued pass, through the newer reply.

The interleaving is forced: the first reply records its pass and holds its transaction
open; the second finds no committed pass to join and tries to record one, which the
database makes wait (the conversation's one waiting place is taken); once the first
commits, the second joins its pass.
"""

import threading

import pytest
from django.db import connection, transaction

from memory.models import MemoryPass

from .conftest import chat, queue_after_reply

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _lock_waits() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity"
                       " WHERE datname = %s AND wait_event_type = 'Lock'", [connection.settings_dict["NAME"]])
        return cursor.fetchone()[0]


class Reply(threading.Thread):
    """One reply's transaction: queue its pass, then commit when told to."""

    def __init__(self, user_message, reply) -> None:
        super().__init__(daemon=True)
        self.user_message, self.reply = user_message, reply
        self.queued = threading.Event()
        self.commit = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            with transaction.atomic():
                queue_after_reply(self.user_message, self.reply)
                self.queued.set()
                assert self.commit.wait(timeout=30)
        except BaseException as exc:  # reported by the test
            self.error = exc
        finally:
            self.queued.set()
            connection.close()


@pytest.mark.parametrize("newer_first", [False, True], ids=["older-commits-first", "newer-commits-first"])
def test_two_replies_at_once_make_one_queued_pass_through_the_newer_reply(user, wait_for, newer_first):
    older_request = chat(user, "Remember that I'm Sam.")
    older = chat(user, "Noted, Sam.", conversation=older_request.conversation)
    newer_request = chat(user, "Remember that I live in Leeds.", conversation=older.conversation)
    newer = chat(user, "Noted: Leeds.", conversation=older.conversation)
    first, second = Reply(older_request, older), Reply(newer_request, newer)
    if newer_first:
        first, second = Reply(newer_request, newer), Reply(older_request, older)

    first.start()
    assert first.queued.wait(timeout=30)
    second.commit.set()
    second.start()
    # The second reply's insert waits on the first one's uncommitted pass.
    wait_for(lambda: _lock_waits() > 0 or not second.is_alive(), timeout=15)
    blocked = second.is_alive()
    first.commit.set()
    first.join(timeout=30)
    second.join(timeout=30)

    assert first.error is None and second.error is None, (first.error, second.error)
    assert blocked
    queued = list(MemoryPass.objects.values_list("status", "through_message_id", "first_through_message_id"))
    assert queued == [(MemoryPass.Status.QUEUED, newer.pk, older.pk)]
