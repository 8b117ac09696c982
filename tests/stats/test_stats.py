"""Statistics from a hand-built review log, their SVG charts, the page and GET /api/stats."""

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.config import Settings
from app.content.bank.store import number_cards
from app.infra.db import Database
from app.infra.models import Card, CardState, Deck, Learner, ReviewLog
from app.practice.quiz import rate_practice, start_practice
from app.stats import summary
from app.study import Filters, get_learner, next_card, record_review, study_day, undo_last
from app.web import svg
from app.web.i18n import translator
from app.web.routes.stats import format_duration
from tests.support import apps
from tests.support.banks import commit

pytestmark = pytest.mark.storage

SVG = "{http://www.w3.org/2000/svg}"
ZONE = "Asia/Shanghai"  # UTC+8, no daylight saving time
NOW = datetime(2025, 3, 12, 10, 0, tzinfo=ZoneInfo(ZONE)).astimezone(UTC)
TODAY = date(2025, 3, 12)
en = translator("en")


def at(text: str, zone: str = ZONE) -> datetime:
    """A wall-clock time in `zone`, as the UTC moment the database stores."""
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


# --- The hand-built bank and log ----------------------------------------------------------------
#
# Decks (by path): gpu, sys, old (retired), empty. The learner's day rolls over at 04:00 Shanghai.
# Study days with ratings: 2024-03-12, 2024-03-13 | 2025-02-09 … 02-13 | 2025-03-10 … 03-12 (today).

CARDS = {
    "gpu": ["g1", "g2", "g3", "g4", "g5"],  # g4 is retired
    "sys": ["s1", "s2", "s3", "s4", "s5"],
    "old": ["o1"],  # the whole deck is retired
    "empty": [],
}

# Sections written in this order, which is not alphabetical.
SECTIONS = dict.fromkeys(["g1", "g2"], "Zeta kernels") | dict.fromkeys(
    ["g3", "g4", "g5"], "Alpha memory"
)

# card, local time, rating, queue, duration_ms
STUDY_LOG: list[tuple[str, str, int, str, int | None]] = [
    ("g3", "2024-03-12 12:00", 1, "review", 4_000),  # day 366 ago: outside heatmap and retention
    ("g3", "2024-03-12 13:00", 1, "relearning", 4_000),
    ("g3", "2024-03-13 12:00", 3, "review", 4_000),  # the heatmap's first day
    ("s2", "2025-02-09 20:00", 3, "review", 1_000),  # a five-day run: the longest streak
    ("s2", "2025-02-10 20:00", 3, "review", 1_000),
    ("s2", "2025-02-11 20:00", 3, "review", 1_000),  # the 30-day window starts on 02-11
    ("s2", "2025-02-12 20:00", 3, "review", 1_000),
    ("s2", "2025-02-13 20:00", 1, "review", 1_000),
    ("s1", "2025-03-10 12:00", 4, "review", 7_000),
    ("o1", "2025-03-10 12:00", 3, "review", None),  # a card of the retired deck
    ("g4", "2025-03-11 12:00", 1, "review", 2_000),  # a card retired since
    ("g1", "2025-03-12 03:30", 3, "review", 10_000),  # before the 04:00 rollover: day 03-11
    ("g1", "2025-03-12 04:30", 1, "review", 20_000),  # today
    ("g2", "2025-03-12 09:00", 3, "new", 5_000),
    ("s2", "2025-03-12 09:45", 3, "review", 3_000),
]

# card, state, local due, lapses
STATES: list[tuple[str, int, str, int]] = [
    ("g1", 3, "2025-03-12 04:40", 1),  # overdue: counts today
    ("g2", 1, "2025-03-12 10:10", 0),
    ("g3", 2, "2025-03-13 03:00", 1),  # before tomorrow's rollover: still today
    ("g4", 2, "2025-03-15 12:00", 3),  # retired: neither forecast nor hardest
    ("s1", 2, "2025-03-13 04:00", 0),  # tomorrow
    ("s2", 2, "2025-04-10 12:00", 2),  # day 29, the forecast's last
    ("s4", 2, "2025-04-11 12:00", 0),  # day 30: beyond the forecast
    ("s5", 2, "2025-03-01 12:00", 0),  # long overdue: counts today
    ("o1", 2, "2025-03-14 12:00", 0),  # retired deck
]


def build_bank(session: Session, learner: Learner) -> dict[str, Deck]:
    """The decks, cards, schedule and log above, plus noise that every statistic must ignore."""
    decks = {}
    for i, slug in enumerate(CARDS):
        deck = Deck(slug=slug, title=slug.upper(), path=f"{i}-{slug}.md", retired=slug == "old")
        session.add(deck)
        commit(session)
        session.refresh(deck)
        decks[slug] = deck
        for position, card_id in enumerate(CARDS[slug]):
            session.add(
                Card(
                    id=card_id,
                    deck_id=deck.id,
                    position=position,
                    section=SECTIONS.get(card_id, ""),
                    question=f"Question {card_id}?",
                    question_html=f"Question <em>{card_id}</em>?",
                    answer_html="",
                    retired=card_id == "g4",
                )
            )
    commit(session)
    number_cards(session)  # the per-deck counts an import keeps
    commit(session)
    for card_id, local, rating, queue, duration in STUDY_LOG:
        session.add(log(learner, card_id, local, rating, queue, duration))
    # Noise: an undone rating, a practice rating, and another learner's rating.
    session.add(log(learner, "g2", "2025-03-12 09:30", 1, "review", 50_000, undone=True))
    session.add(log(learner, "s3", "2025-03-12 08:00", 1, "practice", 99_000, mode="practice"))
    other = Learner(name="other", timezone=ZONE)
    session.add(other)
    commit(session)
    session.add(log(other, "s3", "2025-03-12 08:00", 1, "review", 9_000))
    session.add(CardState(learner_id=other.id, card_id="s3", state=3, due=NOW, lapses=9))
    for card_id, state, due, lapses in STATES:
        session.add(
            CardState(
                learner_id=learner.id,
                card_id=card_id,
                state=state,
                due=at(due),
                lapses=lapses,
                stability=30.0 if state == 2 else 1.0,  # review cards are mature
            )
        )
    commit(session)
    return decks


def log(
    learner: Learner,
    card_id: str,
    local: str,
    rating: int,
    queue: str,
    duration_ms: int | None,
    *,
    mode: str = "study",
    undone: bool = False,
) -> ReviewLog:
    return ReviewLog(
        learner_id=learner.id,
        card_id=card_id,
        rating=rating,
        mode=mode,
        queue=queue,
        reviewed_at=at(local),
        duration_ms=duration_ms,
        undone_at=at(local) + timedelta(seconds=5) if undone else None,
    )


@pytest.fixture
def learner(session: Session) -> Learner:
    learner = Learner(name="ana", timezone=ZONE, rollover_hour=4)
    session.add(learner)
    commit(session)
    session.refresh(learner)
    return learner


@pytest.fixture
def decks(session: Session, learner: Learner) -> dict[str, Deck]:
    return build_bank(session, learner)


def stats_at(session: Session, learner: Learner, now: datetime) -> summary.Stats:
    """Every statistic of the learner at `now`, over all decks."""
    return summary.learner_stats(session=session, learner=learner, now=now)


def nonzero(days: list[summary.DayCount]) -> dict[str, int]:
    return {d.day.isoformat(): d.count for d in days if d.count}


# --- Day bucketing ------------------------------------------------------------------------------


def test_local_day_rolls_over_at_the_learners_hour() -> None:
    learner = Learner(name="x", timezone=ZONE, rollover_hour=4)
    assert summary.local_day(learner, at("2025-03-12 03:59")) == date(2025, 3, 11)
    assert summary.local_day(learner, at("2025-03-12 04:00")) == date(2025, 3, 12)
    # SQLite hands back naive UTC datetimes.
    assert summary.local_day(learner, datetime(2025, 3, 11, 20, 0)) == date(2025, 3, 12)  # noqa: DTZ001
    assert summary.day_start(learner, date(2025, 3, 12)) == at("2025-03-12 04:00")


def test_days_follow_daylight_saving_time_like_the_study_queue() -> None:
    learner = Learner(name="x", timezone="America/New_York", rollover_hour=4)
    # Clocks jump from 02:00 EST to 03:00 EDT on 2025-03-09, so that study day starts at 08:00 UTC.
    assert summary.day_start(learner, date(2025, 3, 8)) == datetime(2025, 3, 8, 9, tzinfo=UTC)
    assert summary.day_start(learner, date(2025, 3, 9)) == datetime(2025, 3, 9, 8, tzinfo=UTC)
    assert summary.local_day(learner, datetime(2025, 3, 9, 7, 59, tzinfo=UTC)) == date(2025, 3, 8)
    assert summary.local_day(learner, datetime(2025, 3, 9, 8, 0, tzinfo=UTC)) == date(2025, 3, 9)
    moments = [datetime(2025, 3, 6, tzinfo=UTC) + timedelta(minutes=20 * i) for i in range(432)]
    for moment in moments:
        start, _ = study_day(learner, moment)
        assert summary.day_start(learner, summary.local_day(learner, moment)) == start
    # The bulk version agrees, in any order, for aware and for naive (SQLite) datetimes.
    shuffled = moments[::7] + moments[::-1]
    expected = [summary.local_day(learner, moment) for moment in shuffled]
    assert summary.local_days(learner, shuffled) == expected
    naive = [moment.replace(tzinfo=None) for moment in shuffled]
    assert summary.local_days(learner, naive) == expected
    assert summary.local_days(learner, []) == []


# --- Every statistic, over all decks ------------------------------------------------------------


def test_reviews_per_day_cover_365_local_days(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    days = stats_at(session, learner, NOW).reviews
    assert len(days) == 365
    assert days[0].day == date(2024, 3, 13)
    assert days[-1].day == TODAY
    assert [d.day for d in days] == [date(2024, 3, 13) + timedelta(days=i) for i in range(365)]
    # The undone, practice and other learner's ratings are not counted; 03:30 belongs to 03-11.
    assert nonzero(days) == {
        "2024-03-13": 1,
        "2025-02-09": 1,
        "2025-02-10": 1,
        "2025-02-11": 1,
        "2025-02-12": 1,
        "2025-02-13": 1,
        "2025-03-10": 2,
        "2025-03-11": 2,
        "2025-03-12": 3,
    }


def test_rollover_hour_and_time_zone_move_reviews_between_days(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    feb = {f"2025-02-{day:02}": 1 for day in range(9, 14)}
    learner.rollover_hour = 0  # 03:30 now belongs to 03-12
    days = stats_at(session, learner, NOW).reviews
    assert nonzero(days) == {
        "2024-03-13": 1,
        **feb,
        "2025-03-10": 2,
        "2025-03-11": 1,
        "2025-03-12": 4,
    }
    # In UTC it is still 03-11 (02:00 < 04:00), so the year reaches back to 2024-03-12.
    learner.rollover_hour = 4
    learner.timezone = "UTC"
    days = stats_at(session, learner, NOW).reviews
    assert (days[0].day, days[-1].day) == (date(2024, 3, 12), date(2025, 3, 11))
    assert nonzero(days) == {
        "2024-03-12": 2,
        "2024-03-13": 1,
        **feb,
        "2025-03-10": 2,
        "2025-03-11": 5,
    }


def test_due_forecast_counts_overdue_cards_today(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    forecast = summary.due_forecast(session=session, learner=learner, now=NOW)
    assert [d.day for d in forecast] == [TODAY + timedelta(days=i) for i in range(30)]
    assert nonzero(forecast) == {"2025-03-12": 4, "2025-03-13": 1, "2025-04-10": 1}


def test_true_retention_over_7_30_and_365_days(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    result = stats_at(session, learner, NOW).retention
    assert result.overall == (
        summary.Retention(7, reviews=6, passed=4),
        summary.Retention(30, reviews=9, passed=6),
        summary.Retention(365, reviews=12, passed=9),
    )
    assert result.overall[0].rate == pytest.approx(4 / 6)
    by_deck = {d.slug: [(w.reviews, w.passed) for w in d.windows] for d in result.decks}
    # The decks studied in the year, the most reviewed first, the retired one too: not every
    # deck of the bank, which may be thousands.
    assert list(by_deck) == ["sys", "gpu", "old"]
    assert by_deck == {
        "gpu": [(3, 1), (3, 1), (4, 2)],
        "sys": [(2, 2), (5, 4), (7, 6)],
        "old": [(1, 1), (1, 1), (1, 1)],
    }
    empty = summary.learner_stats(session=session, learner=learner, now=NOW, deck=decks["empty"])
    # The deck in scope is listed, studied or not.
    assert [d.slug for d in empty.retention.decks] == ["empty"]
    assert empty.retention.decks[0].windows[0].rate is None


def test_cards_by_state(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    states = summary.card_states(session=session, learner=learner)
    # s3 was only practised, so it is still new; g4 and o1 were studied and are retired now.
    assert states == summary.StateCounts(new=2, learning=1, review=5, relearning=1, retired=2)
    assert states.total == 11


def test_streaks(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    assert stats_at(session, learner, NOW).streak == summary.Streak(3, 5)
    # Tomorrow, before studying, the streak still runs up to yesterday; a day later it is broken.
    tomorrow = NOW + timedelta(days=1)
    assert stats_at(session, learner, tomorrow).streak == summary.Streak(3, 5)
    later = NOW + timedelta(days=2)
    assert stats_at(session, learner, later).streak == summary.Streak(0, 5)
    # The 03:30 rating belongs to 03-11, so on the evening of 03-11 today already counts.
    evening = at("2025-03-11 23:00")
    assert stats_at(session, learner, evening).streak == summary.Streak(2, 5)


def test_time_spent(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    spent = stats_at(session, learner, NOW).time
    assert spent == summary.TimeSpent(today_ms=28_000, week_ms=47_000, total_ms=64_000)


def test_hardest_cards_by_lapses_then_again_ratings(
    session: Session, learner: Learner, decks: dict[str, Deck], monkeypatch: pytest.MonkeyPatch
) -> None:
    hardest = stats_at(session, learner, NOW).hardest
    assert [(c.card_id, c.lapses, c.again) for c in hardest] == [
        ("s2", 2, 1),
        ("g3", 1, 2),
        ("g1", 1, 1),
    ]
    assert hardest[0].url == "/cards/s2"
    assert (hardest[0].deck_slug, hardest[0].question) == ("sys", "Question s2?")
    monkeypatch.setattr(summary, "HARDEST_LIMIT", 2)
    limited = stats_at(session, learner, NOW).hardest
    assert [c.card_id for c in limited] == ["s2", "g3"]


def test_learner_stats_gathers_everything(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    everything = summary.learner_stats(session=session, learner=learner, now=NOW)
    assert everything.today == TODAY
    assert everything.forecast == summary.due_forecast(session=session, learner=learner, now=NOW)
    assert everything.states == summary.card_states(session=session, learner=learner)
    assert everything.streak == summary.Streak(3, 5)
    assert everything.time == summary.TimeSpent(28_000, 47_000, 64_000)
    assert [c.card_id for c in everything.hardest] == ["s2", "g3", "g1"]


def test_one_deck(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    gpu = summary.learner_stats(session=session, learner=learner, now=NOW, deck=decks["gpu"])
    assert nonzero(gpu.reviews) == {"2024-03-13": 1, "2025-03-11": 2, "2025-03-12": 2}
    assert nonzero(gpu.forecast) == {"2025-03-12": 3}
    assert gpu.retention.overall == (
        summary.Retention(7, 3, 1),
        summary.Retention(30, 3, 1),
        summary.Retention(365, 4, 2),
    )
    assert [d.slug for d in gpu.retention.decks] == ["gpu"]
    assert gpu.states == summary.StateCounts(new=1, learning=1, review=1, relearning=1, retired=1)
    assert gpu.streak == summary.Streak(current=2, longest=2)
    assert gpu.time == summary.TimeSpent(today_ms=25_000, week_ms=37_000, total_ms=49_000)
    assert [c.card_id for c in gpu.hardest] == ["g3", "g1"]


def test_a_learner_without_history(session: Session, decks: dict[str, Deck]) -> None:
    newcomer = Learner(name="new", timezone="Europe/Berlin")
    session.add(newcomer)
    commit(session)
    everything = summary.learner_stats(session=session, learner=newcomer, now=NOW)
    assert not nonzero(everything.reviews) and not nonzero(everything.forecast)
    assert everything.states == summary.StateCounts(
        new=9, learning=0, review=0, relearning=0, retired=0
    )
    assert everything.streak == summary.Streak(0, 0)
    assert everything.time == summary.TimeSpent(0, 0, 0)
    assert everything.hardest == []
    assert all(w.rate is None for w in everything.retention.overall)
    for chart in charts(everything):
        ET.fromstring(chart)


# --- SVG ----------------------------------------------------------------------------------------


def charts(result: summary.Stats, t: Any = en) -> list[str]:
    return [
        svg.heatmap(result.reviews, t),
        svg.forecast(result.forecast, t),
        svg.state_bar(result.states, t),
        svg.retention_bars(result.retention.overall, t),
    ]


def titled(root: ET.Element, path: str) -> list[str]:
    """The <title> text of each element matching `path`, which must each have exactly one."""
    found = root.findall(path)
    assert found, path
    titles = [el.findall(f"{SVG}title") for el in found]
    assert all(len(t) == 1 for t in titles)
    return [t[0].text or "" for t in titles]


def parse(chart: str) -> ET.Element:
    root = ET.fromstring(chart)
    assert root.tag == f"{SVG}svg"
    assert root.get("role") == "img"
    assert root.get("aria-label")
    return root


def test_heatmap_svg(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    days = stats_at(session, learner, NOW).reviews
    root = parse(svg.heatmap(days, en))
    cells = root.findall(f"{SVG}g[@class='cells']/{SVG}rect")
    assert len(cells) == 365
    assert len({cell.get("x") for cell in cells}) == 53  # 53 weeks
    assert len({cell.get("y") for cell in cells}) == 7
    titles = titled(root, f"{SVG}g[@class='cells']/{SVG}rect")
    assert titles[0] == "2024-03-13: 1 reviews"
    assert titles[-1] == "2025-03-12: 3 reviews"
    assert titles[-2] == "2025-03-11: 2 reviews"
    assert cells[-1].get("class") == "heat-4"
    assert cells[-2].get("class") == "heat-3"  # ceil(4 * 2 / 3)
    assert cells[-3].get("class") == "heat-3"
    assert cells[-4].get("class") == "heat-0"
    # 2025-03-12 is a Wednesday: the last column's third row.
    assert cells[-1].get("y") == str(svg.HEAT_TOP + 2 * svg.STEP)
    assert root.get("aria-label") == "Reviews per day over the last 365 days: 13 reviews on 9 days"


def test_heat_levels() -> None:
    assert [svg.heat_level(n, 8) for n in (0, 1, 2, 3, 4, 5, 8)] == [0, 1, 1, 2, 2, 3, 4]
    assert svg.heat_level(0, 0) == 0


def test_forecast_svg(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    days = summary.due_forecast(session=session, learner=learner, now=NOW)
    root = parse(svg.forecast(days, en))
    titles = titled(root, f"{SVG}g[@class='bar']")
    assert len(titles) == 30
    assert titles[0] == "2025-03-12: 4 due"
    assert titles[29] == "2025-04-10: 1 due"
    heights = [
        float(r.get("height", "")) for r in root.iter(f"{SVG}rect") if r.get("class") == "due"
    ]
    assert heights[0] == svg.BAR_HEIGHT
    assert heights[1] == svg.BAR_HEIGHT / 4
    assert heights[2] == 0


def test_state_and_retention_svgs(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    result = summary.learner_stats(session=session, learner=learner, now=NOW)
    states = parse(svg.state_bar(result.states, en))
    assert titled(states, f"{SVG}g[@class='segment']") == [
        "New: 2 (18%)",
        "Learning: 1 (9%)",
        "Review: 5 (45%)",
        "Relearning: 1 (9%)",
        "Retired: 2 (18%)",
    ]
    retention = parse(svg.retention_bars(result.retention.overall, en))
    assert titled(retention, f"{SVG}g[@class='bar']") == [
        "Last 7 days: 66.7% (4/6)",
        "Last 30 days: 66.7% (6/9)",
        "Last 365 days: 75.0% (9/12)",
    ]


def test_svg_text_is_escaped(session: Session, learner: Learner, decks: dict[str, Deck]) -> None:
    result = summary.learner_stats(session=session, learner=learner, now=NOW)

    def hostile(key: str) -> str:
        return "<b>&\"'</b> " + en(key)

    drawn = charts(result, hostile)
    assert drawn
    for chart in drawn:
        root = parse(chart)
        assert root.get("aria-label", "").startswith("<b>&\"'</b> ")
        assert any((t.text or "").startswith("<b>&") for t in root.iter(f"{SVG}title"))


def test_chinese_charts_are_well_formed(
    session: Session, learner: Learner, decks: dict[str, Deck]
) -> None:
    result = summary.learner_stats(session=session, learner=learner, now=NOW)
    heatmap, *_ = [parse(chart) for chart in charts(result, translator("zh"))]
    assert heatmap.findall(f"{SVG}g[@class='cells']/{SVG}rect/{SVG}title")[-1].text == (
        "2025-03-12：复习 3 次"
    )


# --- The page and the API -----------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path, database_url: str) -> Iterator[tuple[TestClient, Engine]]:
    settings = Settings(database_url=database_url, content_dir=tmp_path)
    app = apps.take(settings)
    app.state.database.upgrade()  # before its lifespan: written to first
    app.state.clock = lambda: NOW
    database = app.state.database
    engine = database.engine
    with database.session() as session:
        learner = get_learner(session, settings.learner_name)
        learner.timezone = ZONE
        session.add(learner)
        commit(session)
        build_bank(session, learner)
    with TestClient(app, headers={"Accept-Language": "en"}) as client:
        yield client, engine
    apps.give_back(app)


def svgs(html: str) -> list[ET.Element]:
    return [parse(m.group(0)) for m in re.finditer(r"<svg\b.*?</svg>", html, re.DOTALL)]


def test_stats_page(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    response = web.get("/stats")
    assert response.status_code == 200
    html = response.text
    assert '<a href="/stats" aria-current="page">Stats</a>' in html
    heatmap, forecast, retention, states = svgs(html)
    assert len(heatmap.findall(f"{SVG}g[@class='cells']/{SVG}rect")) == 365
    assert len(forecast.findall(f"{SVG}g[@class='bar']")) == 30
    assert len(retention.findall(f"{SVG}g[@class='bar']")) == 3
    assert len(states.findall(f"{SVG}g[@class='segment']")) == 5
    assert '<dd id="streak-current">3 days</dd>' in html
    assert '<dd id="streak-longest">5 days</dd>' in html
    assert '<dd id="time-today">28 s</dd>' in html
    assert '<dd id="time-total">1 min</dd>' in html
    # The accessible tables repeat the numbers.
    assert '<tr><th scope="row">2025-03-12</th><td>4</td></tr>' in html
    assert '66.7% <span class="muted">(4/6)</span>' in html
    assert '<th scope="row">Retired</th><td>2</td>' in html
    assert '<a href="/cards/s2">Question <em>s2</em>?</a>' in html
    assert html.count("<details>") == 3


def test_stats_page_for_one_deck(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    html = web.get("/stats?deck=gpu").text
    assert '<option value="gpu" selected>GPU</option>' in html
    assert '<dd id="streak-current">2 days</dd>' in html
    assert '<a href="/cards/s2">' not in html
    assert web.get("/stats?deck=nope").status_code == 404
    assert web.get("/stats?deck=old").status_code == 404  # retired decks have no page


def test_stats_page_in_chinese(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    html = web.get("/stats", headers={"Accept-Language": "zh-CN"}).text
    assert ">统计</a>" in html
    assert "<h1>学习统计</h1>" in html
    assert len(svgs(html)) == 4


@pytest.mark.parametrize(
    ("ms", "lang", "text"),
    [
        (0, "en", "0 s"),
        (40_400, "en", "40 s"),
        (64_000, "en", "1 min"),
        (7_500_000, "en", "2 h 5 min"),
        (7_500_000, "zh", "2 小时 5 分钟"),
    ],
)
def test_time_spent_reads_as_hours_and_minutes(ms: int, lang: str, text: str) -> None:
    assert format_duration(ms, lang) == text


def test_stats_api(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    body = web.get("/api/stats").json()
    assert body["deck"] is None
    assert body["today"] == "2025-03-12"
    assert len(body["reviews"]) == 365
    assert body["reviews"][-1] == {"date": "2025-03-12", "count": 3}
    assert {d["date"]: d["count"] for d in body["reviews"] if d["count"]}["2025-03-11"] == 2
    assert len(body["forecast"]) == 30
    assert body["forecast"][0] == {"date": "2025-03-12", "count": 4}
    assert body["retention"][0] == {"days": 7, "reviews": 6, "passed": 4, "rate": 4 / 6}
    assert [w["reviews"] for w in body["retention"]] == [6, 9, 12]
    assert [d["deck"] for d in body["retention_by_deck"]] == ["sys", "gpu", "old"]
    assert body["states"] == {
        "new": 2,
        "learning": 1,
        "review": 5,
        "relearning": 1,
        "retired": 2,
        "total": 11,
    }
    assert body["streak"] == {"current": 3, "longest": 5}
    assert body["time"] == {"today_ms": 28_000, "week_ms": 47_000, "total_ms": 64_000}
    assert [(c["id"], c["lapses"], c["again"], c["url"]) for c in body["hardest"]] == [
        ("s2", 2, 1, "/cards/s2"),
        ("g3", 1, 2, "/cards/g3"),
        ("g1", 1, 1, "/cards/g1"),
    ]


def test_stats_api_for_one_deck_and_its_schema(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    body = web.get("/api/stats", params={"deck": "gpu"}).json()
    assert body["deck"] == "gpu"
    assert body["states"]["total"] == 5
    assert body["time"]["total_ms"] == 49_000
    missing = web.get("/api/stats", params={"deck": "nope"})
    assert (missing.status_code, missing.json()["code"]) == (404, "deck_not_found")
    schema = web.get("/openapi.json").json()
    operation = schema["paths"]["/api/stats"]["get"]
    assert operation["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/StatsOut"
    }
    assert "/stats" not in schema["paths"]


# --- Mastery at a glance: progress per deck and section -----------------------------------------


def progress_labels(html: str) -> list[str]:
    return re.findall(r'<div class="progress" role="img" aria-label="([^"]*)"', html)


def test_home_shows_progress_per_deck(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    html = web.get("/").text
    gpu = html[html.index('href="/decks/gpu"') : html.index('href="/decks/sys"')]
    # The retired g4 is left out; sections show on the deck's own page.
    assert '<span class="seen-bar" role="img" aria-label="seen 3/4">' in gpu
    assert '<span style="width: 75%">' in gpu


def test_deck_page_shows_progress_per_section(client: tuple[TestClient, Engine]) -> None:
    web, _ = client
    html = web.get("/decks/gpu").text
    assert progress_labels(html) == [
        "seen 3/4 (75%) · mature 1/4 (25%)",
        "seen 2/2 (100%) · mature 0/2 (0%)",
        "seen 1/2 (50%) · mature 1/2 (50%)",
    ]
    assert html.index("<h2>Zeta kernels</h2>") < html.index("<h2>Alpha memory</h2>")


# --- A week of simulated study ------------------------------------------------------------------


def test_a_week_of_simulated_reviews_matches_the_log(database: Database, session: Session) -> None:
    zone = ZoneInfo("America/New_York")  # the week crosses the switch to daylight saving time
    learner = Learner(name="sim", timezone="America/New_York", rollover_hour=4, new_per_day=4)
    deck = Deck(slug="sim", title="Sim", path="sim.md")
    session.add_all([learner, deck])
    commit(session)
    session.refresh(deck)
    session.add_all(
        Card(
            id=f"c{i}", deck_id=deck.id, position=i, question="q", question_html="q", answer_html=""
        )
        for i in range(12)
    )
    commit(session)
    number_cards(session)  # the per-deck counts an import keeps
    commit(session)

    ratings = iter([3, 1, 3, 4, 2, 3, 1, 3, 3, 4] * 100)
    start = datetime(2025, 3, 5, 9, 0, tzinfo=zone)
    for day in range(7):
        # A morning, an evening, and a night session after midnight that still counts as today.
        for hour in (0, 12.5, 17.5):
            now = (start + timedelta(days=day, hours=hour)).astimezone(UTC)
            for _ in range(6):
                current = next_card(session, learner=learner, now=now, filters=Filters())
                if current is None:
                    break
                record_review(
                    session,
                    learner=learner,
                    card_id=current.card.id,
                    rating=next(ratings),
                    now=now,
                    duration_ms=1_000 * (day + 1),
                    expected_version=current.version,
                    database=database,
                )
                now += timedelta(minutes=1)
        if day % 2 == 0:
            undo_last(session, learner=learner, now=now, database=database)
        run = start_practice(
            session,
            learner=learner,
            filters=Filters(),
            order="content",
            seconds_per_card=0,
            now=now,
            database=database,
        )
        rate_practice(
            session,
            learner=learner,
            run=run,
            card_id=run.card_ids[0],
            rating=1,
            now=now,
            database=database,
        )
    # 03:30 on 03-12 is before the rollover: still the week's last study day, 03-11.
    now = datetime(2025, 3, 12, 3, 30, tzinfo=zone).astimezone(UTC)

    logs = session.exec(
        select(ReviewLog).where(
            ReviewLog.learner_id == learner.id,
            ReviewLog.mode == "study",
            col(ReviewLog.undone_at).is_(None),
        )
    ).all()
    assert session.exec(select(ReviewLog).where(col(ReviewLog.undone_at).is_not(None))).all()

    def day_of(moment: datetime) -> date:
        # The scheduler's own notion of a day, independent of app.stats.summary.
        return study_day(learner, moment)[0].astimezone(zone).date()

    today = day_of(now)
    assert today == date(2025, 3, 11)
    result = summary.learner_stats(session=session, learner=learner, now=now)
    per_day = Counter(day_of(entry.reviewed_at) for entry in logs)
    assert nonzero(result.reviews) == {d.isoformat(): n for d, n in sorted(per_day.items())}
    assert len(per_day) == 7 and sum(per_day.values()) == len(logs)

    due = Counter(
        max((day_of(s.due) - today).days, 0)
        for s in session.exec(select(CardState).where(CardState.learner_id == learner.id))
    )
    assert {i: d.count for i, d in enumerate(result.forecast) if d.count} == {
        i: n for i, n in due.items() if i < 30
    }

    for window in result.retention.overall:
        recent = [
            e
            for e in logs
            if e.queue == "review" and (today - day_of(e.reviewed_at)).days < window.days
        ]
        assert window.reviews == len(recent) > 0
        assert window.passed == sum(e.rating != 1 for e in recent)

    assert result.streak == summary.Streak(current=7, longest=7)
    assert result.time.total_ms == sum(e.duration_ms or 0 for e in logs)
    assert result.time.today_ms == sum(
        e.duration_ms or 0 for e in logs if day_of(e.reviewed_at) == today
    )
    states = Counter(
        s.state for s in session.exec(select(CardState).where(CardState.learner_id == learner.id))
    )
    assert result.states == summary.StateCounts(
        new=12 - sum(states.values()),
        learning=states[1],
        review=states[2],
        relearning=states[3],
        retired=0,
    )
    # What the page draws is what the log says.
    titles = [
        t.text
        for t in parse(svg.heatmap(result.reviews, en)).iter(f"{SVG}title")
        if t.text and t.text[:10] >= (today - timedelta(days=6)).isoformat()
    ]
    assert titles == [f"{d.isoformat()}: {n} reviews" for d, n in sorted(per_day.items())]
