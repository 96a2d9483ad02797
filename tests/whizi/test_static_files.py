"""Static files under ASGI are an asynchronous stream: Django never warns that a
response is served from a synchronous iterator, and the bytes are the file's."""

import warnings
from pathlib import Path

import pytest
from django.conf import settings
from django.test import AsyncClient

pytestmark = [pytest.mark.django_db]


def test_a_static_file_is_served_asynchronously_without_a_warning():
    from asgiref.sync import async_to_sync

    async def fetch() -> tuple[bytes, bool]:
        response = await AsyncClient().get("/static/js/chat.js")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # Django's "must consume synchronous iterators" warning
            body = b"".join([chunk async for chunk in response.streaming_content])
        return body, response.is_async

    body, is_async = async_to_sync(fetch)()

    assert is_async
    assert body == (Path(settings.BASE_DIR) / "static" / "js" / "chat.js").read_bytes()
