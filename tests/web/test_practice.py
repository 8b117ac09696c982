"""Practice mode: a run through a selection whose ratings are logged but never reschedule."""

import re

import pytest
from fastapi.testclient import TestClient

pytestmark = pytest.mark.storage

ALL_CARDS = {"gemm-core", "roofline", "kv-cache", "fusion", "paged"}


def start(client: TestClient, **form: str) -> str:
    """Start a practice run; return its URL."""
    response = client.post("/practice", data=form)
    assert response.status_code == 303, response.text
    url = response.headers["location"]
    assert re.fullmatch(r"/practice/\d+", url)
    return url


def current(client: TestClient, url: str, find) -> str | None:
    """The id of the card the run shows now, or None once it redirects to its summary."""
    response = client.get(url)
    if response.status_code == 303:
        assert response.headers["location"] == f"{url}/summary"
        return None
    assert response.status_code == 200
    return find(response.text, "card").attrs["data-card-id"]


def answer(client: TestClient, url: str, card_id: str, rating: int) -> None:
    response = client.post(f"{url}/rate", data={"card_id": card_id, "rating": str(rating)})
    assert response.status_code == 303
    assert response.headers["location"] == url


def test_practice_form_offers_decks(client):
    page = client.get("/practice?deck=notes").text
    assert '<option value="notes" selected>Interview Notes (2)</option>' in page
    assert '<option value="kernels">算子与性能 (3)</option>' in page


def test_practice_form_offers_tags_and_practises_the_chosen_one(client, find):
    page = client.get("/practice").text
    assert '<option value="gpu">#gpu (3)</option>' in page
    assert '<option value="notes">#notes (2)</option>' in page
    assert (
        '<option value="notes" selected>#notes (2)</option>'
        in client.get("/practice?tag=notes").text
    )
    # A tag reached by a link but carried by no deck (a section's name) stays chosen.
    assert '<option value="推理" selected>#推理</option>' in client.get("/practice?tag=推理").text

    url = start(client, tag="notes", order="content", seconds="0")
    assert 'Progress <b id="practice-pos">1</b> / 2 · #notes' in client.get(url).text
    seen = []
    while (card_id := current(client, url, find)) is not None:
        seen.append(card_id)
        answer(client, url, card_id, 3)
    assert seen == ["fusion", "paged"]


def test_practice_pages_through_a_deck_in_content_order(client, find):
    url = start(client, deck="kernels", order="content", seconds="0")
    page = client.get(url).text
    assert 'Progress <b id="practice-pos">1</b> / 3 · kernels' in page
    assert find(page, "answer-side").hidden
    assert find(page, "timer") is None

    revealed = client.get(f"{url}?reveal=1").text
    assert not find(revealed, "answer-side").hidden
    assert "The interviewer presses on" in revealed  # follow-ups become the next question
    assert not find(revealed, "rate-form").hidden

    seen = []
    for rating in (1, 3, 2):
        card_id = current(client, url, find)
        seen.append(card_id)
        answer(client, url, card_id, rating)
    assert seen == ["gemm-core", "roofline", "kv-cache"]
    assert current(client, url, find) is None


def test_practice_logs_ratings_but_never_touches_the_schedule(client, bank, clock):
    client.post("/api/reviews", json={"card_id": "roofline", "rating": 4})
    studied = bank.state("roofline").model_dump()
    logs_before = len(bank.logs())

    url = start(client, deck="kernels", order="content", seconds="0")
    for card_id in ("gemm-core", "roofline", "kv-cache"):
        clock.advance(minutes=1)
        answer(client, url, card_id, 1)

    practice_logs = bank.logs()[logs_before:]
    assert [(log.card_id, log.rating, log.mode) for log in practice_logs] == [
        ("gemm-core", 1, "practice"),
        ("roofline", 1, "practice"),
        ("kv-cache", 1, "practice"),
    ]
    run_id = int(url.rsplit("/", 1)[1])
    assert {log.practice_id for log in practice_logs} == {run_id}
    assert {state.card_id for state in bank.states()} == {"roofline"}
    assert bank.state("roofline").model_dump() == studied
    # The study queue still offers the other cards as new, and practice cannot be undone.
    assert client.get("/api/study/next").json()["counts"]["new"] == 4
    assert client.post("/api/reviews/undo").json()["card_id"] == "roofline"
    assert client.post("/api/reviews/undo").status_code == 404


def test_random_timed_practice_visits_every_card_once(client, find):
    url = start(client, order="random", seconds="90")
    page = client.get(url).text
    timer = find(page, "timer")
    assert timer.attrs["data-seconds"] == "90"
    assert timer.text == "Time left 1:30"

    seen = []
    while (card_id := current(client, url, find)) is not None:
        seen.append(card_id)
        answer(client, url, card_id, 3)
    assert sorted(seen) == sorted(ALL_CARDS)


def test_summary_lists_missed_cards_with_links_to_their_topics(client, find):
    url = start(client, order="content", seconds="0")
    ratings = {"gemm-core": 1, "roofline": 4, "kv-cache": 2, "fusion": 1, "paged": 3}
    while (card_id := current(client, url, find)) is not None:
        answer(client, url, card_id, ratings[card_id])

    page = " ".join(client.get(f"{url}/summary").text.split())
    assert "Answered <b>5</b> / 5" in page
    assert "Again <b>2</b> · Hard <b>1</b> · Good <b>1</b> · Easy <b>1</b>" in page
    missed = page[page.index("<h2>Missed</h2>") : page.index("<h2>Shaky</h2>")]
    assert re.findall(r'<li><a href="/cards/([\w-]+)">', missed) == ["gemm-core", "fusion"]
    assert '<a class="topic-link" href="/topics/linear-gemm">线性层与 GEMM</a>' in missed
    assert '<a class="topic-link" href="/topics/fusion">算子融合</a>' in missed
    assert '<a class="topic-link" href="/topics/fusion">Operator Fusion</a>' in missed
    shaky = page[page.index("<h2>Shaky</h2>") :]
    assert re.findall(r'<li><a href="/cards/([\w-]+)">', shaky) == ["kv-cache"]
    assert '<input type="hidden" name="cards" value="gemm-core,fusion,kv-cache">' in page


def test_practising_the_missed_cards_again(client, find):
    url = start(client, cards="fusion,gemm-core", seconds="0")
    # The given cards run in content order, whatever order they were listed in.
    assert current(client, url, find) == "gemm-core"


def test_a_run_with_nothing_missed_says_so(client, find):
    url = start(client, deck="notes")
    while (card_id := current(client, url, find)) is not None:
        answer(client, url, card_id, 4)
    assert "Nothing missed." in client.get(f"{url}/summary").text


def test_another_learners_practice_is_not_found(client, bank):
    other = bank.make_learner("ana")
    run = bank.make_practice(other, ["gemm-core", "roofline"])
    mine = start(client, deck="notes")
    assert int(mine.rsplit("/", 1)[1]) != run.id

    for response in (
        client.get(f"/practice/{run.id}"),
        client.get(f"/practice/{run.id}/summary"),
        client.post(f"/practice/{run.id}/rate", data={"card_id": "gemm-core", "rating": "1"}),
    ):
        assert response.status_code == 404
        assert "<h1>Page not found</h1>" in response.text
    assert [log for log in bank.logs() if log.practice_id == run.id] == []
    assert client.get("/practice/999999").status_code == 404


def test_rating_a_card_that_is_not_current_is_refused(client, find, bank):
    url = start(client, deck="kernels", order="content")
    response = client.post(f"{url}/rate", data={"card_id": "kv-cache", "rating": "1"})
    assert response.status_code == 400
    assert "not the current card" in response.text
    assert bank.logs() == []
    assert current(client, url, find) == "gemm-core"


def test_a_double_submitted_rating_is_logged_once_and_moves_on(client, bank, find):
    url = start(client, deck="kernels", order="content")
    form = {"card_id": "gemm-core", "rating": "3"}
    assert client.post(f"{url}/rate", data=form).headers["location"] == url
    again = client.post(f"{url}/rate", data=form)  # a double click, or the back button
    assert again.status_code == 303
    assert again.headers["location"] == url
    assert [log.card_id for log in bank.logs()] == ["gemm-core"]
    assert current(client, url, find) == "roofline"


def test_a_finished_run_refuses_more_ratings(client, bank):
    url = start(client, cards="paged")
    answer(client, url, "paged", 3)
    response = client.post(f"{url}/rate", data={"card_id": "fusion", "rating": "3"})
    assert response.status_code == 400
    assert "finished" in response.text
    # Submitting the last card twice lands on the summary rather than on an error.
    assert client.post(f"{url}/rate", data={"card_id": "paged", "rating": "3"}).status_code == 303
    assert client.get(url).headers["location"] == f"{url}/summary"
    assert len(bank.logs()) == 1


def test_bad_practice_requests_get_a_400_page(client):
    assert client.post("/practice", data={"order": "sideways"}).status_code == 400
    assert client.post("/practice", data={"seconds": "-1"}).status_code == 400
    response = client.post("/practice", data={"deck": "nope"})
    assert response.status_code == 404
    assert 'data-code="practice_empty"' in response.text
    response = client.post("/practice/1/rate", data={"card_id": "gemm-core", "rating": "5"})
    assert response.status_code == 400
