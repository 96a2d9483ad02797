"""Every row of docs/STRINGS.md's chat-page table, in all six languages, exactly as the
compiled catalogs give it (a "(count)" key is a plural string)."""

from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

LANGUAGES = ["en", "vi", "zh-hans", "ja", "ko", "ms"]


def _rows() -> list[dict[str, str]]:
    text = (Path(settings.BASE_DIR) / "docs" / "STRINGS.md").read_text(encoding="utf-8")
    section = text.split("## Chat page (web) and the conversations API", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith("| key ") or line.startswith("|---"):
            continue
        cells = [cell.strip().replace("\\|", "|") for cell in line.strip("|").split(" | ")]
        rows.append(dict(zip(["key", *LANGUAGES], cells, strict=True)))
    return rows


ROWS = _rows()


def test_the_table_was_read():
    assert len(ROWS) >= 30 and {"stop", "delete: dialog body", "copy code"} <= {row["key"] for row in ROWS}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("row", ROWS, ids=[row["key"] for row in ROWS])
def test_each_chat_page_string_is_worded_as_the_table_says(row, language):
    with translation.override(language):
        if row["key"].endswith("(count)"):
            shown = translation.ngettext(row["en"], row["en"], 1)
        else:
            shown = translation.gettext(row["en"])
    assert shown == row[language]
