"""A reply's Markdown becomes safe HTML: lists, headings, emphasis, links, tables and code
blocks render as such, and nothing a model writes becomes markup of its own: no script,
no event handler, no javascript: link, no style, no remote picture."""

from html.parser import HTMLParser

import pytest
from django.utils import translation

from chat.markdown import markdown_html

REPLY = """# Plan

Some **bold**, some *emphasis* and ~~a change~~.

- one
- two

1. first
2. second

| Day | Meal |
|:----|-----:|
| Mon | Soup |

```python
print("<hello>")
```

See [the docs](https://example.com/docs).
"""

PAYLOADS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<a href='javascript:alert(1)'>x</a>",
    '<div style="position:fixed">x</div>',
    "![pixel](https://tracker.example/p.png)",
    "```\" onclick=\"alert(1)\nx\n```",
    "<iframe src=https://example.com></iframe>",
    "[x](https://example.com \"t\\\" onmouseover=\\\"alert(1)\")",
]


def test_a_reply_renders_lists_headings_emphasis_tables_code_and_links():
    html = markdown_html(REPLY)
    assert "<h1>Plan</h1>" in html
    assert "<strong>bold</strong>" in html and "<em>emphasis</em>" in html and "<s>a change</s>" in html
    assert "<ul>\n<li>one</li>" in html and "<ol>\n<li>first</li>" in html
    assert "<table>" in html and "<th>Day</th>" in html and "<td>Soup</td>" in html
    assert '<code class="language-python">print("&lt;hello&gt;")' in html
    assert '<button type="button" class="code-copy" data-copy-code="">Copy code</button>' in html
    assert '<a href="https://example.com/docs" target="_blank" rel="noopener nofollow">the docs</a>' in html
    assert "style=" not in html  # the table's alignment is no inline style (the CSP forbids them)


def test_the_copy_button_speaks_the_page_language():
    with translation.override("vi"):
        html = markdown_html("```\nx\n```")
    assert ">Sao chép mã<" in html


class Markup(HTMLParser):
    """The elements and attributes a browser would build from the HTML."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {name: value or "" for name, value in attrs}))


SAFE_TAGS = {"p", "br", "strong", "em", "del", "code", "pre", "a", "div", "span", "button", "ul", "li"}


@pytest.mark.parametrize("payload", PAYLOADS)
def test_nothing_a_model_writes_becomes_markup(payload):
    elements = Markup(markdown_html(f"Hello {payload} there")).elements
    for tag, attributes in elements:
        assert tag in SAFE_TAGS, (payload, tag)
        assert not [name for name in attributes if name.startswith("on") or name == "style"], (payload, tag)
        href = attributes.get("href", "").strip().lower()
        assert not href or href.startswith(("http://", "https://", "mailto:")), (payload, href)


def test_a_picture_is_a_link_to_it_never_loaded():
    html = markdown_html("![pixel](https://tracker.example/p.png)")
    assert "<img" not in html
    assert '<a href="https://tracker.example/p.png" target="_blank" rel="noopener nofollow">pixel</a>' in html
