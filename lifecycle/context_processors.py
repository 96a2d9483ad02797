from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from lifecycle.guest_offer import guest_offer_for_request


def guest_offer(request: HttpRequest) -> dict[str, object]:
    """The guest data this session offers its account (lifecycle.guest_offer), read only
    when a page shows it: the chat page and settings, where a login lands."""
    return {"guest_offer": SimpleLazyObject(lambda: guest_offer_for_request(request))}
