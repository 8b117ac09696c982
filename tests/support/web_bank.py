"""The web tests' bank (`bank_dir` in tests/web/conftest.py): two decks, three topics, and the
clock its requests see, which starts at START."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

KERNELS_DECK = """
---
title: 算子与性能
slug: kernels
description: GEMM、roofline 与显存
tags: [gpu, kernels]
language: zh
style: question
---

本组收录 GEMM 与 roofline 的面试题。

## GPU 基础

### Q：为什么 GEMM 是核心？ {#gemm-core}

**面试回答。** 矩阵乘 $C = AB$ 占了绝大部分计算；算子融合可以减少显存读写。

**追问展开。** 追问 tiling 与 shared memory 复用。

**易错点 / 边界。** GEMM 快不等于端到端快。

**继续读。** 线性层与 GEMM / [[算子融合]]

### Q：Roofline 模型怎么读？ {#roofline}

**面试回答。** 算术强度 $I=\\frac{\\text{FLOPs}}{\\text{Bytes}}$ 决定 kernel 落在拐点哪一侧。

**继续读。** Kernel Cost Model

## 推理

### Q：KV cache 占多少显存？ {#kv-cache}

**面试回答。** 每个 token 每层存 K 和 V 两份，显存随序列长度线性增长。

**继续读。** [FlashAttention 论文](https://arxiv.org/abs/2205.14135) / 不存在的主题
"""

NOTES_DECK = """
---
title: Interview Notes
slug: notes
description: Numbered notes in English.
tags: [notes]
language: en
style: numbered
---

Notes kept while preparing.

## 1. What is Kernel Fusion? {#fusion}

**Answer.** Fusion merges several kernels into one, so intermediates never leave the chip
(算子融合).

**Follow-ups.** Which ops cannot be fused?

**Continue reading.** Operator Fusion

## 2. How does PagedAttention work? {#paged}

**Answer.** It stores the KV cache in fixed-size blocks, like virtual memory pages.

**Pitfalls.** Block size trades fragmentation against lookup cost.
"""

TOPICS = {
    "topics/linear-gemm.md": """
        ---
        title: 线性层与 GEMM
        summary: 线性层都是矩阵乘。
        ---

        线性层 $y = Wx + b$ 就是一次 GEMM，另见 [[Kernel Cost Model]]。
    """,
    "topics/fusion.md": """
        ---
        title: 算子融合
        aliases: [Operator Fusion]
        summary: 把多个 kernel 合成一个，省掉中间结果的显存往返。
        ---

        算子融合（kernel fusion）减少显存读写；常见的是 GEMM + bias + activation。
    """,
    "topics/kernel-cost-model.md": """
        ---
        title: Kernel Cost Model
        summary: Estimating kernel time from bytes and FLOPs.
        ---

        A kernel costs at least max(FLOPs / peak, bytes / bandwidth).
    """,
}

# A Monday afternoon in UTC, far from any day boundary for a UTC learner (rollover at 04:00).
START = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


@dataclass
class Clock:
    """The time every request sees; tests move it forward through minutes and days."""

    now: datetime

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set_local(self, text: str, zone: str) -> datetime:
        """Jump to a wall-clock time (`2025-03-11 03:50`) in `zone`; requests still see UTC."""
        local = datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(zone))
        self.now = local.astimezone(UTC)
        return self.now
