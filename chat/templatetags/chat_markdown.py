"""`{{ message.content|markdown }}`: a reply's Markdown as sanitised HTML (chat.markdown)."""

from django import template
from django.utils.safestring import SafeString

from chat.markdown import markdown_html

register = template.Library()


@register.filter(name="markdown")
def markdown(text: str) -> SafeString:
    return markdown_html(str(text or ""))
