"""Voice passes (docs/DESIGN.md §2.2): a transcript may be misheard, so a garbled or surprising
line is skipped rather than guessed at."""

from tests.offline.passes import memory_pass


def test_a_clear_voice_transcript_is_read_like_chat():
    assert memory_pass("I work at Google. I love jazz.", source="voice") == ["Works at Google", "Loves jazz"]
    saved = memory_pass("Tên tôi là Mai. Tôi sống ở Hà Nội.", source="voice")
    assert saved == ["Tên là Mai", "Sống ở Hà Nội"]


def test_a_garbled_sentence_is_skipped():
    assert memory_pass("My name is Anna. I live in [inaudible] in Hanoi.", source="voice") == ["Name: Anna"]
    assert memory_pass("My name is Anna the the the.", source="voice") == []
    assert memory_pass("I work at Gooooogle xkcdqz.", source="voice") == []


def test_a_name_that_is_not_clearly_written_is_not_copied():
    assert memory_pass("My name is anna.", source="voice") == []
    assert memory_pass("My name is anna.", source="chat") == ["Name: anna"]


def test_two_different_values_for_one_fact_leave_the_saved_line_alone():
    assert memory_pass("My name is Anna.", "My name is Hannah.", existing=["Name: Anna"], source="voice") == [
        "Name: Anna"]
    assert memory_pass("My name is Anna.", "My name is Hannah.", source="voice") == []


def test_a_spoken_correction_still_counts():
    assert memory_pass("My name is Anna.", "Wait, my name is Hannah.", source="voice") == ["Name: Hannah"]


def test_hesitations_are_dropped_before_reading():
    saved = memory_pass("um my name is Joanna and I uh live in Lisbon", source="voice")
    assert saved == ["Name: Joanna", "Lives in Lisbon"]


def test_a_self_repaired_word_is_read_as_garbled():
    assert memory_pass("my name is Jo- Joanna", source="voice") == []


def test_a_clear_name_may_hold_lowercase_particles():
    assert memory_pass("My name is Ludwig van Beethoven.", source="voice") == ["Name: Ludwig van Beethoven"]
