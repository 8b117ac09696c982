"""An interview's countdown at the hours around a study day's edges, in the learner's zone."""

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from app.infra.models import Learner
from app.scheduling.studyday import local_day
from tests.support.browser import NewPage, ServerClock, bundled_settings, serve
from tests.support.interview_ui import set_interview

pytestmark = pytest.mark.browser

# Eight hours ahead of UTC: its study day (from 04:00) and the UTC calendar differ from 00:00
# to 08:00 local time, on either side of the rollover.
ZONE = "Asia/Shanghai"


@pytest.fixture
def live_server(bank: Path, server_clock: ServerClock) -> Iterator[str]:
    """A server of the test's own, its learner in ZONE."""
    settings = bundled_settings(bank).model_copy(update={"timezone": ZONE})
    with serve(settings, server_clock) as origin:
        yield origin


@pytest.mark.parametrize("hour", ["00:30", "03:59", "04:00", "23:59"])
def test_an_interview_twelve_study_days_ahead_is_twelve_days_away_at_any_hour(
    new_page: NewPage, travel: Callable[[datetime], None], hour: str
) -> None:
    now = datetime.fromisoformat(f"2026-03-10 {hour}").replace(tzinfo=ZoneInfo(ZONE))
    travel(now)
    page = new_page(locale="en-US", timezone_id=ZONE)
    today = local_day(Learner(timezone=ZONE), now)
    assert today.isoformat() == ("2026-03-09" if hour < "04:00" else "2026-03-10")
    set_interview(page, f"At {hour}", 12, today=today)
    expect(page.locator("#plan tbody tr")).to_have_count(12)
    page.goto("/")
    expect(page.locator(".interviews-home")).to_contain_text("in 12 days")
