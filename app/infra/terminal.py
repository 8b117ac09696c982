"""Text made safe to print on a terminal or in a log: one line, no control characters."""

import ctypes
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager

# C0 controls and DEL (ESC starts terminal commands, \r and \n forge lines, BEL rings), C1
# controls (U+009B is a one-character ESC [), and the characters that reorder or break a line as
# shown: bidirectional marks, embeddings, overrides and isolates, and Unicode's line separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEPING_LINES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    # `\u…` beyond ASCII's C0, so that escaped JSON text stays JSON meaning the same string.
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """`text` with every control and bidi character shown as its escape (`\\x1b`, `\\u202e`).

    File names and note text come from other people: printed raw, they could clear the screen,
    colour it, or forge a line such as "0 warnings". Without `lines` the result is one line;
    with it, line feeds are kept (a traceback, indented JSON) and everything else escaped.
    """
    return (_UNSAFE_KEEPING_LINES if lines else _UNSAFE).sub(_escaped, text)


@contextmanager
def others_print_to_stderr() -> Iterator[None]:
    """Send what native libraries print to stdout while the block runs to stderr instead.

    KaTeX writes its font warnings ("No character metrics for '￣'…") straight to the
    process's stdout, past Python's `sys.stdout`; a command whose stdout is its result
    (`qbank check --json` piped into a program) must print nothing else there. The worker
    processes the block starts inherit the redirection.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        # C's stdio holds what native code printed until the buffer fills or the process
        # ends, when fd 1 would be stdout again.
        ctypes.CDLL(None).fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
