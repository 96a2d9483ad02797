from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import csrf


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
