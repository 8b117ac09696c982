"""Refusals: a stable code and status for clients, the message in the reader's language.

Also the one rule for where a browser may be sent back to (`safe_local_path`) and for who gets
JSON (`wants_json`).
"""

import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request

from app.config import Settings
from app.errors import NotFound
from app.main import create_app
from app.strings.errors import REFUSAL_STRINGS
from app.web.errors import wants_json
from app.web.i18n import STRINGS, say
from app.web.redirects import safe_local_path
from tests.support.refusals import error_classes, raised_keys


def test_a_json_refusal_carries_its_code_beside_the_message(client):
    response = client.get("/api/cards/no-such-card")
    assert response.status_code == 404
    body = response.json()
    assert body["code"] == "card_not_found"
    assert isinstance(body["detail"], str) and body["detail"]


@pytest.mark.parametrize(
    ("lang", "message"),
    [("en", "no card 'no-such-card'"), ("zh", "没有卡片 “no-such-card”。")],
)
def test_the_message_is_said_in_the_readers_language(client, find, lang, message):
    client.cookies.set("qbank_lang", lang)
    assert client.get("/api/cards/no-such-card").json()["detail"] == message
    page = client.get("/cards/no-such-card")
    assert page.status_code == 404
    said = find(page.text, "error")
    assert said is not None and said.attrs["data-code"] == "card_not_found"
    assert said.text == message


def test_a_validation_error_keeps_its_problem_list_and_gains_a_code(client):
    response = client.post("/api/reviews", json={"card_id": "gemm-core"})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_request"
    assert [p["loc"] for p in body["detail"]] == [["body", "rating"]]


def test_starlettes_own_refusals_have_codes(client):
    assert client.get("/api/no-such-thing").json()["code"] == "not_found"
    refused = client.get("/api/reviews")
    assert (refused.status_code, refused.json()["code"]) == (405, "method_not_allowed")
    assert refused.headers["allow"] == "POST"


def test_an_unexpected_error_answers_500_with_its_code(settings: Settings):
    app = create_app(settings)

    def broken() -> None:
        raise RuntimeError("the disk caught fire")

    app.add_api_route("/api/broken", broken)
    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/broken")
    assert response.status_code == 500
    assert response.json()["code"] == "internal"
    assert "fire" not in response.text


def test_a_foreign_host_is_refused_in_json_to_a_json_client_on_any_path(
    settings: Settings,
):
    app = create_app(settings.model_copy(update={"allowed_hosts": "qbank.example"}))
    with TestClient(app, base_url="http://evil.example") as client:
        page = client.get("/", headers={"Accept": "application/json"})
        assert (page.status_code, page.json()["code"]) == (400, "bad_host")
        assert client.get("/").headers["content-type"].startswith("text/html")


def _request(path: str, accept: str = "") -> Request:
    headers = [(b"accept", accept.encode())] if accept else []
    scope = {"type": "http", "method": "GET", "path": path, "headers": headers, "query_string": b""}
    return Request(scope)


@pytest.mark.parametrize(
    ("path", "accept", "expected"),
    [
        ("/api/decks", "", True),
        ("/study", "application/json", True),
        ("/study", "text/html,application/xhtml+xml", False),
        ("/study", "", False),
        ("/apix", "", False),
    ],
)
def test_wants_json(path, accept, expected):
    assert wants_json(_request(path, accept)) is expected


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example",
        "//evil.example/path",
        "///evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "/\\/evil.example",
        "https://evil.example/",
        "http:evil.example",
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "evil.example",
        "/%2F%2Fevil.example",
        "/%2f/evil.example",
        "/%5Cevil.example",
        "/%252F%252Fevil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "/\r\n/evil.example",
        " //evil.example",
        "/\x00/evil.example",
        "",
        None,
    ],
)
def test_no_target_leads_off_the_site(target):
    assert safe_local_path(target) == "/"
    assert safe_local_path(target, "/cards/q1") == "/cards/q1"


@pytest.mark.parametrize(
    "target",
    ["/", "/study", "/study?deck=kernels&section=GPU%20%E5%9F%BA%E7%A1%80", "/decks/a-b_c.d"],
)
def test_a_path_on_the_site_is_kept(target):
    assert safe_local_path(target) == target


def test_a_referer_is_reduced_to_its_path_and_query():
    assert safe_local_path("http://qbank.example/study?deck=x", absolute=True) == "/study?deck=x"
    assert safe_local_path("https://other.example/decks/x", absolute=True) == "/decks/x"
    assert safe_local_path("https://qbank.example//evil.example", absolute=True) == "/"
    assert safe_local_path("javascript://qbank.example/%0aalert(1)", absolute=True) == "/"
    # Without `absolute` an absolute URL is refused outright.
    assert safe_local_path("http://qbank.example/study") == "/"


def test_sign_in_continues_only_to_a_path_on_the_site(client):
    for target in ("//evil.example", "/\\evil.example", "/%2F%2Fevil.example"):
        page = client.get("/login", params={"next": target})
        assert f'value="{target}"' not in page.text


def test_the_language_switch_goes_back_only_on_the_site(client):
    for referer, back in (
        ("http://testserver/study?deck=kernels", "/study?deck=kernels"),
        ("http://testserver//evil.example", "/"),
    ):
        response = client.get("/lang/en", headers={"Referer": referer}, follow_redirects=False)
        assert (response.status_code, response.headers["location"]) == (303, back)


def test_str_is_the_english_wording():
    error = NotFound("card_not_found", card="q1")
    assert (error.code, error.status, str(error)) == ("card_not_found", 404, "no card 'q1'")
    assert say(error, "zh") == "没有卡片 “q1”。"


def test_every_refusal_is_worded_in_both_languages_and_every_wording_is_used():
    keys = raised_keys()
    assert len(keys) > 70, "the scan finds the app's refusals"
    missing = sorted(key for key in keys if key not in STRINGS)
    assert missing == []
    for key in keys:
        zh, en = STRINGS[key]
        assert zh and en and zh != en, key
    assert sorted(set(REFUSAL_STRINGS) - keys) == []


def test_every_error_class_has_a_status():
    found = error_classes().values()
    assert len(found) > 10
    assert all(400 <= c.status < 600 for c in found)
