"""Run mypy on app/ and refuse any file whose error count rose above the committed baseline.

Usage: python .ci/typecheck.py [--update]. With --update the baseline is rewritten from this run
(do that when counts fell, so they cannot rise again).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "mypy-baseline.json"
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error: ", re.M)


def count_errors() -> Counter[str]:
    """Count mypy's errors per file, with the configuration in pyproject.toml."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if run.returncode not in (0, 1):
        sys.exit(f"mypy failed to run:\n{run.stdout}{run.stderr}")
    return Counter(match["path"] for match in ERROR.finditer(run.stdout))


def main() -> int:
    """Compare this run with the baseline; return a process exit status."""
    counts = count_errors()
    if "--update" in sys.argv[1:]:
        BASELINE.write_text(json.dumps(dict(sorted(counts.items())), indent=1) + "\n")
        print(f"baseline: {sum(counts.values())} errors in {len(counts)} files")
        return 0
    baseline: dict[str, int] = json.loads(BASELINE.read_text())
    risen = {
        path: (baseline.get(path, 0), n) for path, n in counts.items() if n > baseline.get(path, 0)
    }
    for path, (before, now) in sorted(risen.items()):
        print(f"{path}: {now} mypy errors, baseline {before}")
    total, allowed = sum(counts.values()), sum(baseline.values())
    print(f"mypy: {total} errors (baseline {allowed})")
    if risen:
        print("run `mypy` to see them; fix them rather than raising the baseline")
        return 1
    if total < allowed:
        print("fewer than the baseline: run `python .ci/typecheck.py --update` and commit it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
