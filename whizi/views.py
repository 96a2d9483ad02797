"""Error pages: JSON on the API (one shape, whizi.http), Django's pages elsewhere."""

import sys

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _
from django.views import csrf, defaults

from whizi.http import is_api, json_error


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The API answers a missing or wrong CSRF token in JSON, like every other refusal."""
    if is_api(request):
        return json_error(403, _("Security check failed"),
                          _("Send the csrftoken cookie's value in the X-CSRFToken header."))
    return csrf.csrf_failure(request, reason)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A body Django itself cannot read (a broken multipart form): JSON on the API too."""
    if is_api(request):
        return json_error(400, _("Invalid request"),
                          _("Send JSON with the header Content-Type: application/json."))
    return defaults.bad_request(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(404, _("Not found"), _("There is nothing at this address."))
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        # Every database connection of this process was busy for the whole pool timeout:
        # an overload that passes, so 503 and when to try again rather than a bare 500.
        busy = _is_pool_timeout(sys.exc_info()[1])
        return json_error(503 if busy else 500, _("Something went wrong"),
                          _("The server could not answer. Nothing was changed: please try again."),
                          headers={"Retry-After": "5"} if busy else None)
    return defaults.server_error(request)


def _is_pool_timeout(exc: BaseException | None) -> bool:
    while exc is not None:
        if type(exc).__name__ == "PoolTimeout":
            return True
        exc = exc.__cause__ or exc.__context__
    return False
