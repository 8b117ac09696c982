"""Deterministic synthetic question bank for benchmarks.

    from bench._synthetic import write_bank
    stats = write_bank(Path(tmp), cards=10_000, decks=20, topics=200, seed=0)

writes `decks/*.md` and `topics/*.md` under `root` in the format of docs/content-format.md:
question-style decks with `##` sections and the labelled blocks 面试回答, 追问展开,
易错点 / 边界 and 继续读; mixed Chinese and English prose of roughly 300–600 characters
per card; about one display formula per card (~30% drawn from a shared pool, the rest
distinct) and some inline math (mostly from a shared pool); continue-reading links to the
topic pages by title, alias, `[[title]]`, `[text](slug)` and the odd external URL; topic
pages with a formula or two and a `[[link]]` to the next topic. The same arguments always
produce the same bytes.
"""

import random
from dataclasses import dataclass
from pathlib import Path

_TERMS = (
    "GEMM",
    "attention",
    "KV cache",
    "prefill",
    "decode",
    "roofline",
    "HBM",
    "SRAM",
    "shared memory",
    "warp",
    "Tensor Core",
    "occupancy",
    "kernel fusion",
    "FlashAttention",
    "paged attention",
    "continuous batching",
    "all-reduce",
    "NCCL",
    "pipeline parallel",
    "tensor parallel",
    "ZeRO",
    "FSDP",
    "LayerNorm",
    "RMSNorm",
    "softmax",
    "RoPE",
    "MoE",
    "top-k routing",
    "quantization",
    "FP8",
    "INT4",
    "speculative decoding",
    "CUDA graph",
    "cuBLAS",
    "CUTLASS",
    "Triton",
    "profiling",
    "Nsight Compute",
    "arithmetic intensity",
    "memory bandwidth",
    "latency",
    "throughput",
    "tokenizer",
    "beam search",
    "LoRA",
)

_SENTENCES = (
    "{a} 的核心在于减少对 {b} 的访问次数，把数据尽量留在片上。",
    "从 {a} 的角度看，瓶颈通常不是算力而是 {b}，所以先画一张 roofline 再下结论。",
    "面试时可以先给结论：{a} 决定上限，{b} 决定能不能接近上限。",
    "In practice, {a} only pays off when {b} is already saturated; otherwise the gain is noise.",
    "很多人把 {a} 和 {b} 混为一谈，其实前者是算法层面的选择，后者是实现层面的约束。",
    "A common follow-up is how {a} interacts with {b} when the batch size grows.",
    "如果序列变长，{a} 的开销按平方增长，而 {b} 只线性增长，这就是两者取舍的来源。",
    "经验上，先用 {a} 定位热点，再考虑 {b}，不要一上来就手写 kernel。",
    "The usual trick is to overlap {a} with {b} so that neither unit sits idle.",
    "{a} 需要额外的显存来换时间，因此在小 batch 下未必划算，要结合 {b} 一起评估。",
    "线上服务里 {a} 更关心尾延迟，离线训练里 {b} 更关心吞吐，两者的调优目标不同。",
    "Remember that {a} changes numerics slightly, so validate against {b} with a tolerance.",
    "可以把 {a} 理解为把多个小算子合成一个大算子，从而少一次 {b} 往返。",
    "当 {a} 的 tile 太小时，{b} 的利用率会明显下降，寄存器压力也会变大。",
    "Profiling {a} without warming up {b} gives misleading numbers; always discard the first runs.",
)

_FOLLOWUPS = (
    "追问：如果把 {a} 换成 {b}，结论还成立吗？关键看访存模式是否改变。",
    "Follow-up: what breaks first when {a} scales to 8 GPUs — {b} or the host side?",
    "可以继续讨论 {a} 在反向传播中的处理，以及为什么需要重计算 {b}。",
    "再往下问通常是 {a} 的数值稳定性，比如 {b} 里为什么要减去最大值。",
    "Interviewers often ask for a back-of-the-envelope estimate of {a} given {b}.",
)

_FOLLOWUP_ANSWER = "先比较两者的访存模式和数据复用，再看瓶颈是否从带宽移到了算力。"

_PITFALLS = (
    "易错：把 {a} 的理论峰值当成实际可达性能，忽略了 {b} 的限制。",
    "Edge case: {a} with very short sequences is dominated by launch overhead, not {b}.",
    "不要忘了 {a} 对显存碎片的影响，{b} 再快也救不了 OOM。",
    "边界情况是 {a} 为 1 时，{b} 的并行度不够，GPU 大部分 SM 空闲。",
)

_INLINE_POOL = (
    r"O(N^2)",
    r"O(N)",
    r"d_k",
    r"\sqrt{d}",
    r"N\times N",
    r"QK^\top",
    r"B",
    r"m\times k",
    r"k\times n",
    r"\alpha",
    r"\beta",
    r"\theta",
    r"\lambda",
    r"p_\theta",
    r"x_i",
    r"W_q",
    r"W_k",
    r"W_v",
    r"h",
    r"L",
    r"\epsilon",
    r"\mathbb{E}[x]",
    r"\operatorname{Var}[x]",
    r"2mnk",
    r"\frac{1}{\sqrt{d_k}}",
    r"e^{x}",
    r"\log p",
    r"\nabla_\theta",
    r"T_{\text{ms}}",
    r"\eta",
    r"\gamma",
    r"\mu",
    r"\sigma^2",
    r"\mathcal{O}(1)",
    r"n_{\text{heads}}",
    r"d_{\text{model}}",
    r"b\cdot s",
    r"\ell_2",
    r"\|x\|_2",
    r"\max_j x_j",
)

# Each template is filled with integers; distinct integers give distinct, valid formulas.
_DISPLAY_TEMPLATES = (
    r"T_{{{0}}} = \frac{{2mnk}}{{\text{{FLOPS}}}} + \frac{{{1}\,(mk + kn + mn)}}{{B}}",
    "\\begin{{aligned}}\nm_{{{0}}} &= \\max\\left(m_{{{0}-1}},\\ "
    "\\operatorname{{rowmax}}(S^{{({1})}})\\right)"
    " \\\\\nl_{{{0}}} &= e^{{m_{{{0}-1}}-m_{{{0}}}}}\\,l_{{{0}-1}} + \\sum_j e^{{S_j - m_{{{0}}}}}"
    "\n\\end{{aligned}}",
    r"I_{{{0}}} = \frac{{{1}\,\text{{FLOPs}}}}{{{0}\,\text{{bytes}}}} \approx {2}.{1}",
    r"\operatorname{{softmax}}(x)_i = "
    r"\frac{{e^{{x_i - {0}}}}}{{\sum_{{j=1}}^{{{1}}} e^{{x_j - {0}}}}}",
    r"\mathcal{{L}}_{{{0}}} = -\sum_{{t=1}}^{{{1}}} \log p_\theta(y_t \mid y_{{<t}}, x)"
    r" + {2}\lambda\|\theta\|_2^2",
    r"\begin{{pmatrix}} a_{{{0}}} & b_{{{1}}} \\ c_{{{2}}} & d \end{{pmatrix}}"
    r"\begin{{pmatrix}} x \\ y \end{{pmatrix}} = \begin{{pmatrix}} {1} \\ {2} \end{{pmatrix}}",
    r"\text{{KV}}_{{{0}}} = 2 \cdot {1} \cdot n_{{\text{{layers}}}} \cdot d_{{\text{{model}}}}"
    r" \cdot s \cdot {2}\ \text{{bytes}}",
    r"\operatorname{{Attn}}(Q,K,V) = \operatorname{{softmax}}\!\left(\frac{{QK^\top}}"
    r"{{\sqrt{{{0}}}}}\right)V_{{{1}}}",
    r"\theta_{{t+1}} = \theta_t - \eta_{{{0}}} "
    r"\frac{{\hat m_t}}{{\sqrt{{\hat v_t}} + 10^{{-{1}}}}}",
    r"\int_0^{{{0}}} f(x)\,dx \approx \sum_{{i=1}}^{{{1}}} w_i f(x_i), "
    r"\quad w_i = \frac{{{0}}}{{{1}}}",
)

_SECTIONS = (
    "GPU 与矩阵计算基础",
    "Attention 与长上下文",
    "推理服务与调度",
    "分布式训练",
    "量化与低精度",
    "Profiling 与调优",
    "模型结构",
    "编译器与 kernel 生成",
)


@dataclass(frozen=True)
class BankStats:
    cards: int
    decks: int
    topics: int
    display_formulas: int  # occurrences in cards
    pooled_display: int  # of which drawn from the shared pool
    inline_formulas: int  # occurrences in cards


def _display(template: int, a: int, b: int, c: int) -> str:
    return _DISPLAY_TEMPLATES[template % len(_DISPLAY_TEMPLATES)].format(a, b, c)


def _sentence(rng: random.Random, pool: tuple[str, ...]) -> str:
    a, b = rng.sample(_TERMS, 2)
    return rng.choice(pool).format(a=a, b=b)


def _followup_item(rng: random.Random) -> list[str]:
    """A list item of the follow-ups block; a `追问：` item gets its `答：` line, as it must."""
    item = _sentence(rng, _FOLLOWUPS)
    if item.startswith("追问："):
        return ["- " + item, "  答：" + _FOLLOWUP_ANSWER]
    return ["- " + item]


def _prose(rng: random.Random, pool: tuple[str, ...], count: int, inline: list[str]) -> str:
    parts = [_sentence(rng, pool) for _ in range(count)]
    for tex in inline:
        spot = rng.randrange(len(parts))
        parts[spot] = parts[spot].rstrip("。.") + f"，此处 ${tex}$ 很关键。"
    return "".join(part + " " if part.endswith(".") else part for part in parts).rstrip()


def _topic_title(index: int) -> str:
    term = _TERMS[index % len(_TERMS)]
    return f"{term} 专题 {index:03d}"


def _topic_slug(index: int) -> str:
    return f"topic-{index:03d}"


def _reading(rng: random.Random, topics: int) -> str:
    entries = []
    for index in rng.sample(range(topics), min(topics, rng.randint(1, 3))):
        kind = rng.random()
        if kind < 0.55:
            entries.append(_topic_title(index))
        elif kind < 0.7:
            entries.append(f"[[{_topic_title(index)}]]")
        elif kind < 0.85:
            entries.append(f"[{_TERMS[index % len(_TERMS)]}]({_topic_slug(index)})")
        else:
            entries.append(f"T{index:03d}")  # an alias
    if rng.random() < 0.1:
        entries.append(f"[参考资料](https://example.org/paper/{rng.randrange(10_000)})")
    return " / ".join(entries)


def write_bank(
    root: Path, *, cards: int = 10_000, decks: int = 20, topics: int = 200, seed: int = 0
) -> BankStats:
    """Write a synthetic content directory under `root` (decks/ and topics/)."""
    rng = random.Random(seed)
    (root / "decks").mkdir(parents=True, exist_ok=True)
    (root / "topics").mkdir(parents=True, exist_ok=True)
    pool = [_display(j, 90_000 + j, j + 3, j % 7 + 1) for j in range(max(10, cards // 50))]
    display = pooled = inline_count = 0

    per_deck, extra = divmod(cards, decks)
    card_no = 0
    for d in range(decks):
        lines = [
            "---",
            f"title: 合成题库 {d:02d} — {_TERMS[d % len(_TERMS)]}",
            f"slug: synthetic-{d:02d}",
            f"description: 第 {d} 组合成面试题，用于导入性能测试。",
            f"tags: [bench, {_TERMS[d % len(_TERMS)].replace(' ', '-').lower()}]",
            "style: question",
            "---",
            "",
            _prose(rng, _SENTENCES, 2, []),
            "",
        ]
        for i in range(per_deck + (1 if d < extra else 0)):
            if i % 25 == 0:
                lines += [f"## {_SECTIONS[(i // 25) % len(_SECTIONS)]} {i // 25 + 1}", ""]
            a, b = rng.sample(_TERMS, 2)
            explicit = f" {{#card-{card_no:05d}}}" if card_no % 5 == 0 else ""
            lines += [f"### Q：{a} 和 {b} 有什么关系？（第 {card_no} 题）{explicit}", ""]

            inline = [rng.choice(_INLINE_POOL) for _ in range(rng.randint(0, 2))]
            if rng.random() < 0.15:
                inline.append(f"N_{{{card_no}}}")
            inline_count += len(inline)
            lines += [f"**面试回答。** {_prose(rng, _SENTENCES, rng.randint(2, 4), inline)}", ""]

            if rng.random() < 0.95:
                display += 1
                if rng.random() < 0.3:
                    pooled += 1
                    tex = rng.choice(pool)
                else:
                    tex = _display(card_no, card_no, rng.randint(2, 64), rng.randint(1, 9))
                lines += (
                    ["$$", tex, "$$", ""]
                    if "\n" in tex or rng.random() < 0.7
                    else [
                        f"$${tex}$$",
                        "",
                    ]
                )
            if rng.random() < 0.05:
                display += 1
                lines += ["$$", _display(card_no + 1, card_no + 50_000, 2, 3), "$$", ""]

            lines += [f"**追问展开。** {_prose(rng, _FOLLOWUPS, 1, [])}", ""]
            if rng.random() < 0.2:
                lines += [*_followup_item(rng), *_followup_item(rng), ""]
            if rng.random() < 0.8:
                lines += [f"**易错点 / 边界。** {_prose(rng, _PITFALLS, 1, [])}", ""]
            if rng.random() < 0.1:
                lines += ["```python", "torch.cuda.synchronize()  # $not math$", "```", ""]
            lines += [f"**继续读。** {_reading(rng, topics)}", ""]
            card_no += 1
        (root / "decks" / f"synthetic-{d:02d}.md").write_text("\n".join(lines), encoding="utf-8")

    for t in range(topics):
        body = [
            "---",
            f"title: {_topic_title(t)}",
            f"aliases: [T{t:03d}]",
            f"summary: 关于 {_TERMS[t % len(_TERMS)]} 的合成专题页。",
            "---",
            "",
            "## 是什么",
            "",
            _prose(rng, _SENTENCES, 4, [rng.choice(_INLINE_POOL)]),
            "",
            "$$",
            _display(t, 70_000 + t, t % 13 + 2, t % 5 + 1),
            "$$",
            "",
        ]
        if t % 2:
            body += [
                "## 推导",
                "",
                _prose(rng, _SENTENCES, 2, []),
                "",
                "$$",
                _display(t + 3, 80_000 + t, 4, 2),
                "$$",
                "",
            ]
        body += [f"相关：[[{_topic_title((t + 1) % topics)}]]", ""]
        (root / "topics" / f"{_topic_slug(t)}.md").write_text("\n".join(body), encoding="utf-8")

    return BankStats(cards, decks, topics, display, pooled, inline_count)
