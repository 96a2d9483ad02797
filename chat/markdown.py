"""A reply's Markdown as safe HTML: markdown-it-py renders, nh3 (Ammonia) sanitises.

Raw HTML in a reply is never markup: markdown-it escapes it (`html: False`) and only
allows http(s) and mailto links, and nh3 then keeps nothing but the tags and attributes
below, whatever the renderer let through. No `style` attribute survives (the page's CSP
forbids inline styles), links open apart from the page with rel="noopener nofollow",
and a picture is a link to it (the CSP would not load a remote one anyway).
static/js/chat.js renders the same way while a reply streams (markdown-it and DOMPurify).
"""

from __future__ import annotations

import re
from functools import lru_cache

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from markdown_it import MarkdownIt

TAGS = {
    "p", "br", "strong", "em", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "a", "table", "thead", "tbody", "tr", "th", "td",
    "div", "span", "button",
}
ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "code": {"class"},
    "div": {"class"},
    "span": {"class"},
    "button": {"type", "class", "data-copy-code"},
}
LINK_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "noopener nofollow"
# The classes this module writes itself; anything else is dropped.
_CLASSES = re.compile(r"^(language-[\w+#.-]{1,40}|code-block|code-head|code-lang|code-copy|table-wrap)$")
# Rendering is pure CPU: a conversation reopened renders the same replies again.
CACHE_SIZE = 2048


def _class_filter(tag: str, attribute: str, value: str) -> str | None:
    if attribute != "class":
        return value
    kept = [name for name in value.split() if _CLASSES.match(name)]
    return " ".join(kept) or None


def _fence(renderer, tokens, idx, options, env) -> str:  # markdown-it's render-rule signature
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    code_class = f' class="language-{escape(language)}"' if language else ""
    label = f'<span class="code-lang">{escape(language)}</span>'
    return (f'<div class="code-block"><div class="code-head">{label}'
            f'<button type="button" class="code-copy" data-copy-code>{escape(_("Copy code"))}</button></div>'
            f"<pre><code{code_class}>{escape(token.content)}</code></pre></div>\n")


def _image(renderer, tokens, idx, options, env) -> str:  # markdown-it's render-rule signature
    token = tokens[idx]
    text = "".join(child.content for child in token.children or []) or token.attrGet("src") or ""
    return f'<a href="{escape(token.attrGet("src") or "")}">{escape(text)}</a>'


def _table_open(renderer, tokens, idx, options, env) -> str:  # markdown-it's render-rule signature
    # A wide table scrolls inside the reply, never the page sideways.
    return '<div class="table-wrap"><table>\n'


def _table_close(renderer, tokens, idx, options, env) -> str:  # markdown-it's render-rule signature
    return "</table></div>\n"


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True})
    md.enable(["table", "strikethrough"])
    md.add_render_rule("fence", _fence)
    md.add_render_rule("code_block", _fence)
    md.add_render_rule("image", _image)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


_md = _parser()


def markdown_clean(html: str) -> str:
    """Only the tags and attributes a rendered reply may have."""
    return nh3.clean(
        html, tags=TAGS, attributes=ATTRIBUTES, attribute_filter=_class_filter, url_schemes=LINK_SCHEMES,
        link_rel=LINK_REL, set_tag_attribute_values={"a": {"target": "_blank"}}, url_relative="deny",
        clean_content_tags={"script", "style"},
    )


@lru_cache(maxsize=CACHE_SIZE)
def _render(text: str, language: str | None) -> str:
    return markdown_clean(_md.render(text))


def markdown_html(text: str) -> SafeString:
    """A reply's text as sanitised HTML (the copy button's label in the current language)."""
    return mark_safe(_render(text, get_language()))  # noqa: S308 - sanitised by nh3 just above
