"""The settings page's workload chart: reviews and minutes a day against desired retention."""

from collections.abc import Sequence

from markupsafe import Markup, escape

from app.scheduling.simulate import Workload, WorkloadPoint
from app.web.svg import Translate, _n, _svg, _text, _title

WIDTH, HEIGHT = 640, 250
LEFT, RIGHT, TOP, BOTTOM = 48, 52, 24, 40
LOW, HIGH = 0.70, 0.97
REVIEWS_COLOUR, MINUTES_COLOUR, BEST_COLOUR = "#2b6cb0", "#b7791f", "#2f855a"


def _x(retention: float) -> float:
    return LEFT + (retention - LOW) / (HIGH - LOW) * (WIDTH - LEFT - RIGHT)


def _y(value: float, peak: float) -> float:
    return HEIGHT - BOTTOM - (value / peak if peak else 0) * (HEIGHT - TOP - BOTTOM)


def _line(points: Sequence[WorkloadPoint], values: Sequence[float], cls: str, colour: str) -> str:
    peak = max(values, default=0)
    path = " ".join(
        f"{_n(_x(p.retention))},{_n(_y(v, peak))}" for p, v in zip(points, values, strict=True)
    )
    return (
        f'<polyline class="{cls}" points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
    )


def _amount(value: float) -> str:
    """An axis's top value: a decimal while it is small, so 2.4 minutes does not read as 2."""
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _swatch(x: float, y: float, colour: str, cls: str) -> str:
    return (
        f'<line class="{cls}" x1="{_n(x)}" y1="{_n(y)}" x2="{_n(x + 14)}" y2="{_n(y)}"'
        f' stroke="{colour}"'
        ' stroke-width="3"/>'
    )


def workload_chart(workload: Workload, desired: float, t: Translate) -> Markup:
    """Two curves over desired retention 0.70-0.97, the least-work retention marked."""
    points = workload.points
    reviews = [p.reviews_per_day for p in points]
    minutes = [p.minutes_per_day for p in points]
    peak_reviews, peak_minutes = max(reviews, default=0), max(minutes, default=0)
    base = HEIGHT - BOTTOM
    body = [
        f'<line class="axis" x1="{LEFT}" y1="{base}" x2="{WIDTH - RIGHT}" y2="{base}"'
        ' stroke="currentColor" stroke-opacity="0.4"/>',
        _text(LEFT - 6, TOP + 4, _amount(peak_reviews), anchor="end", cls="label reviews"),
        _text(LEFT - 6, base, "0", anchor="end"),
        _text(WIDTH - RIGHT + 6, TOP + 4, _amount(peak_minutes), cls="label minutes"),
        _text(WIDTH - RIGHT + 6, base, "0"),
        _text(LEFT + 18, TOP - 10, t("workload.axis_reviews"), cls="label reviews"),
        _text(WIDTH - RIGHT, TOP - 10, t("workload.axis_minutes"), anchor="end", cls="label"),
        # Swatches: which line each axis belongs to.
        _swatch(LEFT, TOP - 14, REVIEWS_COLOUR, "reviews"),
        _swatch(WIDTH - RIGHT + 4, TOP - 14, MINUTES_COLOUR, "minutes"),
    ]
    for step in range(0, 30, 5):
        retention = LOW + step / 100
        body.append(_text(_x(retention), base + 16, f"{retention:.2f}", anchor="middle"))
    body.append(_text((LEFT + WIDTH - RIGHT) / 2, base + 32, t("workload.axis_x"), "middle"))
    best = workload.best
    if best is not None:
        x = _n(_x(best.retention))
        note = t("workload.best").format(retention=f"{best.retention:.2f}")
        # The mark's name beside its line, on the side with room for it.
        right = _x(best.retention) < (LEFT + WIDTH - RIGHT) / 2
        label_x = _n(_x(best.retention) + (5 if right else -5))
        mark = escape(f"{t('workload.best_mark')} {best.retention:.2f}")
        body.append(
            f'<g class="best">{_title(note)}'
            f'<line x1="{x}" y1="{TOP}" x2="{x}" y2="{base}" stroke="{BEST_COLOUR}"'
            ' stroke-width="1.5" stroke-dasharray="4 3"/>'
            f'<text x="{label_x}" y="{_n(TOP + 12)}" text-anchor="{"start" if right else "end"}"'
            f' fill="{BEST_COLOUR}">{mark}</text></g>'
        )
    if LOW <= desired <= HIGH:
        x = _n(_x(desired))
        body.append(
            f'<g class="desired">{_title(t("workload.yours").format(retention=f"{desired:.2f}"))}'
            f'<line x1="{x}" y1="{base - 6}" x2="{x}" y2="{base + 4}" stroke="currentColor"'
            ' stroke-width="3"/></g>'
        )
    body.append(_line(points, reviews, "reviews", REVIEWS_COLOUR))
    body.append(_line(points, minutes, "minutes", MINUTES_COLOUR))
    pattern = t("workload.point")
    for point in points:
        detail = pattern.format(
            retention=f"{point.retention:.2f}",
            reviews=f"{point.reviews_per_day:.1f}",
            minutes=f"{point.minutes_per_day:.1f}",
        )
        x = _n(_x(point.retention))
        on_reviews = _n(_y(point.reviews_per_day, peak_reviews))
        on_minutes = _n(_y(point.minutes_per_day, peak_minutes))
        body.append(
            f'<g class="point">{_title(detail)}'
            f'<circle class="reviews" cx="{x}" cy="{on_reviews}" r="3" fill="{REVIEWS_COLOUR}"/>'
            f'<circle class="minutes" cx="{x}" cy="{on_minutes}" r="3" fill="{MINUTES_COLOUR}"/>'
            "</g>"
        )
    label = t("workload.label").format(
        best=f"{best.retention:.2f}" if best else "—",
        reviews=f"{reviews[0]:.0f}–{reviews[-1]:.0f}" if reviews else "—",
        minutes=f"{minutes[0]:.0f}–{minutes[-1]:.0f}" if minutes else "—",
    )
    return _svg("workload", WIDTH, HEIGHT, label, body)
