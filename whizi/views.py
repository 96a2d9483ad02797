from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import csrf, defaults


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """The API answers a missing or wrong CSRF token in JSON, like every other refusal."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": {
                "title": _("Security check failed"),
                "message": _("Send the csrftoken cookie's value in the X-CSRFToken header."),
            }},
            status=403,
        )
    return csrf.csrf_failure(request, reason)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A body Django itself cannot read (a broken multipart form): JSON on the API too."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": {"title": _("Invalid request"),
                       "message": _("Send JSON with the header Content-Type: application/json.")}},
            status=400,
        )
    return defaults.bad_request(request, exception)
