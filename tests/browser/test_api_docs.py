"""The API's docs page (/api/docs/) runs under the strict Content-Security-Policy, from our
own origin only (Swagger UI vendored as static files, no CDN), and lists every operation of
/api/openapi.json; "Try it out" answers from the live API.

Persona: an app developer's browser, with no account and no network beyond this server.
"""

import pytest

from whizi.middleware import CONTENT_SECURITY_POLICY

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Registered before any script of the page runs, so no violation is missed.
CSP_WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
    (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def test_the_docs_page_shows_every_operation_under_the_strict_policy(browser, live_server, artifacts):
    page = browser.new_page()
    page.add_init_script(CSP_WATCH)
    errors, origins = [], set()
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: origins.add(request.url.split("/")[2]))

    response = page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".opblock")
    document = page.request.get(f"{live_server.url}/api/openapi.json").json()
    operations = sum(len(methods) for methods in document["paths"].values())

    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert page.locator(".opblock").count() == operations
    memory = page.locator(".opblock-get", has_text="/api/memory/")
    memory.locator(".opblock-summary").click()
    memory.get_by_role("button", name="Try it out").click()
    memory.get_by_role("button", name="Execute").click()
    status = memory.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for()
    assert status.inner_text().strip() == "200"
    page.screenshot(path=str(artifacts / "api-docs.png"))
    assert page.evaluate("window.__violations") == []
    assert errors == []
    assert origins == {live_server.url.split("/")[2]}
