"""The two GPU-kernel decks as bundled: seed questions kept, follow-up questions everywhere."""

import re
import shutil
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from app.content.bank.sync import import_content
from app.content.notes.parsed import ParsedDeck
from app.infra.models import Card, CardState, Followup, Learner, ReviewLog
from tests.support.banks import commit
from tests.support.bundled import CONTENT, MAX_FOLLOWUP_ANSWER_CHARS, NOW, bundled_deck

DECKS = ("kernels-performance", "gpu-kernels-interview")

# The structured page's 20 questions, verbatim, each on the card whose id it has always had.
SEED_QUESTIONS = {
    "gemm-core": "为什么大模型里 GEMM 这么核心？",
    "gpu-matrix-parallelism": "GPU 为什么适合大规模矩阵运算？",
    "memory-vs-compute-bound": "memory-bound 和 compute-bound 怎么区分？",
    "gpu-util-not-saturated": "为什么 GPU utilization 100% 不等于训练跑满？",
    "mfu": "MFU 是什么，为什么常被用来评估训练效率？",
    "flashattention-savings": "FlashAttention 到底省了什么？",
    "online-softmax": "online softmax 为什么能服务 FlashAttention？",
    "operator-fusion": "算子融合为什么能提升性能？",
    "serving-vs-training-attention": "Serving attention 和训练 attention 为什么不完全一样？",
    "low-precision-pitfalls": "低精度 kernel 最容易错在哪里？",
    "triton-vs-cuda": "Triton 相比手写 CUDA 的优势是什么？",
    "autotuning": "Autotuning 在调什么？",
    "cutlass-cute": "CUTLASS / CuTe 适合解决什么问题？",
    "ptx-vs-sass": "PTX 和 SASS 有什么区别？",
    "nsys-vs-ncu": "Nsight Systems 和 Nsight Compute 分别看什么？",
    "comm-compute-overlap": "通信和计算重叠为什么重要？",
    "shape-buckets": "Shape bucket 对推理服务有什么用？",
    "cuda-graph-latency": "CUDA Graph 为什么能降低延迟？",
    "custom-op-testing": "自定义算子上线前要测什么？",
    "kernel-opt-worth-merging": "如何判断一次 kernel 优化是否值得合入？",
}

LEFT_IN_PROSE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:追问|Q)\s*[:：]|^\s*(?:答|A)\s*[:：]", re.M)

# A follow-up question is one spoken question, not a paragraph.
MAX_FOLLOWUP_QUESTION_CHARS = 80


def test_structured_deck_keeps_every_seed_question_on_its_id() -> None:
    deck = bundled_deck("kernels-performance")
    assert {card.id: card.question for card in deck.cards} == SEED_QUESTIONS


@pytest.mark.parametrize("name", DECKS)
def test_every_card_has_followup_questions_with_short_answers(name: str) -> None:
    deck = bundled_deck(name)
    assert deck.cards
    for card in deck.cards:
        assert 1 <= len(card.questions) <= 3, card.id
        for question in card.questions:
            assert question.question.endswith(("？", "?")), question.id
            assert len(question.question) <= MAX_FOLLOWUP_QUESTION_CHARS, question.id
            assert 0 < len(question.answer) <= MAX_FOLLOWUP_ANSWER_CHARS, question.id
            assert not question.explicit_id, question.id  # `<card id>.f<n>`, no hand-made ids


@pytest.mark.parametrize("name", DECKS)
def test_followup_questions_are_not_repeated_in_the_prose(name: str) -> None:
    cards = bundled_deck(name).cards
    assert cards
    for card in cards:
        # A `追问：` item left in the prose would be one that failed to parse as a question.
        assert not LEFT_IN_PROSE.search(card.followups.text), card.id


def without_questions(deck: ParsedDeck, text: str) -> str:
    """`text` with every follow-up question item removed: the deck as it was before them."""
    lines = text.split("\n")
    drop: set[int] = set()
    for card in deck.cards:
        for question in card.questions:
            end = question.line  # 1-based line of the `- 追问：` item
            while end < len(lines) and lines[end].startswith("  "):
                end += 1
            drop.update(range(question.line - 1, end))
    kept = [line for number, line in enumerate(lines) if number not in drop]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept))


def test_reimport_over_the_decks_without_questions_keeps_history(
    database, tmp_path: Path, engine: Engine
) -> None:
    old = tmp_path / "content"
    (old / "decks").mkdir(parents=True)
    for name in DECKS:
        source = CONTENT / "decks" / f"{name}.md"
        text = source.read_text(encoding="utf-8")
        (old / "decks" / f"{name}.md").write_text(
            without_questions(bundled_deck(name), text), encoding="utf-8"
        )
    # A copy, not a link: the scanner refuses links that lead out of the content tree.
    shutil.copytree(CONTENT / "topics", old / "topics")
    import_content(old, database)
    ids = [card.id for name in DECKS for card in bundled_deck(name).cards]
    with database.session() as session:
        assert session.exec(select(Followup.id).where(col(Followup.card_id).in_(ids))).all() == []
        learner = Learner(name="studied-before")
        session.add(learner)
        commit(session)
        assert learner.id is not None
        for card_id in ids:
            session.add(CardState(learner_id=learner.id, card_id=card_id, state=2, due=NOW, reps=2))
            session.add(
                ReviewLog(learner_id=learner.id, card_id=card_id, rating=3, reviewed_at=NOW)
            )
        commit(session)

    import_content(CONTENT, database)

    expected = sorted(
        q.id for name in DECKS for card in bundled_deck(name).cards for q in card.questions
    )
    with database.session() as session:
        live = session.exec(select(Card.id).where(col(Card.id).in_(ids), ~col(Card.retired))).all()
        stored = session.exec(select(Followup.id).where(col(Followup.card_id).in_(ids))).all()
        states = session.exec(select(CardState.card_id)).all()
        logs = session.exec(select(ReviewLog.card_id)).all()
    assert sorted(live) == sorted(ids)
    assert sorted(stored) == expected
    assert sorted(states) == sorted(ids)
    assert sorted(logs) == sorted(ids)
