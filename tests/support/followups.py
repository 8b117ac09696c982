"""Shared test helpers (from test_followups_import.py)."""

# A card as the seed had it: the follow-ups block is prose only.
PROSE = """\
---
title: 注意力
slug: attention
---

### Q：FlashAttention 省了什么？ {#fa}

**面试回答。** 省掉 $N\\times N$ 分数矩阵的 HBM 读写。

**追问展开。** 回答里要点出 IO-aware。

### Q：online softmax 为什么稳定？ {#online}

**面试回答。** 指数以当前最大值 $m$ 为基准。
"""


# The same card once its follow-ups became interviewer questions (the prose stays after them).
QUESTIONS = PROSE.replace(
    "**追问展开。** 回答里要点出 IO-aware。",
    """**追问展开。** 回答里要点出 IO-aware。

- 追问：backward 不存 attention matrix 怎么求梯度？
  答：前向只存每行的 logsumexp $L$，backward 按块重算 $P=\\exp(QK^\\top-L)$。
- 追问：为什么 head dim 大了收益变小？ {#fa-head-dim}
  答：SRAM 固定，每块放得下的行变少。""",
)
