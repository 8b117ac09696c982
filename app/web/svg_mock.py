"""The mock-interview history chart: coverage as bars, seconds per question as a line."""

from collections.abc import Sequence
from zoneinfo import ZoneInfo

from fastapi import Request
from markupsafe import Markup

from app.interview.report import HistoryPoint
from app.scheduling.cardstate import aware
from app.web.i18n import language, translator
from app.web.svg import _n, _svg, _text, _title

LEFT, TOP, HEIGHT, STEP, BAR = 40, 10, 120, 28, 18


def history_chart(
    points: Sequence[HistoryPoint], request: Request, zone: ZoneInfo
) -> Markup | None:
    """None with fewer than one session to show; the page repeats the numbers in a table.

    Dates are on the wall clock of `zone`, the learner's.
    """
    if not points:
        return None
    t = translator(language(request))
    shown = list(points)[-24:]
    width = LEFT + len(shown) * STEP + 40
    base = TOP + HEIGHT
    slowest = max(p.seconds for p in shown) or 1
    body = [
        f'<line class="axis" x1="{LEFT - 4}" y1="{base}" x2="{width - 36}" y2="{base}"'
        ' stroke="currentColor" stroke-opacity="0.4"/>',
        _text(LEFT - 8, base, "0%", anchor="end"),
        _text(LEFT - 8, TOP + 8, "100%", anchor="end"),
        _text(width - 32, TOP + 8, f"{round(slowest)} s"),
    ]
    line = []
    pattern = t("mock.chart_point")
    for i, p in enumerate(shown):
        x = LEFT + i * STEP
        tall = HEIGHT * p.coverage
        title = pattern.format(
            date=aware(p.when).astimezone(zone).strftime("%Y-%m-%d"),
            coverage=round(100 * p.coverage),
            seconds=round(p.seconds),
            questions=p.questions,
        )
        body.append(
            '<g class="bar">'
            + _title(title)
            + f'<rect class="coverage" x="{x + (STEP - BAR) / 2:g}" y="{_n(base - tall)}"'
            f' width="{BAR}" height="{_n(tall)}" rx="2" fill="#2f855a"/></g>'
        )
        line.append(f"{_n(x + STEP / 2)},{_n(base - HEIGHT * p.seconds / slowest)}")
    body.append(
        f'<polyline class="seconds" points="{" ".join(line)}" fill="none"'
        ' stroke="#b7791f" stroke-width="2"/>'
    )
    label = t("mock.chart_label").format(count=len(shown))
    return _svg("mock-history", width, base + 8, label, body)
