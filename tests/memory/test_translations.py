"""Every string of docs/STRINGS.md, in all six languages, exactly as given (compiled catalogs),
and no string of the interface left untranslated or fuzzy in any of the five catalogs.

The table is docs/STRINGS.md verbatim (Malay is ours). "What Whizi remembers" has two
contexts because Japanese words the web row and the app's alert title differently.
"""
# ruff: noqa: E501

import gettext as stdlib_gettext
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext

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
    # Guest data at login
    (None, {
        'en': "Add this browser's %(facts)s and %(chats)s to your account?",
        'vi': 'Thêm %(facts)s và %(chats)s từ trình duyệt này vào tài khoản của bạn?',
        'zh-hans': '要将此浏览器中的%(facts)s和%(chats)s添加到你的账户吗？',
        'ja': 'このブラウザの%(facts)sと%(chats)sをアカウントに追加しますか？',
        'ko': '이 브라우저의 %(facts)s와 %(chats)s를 계정에 추가할까요?',
        'ms': 'Tambah %(facts)s dan %(chats)s daripada pelayar ini ke akaun anda?',
    }),
    # Guest data at login
    (None, {
        'en': "Add this browser's %(what)s to your account?",
        'vi': 'Thêm %(what)s từ trình duyệt này vào tài khoản của bạn?',
        'zh-hans': '要将此浏览器中的%(what)s添加到你的账户吗？',
        'ja': 'このブラウザの%(what)sをアカウントに追加しますか？',
        'ko': '이 브라우저의 %(what)s를 계정에 추가할까요?',
        'ms': 'Tambah %(what)s daripada pelayar ini ke akaun anda?',
    }),
    # Guest data at login
    (None, {
        'en': 'What this browser holds changed since it was shown. Check it again, then choose.',
        'vi': 'Nội dung của trình duyệt này đã thay đổi kể từ khi được hiển thị. Hãy xem lại rồi chọn.',
        'zh-hans': '此浏览器中的内容在显示后发生了变化。请重新查看后再选择。',
        'ja': '表示した後に、このブラウザの内容が変わりました。もう一度確認してから選んでください。',
        'ko': '표시된 뒤 이 브라우저의 내용이 바뀌었습니다. 다시 확인한 뒤 선택해 주세요.',
        'ms': 'Kandungan pelayar ini berubah sejak ia dipaparkan. Semak semula, kemudian pilih.',
    }),
    # Guest data at login
    (None, {
        'en': 'Added to your account.',
        'vi': 'Đã thêm vào tài khoản của bạn.',
        'zh-hans': '已添加到你的账户。',
        'ja': 'アカウントに追加しました。',
        'ko': '계정에 추가했습니다.',
        'ms': 'Ditambah ke akaun anda.',
    }),
    # Guest data at login
    (None, {
        'en': 'Discarded. Nothing was added to your account.',
        'vi': 'Đã bỏ đi. Không có gì được thêm vào tài khoản của bạn.',
        'zh-hans': '已丢弃，你的账户中没有添加任何内容。',
        'ja': '破棄しました。アカウントには何も追加されていません。',
        'ko': '버렸습니다. 계정에는 아무것도 추가되지 않았습니다.',
        'ms': 'Dibuang. Tiada apa-apa ditambah ke akaun anda.',
    }),
    # Guest data at login
    (None, {
        'en': 'This browser was used without an account before you logged in. Nothing from it is in your account unless you add it.',
        'vi': 'Trình duyệt này đã được dùng mà không có tài khoản trước khi bạn đăng nhập. Không có gì từ đó được đưa vào tài khoản của bạn trừ khi bạn thêm.',
        'zh-hans': '在你登录之前，此浏览器曾在未登录账户的情况下使用。除非你选择添加，其中的内容不会进入你的账户。',
        'ja': 'ログインする前に、このブラウザはアカウントなしで使われていました。追加しない限り、その内容はアカウントに入りません。',
        'ko': '로그인하기 전에 이 브라우저는 계정 없이 사용되었습니다. 추가하지 않으면 그 내용은 계정에 들어가지 않습니다.',
        'ms': 'Pelayar ini digunakan tanpa akaun sebelum anda log masuk. Tiada apa-apa daripadanya dimasukkan ke akaun anda melainkan anda menambahkannya.',
    }),
    # Guest data at login
    (None, {
        'en': 'See what would be added',
        'vi': 'Xem những gì sẽ được thêm',
        'zh-hans': '查看将要添加的内容',
        'ja': '追加される内容を見る',
        'ko': '추가될 내용 보기',
        'ms': 'Lihat apa yang akan ditambah',
    }),
    # Guest data at login
    (None, {
        'en': 'Facts',
        'vi': 'Sự kiện',
        'zh-hans': '事实',
        'ja': '事実',
        'ko': '사실',
        'ms': 'Fakta',
    }),
    # Guest data at login
    (None, {
        'en': 'Voice chat',
        'vi': 'Trò chuyện bằng giọng nói',
        'zh-hans': '语音聊天',
        'ja': '音声チャット',
        'ko': '음성 채팅',
        'ms': 'Sembang suara',
    }),
    # Guest data at login
    (None, {
        'en': 'Add to my account',
        'vi': 'Thêm vào tài khoản của tôi',
        'zh-hans': '添加到我的账户',
        'ja': 'アカウントに追加',
        'ko': '내 계정에 추가',
        'ms': 'Tambah ke akaun saya',
    }),
    # Guest data at login
    (None, {
        'en': 'Discard',
        'vi': 'Bỏ đi',
        'zh-hans': '丢弃',
        'ja': '破棄',
        'ko': '버리기',
        'ms': 'Buang',
    }),
    # Guest data at login
    (None, {
        'en': 'Discard deletes it for good. If you log out without choosing, it is deleted too.',
        'vi': 'Bỏ đi sẽ xóa vĩnh viễn. Nếu bạn đăng xuất mà chưa chọn, nội dung này cũng bị xóa.',
        'zh-hans': '丢弃后将被永久删除。如果你未作选择就退出登录，这些内容也会被删除。',
        'ja': '破棄すると完全に削除されます。選ばずにログアウトした場合も削除されます。',
        'ko': '버리면 영구히 삭제됩니다. 선택하지 않고 로그아웃해도 삭제됩니다.',
        'ms': 'Buang memadamkannya secara kekal. Jika anda log keluar tanpa memilih, ia juga dipadamkan.',
    }),
    # Guest data at login
    (None, {
        'en': 'After you log in, you choose whether what you did in this browser is added to your account.',
        'vi': 'Sau khi đăng nhập, bạn chọn có thêm những gì đã làm trên trình duyệt này vào tài khoản hay không.',
        'zh-hans': '登录后，你可以选择是否将此浏览器中的内容添加到账户。',
        'ja': 'ログイン後、このブラウザでの内容をアカウントに追加するかどうかを選べます。',
        'ko': '로그인한 뒤 이 브라우저에서 한 내용을 계정에 추가할지 선택할 수 있습니다.',
        'ms': 'Selepas log masuk, anda pilih sama ada apa yang anda lakukan dalam pelayar ini ditambah ke akaun anda.',
    }),
]

# Count phrases (ngettext): English has two forms, the other five languages one.
PLURALS = [
    (('%(counter)s fact', '%(counter)s facts'), {
        'vi': '%(counter)s sự kiện',
        'zh-hans': '%(counter)s 条事实',
        'ja': '%(counter)s 件の事実',
        'ko': '사실 %(counter)s개',
        'ms': '%(counter)s fakta',
    }),
    (('%(counter)s chat', '%(counter)s chats'), {
        'vi': '%(counter)s cuộc trò chuyện',
        'zh-hans': '%(counter)s 个聊天',
        'ja': '%(counter)s 件のチャット',
        'ko': '채팅 %(counter)s개',
        'ms': '%(counter)s sembang',
    }),
    (('%(counter)s project', '%(counter)s projects'), {
        'vi': '%(counter)s dự án',
        'zh-hans': '%(counter)s 个项目',
        'ja': '%(counter)s 件のプロジェクト',
        'ko': '프로젝트 %(counter)s개',
        'ms': '%(counter)s projek',
    }),
]

LANGUAGES = ["en", "vi", "zh-hans", "ja", "ko", "ms"]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("context", "row"), STRINGS, ids=[row["en"][:40] for _c, row in STRINGS])
def test_every_product_string_is_translated_exactly(language, context, row):
    with translation.override(language):
        translated = pgettext(context, row["en"]) if context else gettext(row["en"])
    assert translated == row[language]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("english", "row"), PLURALS, ids=[english[0] for english, _row in PLURALS])
def test_every_count_phrase_is_translated_exactly(language, english, row):
    with translation.override(language):
        one, many = ngettext(*english, 1) % {"counter": 1}, ngettext(*english, 3) % {"counter": 3}
    if language == "en":
        assert (one, many) == (english[0] % {"counter": 1}, english[1] % {"counter": 3})
    else:
        assert (one, many) == (row[language] % {"counter": 1}, row[language] % {"counter": 3})


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


CATALOGS = sorted(Path(settings.BASE_DIR).glob("locale*/*/LC_MESSAGES/django.po"))


def _catalog_of(mo_path: Path) -> dict:
    with mo_path.open("rb") as handle:
        return dict(stdlib_gettext.GNUTranslations(handle)._catalog)


@pytest.mark.parametrize("po_path", CATALOGS, ids=lambda p: str(p.relative_to(settings.BASE_DIR)))
def test_each_committed_catalog_is_compiled_from_its_source(po_path, tmp_path):
    """The product serves the committed .mo files (make run never compiles), so a .po
    edited without recompiling would show old text to users."""
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "gettext's msgfmt is needed (scripts/ensure_services.sh installs it)"
    fresh = tmp_path / "fresh.mo"
    subprocess.run([msgfmt, "--check-format", "-o", str(fresh), str(po_path)], check=True)
    assert _catalog_of(po_path.with_suffix(".mo")) == _catalog_of(fresh), (
        f"{po_path.with_suffix('.mo')} is stale: run `python manage.py compilemessages --ignore=.venv` and commit it")
