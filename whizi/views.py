"""Error answers: JSON on the API and to the page's own fetch calls, a fragment to htmx,
and a page in the product's layout and the visitor's language to everything else."""

import logging
import sys
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from whizi.http import is_api, json_error

log = logging.getLogger(__name__)


def _wants_json(request: HttpRequest) -> bool:
    # The chat page streams with fetch (Accept: text/event-stream) and reads errors as JSON.
    accept = request.headers.get("Accept", "")
    return is_api(request) or "application/json" in accept or "text/event-stream" in accept


def _is_htmx_fragment(request: HttpRequest) -> bool:
    """An htmx request that swaps a piece of the page (a boosted link wants a whole page)."""
    return request.headers.get("HX-Request") == "true" and request.headers.get("HX-Boosted") != "true"


def _same_site_path(request: HttpRequest, url: str | None) -> str | None:
    if not url or not url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}):
        return None
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "") or "/"


def error_response(request: HttpRequest, *, status: int, title: str, message: str,
                   retry_url: str | None = None, template: str = "errors/page.html") -> HttpResponse:
    """One error, in the form the asker can show: JSON, an htmx fragment or a page."""
    if _wants_json(request):
        return json_error(status, title, message)
    context = {"status": status, "title": title, "message": message, "retry_url": retry_url}
    name = "errors/inline.html" if _is_htmx_fragment(request) else template
    return HttpResponse(render_to_string(name, context, request=request), status=status)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A missing or stale CSRF token: usually a tab left open while the session changed."""
    if is_api(request):
        return error_response(
            request, status=403, title=_("Security check failed"),
            message=_("Send the csrftoken cookie's value in the X-CSRFToken header."),
        )
    # The page the form or htmx request came from: reloading it gets a fresh token.
    retry_url = (_same_site_path(request, request.headers.get("HX-Current-URL"))
                 or _same_site_path(request, request.headers.get("Referer")) or "/")
    return error_response(
        request, status=403, title=_("This page is out of date"),
        message=_("Your session changed since this page was opened, for example because you "
                  "logged in or out in another tab. Reload the page, then try again."),
        retry_url=retry_url,
    )


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A body Django itself cannot read (a broken multipart form): JSON on the API too."""
    if is_api(request):
        return json_error(400, _("Invalid request"),
                          _("Send JSON with the header Content-Type: application/json."))
    return error_response(request, status=400, title=_("Invalid request"),
                          message=_("Whizi couldn't read that request. Please try again."))


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    return error_response(request, status=403, title=_("Not allowed"),
                          message=_("You can't open this page. It may belong to another account."))


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(404, _("Not found"), _("There is nothing at this address."))
    return error_response(request, status=404, title=_("Page not found"),
                          message=_("There is nothing at this address. The chat or page may have "
                                    "been deleted, or the link may be mistyped."))


def server_error(request: HttpRequest) -> HttpResponse:
    title = _("Something went wrong")
    if is_api(request):
        # Every database connection of this process was busy for the whole pool timeout:
        # an overload that passes, so 503 and when to try again rather than a bare 500.
        busy = _is_pool_timeout(sys.exc_info()[1])
        return json_error(503 if busy else 500, title,
                          _("The server could not answer. Nothing was changed: please try again."),
                          headers={"Retry-After": "5"} if busy else None)
    message = _("Whizi hit a problem on its side. Please try again in a moment.")
    try:
        return error_response(request, status=500, title=title, message=message,
                              template="errors/500.html")
    except Exception:
        # The page itself failed to render (say, the database is down): plain words will do.
        log.exception("the error page could not be rendered")
        return HttpResponse(f"<!doctype html><title>Whizi</title><h1>{escape(title)}</h1>"
                            f"<p>{escape(message)}</p>", status=500)


def _is_pool_timeout(exc: BaseException | None) -> bool:
    while exc is not None:
        if type(exc).__name__ == "PoolTimeout":
            return True
        exc = exc.__cause__ or exc.__context__
    return False
