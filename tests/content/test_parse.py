"""Parsing decks and topics into plain data, with every problem tied to a file line."""

import textwrap

import pytest

from app.content.errors import ContentError
from app.content.notes.parse import parse_deck, parse_topic
from app.content.notes.parsed import ParsedCard, ParsedDeck, derived_card_id

PATH = "decks/test.md"


def parse(text: str, path: str = PATH) -> tuple[ParsedDeck, list[ContentError]]:
    deck, errors = parse_deck(path, textwrap.dedent(text).lstrip("\n"))
    assert deck is not None
    return deck, errors


def parse_ok(text: str, path: str = PATH) -> ParsedDeck:
    deck, errors = parse(text, path)
    assert errors == []
    return deck


def only_card(text: str) -> ParsedCard:
    deck = parse_ok(text)
    assert len(deck.cards) == 1
    return deck.cards[0]


def messages(errors: list[ContentError]) -> list[str]:
    return [str(error) for error in errors]


def line_of(text: str, needle: str) -> int:
    """The 1-based line of `text` (dedented as `parse` does) where `needle` first appears."""
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)


# --- question style -------------------------------------------------------------------------


def test_question_card_with_chinese_labels() -> None:
    source = """
        ---
        title: 算子与性能 QA
        description: GEMM 与 roofline
        tags: [gpu, kernels]
        ---

        Deck intro.

        ## GPU 基础

        ### Q：为什么大模型里 GEMM 这么核心？ {#gemm-core}

        **面试回答。** 大部分计算都是矩阵乘法。

        $$
        C = AB
        $$

        **追问展开。** prefill 阶段是大矩阵。

        **易错点 / 边界。** GEMM 快不代表端到端快。

        **继续读。** 线性层与 GEMM / GEMM、Attention 与融合算子
        """
    deck = parse_ok(source)
    assert (deck.title, deck.slug, deck.style) == ("算子与性能 QA", "test", "auto")
    assert deck.description == "GEMM 与 roofline"
    assert deck.tags == ["gpu", "kernels"]
    assert deck.language == "zh"
    assert (deck.intro.text, deck.intro.line) == ("Deck intro.", 7)
    [card] = deck.cards
    assert card.id == "gemm-core"
    assert card.explicit_id is True
    assert card.question == "为什么大模型里 GEMM 这么核心？"
    assert card.section == "GPU 基础"
    assert card.line == line_of(source, "### Q") == 11
    assert card.answer.text == "大部分计算都是矩阵乘法。\n\n$$\nC = AB\n$$"
    assert card.answer.line == line_of(source, "面试回答")
    assert card.followups.text == "prefill 阶段是大矩阵。"
    assert card.followups.line == line_of(source, "追问展开")
    assert card.pitfalls.text == "GEMM 快不代表端到端快。"
    assert card.pitfalls.line == line_of(source, "易错点")
    reading = line_of(source, "继续读")
    assert [(link.target, link.external, link.line) for link in card.links] == [
        ("线性层与 GEMM", False, reading),
        ("GEMM、Attention 与融合算子", False, reading),
    ]


def test_question_card_with_english_labels() -> None:
    card = only_card(
        """
        ---
        title: Kernels
        language: en
        ---
        ### Q: What is a warp?

        **Interview answer:** 32 threads
        that issue together.

        **Follow-ups:**

        - divergence
        - shuffles

        **Pitfalls / edge cases.** Not all GPUs use 32.

        **See also:** [[CUDA programming model]]
        """
    )
    assert card.question == "What is a warp?"
    assert card.section == ""
    assert card.explicit_id is False
    assert card.answer.text == "32 threads\nthat issue together."
    assert card.answer.line == 7
    assert card.followups.text == "- divergence\n- shuffles"
    assert card.followups.line == 12
    assert card.pitfalls.text == "Not all GPUs use 32."
    assert [link.target for link in card.links] == ["CUDA programming model"]


@pytest.mark.parametrize(
    ("label", "block"),
    [
        ("**面试回答。**", "answer"),
        ("**回答**：", "answer"),
        ("**答案:**", "answer"),
        ("**Answer.**", "answer"),
        ("**ANSWER**:", "answer"),
        ("**追问展开**：", "followups"),
        ("**追问。**", "followups"),
        ("**Follow up:**", "followups"),
        ("**易错点/边界**", "pitfalls"),
        ("**易错点 / 边界。**", "pitfalls"),
        ("**边界**", "pitfalls"),
        ("**pitfalls  /  edge cases:**", "pitfalls"),
        ("**Edge cases**", "pitfalls"),
    ],
)
def test_label_variants(label: str, block: str) -> None:
    card = only_card(
        f"""
        ---
        title: T
        ---
        ### Q: q

        Lead answer.

        {label} body text
        """
    )
    assert getattr(card, block).text.endswith("body text")
    if block != "answer":
        assert card.answer.text == "Lead answer."


def test_text_before_any_label_is_the_answer() -> None:
    card = only_card(
        """
        ---
        title: T
        ---
        ### Q：没有标签？

        直接写答案。

        **追问：** 一个追问
        """
    )
    assert card.answer.text == "直接写答案。"
    assert card.followups.text == "一个追问"


def test_bold_paragraph_that_is_not_a_label_stays_in_its_block() -> None:
    card = only_card(
        """
        ---
        title: T
        ---
        ### Q: q

        **面试回答。** first

        **注意** this is emphasis, not a label
        """
    )
    assert card.answer.text == "first\n\n**注意** this is emphasis, not a label"


def test_extra_label_aliases_from_front_matter() -> None:
    card = only_card(
        """
        ---
        title: T
        labels:
          answer: [参考回答]
          followups: 深挖
          pitfalls: [坑, Gotchas]
          reading: [参考资料]
        ---
        ### Q：自定义标签？

        **参考回答。** a

        **深挖：** f

        **gotchas** p

        **参考资料：** 某个主题
        """
    )
    assert card.answer.text == "a"
    assert card.followups.text == "f"
    assert card.pitfalls.text == "p"
    assert [link.target for link in card.links] == ["某个主题"]


def test_label_aliases_do_not_leak_between_decks() -> None:
    parse_ok(
        """
        ---
        title: A
        labels: {answer: [参考回答]}
        ---
        ### Q: a
        **参考回答。** a
        """
    )
    card = only_card(
        """
        ---
        title: B
        ---
        ### Q: b
        lead
        **参考回答。** not a label here
        """
    )
    assert card.answer.text == "lead\n**参考回答。** not a label here"


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (
            "labels: {hints: [提示]}",
            "unknown label block 'hints' (expected one of answer, followups, pitfalls, reading)",
        ),
        ("labels: [answer]", "front matter 'labels' must map block names to aliases"),
        ("labels: {answer: {a: 1}}", "front matter 'labels.answer' must be a list of text"),
        ("labels: {answer: [[nested]]}", "front matter 'labels.answer' must be a list of text"),
    ],
)
def test_bad_label_aliases_are_errors(labels: str, message: str) -> None:
    _, errors = parse(f"---\ntitle: T\n{labels}\n---\n### Q: q\nanswer\n")
    assert messages(errors) == [f"{PATH}:1: {message}"]


def test_scalar_label_alias_is_accepted() -> None:
    card = only_card(
        """
        ---
        title: T
        labels: {pitfalls: 42}
        ---
        ### Q: q
        a
        **42** p
        """
    )
    assert card.pitfalls.text == "p"


@pytest.mark.parametrize("level", ["##", "###", "####"])
def test_question_heading_levels_two_to_four(level: str) -> None:
    deck = parse_ok(f"---\ntitle: T\n---\n{level} Q: q\nanswer\n")
    assert [card.question for card in deck.cards] == ["q"]


def test_a_question_heading_at_any_level_is_a_card() -> None:
    deck = parse_ok("---\ntitle: T\n---\n### Q: q\nanswer\n##### Q: also a card\nmore\n")
    assert [(c.question, c.answer.text) for c in deck.cards] == [
        ("q", "answer"),
        ("also a card", "more"),
    ]


def test_the_house_question_style_keeps_deeper_headings_as_content() -> None:
    text = "---\ntitle: T\nstyle: question\n---\n### Q: q\nanswer\n##### Q: content\nmore\n"
    card = only_card(text)
    assert card.answer.text == "answer\n##### Q: content\nmore"


def test_other_headings_inside_a_card_are_content() -> None:
    card = only_card(
        """
        ---
        title: T
        ---
        ## Section
        ### Q: q
        **Answer:** a
        #### Details
        detail
        """
    )
    assert card.answer.text == "a\n#### Details\ndetail"
    assert card.section == "Section"


def test_sections_assign_cards_and_strip_ids() -> None:
    deck = parse_ok(
        """
        ---
        title: T
        ---
        ### Q: before any section
        a
        ## First {#first}
        ### Q: one
        a
        ## Second ##
        ### Q: two
        a
        #### Q: three
        a
        """
    )
    assert [(c.question, c.section, c.position) for c in deck.cards] == [
        ("before any section", "", 0),
        ("one", "First", 1),
        ("two", "Second", 2),
        ("three", "Second", 3),
    ]


def test_headings_and_labels_inside_fenced_code_are_content() -> None:
    card = only_card(
        """
        ---
        title: T
        ---
        ### Q: q
        **Answer:** see

        ````markdown
        ## not a section
        ### Q: not a card
        **Pitfalls:** not a label
        ```
        still code
        ````
        **Pitfalls:** real
        """
    )
    assert card.section == ""
    assert "### Q: not a card" in card.answer.text
    assert "**Pitfalls:** not a label" in card.answer.text
    assert card.pitfalls.text == "real"


def test_heading_inside_display_math_is_content() -> None:
    card = only_card(
        """
        ---
        title: T
        ---
        ### Q: q
        $$
        ## x
        $$
        """
    )
    assert card.answer.text == "$$\n## x\n$$"


def test_unclosed_display_math_does_not_swallow_later_cards() -> None:
    # markdown-it treats an unclosed `$$` as text, so the next heading is still a card.
    deck = parse_ok(
        """
        ---
        title: T
        ---
        ## 1. first
        $$x$$ and then $$y

        ## 2. second
        answer two

        ## 3. third
        $$
        a + b

        answer three
        """
    )
    assert [card.question for card in deck.cards] == ["first", "second", "third"]
    assert deck.cards[1].answer.text == "answer two"


# --- numbered style -------------------------------------------------------------------------


def test_numbered_cards() -> None:
    deck = parse_ok(
        """
        ---
        title: 体系结构
        style: numbered
        ---
        Intro.

        ## 1. cache line 的大小

        64 字节。

        ## 1.cache line 对齐

        对齐到 64。

        ### 2、roofline 模型 {#roofline}

        **面试回答。** 算术强度。

        **追问：** 拐点

        #### 3. 不是卡片

        仍属于 roofline。
        """
    )
    assert deck.style == "numbered"
    assert [(c.question, c.line, c.section) for c in deck.cards] == [
        ("cache line 的大小", 7, ""),
        ("cache line 对齐", 11, ""),
        ("roofline 模型", 15, ""),
    ]
    assert deck.cards[0].answer.text == "64 字节。"
    roofline = deck.cards[2]
    assert roofline.id == "roofline"
    assert roofline.answer.text == "算术强度。"
    assert roofline.followups.text == "拐点\n\n#### 3. 不是卡片\n\n仍属于 roofline。"


def test_numbered_sections_use_unnumbered_level_two_headings() -> None:
    deck = parse_ok(
        """
        ---
        title: T
        ---
        ## 内存
        ### 1. a
        answer
        ## 计算
        ### 1. b
        answer
        """
    )
    assert [(c.question, c.section) for c in deck.cards] == [("a", "内存"), ("b", "计算")]


def test_renumbering_keeps_the_derived_id() -> None:
    first = only_card("---\ntitle: T\n---\n## 1. cache line\nanswer\n")
    renumbered = only_card("---\ntitle: T\n---\n## 17、cache line\nanswer\n")
    assert first.id == renumbered.id == derived_card_id("cache line")


def test_style_detection_prefers_question_headings() -> None:
    deck = parse_ok(
        """
        ---
        title: T
        ---
        ## 1. Basics
        ### Q: real card
        answer
        """
    )
    assert deck.style == "auto"
    assert [(c.question, c.section) for c in deck.cards] == [("real card", "1. Basics")]


def test_explicit_style_overrides_detection() -> None:
    deck = parse_ok(
        """
        ---
        title: T
        style: numbered
        ---
        ## 1. numbered card
        ### Q: only content here
        answer
        """
    )
    assert deck.style == "numbered"
    [card] = deck.cards
    assert card.question == "numbered card"
    assert card.answer.text == "### Q: only content here\nanswer"


def test_question_with_full_width_colon_and_ascii_colon() -> None:
    deck = parse_ok("---\ntitle: T\n---\n### Q：中文冒号\na\n### q: ascii colon\nb\n")
    assert [c.question for c in deck.cards] == ["中文冒号", "ascii colon"]


def test_unknown_style_is_an_error() -> None:
    _, errors = parse("---\ntitle: T\nstyle: bullets\n---\n### Q: q\na\n")
    assert messages(errors) == [f"{PATH}:1: style must be 'question' or 'numbered', not 'bullets'"]


# --- identity -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    ["Why is GEMM core?", "why is gemm core", "  Why   is GEMM core？ ", "Ｗｈｙ is GEMM core?"],
)
def test_derived_id_ignores_case_space_width_and_question_mark(variant: str) -> None:
    assert derived_card_id(variant) == derived_card_id("Why is GEMM core?")


def test_derived_id_changes_with_the_question() -> None:
    assert derived_card_id("Why is GEMM core?") != derived_card_id("Why is GEMV core?")
    assert derived_card_id("x").startswith("q-")
    assert len(derived_card_id("x")) == 14


def test_explicit_id_survives_rewording() -> None:
    before = only_card("---\ntitle: T\n---\n### Q: old wording {#stable.id_1}\na\n")
    after = only_card("---\ntitle: T\n---\n### Q: new wording {#stable.id_1}\na\n")
    assert before.id == after.id == "stable.id_1"
    assert before.question == "old wording"


def test_fingerprint_tracks_content_but_not_position() -> None:
    base = "---\ntitle: T\n---\n### Q: q\n**Answer:** {answer}\n"
    one = only_card(base.format(answer="one"))
    moved = only_card("---\ntitle: T\n---\n\n\n" + base.format(answer="one").split("---\n", 2)[2])
    two = only_card(base.format(answer="two"))
    assert one.line != moved.line
    assert one.fingerprint() == moved.fingerprint()
    assert one.fingerprint() != two.fingerprint()


@pytest.mark.parametrize("bad", ["-leading-dash", "", "with/slash", "中文"])
def test_invalid_explicit_id_is_an_error(bad: str) -> None:
    deck, errors = parse(f"---\ntitle: T\n---\n\n### Q: q {{#{bad}}}\na\n")
    assert messages(errors) == [
        f"{PATH}:5: card id '{bad}' may only use letters, digits, '-', '_' and '.'"
    ]
    assert deck.cards == []


# --- problems -------------------------------------------------------------------------------


def test_card_without_answer_is_an_error() -> None:
    _, errors = parse(
        """
        ---
        title: T
        ---
        ### Q: has answer
        yes
        ### Q: only follow-ups
        **追问：** something
        ### Q: empty
        """
    )
    assert messages(errors) == [
        f"{PATH}:6: question 'only follow-ups' was not made a card: no answer follows it",
        f"{PATH}:8: question 'empty' was not made a card: no answer follows it",
    ]


def test_an_answer_that_is_only_a_link_or_a_tag_is_told_apart() -> None:
    deck, errors = parse(
        "### Q: where is the memory model?\n<https://docs.nvidia.com/cuda/memory-model>\n"
        "### Q: only a rule\n<hr />\n<br>\n"
    )
    assert [card.question for card in deck.cards] == ["where is the memory model?"]
    assert messages(errors) == [
        f"{PATH}:3: question 'only a rule' was not made a card: no answer follows it"
    ]


def test_answer_markers_are_not_shown_in_the_answer() -> None:
    deck, errors = parse(
        "什么是 warp？\n\n> 答：32 个线程\n> 一起执行。\n\n"
        "Q3. What is occupancy?\n\nA3. Active warps over the maximum.\n"
    )
    assert errors == []
    assert [(c.question, c.answer.text) for c in deck.cards] == [
        ("什么是 warp？", "32 个线程\n一起执行。"),
        ("What is occupancy?", "Active warps over the maximum."),
    ]


def test_card_heading_without_question_is_an_error() -> None:
    _, errors = parse("---\ntitle: T\n---\n### Q：\nanswer\n")
    assert messages(errors) == [f"{PATH}:4: card heading has no question text"]


def test_a_note_without_cards_is_no_deck() -> None:
    deck, errors = parse_deck(PATH, "---\ntitle: T\n---\n\nJust prose.\n")
    assert deck is None
    assert messages(errors) == [f"{PATH}:5: deck has no cards"]


def test_a_deck_without_a_title_is_named_by_its_heading_or_file() -> None:
    deck, errors = parse("### Q: q\na\n", path="decks/untitled.md")
    assert (errors, deck.title) == ([], "untitled")
    deck, errors = parse("# GPU notes\n\n### Q: q\na\n", path="decks/untitled.md")
    assert (errors, deck.title) == ([], "GPU notes")


def test_unterminated_front_matter_is_an_error() -> None:
    _, errors = parse("---\ntitle: T\n### Q: q\na\n")
    assert f"{PATH}:1: front matter starts with '---' but never ends" in messages(errors)


def test_invalid_yaml_reports_the_file_line() -> None:
    _, errors = parse("---\ntitle: T\ntags: [a, b\n---\n### Q: q\na\n")
    assert len(errors) >= 1
    assert errors[0].line == 3
    assert errors[0].message.startswith("invalid YAML in front matter")


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("- a list", "front matter must be a mapping of keys to values"),
        ("title: [a, b]", "front matter 'title' must be text"),
        ("title: T\ntags: {a: 1}", "front matter 'tags' must be a list of text"),
        ("title: T\nslug: has space", "slug 'has space' may only use letters, digits"),
    ],
)
def test_bad_front_matter_values(front: str, message: str) -> None:
    _, errors = parse(f"---\n{front}\n---\n### Q: q\na\n")
    assert any(message in error.message for error in errors), errors


def test_slug_comes_from_front_matter_or_file_name() -> None:
    assert parse_ok("---\ntitle: T\n---\n## 1. q\na\n", "decks/my-deck.md").slug == "my-deck"
    assert parse_ok("---\ntitle: T\nslug: other\n---\n## 1. q\na\n").slug == "other"


def test_file_without_front_matter_counts_lines_from_one() -> None:
    deck, _ = parse_deck(PATH, "\n### Q: q\n\nanswer\n")
    assert deck is not None
    assert deck.cards[0].line == 2
    assert deck.cards[0].answer.line == 4


def test_block_lines_keep_their_file_offsets() -> None:
    source = """
        ---
        title: T
        ---
        ### Q: q
        Lead.

        **Answer:**
        After a label on its own line.

        **Pitfalls:** p

        **Answer:** Back to the answer.
        """
    card = only_card(source)
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    # Line k of the block text is line (block.line + k) of the file, or a blank stand-in.
    assert card.answer.text.count("\n") >= 2
    for offset, text in enumerate(card.answer.text.split("\n")):
        if text:
            assert lines[card.answer.line - 1 + offset].endswith(text)
    assert card.answer.text.split("\n")[-1] == "Back to the answer."


def test_unicode_line_separators_do_not_end_lines() -> None:
    text = "---\ntitle: T\n---\n## 1. q\nweb page\u2028## 2. not a card\x85x\n## 3. r\nb\n"
    deck = parse_ok(text)
    assert [(card.question, card.line) for card in deck.cards] == [("q", 4), ("r", 6)]


def test_intro_line_skips_leading_blank_lines() -> None:
    deck = parse_ok("---\ntitle: T\n---\n\n\nIntro here.\n\n## 1. q\na\n")
    assert (deck.intro.text, deck.intro.line) == ("Intro here.", 6)


# --- continue reading -----------------------------------------------------------------------


def test_continue_reading_entry_kinds() -> None:
    card = only_card(
        """
        ---
        title: T
        ---
        ### Q: q
        a

        **Continue reading:** Plain Title / [[Wiki Title]] / [By slug](kernel-cost-model)
        - [With path](../topics/gpu-utilization.md)
        - [Paper](https://arxiv.org/abs/2205.14135) / https://example.org/x
        """
    )
    assert [(link.title, link.target, link.external, link.line) for link in card.links] == [
        ("Plain Title", "Plain Title", False, 7),
        ("Wiki Title", "Wiki Title", False, 7),
        ("By slug", "kernel-cost-model", False, 7),
        ("With path", "gpu-utilization", False, 8),
        ("Paper", "https://arxiv.org/abs/2205.14135", True, 9),
        ("https://example.org/x", "https://example.org/x", True, 9),
    ]


@pytest.mark.parametrize(
    "target",
    ["javascript:alert(1)", "JavaScript:alert(1)", "vbscript:x", "data:text/html,x", "file:///etc"],
)
def test_unsafe_continue_reading_target_is_an_error(target: str) -> None:
    deck, errors = parse(f"---\ntitle: T\n---\n### Q: q\na\n\n**继续读：** ok / [evil]({target})\n")
    assert messages(errors) == [f"{PATH}:7: unsafe or unsupported link target '{target}'"]
    # The unsafe entry is dropped; the safe one is kept.
    assert [link.target for link in deck.cards[0].links] == ["ok"]


# --- topics ---------------------------------------------------------------------------------


def test_topic_fields() -> None:
    topic, errors = parse_topic(
        "topics/flashattention-long-context.md",
        textwrap.dedent(
            """\
            ---
            title: FlashAttention 与长上下文
            aliases: [FlashAttention, Flash Attention]
            summary: IO-aware attention.
            ---


            # Body

            text
            """
        ),
    )
    assert errors == []
    assert topic is not None
    assert topic.slug == "flashattention-long-context"
    assert topic.title == "FlashAttention 与长上下文"
    assert topic.aliases == ["FlashAttention", "Flash Attention"]
    assert topic.summary == "IO-aware attention."
    assert topic.body.text == "# Body\n\ntext"
    assert topic.body.line == 8


def test_topic_body_line_ignores_trailing_blank_lines() -> None:
    topic, _ = parse_topic("topics/t.md", "---\ntitle: T\n---\n\nbody\n\n\n\n")
    assert topic is not None
    assert (topic.body.text, topic.body.line) == ("body", 5)


def test_topic_problems() -> None:
    topic, errors = parse_topic("topics/t.md", "---\nslug: Bad Slug\naliases: 3\n---\nbody\n")
    assert topic is not None
    assert topic.title == "t"
    assert messages(errors) == [
        "topics/t.md:1: slug 'Bad Slug' may only use letters, digits, '-', '_' and '.'",
        "topics/t.md:1: front matter 'aliases' must be a list of text",
    ]


def test_a_link_back_to_the_top_is_no_part_of_the_answer() -> None:
    deck = parse_ok(
        """
        # Widgets

        1.  ### What is a message map?

            A table that routes window messages to member functions.

            **[⬆ Back to Top](#table-of-contents)**

        2.  ### What does a view draw?

            The document's data; see [the frame](#frames) for the border.

            [目录](#目录)
        """
    )
    answers = [card.answer.text for card in deck.cards]
    assert len(answers) == 2
    assert "Back to Top" not in answers[0] and "routes window messages" in answers[0]
    assert "[the frame](#frames)" in answers[1] and "目录" not in answers[1]


def test_a_fold_to_hide_the_contents_is_no_card() -> None:
    deck = parse_ok(
        """
        # Widgets

        <details>
        <summary>Hide/Show table of contents</summary>

        | No. | Questions |
        | --- | --- |
        | 1 | [What is a message map?](#what-is-a-message-map) |

        </details>

        ## What is a message map?

        A table that routes window messages to member functions.
        """
    )
    assert [card.question for card in deck.cards] == ["What is a message map?"]


def test_a_question_ending_in_code_keeps_its_closing_mark() -> None:
    # A closing backtick is a modifier symbol to Unicode, as an emoji's skin tone is; only the
    # emoji is trimmed from a heading's end.
    deck, _ = parse_deck(
        PATH, "# Notes\n\n## 什么时候用 `torch.compile`\n\n图稳定时。\n\n## Why? 👍🏽\n\nBecause.\n"
    )
    assert deck is not None
    assert [card.question for card in deck.cards] == ["什么时候用 `torch.compile`", "Why?"]
