"""The bundled bank as a learner meets it: single-fact cards, follow-up questions, kept history."""

import shutil
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import col, func, select

from app.content.bank.sync import check_content, import_content
from app.content.bank.topicindex import TopicRef, resolve, topic_index
from app.content.notes.parse import Link, parse_deck, parse_topic
from app.content.notes.parsed import ParsedTopic
from app.infra.models import Card, CardState, Followup, Learner, ReviewLog
from tests.support.banks import commit
from tests.support.bundled import CONTENT, MAX_FOLLOWUP_ANSWER_CHARS, NOW, bundled_deck

pytestmark = pytest.mark.storage

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bundled"

# A card's answer must fit a phone screen: at most this many characters of Markdown, formulas
# and code included (a follow-up's limit is MAX_FOLLOWUP_ANSWER_CHARS).
MAX_ANSWER_CHARS = 600

# The 18 cards of the interview-notes deck before it was split into single-fact cards: each id
# must stay on the card that keeps its question, so that every learner keeps their history.
INTERVIEW_NOTES_IDS = (
    "notes-cache-line",
    "notes-roofline",
    "notes-bf16-vs-fp16",
    "notes-operator-fusion",
    "notes-attention-kv-cache",
    "notes-flashattention-tiling",
    "notes-dynamic-vs-static-graph",
    "notes-pybind11",
    "notes-libtorch",
    "notes-w4a32-dequant",
    "notes-moe",
    "notes-paged-attention",
    "notes-vllm-optimizations",
    "notes-flashattention-versions",
    "notes-ampere-vs-hopper",
    "notes-quantization-algorithms",
    "notes-llama-cpp",
    "notes-threads-double-buffering-vectorization",
)


def bundled_topics() -> dict[str, ParsedTopic]:
    topics: dict[str, ParsedTopic] = {}
    for path in sorted((CONTENT / "topics").glob("*.md")):
        topic, errors = parse_topic(str(path), path.read_text(encoding="utf-8"))
        assert not errors, errors
        assert topic is not None
        topics[topic.slug] = topic
    return topics


def test_bundled_content_checks_strict_clean() -> None:
    report = check_content(CONTENT)
    assert [str(e) for e in report.errors] == []
    assert [str(e) for e in report.warnings] == []


def test_interview_notes_keeps_every_original_id() -> None:
    ids = [card.id for card in bundled_deck("interview-notes").cards]
    assert set(INTERVIEW_NOTES_IDS) <= set(ids)
    assert all(card.explicit_id for card in bundled_deck("interview-notes").cards)


def test_interview_notes_kept_ids_keep_their_questions() -> None:
    # The id stays on the card that asks the seed's question, not on one of the split-off parts.
    old, errors = parse_deck(
        "before.md", (FIXTURES / "interview-notes-before-split.md").read_text(encoding="utf-8")
    )
    assert not errors and old is not None
    before = {card.id: card.question for card in old.cards}
    after = {card.id: card.question for card in bundled_deck("interview-notes").cards}
    assert sorted(before) == sorted(INTERVIEW_NOTES_IDS)
    for card_id, question in before.items():
        first_clause = question.split("？")[0]
        assert after[card_id].startswith(first_clause), (card_id, question, after[card_id])


# Every question the numbered notes ask, down to the second half of a compound one, and the
# card that now asks it (with a phrase of that card's question): splitting a card must never
# drop one of them.
SEED_NOTE_QUESTIONS = (
    ("1. cache line 的大小", "notes-cache-line", "cache line"),
    ("2. roofline 模型", "notes-roofline", "Roofline"),
    ("3. BF16 和 FP16 的区别", "notes-bf16-vs-fp16", "BF16 和 FP16"),
    ("4. 算子融合", "notes-operator-fusion", "算子融合"),
    ("5. MHA/GQA/MQA/MLA 等注意力原理", "notes-attention-kv-cache", "MHA、GQA、MQA、MLA"),
    ("5. ……与显存计算", "notes-kv-cache-formula", "KV cache 显存"),
    ("6. flashAttention", "notes-flashattention-tiling", "FlashAttention 的计算流程"),
    ("7. 动态图和静态图的区别", "notes-dynamic-vs-static-graph", "动态图和静态图"),
    ("8. pybind 绑定方法", "notes-pybind11", "pybind11"),
    ("9. libtorch", "notes-libtorch", "libtorch"),
    ("10. W4A32 反量化操作是什么时候", "notes-w4a32-dequant", "反量化在什么时候"),
    ("10. 反量化计算时是行主序还是列主序？为什么？", "notes-w4a32-k-order", "行主序还是列主序"),
    ("11. MoE 的原理和好处是什么？", "notes-moe", "MoE 的原理"),
    ("12. PagedAttention 解决了什么问题", "notes-paged-attention", "PagedAttention 解决"),
    ("13. vLLM 除了 PagedAttention 还有其他什么优化", "notes-vllm-optimizations", "vLLM"),
    ("14. FlashAttention 主要解决了什么问题", "notes-flashattention-versions", "主要解决"),
    ("14. V1 到 V4 的改进（V2）", "notes-fa2", "FlashAttention-2"),
    ("14. V1 到 V4 的改进（V3）", "notes-fa3", "FlashAttention-3"),
    ("14. V1 到 V4 的改进（V4）", "notes-fa4", "FlashAttention-4"),
    ("15. 安培架构和霍珀架构的主要区别", "notes-ampere-vs-hopper", "Ampere 和 Hopper"),
    ("15. FP8 一般用于什么计算？", "notes-fp8-usage", "FP8 一般用于什么计算"),
    ("16. 常见的量化算法有哪些？", "notes-quantization-algorithms", "常见的量化算法"),
    ("16. AWQ 量化算法的原理是什么？", "notes-awq", "AWQ 的原理"),
    ("17. llama.cpp 中有哪些量化算法？", "notes-llama-cpp", "llama.cpp 中有哪些量化格式"),
    ("17. 有哪些图优化手段？", "notes-ggml-execution", "图优化"),
    (
        "18. 多线程、双缓冲、向量化分别在什么场景下能提升效果？",
        "notes-threads-double-buffering-vectorization",
        "多线程、双缓冲、向量化",
    ),
)


def test_every_question_of_the_numbered_notes_has_its_card() -> None:
    questions = {card.id: card.question for card in bundled_deck("interview-notes").cards}
    missing = [
        (seed, card_id)
        for seed, card_id, phrase in SEED_NOTE_QUESTIONS
        if phrase not in questions.get(card_id, "")
    ]
    assert missing == []
    numbers = {seed.split(".")[0] for seed, _, _ in SEED_NOTE_QUESTIONS}
    assert numbers == {str(n) for n in range(1, 19)}


def test_interview_notes_cards_are_single_fact() -> None:
    cards = bundled_deck("interview-notes").cards
    assert 40 <= len(cards) <= 60
    too_long = {c.id: len(c.answer.text) for c in cards if len(c.answer.text) > MAX_ANSWER_CHARS}
    assert too_long == {}


def test_llm_systems_deck_is_single_fact_cards() -> None:
    cards = bundled_deck("llm-systems-interview").cards
    assert 20 <= len(cards) <= 40
    assert all(card.explicit_id and card.id.startswith("llm-") for card in cards)
    too_long = {c.id: len(c.answer.text) for c in cards if len(c.answer.text) > MAX_ANSWER_CHARS}
    assert too_long == {}
    assert all(card.links for card in cards)


@pytest.mark.parametrize("name", ["interview-notes", "llm-systems-interview"])
def test_every_card_has_followup_questions_with_short_answers(name: str) -> None:
    cards = bundled_deck(name).cards
    assert cards
    for card in cards:
        assert 1 <= len(card.questions) <= 3, card.id
        for question in card.questions:
            assert question.question.endswith(("？", "?")), question.id
            assert 0 < len(question.answer) <= MAX_FOLLOWUP_ANSWER_CHARS, question.id


# Where the numbers of the new cards come from: a card's topic pages must cite this source.
CARD_SOURCES = {
    "gk-warp-divergence": "volta-architecture-whitepaper",
    "gk-bank-conflicts": "cuda-c-programming-guide/index.html#compute-capabilities",
    "gk-occupancy-h100": "hopper-tuning-guide",
    "gk-low-occupancy": "2238_gtc2010",
    "gk-tiled-transpose": "efficient-matrix-transpose",
    "gk-fused-softmax": "arxiv.org/abs/1805.02867",
    "gk-fused-rmsnorm": "arxiv.org/abs/1910.07467",
    "gk-determinism": "notes/randomness",
    "gk-gemm-ladder": "siboehm.com/articles/22/CUDA-MMM",
    "gk-gemm-tile-intensity": "arxiv.org/abs/2301.03598",
    "gk-hopper-wgmma": "parallel-thread-execution",
    "gk-hopper-tma": "parallel-thread-execution",
    "gk-warp-specialization": "arxiv.org/abs/2407.08608",
    "gk-streams-pinned": "api-sync-behavior",
    "gk-hidden-sync": "set_sync_debug_mode",
    "gk-kernel-timing": "NsightComputeCli",
    "gk-execution-model": "#hardware-implementation",
    "gk-prefix-scan": "chapter-39-parallel-prefix-sum",
    "gk-scan-decoupled-lookback": "decoupled-look-back",
    "gk-atomics": "#atomic-functions",
    "gk-memory-model": "#memory-fence-functions",
    "gk-softmax-backward": "arxiv.org/abs/2307.08691",
    "gk-norm-backward": "05-layer-norm",
    "gk-triton-softmax": "02-fused-softmax",
    "gk-triton-matmul": "03-matrix-multiplication",
    "gk-decode-gqa": "arxiv.org/abs/2501.01005",
    "gk-paged-split-kv": "flashdecoding",
    "gk-fused-rope": "arxiv.org/abs/2104.09864",
    "gk-fused-moe": "arxiv.org/abs/2211.15841",
    "gk-caching-allocator": "notes/cuda.html#memory-management",
    "gk-oom-debugging": "torch_cuda_memory",
    "gk-flash-attn-backward": "flash_attn_interface.py",
    "gk-quantized-gemm": "arxiv.org/abs/2408.11743",
    "gk-sort-topk": "arxiv.org/abs/2206.01784",
    "gk-debug-crash-nan": "ComputeSanitizer",
    "llm-continuous-batching": "osdi22/presentation/yu",
    "llm-chunked-prefill": "arxiv.org/abs/2403.02310",
    "llm-pd-disaggregation": "arxiv.org/abs/2401.09670",
    "llm-decode-latency-bound": "data-center/h100",
    "llm-kv-cache-quantization": "arxiv.org/abs/2402.02750",
    "llm-spec-decoding-exact": "arxiv.org/abs/2211.17192",
    "llm-tensor-parallel": "arxiv.org/abs/1909.08053",
    "llm-pipeline-bubble": "arxiv.org/abs/1811.06965",
    "llm-ring-allreduce": "nccl-tests",
    "llm-activation-memory": "arxiv.org/abs/2205.05198",
    "llm-mfu-arithmetic": "arxiv.org/abs/2204.02311",
    "llm-training-time-6nd": "arxiv.org/abs/2307.09288",
    "llm-fp8-scaling-recipes": "arxiv.org/abs/2412.19437",
    "llm-mx-nvfp4": "ocp-microscaling",
    "llm-blackwell-deltas": "data-center/dgx-b200",
    "llm-rope": "arxiv.org/abs/2309.00071",
    "llm-hadamard-w4a4": "arxiv.org/abs/2404.00456",
    "llm-parallel-placement": "nemo_megatron/batching",
    "llm-serving-metrics": "benchmark_serving",
    "llm-varlen-packing": "arxiv.org/abs/2407.21783",
    "llm-kv-eviction-offload": "arxiv.org/abs/2309.17453",
    "llm-multi-lora": "arxiv.org/abs/2310.18547",
    "llm-multinode-topology": "dgxh100-user-guide",
}


def linked_topic_texts(card_links: list[Link], topics: dict[str, ParsedTopic]) -> list[str]:
    refs = [TopicRef(t.slug, t.title, tuple(t.aliases), t.path) for t in topics.values()]
    index, errors = topic_index(refs)
    assert not errors
    slugs = [resolve(link.target, index) for link in card_links if not link.external]
    return [topics[slug].body.text for slug in slugs if slug]


@pytest.mark.parametrize("name", ["gpu-kernels-interview", "llm-systems-interview"])
def test_every_new_card_links_a_topic_page_that_cites_its_sources(name: str) -> None:
    topics = bundled_topics()
    cards = {card.id: card for card in bundled_deck(name).cards}
    uncited = []
    for card in cards.values():
        texts = linked_topic_texts(card.links, topics)
        source = CARD_SOURCES.get(card.id, "](http")
        if not any(source in text for text in texts):
            uncited.append((card.id, source))
    assert uncited == []
    prefix = "gk-" if name == "gpu-kernels-interview" else "llm-"
    assert {card_id for card_id in CARD_SOURCES if card_id.startswith(prefix)} <= set(cards)


def test_import_stores_followup_rows_for_the_bundled_decks(bundled_database) -> None:
    database = bundled_database  # the bundled bank as import_content left it
    for name, prefix in (("interview-notes", "notes-"), ("llm-systems-interview", "llm-")):
        expected = sum(len(c.questions) for c in bundled_deck(name).cards)
        with database.session() as session:
            stored = session.exec(
                select(func.count())
                .select_from(Followup)
                .where(col(Followup.card_id).startswith(prefix))
            ).one()
        assert stored == expected, name


def test_reimport_over_the_old_notes_keeps_history(
    database, tmp_path: Path, engine: Engine
) -> None:
    old = tmp_path / "content"
    (old / "decks").mkdir(parents=True)
    shutil.copy(FIXTURES / "interview-notes-before-split.md", old / "decks" / "interview-notes.md")
    shutil.copytree(CONTENT / "topics", old / "topics")
    import_content(old, database)
    with database.session() as session:
        learner = Learner(name="old-bank")
        session.add(learner)
        commit(session)
        assert learner.id is not None
        for card_id in INTERVIEW_NOTES_IDS:
            session.add(CardState(learner_id=learner.id, card_id=card_id, state=2, due=NOW, reps=3))
            session.add(
                ReviewLog(learner_id=learner.id, card_id=card_id, rating=3, reviewed_at=NOW)
            )
        commit(session)

    import_content(CONTENT, database)

    with database.session() as session:
        live = session.exec(
            select(Card.id).where(col(Card.id).in_(INTERVIEW_NOTES_IDS), ~col(Card.retired))
        ).all()
        states = session.exec(select(CardState.card_id)).all()
        logs = session.exec(select(ReviewLog.card_id)).all()
    assert sorted(live) == sorted(INTERVIEW_NOTES_IDS)
    assert sorted(states) == sorted(INTERVIEW_NOTES_IDS)
    assert sorted(logs) == sorted(INTERVIEW_NOTES_IDS)
