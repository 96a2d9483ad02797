"""Every string of docs/STRINGS.md, in all six languages, exactly as given (compiled catalogs),
and no string of the interface left untranslated or fuzzy in any of the five catalogs.

The table is docs/STRINGS.md verbatim (Malay is ours). "What Whizi remembers" has two
contexts because Japanese words the web row and the app's alert title differently.
"""
# ruff: noqa: E501

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, pgettext

STRINGS = [
    # Settings: intro
    (None, {
        'en': 'Whizi remembers durable facts you share in conversations, like your name, preferences and goals. It uses them across your chats on web and mobile.',
        'vi': 'Whizi ghi nhớ những sự kiện lâu dài bạn chia sẻ trong các cuộc trò chuyện, như tên, sở thích và mục tiêu của bạn. Nó dùng chúng trong các cuộc trò chuyện của bạn trên web và di động.',
        'zh-hans': 'Whizi会记住你在对话中分享的持久事实，比如你的名字、偏好和目标，并在你的网页端和手机端聊天中使用它们。',
        'ja': 'Whiziは会話の中で共有された、名前や好み、目標といった永続的な事実を記憶します。これらはウェブとモバイルの両方で、あなたのチャット全体に活用されます',
        'ko': 'Whizi는 대화에서 공유한 이름, 선호, 목표 같은 지속적인 사실을 기억합니다. 이는 웹과 모바일의 채팅 전반에서 사용됩니다.',
        'ms': 'Whizi mengingati fakta kekal yang anda kongsi dalam perbualan, seperti nama, keutamaan dan matlamat anda. Ia menggunakannya dalam semua sembang anda di web dan mudah alih.',
    }),
    # Settings: row
    ('settings row', {
        'en': 'What Whizi remembers',
        'vi': 'Những gì Whizi ghi nhớ',
        'zh-hans': 'Whizi记住的内容',
        'ja': 'Whiziが記憶している内容',
        'ko': 'Whizi가 기억하는 것',
        'ms': 'Apa yang Whizi ingat',
    }),
    # Settings: clear action
    (None, {
        'en': 'Clear memory',
        'vi': 'Xóa bộ nhớ',
        'zh-hans': '清除记忆',
        'ja': 'メモリを消去',
        'ko': '메모리 지우기',
        'ms': 'Kosongkan memori',
    }),
    # Settings: dialog title
    (None, {
        'en': "Clear Whizi's memory?",
        'vi': 'Xóa bộ nhớ của Whizi?',
        'zh-hans': '清除Whizi的记忆？',
        'ja': 'Whiziのメモリを消去しますか？',
        'ko': 'Whizi의 메모리를 지울까요?',
        'ms': 'Kosongkan memori Whizi?',
    }),
    # Settings: dialog body
    (None, {
        'en': "This permanently deletes everything Whizi remembers about you, across web and mobile. This can't be undone.",
        'vi': 'Thao tác này xóa vĩnh viễn mọi thứ Whizi ghi nhớ về bạn, trên cả web và di động. Không thể hoàn tác.',
        'zh-hans': '这将永久删除Whizi记住的关于你的一切，包括网页端和手机端。此操作无法撤销。',
        'ja': 'これにより、ウェブとモバイルの両方で、Whiziがあなたについて記憶しているすべての内容が完全に削除されます。この操作は元に戻せません',
        'ko': '이렇게 하면 웹과 모바일 전반에서 Whizi가 당신에 대해 기억하는 모든 것이 영구히 삭제됩니다. 되돌릴 수 없습니다.',
        'ms': 'Tindakan ini memadamkan secara kekal semua yang Whizi ingat tentang anda, di web dan mudah alih. Tindakan ini tidak boleh dibuat asal.',
    }),
    # Settings: empty
    (None, {
        'en': 'Nothing remembered yet. Facts you share in chat will show up here.',
        'vi': 'Chưa có gì được ghi nhớ. Những sự kiện bạn chia sẻ trong trò chuyện sẽ xuất hiện ở đây.',
        'zh-hans': '暂无记住的内容。你在聊天中分享的事实会显示在这里。',
        'ja': 'まだ何も記憶されていません。チャットで共有した内容がここに表示されます',
        'ko': '아직 기억된 것이 없습니다. 채팅에서 공유하는 사실이 여기 표시됩니다.',
        'ms': 'Belum ada apa-apa yang diingati. Fakta yang anda kongsi dalam sembang akan dipaparkan di sini.',
    }),
    # Settings: read failed
    (None, {
        'en': 'Memory is unavailable right now. Please try again later.',
        'vi': 'Bộ nhớ hiện không khả dụng. Vui lòng thử lại sau.',
        'zh-hans': '记忆功能目前不可用，请稍后再试。',
        'ja': 'メモリは現在利用できません。しばらくしてからもう一度お試しください',
        'ko': '메모리를 지금 사용할 수 없습니다. 나중에 다시 시도해 주세요.',
        'ms': 'Memori tidak tersedia buat masa ini. Sila cuba lagi kemudian.',
    }),
    # Settings: clear failed
    (None, {
        'en': "Couldn't clear memory. Please try again.",
        'vi': 'Không thể xóa bộ nhớ. Vui lòng thử lại.',
        'zh-hans': '清除记忆失败，请重试。',
        'ja': 'メモリの消去に失敗しました。もう一度お試しください',
        'ko': '메모리를 지우지 못했습니다. 다시 시도해 주세요.',
        'ms': 'Tidak dapat mengosongkan memori. Sila cuba lagi.',
    }),
    # App: settings row
    (None, {
        'en': 'What Whizi knows about me',
        'vi': 'Những gì Whizi biết về tôi',
        'zh-hans': 'Whizi了解我的哪些信息',
        'ja': 'Whiziが私について知っていること',
        'ko': 'Whizi가 나에 대해 아는 것',
        'ms': 'Apa yang Whizi tahu tentang saya',
    }),
    # App: alert title
    ('app alert title', {
        'en': 'What Whizi remembers',
        'vi': 'Những gì Whizi ghi nhớ',
        'zh-hans': 'Whizi记住的内容',
        'ja': 'Whiziが記憶していること',
        'ko': 'Whizi가 기억하는 것',
        'ms': 'Apa yang Whizi ingat',
    }),
    # App: close
    (None, {
        'en': 'Close',
        'vi': 'Đóng',
        'zh-hans': '关闭',
        'ja': '閉じる',
        'ko': '닫기',
        'ms': 'Tutup',
    }),
    # App: destructive
    (None, {
        'en': 'Forget everything',
        'vi': 'Quên tất cả',
        'zh-hans': '忘记一切',
        'ja': 'すべて忘れる',
        'ko': '모두 잊기',
        'ms': 'Lupakan semuanya',
    }),
    # App: cleared title
    (None, {
        'en': 'Memory cleared',
        'vi': 'Đã xóa bộ nhớ',
        'zh-hans': '记忆已清除',
        'ja': 'メモリを消去しました',
        'ko': '메모리가 지워졌습니다',
        'ms': 'Memori dikosongkan',
    }),
    # App: cleared message
    (None, {
        'en': 'Whizi no longer remembers anything about you.',
        'vi': 'Whizi không còn ghi nhớ điều gì về bạn nữa.',
        'zh-hans': 'Whizi不再记得关于你的任何信息。',
        'ja': 'Whiziはあなたについて何も記憶していません',
        'ko': 'Whizi는 더 이상 당신에 대해 아무것도 기억하지 않습니다.',
        'ms': 'Whizi tidak lagi mengingati apa-apa tentang anda.',
    }),
    # App: read failed title
    (None, {
        'en': 'Memory unavailable',
        'vi': 'Bộ nhớ không khả dụng',
        'zh-hans': '记忆不可用',
        'ja': 'メモリを利用できません',
        'ko': '메모리를 사용할 수 없음',
        'ms': 'Memori tidak tersedia',
    }),
    # App: clear failed title
    (None, {
        'en': 'Memory could not be cleared',
        'vi': 'Không thể xóa bộ nhớ',
        'zh-hans': '记忆无法清除',
        'ja': 'メモリを消去できませんでした',
        'ko': '메모리를 지울 수 없음',
        'ms': 'Memori tidak dapat dikosongkan',
    }),
]

LANGUAGES = ["en", "vi", "zh-hans", "ja", "ko", "ms"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("context", "row"), STRINGS, ids=[row["en"][:40] for _c, row in STRINGS])
def test_every_product_string_is_translated_exactly(language, context, row):
    with translation.override(language):
        translated = pgettext(context, row["en"]) if context else gettext(row["en"])
    assert translated == row[language]


def test_japanese_words_the_web_row_and_the_app_alert_title_differently():
    with translation.override("ja"):
        assert pgettext("settings row", "What Whizi remembers") == "Whiziが記憶している内容"
        assert pgettext("app alert title", "What Whizi remembers") == "Whiziが記憶していること"


def test_the_six_languages_are_the_configured_ones(settings):
    assert [code for code, _name in settings.LANGUAGES] == LANGUAGES


CATALOGS = ["vi", "zh_Hans", "ja", "ko", "ms"]


def catalog_entries(path: Path) -> list[dict]:
    """The live entries of a .po file as {"flags", "msgid", "msgstr", "msgstr[0]", ...}.

    Entries are separated by blank lines (as gettext writes them); obsolete `#~` lines are skipped.
    """
    entries: list[dict] = []
    entry: dict | None = None
    field = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            entry = None
        elif not line.startswith("#~"):
            if entry is None:
                entry = {"flags": set()}
                entries.append(entry)
            if line.startswith("#,"):
                entry["flags"].update(flag.strip() for flag in line[2:].split(","))
            elif line.startswith('"'):
                entry[field] += json.loads(line)  # a continuation line of the field above
            elif not line.startswith("#"):
                field, _, value = line.partition(" ")
                entry[field] = json.loads(value)
    return [entry for entry in entries if entry.get("msgid")]  # the header has an empty msgid


@pytest.mark.parametrize("language", CATALOGS)
def test_every_string_of_the_interface_is_translated(language):
    entries = catalog_entries(Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po")
    untranslated = [entry["msgid"] for entry in entries
                    if any(not text for field, text in entry.items() if field.startswith("msgstr"))]
    fuzzy = [entry["msgid"] for entry in entries if "fuzzy" in entry["flags"]]

    assert "Clear memory" in [entry["msgid"] for entry in entries]  # the catalog was read
    assert untranslated == [] and fuzzy == []
