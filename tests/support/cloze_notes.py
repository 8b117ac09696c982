"""A folder of notes with cloze deletions, highlights opted in, and reversed cards."""

GPU = """\
---
title: GPU numbers
---

The H100 SXM has {{c1::132}} SMs and {{c2::50 MB::size}} of L2.

The ridge point is $I^* = {{c1::P/B}}$ for peak $P$ and bandwidth $B$.

- HBM3 gives about {{c1::3.35 TB/s}}
- NVLink 4: {{c1::900 GB/s}}

| GPU | SMs |
| --- | --- |
| A100 | {{c1::108}} |

roofline ::: a plot of attainable performance against arithmetic intensity

## Q: Why does tiling help?

Because reuse grows: intensity is {{c1::$O(b)$}} for a tile of side $b$.
"""

HIGHLIGHTS = """\
---
title: Memory
cloze: highlights
reverse: true
---

An SM has ==256 KB== of registers and ==228 KB== of shared memory.

warp :: 32 threads
"""

NOTES = {"gpu.md": GPU, "memory.md": HIGHLIGHTS}
