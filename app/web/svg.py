"""Server-rendered SVG charts for the statistics page.

Each chart is well-formed XML with role="img" and an aria-label; every mark carries a <title>
for hover, and the page repeats the numbers in a table. Colours come from CSS classes (see
app.css), with light-theme fill attributes as a fallback where that CSS is absent.
"""

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import date, timedelta

from markupsafe import Markup, escape

from app.stats.summary import DayCount, Retention, StateCounts

Translate = Callable[[str], str]

HEAT_LEVELS = 4
HEAT_FALLBACK = ("#ebedf0", "#9be9a8", "#40c463", "#30a14e", "#216e39")
STATE_KEYS = ("new", "learning", "review", "relearning", "retired")
STATE_FALLBACK = ("#2b6cb0", "#c63d2f", "#2f855a", "#b7791f", "#a0a7b0")


def _n(value: float) -> str:
    """A coordinate, without trailing zeros."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg(kind: str, width: float, height: float, label: str, body: Iterable[str]) -> Markup:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {kind}" role="img"'
        f' aria-label="{escape(label)}" viewBox="0 0 {_n(width)} {_n(height)}"'
        f' width="{_n(width)}" height="{_n(height)}">'
    )
    return Markup(head + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str, anchor: str = "start", cls: str = "label") -> str:
    return (
        f'<text class="{cls}" x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}"'
        f' fill="currentColor">{escape(text)}</text>'
    )


def _title(text: str) -> str:
    return f"<title>{escape(text)}</title>"


def heat_level(count: int, peak: int) -> int:
    """The colour step (0-4) of a day with `count` reviews when the busiest day had `peak`."""
    if count <= 0 or peak <= 0:
        return 0
    return min(HEAT_LEVELS, math.ceil(HEAT_LEVELS * count / peak))


def calendar_weeks(days: Sequence[DayCount]) -> list[tuple[date, list[DayCount | None]]]:
    """Days grouped into Monday-first weeks; None pads the first and last week."""
    weeks: dict[date, list[DayCount | None]] = {}
    for d in days:
        monday = d.day - timedelta(days=d.day.weekday())
        weeks.setdefault(monday, [None] * 7)[d.day.weekday()] = d
    return list(weeks.items())


CELL, STEP, HEAT_LEFT, HEAT_TOP = 11, 13, 30, 18


def heatmap(days: Sequence[DayCount], t: Translate) -> Markup:
    """A calendar of reviews per day: one column per week (Monday first), one cell per day."""
    weeks = calendar_weeks(days)
    columns = len(weeks)
    peak = max((d.count for d in days), default=0)
    width = HEAT_LEFT + columns * STEP + 2
    grid_bottom = HEAT_TOP + 7 * STEP
    height = grid_bottom + 22
    body: list[str] = []

    months = t("stats.months").split(",")
    # A month is named above the week holding its 1st; the partial first month only if roomy.
    labels = [
        (column, d.day.month)
        for column, (_, week) in enumerate(weeks)
        for d in week
        if d is not None and d.day.day == 1
    ]
    if not labels or labels[0][0] >= 3:
        labels.insert(0, (0, days[0].day.month))
    for column, month in labels:
        if column < columns - 2:
            body.append(_text(HEAT_LEFT + column * STEP, HEAT_TOP - 6, months[month - 1]))
    for row, name in enumerate(t("stats.weekdays").split(",")):
        if row % 2 == 0:
            body.append(_text(HEAT_LEFT - 4, HEAT_TOP + row * STEP + 9, name, anchor="end"))

    body.append('<g class="cells">')
    pattern = t("stats.heat_title")
    for column, (_, week) in enumerate(weeks):
        for row, d in enumerate(week):
            if d is None:
                continue
            level = heat_level(d.count, peak)
            body.append(
                f'<rect class="heat-{level}" x="{HEAT_LEFT + column * STEP}"'
                f' y="{HEAT_TOP + row * STEP}" width="{CELL}" height="{CELL}" rx="2"'
                f' fill="{HEAT_FALLBACK[level]}">'
                + _title(pattern.format(date=d.day.isoformat(), count=d.count))
                + "</rect>"
            )
    body.append("</g>")

    # Legend, bottom right: less … more.
    right = width - 2
    legend_y = grid_bottom + 6
    body.append('<g class="legend">')
    body.append(_text(right, legend_y + 9, t("stats.more"), anchor="end"))
    swatch_end = right - 36
    for level in range(HEAT_LEVELS, -1, -1):
        x = swatch_end - (HEAT_LEVELS - level + 1) * STEP
        body.append(
            f'<rect class="heat-{level}" x="{x}" y="{legend_y}" width="{CELL}" height="{CELL}"'
            f' rx="2" fill="{HEAT_FALLBACK[level]}"/>'
        )
    body.append(
        _text(swatch_end - (HEAT_LEVELS + 1) * STEP - 4, legend_y + 9, t("stats.less"), "end")
    )
    body.append("</g>")

    total = sum(d.count for d in days)
    active = sum(1 for d in days if d.count)
    label = t("stats.heatmap_label").format(days=len(days), total=total, active=active)
    return _svg("heatmap", width, height, label, body)


BAR_LEFT, BAR_TOP, BAR_HEIGHT, BAR_STEP, BAR_WIDTH = 36, 12, 120, 22, 16


def forecast(days: Sequence[DayCount], t: Translate) -> Markup:
    """A bar per upcoming day with the number of cards falling due (overdue on the first)."""
    peak = max((d.count for d in days), default=0)
    width = BAR_LEFT + len(days) * BAR_STEP + 4
    base = BAR_TOP + BAR_HEIGHT
    height = base + 22
    body = [
        f'<line class="axis" x1="{BAR_LEFT - 4}" y1="{base}" x2="{width - 4}" y2="{base}"'
        ' stroke="currentColor" stroke-opacity="0.4"/>',
        _text(BAR_LEFT - 8, base, "0", anchor="end"),
    ]
    if peak:
        body.append(_text(BAR_LEFT - 8, BAR_TOP + 8, str(peak), anchor="end"))
    pattern = t("stats.due_title")
    for i, d in enumerate(days):
        x = BAR_LEFT + i * BAR_STEP
        tall = BAR_HEIGHT * d.count / peak if peak else 0
        # The transparent column makes even an empty day hoverable.
        body.append(
            '<g class="bar">'
            + _title(pattern.format(date=d.day.isoformat(), count=d.count))
            + f'<rect class="hit" x="{x}" y="{BAR_TOP}" width="{BAR_STEP}" height="{BAR_HEIGHT}"'
            ' fill="transparent"/>'
            f'<rect class="due" x="{x + (BAR_STEP - BAR_WIDTH) / 2:g}" y="{_n(base - tall)}"'
            f' width="{BAR_WIDTH}" height="{_n(tall)}" rx="2" fill="#2b6cb0"/>'
            "</g>"
        )
        if i % 7 == 0:
            text = t("stats.today") if i == 0 else d.day.strftime("%m-%d")
            body.append(_text(x + BAR_STEP / 2, base + 16, text, anchor="middle"))
    total = sum(d.count for d in days)
    label = t("stats.forecast_label").format(days=len(days), total=total)
    return _svg("forecast", width, height, label, body)


STACK_WIDTH, STACK_HEIGHT, LEGEND_STEP = 700, 24, 140


def state_bar(states: StateCounts, t: Translate) -> Markup:
    """One bar split by card state, with a legend of counts underneath."""
    total = states.total
    values = [getattr(states, key) for key in STATE_KEYS]
    names = [t("stats.state." + key) for key in STATE_KEYS]
    body = [
        f'<rect class="track" x="0" y="0" width="{STACK_WIDTH}" height="{STACK_HEIGHT}" rx="4"'
        ' fill="#dcdfe3"/>'
    ]
    x = 0.0
    for key, name, value, fallback in zip(STATE_KEYS, names, values, STATE_FALLBACK, strict=True):
        if not value:
            continue
        share = value / total
        wide = STACK_WIDTH * share
        body.append(
            f'<g class="segment">{_title(f"{name}: {value} ({share:.0%})")}'
            f'<rect class="state-{key}" x="{_n(x)}" y="0" width="{_n(wide)}"'
            f' height="{STACK_HEIGHT}" fill="{fallback}"/></g>'
        )
        x += wide
    legend_y = STACK_HEIGHT + 10
    for i, (key, name, value, fallback) in enumerate(
        zip(STATE_KEYS, names, values, STATE_FALLBACK, strict=True)
    ):
        left = i * LEGEND_STEP
        body.append(
            f'<rect class="state-{key}" x="{left}" y="{legend_y}" width="10" height="10"'
            f' rx="2" fill="{fallback}"/>'
        )
        body.append(_text(left + 14, legend_y + 9, f"{name} {value}"))
    label = t("stats.states_label").format(
        total=total, parts=", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))
    )
    return _svg("states", STACK_WIDTH, legend_y + 14, label, body)


RET_LABEL, RET_TRACK, RET_ROW, RET_BAR = 112, 440, 30, 18


def retention_bars(windows: Sequence[Retention], t: Translate) -> Markup:
    """A bar per window: the share of review-queue ratings that were not Again."""
    width = RET_LABEL + RET_TRACK + 150
    body: list[str] = []
    summary = []
    for i, window in enumerate(windows):
        top = i * RET_ROW
        name = t("stats.last_days").format(days=window.days)
        figure = _rate(window)
        detail = f"{name}: {figure} ({window.passed}/{window.reviews})"
        summary.append(detail)
        passed = RET_TRACK * (window.rate or 0)
        failed = RET_TRACK - passed if window.reviews else 0
        body.append(
            f'<g class="bar">{_title(detail)}'
            + _text(RET_LABEL - 8, top + 13, name, anchor="end")
            + f'<rect class="track" x="{RET_LABEL}" y="{top}" width="{RET_TRACK}"'
            f' height="{RET_BAR}" rx="3" fill="#dcdfe3"/>'
            f'<rect class="again" x="{_n(RET_LABEL + passed)}" y="{top}" width="{_n(failed)}"'
            f' height="{RET_BAR}" fill="#c63d2f"/>'
            f'<rect class="pass" x="{RET_LABEL}" y="{top}" width="{_n(passed)}"'
            f' height="{RET_BAR}" fill="#2f855a"/>'
            + _text(
                RET_LABEL + RET_TRACK + 8, top + 13, f"{figure} ({window.passed}/{window.reviews})"
            )
            + "</g>"
        )
    label = t("stats.retention_label").format(parts="; ".join(summary))
    return _svg("retention", width, len(windows) * RET_ROW, label, body)


def _rate(window: Retention) -> str:
    return "—" if window.rate is None else f"{window.rate:.1%}"
