"""The chat honesty set (docs/EVALUATION.md, "Chat honesty"): `chat_honesty render` writes
the exact messages a chat sends for each scripted exchange, the same every time, and
`chat_honesty check` reviews recorded answers only against the prompts they were recorded
from, naming what is stale, missing or extra. The set covers the correction guide's test
list in all six languages."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from chat.honesty import LANGUAGES, exchanges_load
from chat.prompt import BASE_SYSTEM_PROMPT
from memory.chat_block import memory_absent_rules

SEED_TESTS = {"correction-new-chat", "scene-detail", "changed-preference", "second-version",
              "unrelated-detail", "asked-what-before", "remember-request", "remember-refused"}


def _render(out: Path) -> str:
    output = StringIO()
    call_command("chat_honesty", "render", "--out", str(out), stdout=output)
    return output.getvalue()


def _check(answers: Path) -> str:
    output = StringIO()
    call_command("chat_honesty", "check", "--answers", str(answers), stdout=output)
    return output.getvalue()


def _recorded(tmp_path: Path) -> Path:
    """Answers recorded against the prompts as rendered now (placeholder text)."""
    answers = tmp_path / "answers"
    _render(answers)
    for exchange in exchanges_load():
        answer = f"Answer to {exchange.id}.\nSecond line."
        (answers / f"{exchange.id}.txt").write_text(answer, encoding="utf-8")
    return answers


def test_the_set_covers_the_guides_test_list_in_all_six_languages():
    exchanges = exchanges_load()
    assert len(exchanges) >= 24
    assert set(Counter(x.language for x in exchanges)) == set(LANGUAGES)
    assert SEED_TESTS <= {x.category for x in exchanges}
    refused = [x for x in exchanges if x.category == "remember-refused"]
    assert any("example/" in x.user for x in refused)  # a link the pass does not keep
    assert any(not x.saved for x in exchanges) and any(x.earlier for x in exchanges)


def test_render_writes_each_exchanges_exact_chat_messages_and_their_digests(tmp_path):
    said = _render(tmp_path)

    exchanges = {x.id: x for x in exchanges_load()}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{i}.json" for i in exchanges]
                                                                + ["PROMPTS.sha256"])
    assert f"{len(exchanges)} prompts" in said
    nothing_saved = next(x for x in exchanges.values() if not x.saved and not x.earlier)
    messages = json.loads((tmp_path / f"{nothing_saved.id}.json").read_text(encoding="utf-8"))["messages"]
    assert messages == [{"role": "system", "content": f"{BASE_SYSTEM_PROMPT}\n\n{memory_absent_rules()}"},
                        {"role": "user", "content": nothing_saved.user}]
    story = next(x for x in exchanges.values() if x.saved and x.earlier)
    messages = json.loads((tmp_path / f"{story.id}.json").read_text(encoding="utf-8"))["messages"]
    assert [m["role"] for m in messages] == ["system", "system"] + [r for r, _ in story.earlier] + ["user"]
    assert messages[0]["content"] == BASE_SYSTEM_PROMPT
    assert all(f"- {line}" in messages[1]["content"] for line in story.saved)
    assert [m["content"] for m in messages[2:]] == [c for _, c in story.earlier] + [story.user]
    digests = (tmp_path / "PROMPTS.sha256").read_text(encoding="utf-8").splitlines()
    assert len(digests) == len(exchanges)
    for line in digests:
        digest, name = line.split(" ")
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == digest


def test_render_is_the_same_every_time(tmp_path):
    _render(tmp_path / "a")
    _render(tmp_path / "b")

    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes()


def test_check_prints_each_answer_beside_its_rubric(tmp_path):
    said = _check(_recorded(tmp_path))

    exchange = exchanges_load()[0]
    block = said.split(f"=== {exchange.id} ", 1)[1].split("===", 1)[0]
    assert f"User: {exchange.user}" in block
    assert f"    Answer to {exchange.id}.\n    Second line." in block
    assert all(f"  [ ] {statement}" in block for statement in exchange.rubric)
    assert f"{len(exchanges_load())} answers, recorded against the current prompts" in said


def test_check_refuses_answers_recorded_against_other_prompts(tmp_path, monkeypatch):
    answers = _recorded(tmp_path)
    # The rules the chat model is given with no list change: the exchanges with nothing saved are stale.
    monkeypatch.setattr("memory.chat_block.MEMORY_ABSENT_MESSAGE", "Something else.")

    with pytest.raises(CommandError, match="prompts changed") as refused:
        _check(answers)

    stale = sorted(f"{x.id}.json" for x in exchanges_load() if not x.saved)
    assert stale and str(refused.value).split(": ", 1)[1].startswith(", ".join(stale) + ".")


def test_check_names_missing_and_extra_answers(tmp_path):
    answers = _recorded(tmp_path)
    (answers / "x02.txt").unlink()
    (answers / "x99.txt").write_text("stray", encoding="utf-8")

    with pytest.raises(CommandError, match=r"missing: x02\.txt; not an exchange: x99\.txt"):
        _check(answers)


def test_check_without_the_digests_says_where_they_come_from(tmp_path):
    answers = _recorded(tmp_path)
    (answers / "PROMPTS.sha256").unlink()

    with pytest.raises(CommandError, match="no PROMPTS.sha256"):
        _check(answers)


def test_a_bad_exchange_file_is_a_clear_error_and_writes_nothing(tmp_path):
    bad = tmp_path / "exchanges.json"
    bad.write_text(json.dumps([{"id": "x01", "language": "en", "category": "c", "saved": [],
                                "earlier": [], "user": "Hi", "rubric": []}]), encoding="utf-8")

    with pytest.raises(CommandError, match="exchange x01: 'rubric' must not be empty"):
        call_command("chat_honesty", "render", "--out", str(tmp_path / "out"), "--exchanges", str(bad))
    assert not (tmp_path / "out").exists()


def test_the_recorded_answers_were_given_to_the_prompts_the_product_sends_now(settings):
    """A change to what the chat model is told makes the recorded answers stale: they must
    be recorded again, blind (tests/chat/honesty_answers/README.md), before this passes."""
    recorded = Path(settings.BASE_DIR) / "tests" / "chat" / "honesty_answers"

    said = _check(recorded)

    assert f"{len(exchanges_load())} answers, recorded against the current prompts" in said
