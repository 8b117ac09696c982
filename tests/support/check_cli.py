"""Shared test helpers (from test_check_cli.py)."""

import re

from click.testing import CliRunner, Result

from app.cli import main

PROBLEM = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+): (?P<message>.+)$")


DECK = """\
---
title: GPU
---

## 计算

### Q：为什么 GEMM 核心？ {#gemm-core}

**面试回答。** 计算量 $F=2mnk$。

**继续读。** GEMM 与融合

### Q：什么是 roofline？

**Answer:** $P=\\min(\\pi, \\beta I)$
"""


TOPIC = """\
---
title: GEMM 与融合
aliases: [GEMM]
---

正文 $C=AB$，另见 [[Roofline]]。
"""


ROOFLINE_TOPIC = "---\ntitle: Roofline\n---\n\n正文。\n"


GOOD = {"decks/gpu.md": DECK, "topics/gemm.md": TOPIC, "topics/roofline.md": ROOFLINE_TOPIC}


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def problems(stderr: str) -> list[str]:
    """The `path:line: message` lines of stderr; fail on any other line."""
    lines = [line for line in stderr.splitlines() if line and not line.startswith("error: ")]
    for line in lines:
        assert PROBLEM.match(line), f"not a one-line problem: {line!r}"
    return lines


def assert_clean_exit(result: Result, code: int) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    # A non-zero exit comes from sys.exit, never from an exception escaping the command.
    assert result.exception is None or isinstance(result.exception, SystemExit)
