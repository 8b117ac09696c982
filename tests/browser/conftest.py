"""Real-browser fixtures: a live qbank server over the bundled content, and Debian's Chromium.

The server runs uvicorn in a background thread on a free loopback port, over a SQLite file
with `content/` imported once per session. Every test gets a fresh browser context, which
records each request its pages make; a request to anywhere but the test server fails the test
(and is aborted, so nothing ever leaves the machine).
"""

import re
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Page,
    Request,
    Response,
    Route,
    WebError,
    expect,
    sync_playwright,
)

from tests.support.browser import NewPage, ServerClock, Traffic, bundled_settings, copy_bank, serve
from tests.support.templates import Templates

# Chromium's headless shell (Debian's chromium-headless-shell, Playwright's own choice for
# headless runs) renders with the same Blink as the browser but without the browser's UI
# around it: the browser tests take ~40% less time in it. Debian's full browser is the fallback.
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = HEADLESS_SHELL if HEADLESS_SHELL.exists() else Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # A fake microphone, granted without a prompt (interview recordings).
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--autoplay-policy=no-user-gesture-required",
    # Chromium's local-network checks stop a public page from reaching loopback before the
    # server sees it; other browsers have none, so the security tests must meet qbank's own.
    "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests",
]
DESKTOP = {"width": 1280, "height": 900}

# Generous waits: the suite also runs on busy machines; passing tests never wait this long.
expect.set_options(timeout=10_000)


@pytest.fixture(scope="session")
def bundled_bank(tmp_path_factory: pytest.TempPathFactory, templates: Templates) -> Path:
    """The bundled content imported into an SQLite file, nothing studied (copy it to use it).

    It is a copy of the process's bundled template, which the tests of `bundled_database_url`
    copy too: the content is imported (its formulas rendered) once per process, not twice.
    """
    db = tmp_path_factory.mktemp("bank") / "qbank.db"
    settings = bundled_settings(db)
    if not templates.bank(settings.database_url, settings.content_dir):
        raise RuntimeError(f"no bundled bank could be copied to {db}")
    return db


@pytest.fixture(scope="session")
def server_clock() -> ServerClock:
    """The clock of the test servers (`live_server`, `own_server`) in this process."""
    return ServerClock()


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, bundled_bank: Path, server_clock: ServerClock
) -> Iterator[str]:
    """The origin (`http://127.0.0.1:<port>`) of a local-mode qbank serving the bundled content."""
    db = tmp_path_factory.mktemp("browser") / "qbank.db"
    copy_bank(bundled_bank, db)
    with serve(bundled_settings(db), server_clock) as origin:
        yield origin


@pytest.fixture
def travel(server_clock: ServerClock) -> Iterator[Callable[[datetime], None]]:
    """`travel(moment)`: the test servers and the pages opened from then on live at `moment`.

    Time runs on from there, in the server and in the pages' scripts (Playwright's clock).
    The real time comes back at the end of the test.
    """
    yield server_clock.set
    server_clock.offset = timedelta(0)


@pytest.fixture
def bank(tmp_path: Path, bundled_bank: Path) -> Path:
    """A copy of the bundled bank for one test, read back with `query`."""
    db = tmp_path / "qbank.db"
    copy_bank(bundled_bank, db)
    return db


@pytest.fixture
def own_server(bank: Path, server_clock: ServerClock) -> Iterator[str]:
    """A server of one test's own over `bank`: a module that writes uses it as `live_server`."""
    with serve(bundled_settings(bank), server_clock) as origin:
        yield origin


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} not found: install Debian's browser with `apt-get install chromium`"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def traffic(live_server: str) -> Traffic:
    return Traffic(origin=live_server)


@pytest.fixture
def new_page(
    browser: Browser,
    live_server: str,
    traffic: Traffic,
    server_clock: ServerClock,
    request: pytest.FixtureRequest,
) -> Iterator[NewPage]:
    """Factory: `new_page(viewport=PHONE)` opens a page in a fresh context on the live server.

    Pages resolve relative URLs against the server, speak Chinese by default (like the
    content), take other browser-context options (`is_mobile=True`), and their requests,
    responses, uncaught script errors and Content-Security-Policy violations land in `traffic`.

    The service worker runs only in tests marked `service_worker` (the offline, shared-device,
    study-client and counts modules, which test it): installed, it fetches the whole shell
    (scripts, styles, KaTeX's fonts) into every fresh context, about a quarter of the browser's
    work for a short test.
    """
    contexts = []
    service_workers = "allow" if request.node.get_closest_marker("service_worker") else "block"

    # Only requests that leave the server are intercepted (and aborted): the pattern is matched
    # inside the browser, so the server's own traffic never detours through Python.
    elsewhere = re.compile(rf"^(?!{re.escape(live_server)}/)")

    def abort(route: Route) -> None:
        route.abort()

    def on_request(request: Request) -> None:
        traffic.requests.append(request.url)

    def on_response(response: Response) -> None:
        traffic.responses.append((response.url, response.status))

    def on_error(error: WebError) -> None:
        traffic.page_errors.append(str(error.error))

    def on_console(message: ConsoleMessage) -> None:
        # Chromium reports each refusal as an error: "Refused to execute inline script because
        # it violates the following Content Security Policy directive: …".
        if "Content Security Policy" in message.text:
            traffic.csp_violations.append(message.text)

    def make(viewport: dict[str, int] | None = None, locale: str = "zh-CN", **options: Any) -> Page:
        options.setdefault("service_workers", service_workers)
        context = browser.new_context(
            base_url=live_server, viewport=viewport or DESKTOP, locale=locale, **options
        )
        context.set_default_timeout(10_000)
        if server_clock.offset:
            # The page's Date agrees with the server's clock, set by `travel`.
            context.clock.install(time=server_clock.now())
        context.route(elsewhere, abort)
        context.on("request", on_request)
        context.on("response", on_response)
        context.on("weberror", on_error)
        context.on("console", on_console)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()
    assert traffic.requests, "the browser made no requests at all"
    assert traffic.foreign() == [], "requests left the test server"
    assert traffic.failed() == [], "requests that failed"
    assert traffic.page_errors == [], "uncaught script errors"
    assert traffic.csp_violations == [], "the Content-Security-Policy refused something"


@pytest.fixture
def page(new_page: NewPage) -> Page:
    """A desktop-sized page in its own context."""
    return new_page()
