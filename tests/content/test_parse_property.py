"""Whatever text comes in, the pipeline answers with cards or located errors, never a crash."""

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from app.content.compile.build import compile_sources
from app.content.compile.render import Renderer
from app.content.errors import ContentError
from app.content.notes.parse import parse_deck, parse_topic
from app.content.notes.source import SourceText
from tests.support.examples import examples

DECK_PATH = "decks/fuzz.md"
TOPIC_PATH = "topics/fuzz.md"

FRONT_MATTER = [
    "---",
    "...",
    "title: 标题",
    "title:",
    "title: [a, b]",
    "slug: fuzz-slug",
    "slug: bad slug",
    "style: question",
    "style: numbered",
    "style: other",
    "tags: [gpu, $x$]",
    "tags: {a: 1}",
    "aliases: [FlashAttention, Flash Attention]",
    "labels:",
    "  answer: [参考回答]",
    "  pitfalls: 坑",
    "  hints: [x]",
    "labels: {answer: 5}",
    "labels: {followups: {a: b}}",
    "labels: [answer]",
    "summary: 摘要 $y$",
    "description: 'unterminated",
    "key: [1, 2",
    "- list item",
]
HEADINGS = [
    "# ",
    "## ",
    "### ",
    "#### ",
    "##### ",
    "### Q：",
    "### Q: ",
    "## Q:",
    "#### q：",
    "## 1. ",
    "## 1.",
    "### 2、",
    "## 3) ",
    "#### 4. ",
]
ID_SUFFIXES = ["", " {#card-id}", " {#other.id_2}", " {#}", " {#-bad}", " {#has space}", " ##"]
LABELS = [
    "**面试回答。**",
    "**回答**：",
    "**Answer:**",
    "**追问展开。**",
    "**Follow-ups:**",
    "**易错点 / 边界。**",
    "**Pitfalls**",
    "**继续读。**",
    "**See also:**",
    "**参考回答。**",
    "**坑**",
    "**不是标签**",
    "**",
]
INLINE = [
    "$x$",
    "$I$",
    "强度$I$很低",
    "$\\frac{a}{b}$",
    "$\\frac{$",
    "$\\badmacro$",
    "$$a+b$$",
    "$$\\frac{$$",
    "$",
    "$$",
    "\\$",
    "$5 和 $10",
    "`$x$`",
    "`code",
    "[[主题]]",
    "[[",
    "]]",
    "[x](javascript:alert(1))",
    "[x](https://example.org)",
    "[x](topic-slug.md)",
    "https://example.org/a",
    " / ",
    "<script>alert(1)</script>",
    "| a | $b$ |",
    "|---|---|",
    "- ",
    "1. ",
    "> ",
    "    ",
    "\t",
    "\\begin{aligned}",
    "\\end{aligned}",
    "&=",
    "\\\\",
    "{",
    "}",
    "\r",
    "\r\n",
    "\x85",
    "\u2028",
    "\ufeff",
    "\x00",
]
FENCES = ["```", "```python", "~~~", "````", "    code"]

words = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
inline_text = st.lists(st.one_of(st.sampled_from(INLINE), words), max_size=6).map("".join)
line = st.one_of(
    st.sampled_from(FRONT_MATTER),
    st.sampled_from(FENCES),
    st.just(""),
    st.builds(
        lambda h, t, s: h + t + s,
        st.sampled_from(HEADINGS),
        inline_text,
        st.sampled_from(ID_SUFFIXES),
    ),
    st.builds(lambda label, t: label + " " + t, st.sampled_from(LABELS), inline_text),
    inline_text,
)
structured = st.lists(line, max_size=40).map("\n".join)
# A valid-looking front matter first makes the body reachable more often.
documents = st.one_of(
    structured,
    st.builds(lambda body: "---\ntitle: T\n---\n" + body, structured),
    st.text(max_size=300),
)

SETTINGS = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def file_lines(text: str) -> list[str]:
    """Lines as an editor numbers them: only \\n, \\r\\n and \\r end a line."""
    lines = re.split(r"\r\n?|\n", text)
    return lines[:-1] if lines[-1] == "" else lines


def assert_located(errors: list[ContentError], path: str, text: str) -> None:
    last_line = len(file_lines(text)) + 1
    for error in errors:
        assert isinstance(error, ContentError)
        assert error.path == path
        assert isinstance(error.line, int)
        assert 0 <= error.line <= last_line, (error, last_line)
        assert error.message


@SETTINGS
@given(documents)
@example("\u2028\n...")  # a line separator Python splits at and Markdown does not
def test_parse_deck_returns_cards_or_located_errors(text: str) -> None:
    deck, errors = parse_deck(DECK_PATH, text)
    assert_located(errors, DECK_PATH, text)
    assert deck is not None or errors
    if deck is not None:
        last_line = len(file_lines(text))
        for card in deck.cards:
            assert 1 <= card.line <= last_line
            assert card.id
        if not errors:
            assert deck.cards
            assert all(card.answer.text for card in deck.cards)


@SETTINGS
@given(documents)
def test_parse_topic_returns_a_topic_or_located_errors(text: str) -> None:
    topic, errors = parse_topic(TOPIC_PATH, text)
    assert_located(errors, TOPIC_PATH, text)
    assert topic is not None or errors


@SETTINGS
@given(documents, documents)
def test_compile_returns_located_errors(deck_text: str, topic_text: str) -> None:
    sources = [
        SourceText(DECK_PATH, "0", deck_text),
        SourceText(TOPIC_PATH, "1", topic_text),
    ]
    compiled = compile_sources(sources, Renderer())
    for error in compiled.errors:
        text = deck_text if error.path == DECK_PATH else topic_text
        assert_located([error], error.path, text)
        if error.message.startswith("KaTeX: "):
            # A formula error points at the line where that formula starts.
            assert "$" in file_lines(text)[error.line - 1], error
    for deck in compiled.decks:
        for card in deck.cards:
            assert "<script" not in card.answer_html + card.question_html
            assert 'href="javascript:' not in card.answer_html + card.question_html
