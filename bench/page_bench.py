"""Page benchmark: bytes over the wire and first paint of the study, topic and stats pages.

    python bench/page_bench.py                        # starts `qbank serve` on the bundled bank
    python bench/page_bench.py --base-url http://127.0.0.1:8000   # a server already running
    python bench/page_bench.py --runs 7 --throttle 1600:150

A real Chromium (Playwright, /usr/bin/chromium) loads each page --runs times in a fresh browser
context (empty cache: "cold"), then once more in the same context ("warm", what a returning
reader pays). Per load it sums the bytes transferred (headers + encoded bodies, from the
browser's resource timing), counts requests and revalidations (304), and reads first contentful
paint and the load event. With --throttle KBIT:MS the network is shaped to that downlink and
round-trip time (default 1600 kbit/s, 150 ms: a slow phone connection); --throttle 0 leaves
loopback as it is. Medians are printed.

Without --base-url the script imports the bundled content into a temporary SQLite database and
runs `qbank serve` on a free port, so before/after figures come from the same command.
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = {"study": "/study", "topic": "/topics/roofline-benchmarks", "stats": "/stats"}

_MEASURE = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const all = [nav, ...performance.getEntriesByType('resource')];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  return {
    bytes: all.reduce((n, e) => n + e.transferSize, 0),
    decoded: all.reduce((n, e) => n + e.decodedBodySize, 0),
    requests: all.length,
    from_cache: all.filter(e => e.transferSize === 0).length,
    fcp: paint ? paint.startTime : null,
    load: nav.loadEventEnd,
  };
}"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {**os.environ, "QBANK_DATABASE_URL": f"sqlite:///{tmp / 'pages.db'}"}
    server = subprocess.Popen(
        [sys.executable, "-c", "from app.cli import main; main()", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=(tmp / "serve.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and server.poll() is None:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=2)
            return server, base
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise SystemExit(f"the server did not start; see {tmp / 'serve.log'}")


def _load(context, url: str, throttle: tuple[int, int] | None) -> dict:
    page = context.new_page()
    if throttle:
        cdp = context.new_cdp_session(page)
        kbit, rtt = throttle
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": rtt,
                "downloadThroughput": kbit * 1000 / 8,
                "uploadThroughput": kbit * 1000 / 8,
            },
        )
    page.goto(url, wait_until="load")
    page.wait_for_timeout(100)  # let the load event's end be recorded
    result = page.evaluate(_MEASURE)
    page.close()
    return result


def measure(base: str, runs: int, throttle: tuple[int, int] | None) -> None:
    from playwright.sync_api import sync_playwright

    print(f"{base}; {runs} cold loads per page, then one warm; throttle {throttle or 'none'}")
    print(
        f"{'page':<6} {'':<5} {'KB sent':>8} {'KB decoded':>10} {'requests':>8} "
        f"{'cached':>6} {'FCP ms':>7} {'load ms':>8}"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        for name, path in PAGES.items():
            cold, warm = [], []
            for _ in range(runs):
                context = browser.new_context()
                cold.append(_load(context, base + path, throttle))
                warm.append(_load(context, base + path, throttle))
                context.close()
            for label, loads in (("cold", cold), ("warm", warm)):

                def median(key: str, loads: list[dict] = loads) -> float:
                    return statistics.median(load[key] or 0 for load in loads)

                print(
                    f"{name:<6} {label:<5} {median('bytes') / 1024:>8.1f} "
                    f"{median('decoded') / 1024:>10.1f} {median('requests'):>8.0f} "
                    f"{median('from_cache'):>6.0f} {median('fcp'):>7.0f} {median('load'):>8.0f}"
                )
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--throttle", default="1600:150", help="KBIT:MS, or 0 for none")
    args = parser.parse_args()
    throttle = None
    if args.throttle != "0":
        kbit, rtt = args.throttle.split(":")
        throttle = (int(kbit), int(rtt))
    if args.base_url:
        measure(args.base_url.rstrip("/"), args.runs, throttle)
        return
    with tempfile.TemporaryDirectory(prefix="qbank-page-bench-") as tmp:
        server, base = _start_server(Path(tmp))
        try:
            measure(base, args.runs, throttle)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
