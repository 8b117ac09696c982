"""Local mode's pages are the one learner's, kept without a session (static/sw.js)."""


def test_local_pages_say_local(client):
    response = client.get("/study")
    assert response.headers["qbank-session"] == "local"
    assert 'data-session="none"' not in response.text
