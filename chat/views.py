from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from accounts.owner import owner_for_request


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    owner = owner_for_request(request)
    return render(request, "chat/home.html", {"owner": owner})
