"""Merging a guest's facts into an account: line by line, nothing twice, the account's
wording kept, the account's lines first; and the trim that keeps a merge under the cap."""

from hypothesis import given
from hypothesis import strategies as st

from memory.lines import line_key
from memory.merge import merge_memory_lines


def test_overlapping_lines_appear_once_in_the_accounts_wording_and_order():
    account = ["Name is Mai", "Works as a nurse in Hanoi", "Likes iced coffee"]
    guest = ["- likes ICED coffee", "Has a cat called Miso", "name is  mai", "Runs on Sundays"]

    merged = merge_memory_lines(account, guest)

    assert merged == [
        "Name is Mai", "Works as a nurse in Hanoi", "Likes iced coffee",
        "Has a cat called Miso", "Runs on Sundays",
    ]


def test_merging_into_an_empty_account_keeps_the_guests_lines_without_bullets():
    merged = merge_memory_lines([], ["• Tên tôi là Nguyễn Thị Mai", "2) Thích cà phê sữa đá"])
    assert merged == ["Tên tôi là Nguyễn Thị Mai", "Thích cà phê sữa đá"]


def test_an_empty_guest_changes_nothing():
    assert merge_memory_lines(["Name is Mai"], []) == ["Name is Mai"]


def test_a_fact_repeated_inside_one_list_is_kept_once():
    merged = merge_memory_lines(["Likes tea", "likes tea"], ["Has a dog", "- has a dog", "  "])
    assert merged == ["Likes tea", "Has a dog"]


_line = st.text(
    alphabet=st.sampled_from(list("abcAB -•*12.)đ名")), min_size=0, max_size=12
)


@given(st.lists(_line, max_size=12), st.lists(_line, max_size=12))
def test_the_merge_holds_every_fact_exactly_once_account_first(account, guest):
    merged = merge_memory_lines(account, guest)
    keys = [line_key(line) for line in merged]

    assert len(keys) == len(set(keys))
    assert "" not in keys
    assert set(keys) == {line_key(line) for line in account + guest} - {""}
    account_part = merge_memory_lines(account, [])
    assert merged[: len(account_part)] == account_part
