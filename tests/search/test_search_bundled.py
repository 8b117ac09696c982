"""Search over the bundled bank: the issue's queries give clean results ranked by the stated rule.

The rule is computed here in Python from the stored entries (every term somewhere; matched terms
per field group, title first; topics first; content order), and the database must give exactly
that list. As the test runs on SQLite and on PostgreSQL, both give the same ranked hits.
"""

import re

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from app.content.compile.searchtext import FIELDS
from app.infra.db import Database
from app.infra.models import Card, Followup, SearchEntry, Topic
from app.search.query import MAX_TERMS, search, terms_of

pytestmark = pytest.mark.storage

QUERIES = ("融合", "显存", "roofline", "ＧＥＭＭ", "kv cache", "flashattention 显存")
# What a snippet must never show: TeX commands, math delimiters, Markdown markers (`__` is
# left out: code such as `__expf` is text a snippet may show).
UNCLEAN = re.compile(r"\\[A-Za-z]+|\$|\*\*|`|\]\(|^#+ ")
# Markdown left literal in rendered HTML, once code, math and tags are taken out.
_CODE_AND_MATH = re.compile(
    r"<(code|pre|math|annotation|script|style)\b.*?</\1>|<span class=\"katex.*?</span>\s*</span>",
    re.S,
)
_TAG = re.compile(r"<[^>]+>")
LITERAL = re.compile(r"\*\*|__|\$(?!\d)")


def expected(entries: list[SearchEntry], query: str, limit: int = 50) -> list[tuple[str, str]]:
    terms = terms_of(query)
    ranked = []
    for entry in entries:
        fields = [getattr(entry, f"{name}_folded") for name in FIELDS]
        if not all(any(term in text for text in fields) for term in terms):
            continue
        score = sum(
            (MAX_TERMS + 1) ** (len(FIELDS) - 1 - rank)
            for rank, text in enumerate(fields)
            for term in terms
            if term in text
        )
        ranked.append(((-score, entry.kind != "topic", entry.ordinal, entry.key), entry))
    return [(e.kind, e.key) for _, e in sorted(ranked, key=lambda pair: pair[0])[:limit]]


@pytest.fixture
def bundled(bundled_database: Database) -> Engine:
    return bundled_database.engine


def test_the_issues_queries_rank_by_the_rule_with_clean_snippets(bundled: Engine) -> None:
    with Session(bundled) as session:
        entries = list(session.exec(select(SearchEntry)).all())
        for query in QUERIES:
            result = search(session, query)
            assert result.hits, f"{query}: no hits in the bundled bank"
            assert [(h.kind, h.id) for h in result.hits] == expected(entries, query), query
            for hit in result.hits:
                assert not UNCLEAN.search(hit.snippet_text), (query, hit.id, hit.snippet_text)
                assert not UNCLEAN.search(hit.title), (query, hit.id, hit.title)
                assert "<mark>" in hit.snippet + hit.title_html, (query, hit.id)
        gemm = [(h.kind, h.id) for h in search(session, "gemm").hits]
        assert [(h.kind, h.id) for h in search(session, "ＧＥＭＭ").hits] == gemm


def test_every_bundled_card_and_topic_renders_without_literal_markdown(bundled: Engine) -> None:
    with Session(bundled) as session:
        rendered = [
            (f"card {c.id}", html)
            for c in session.exec(select(Card).where(Card.retired == False))  # noqa: E712
            for html in (c.question_html, c.answer_html, c.followups_html, c.pitfalls_html)
        ]
        rendered += [
            (f"follow-up of {f.card_id}", html)
            for f in session.exec(select(Followup))
            for html in (f.question_html, f.answer_html)
        ]
        rendered += [(f"topic {t.slug}", t.body_html) for t in session.exec(select(Topic))]
    assert len(rendered) > 400
    left = [
        (where, match.group(), text[max(match.start() - 20, 0) : match.end() + 20])
        for where, html in rendered
        for text in [_TAG.sub(" ", _CODE_AND_MATH.sub(" ", html or ""))]
        for match in LITERAL.finditer(text)
    ]
    assert left == []
