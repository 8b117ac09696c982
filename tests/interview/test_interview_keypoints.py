"""Key points compiled from answers: list items, sentences, and the author's own list."""

import pytest

from app.content.compile.points import point_html
from app.content.compile.render import Renderer
from app.interview.keypoints import points_key, suggested_rating


@pytest.fixture(scope="module")
def key_points():
    renderer = Renderer()

    def points(markdown: str, breaks: bool = False) -> list[str]:
        found = renderer.render(
            markdown, path="t.md", line=1, errors=[], points=True, breaks=breaks
        )
        return [point_html(found.html, point) for point in found.points]

    return points


CASES = [
    (
        "list items",
        "- The unit a cache moves.\n- On GPUs 128 B.\n- Neighbours come along.",
        ["The unit a cache moves.", "On GPUs 128 B.", "Neighbours come along."],
    ),
    (
        "Chinese sentences",
        "一个 warp 有 32 个线程。分歧时**各路径耗时之和**。Volta 起有独立调度。",
        [
            "一个 warp 有 32 个线程。",
            "分歧时<strong>各路径耗时之和</strong>。",
            "Volta 起有独立调度。",
        ],
    ),
    (
        "English sentences, not cut inside code",
        "It caches translations. A miss walks `a.b. c` tables. Huge pages reach further.",
        [
            "It caches translations.",
            "A miss walks <code>a.b. c</code> tables.",
            "Huge pages reach further.",
        ],
    ),
    (
        "a short piece joins the one before",
        "Bandwidth bound kernels gain. Yes. GEMM is the main case.",
        ["Bandwidth bound kernels gain. Yes.", "GEMM is the main case."],
    ),
    (
        "the author's key points",
        "Occupancy hides latency, mostly.\n\n**要点：**\n\n- hides latency\n- Little's law\n\n"
        "More prose. And more.",
        ["hides latency", "Little's law"],
    ),
    (
        "Key points in English",
        "Intro sentence here.\n\nKey points:\n\n1. first one\n2. second one",
        ["first one", "second one"],
    ),
]


@pytest.mark.parametrize(("title", "markdown", "expected"), CASES, ids=[c[0] for c in CASES])
def test_key_points(key_points, title, markdown, expected):
    assert key_points(markdown) == expected


def test_a_formula_stays_whole_inside_its_point(key_points):
    points = key_points("Intensity is $I = F / B$. It decides the side.\n\n$$x^2$$\n")
    assert len(points) == 2
    assert 'class="katex"' in points[0] and points[0].endswith("</span>.")
    assert 'class="katex"' in points[1]  # a display formula belongs to the point before it


def test_a_display_formula_keeps_its_class_and_so_scrolls_on_a_phone(key_points):
    (point,) = key_points(
        "The limits:\n\n$$\n\\begin{aligned} a &= 1 \\\\ b &= 2 \\end{aligned}\n$$\n"
    )
    assert point.startswith("The limits:")
    assert point.startswith('The limits:<span class="katex-display"><span class="katex">')


def test_a_line_break_after_a_full_stop_ends_a_point(key_points):
    points = key_points("First we load the tile.\nThen we reuse it.", breaks=True)
    assert points == ["First we load the tile.", "Then we reuse it."]


def test_a_formula_or_link_is_never_cut_and_nested_lists_stay_in_their_item(key_points):
    points = key_points("- Outer point $a. b$ here\n  - inner one\n- [Next. Link](x) item")
    assert len(points) == 2
    assert points[0].startswith('Outer point <span class="katex">')
    assert "<li>inner one</li>" in points[0]
    assert points[1] == '<a href="x">Next. Link</a> item'


def test_the_fingerprint_changes_with_the_points():
    assert points_key(["a", "b"]) == points_key(["a", "b"])
    assert points_key(["a", "b"]) != points_key(["a", "b", "c"])


@pytest.mark.parametrize(
    ("said", "total", "overtime", "rating"),
    [
        (0, 5, False, 1),
        (1, 5, False, 1),
        (2, 5, False, 2),
        (3, 5, False, 2),
        (4, 5, False, 3),
        (5, 5, False, 4),
        (5, 5, True, 3),
        (0, 0, False, 4),
    ],
)
def test_coverage_suggests_a_rating(said, total, overtime, rating):
    assert suggested_rating(said, total, overtime=overtime) == rating


def test_an_image_on_its_own_is_a_point(key_points):
    points = key_points("![the roofline](roofline.png)\n\nLeft is memory bound. Right is compute.")
    assert len(points) == 3
    assert "the roofline" in points[0] and points[1] == "Left is memory bound."


def test_points_are_places_in_the_answer_html_and_an_older_banks_html_still_reads() -> None:
    found = Renderer().render(
        "- 一个 warp 有 $32$ 个线程。\n- 分歧时**各路径耗时之和**。",
        path="t.md",
        line=1,
        errors=[],
        points=True,
    )
    assert all(isinstance(start, int) and joint == "" for [(start, _, joint)] in found.points)
    assert [point_html(found.html, point) for point in found.points][1] == (
        "分歧时<strong>各路径耗时之和</strong>。"
    )
    assert point_html(found.html, "<b>as stored before</b>") == "<b>as stored before</b>"
