"""Admission: a bounded number of requests at work, the rest wait a bounded time, then a 503.

A sync route takes a worker thread to run, a database connection for its queries, and a thread
again to serialise its answer while still holding that connection. In a burst far larger than
the pool, requests holding connections waited for threads that were all taken by requests
waiting for connections: every thread timed out on the pool, nothing was answered, and the
clients' retries kept it so. Letting in fewer requests than there are threads and connections
means every request let in gets both; the others wait here, holding nothing, and are shed with
Retry-After when their wait runs out.
"""

import asyncio
import logging

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.web.overload import BUSY, RETRY_BUSY_SECONDS, unavailable

log = logging.getLogger("qbank")

# Below the 40 worker threads and the pool's connections (40 on SQLite, 30 on PostgreSQL), with
# room for background jobs. Work is mostly CPU under one interpreter lock: more requests at
# once would each take longer, not finish sooner.
ACTIVE_REQUESTS = 16
ADMISSION_WAIT_SECONDS = 5.0
# Answered without the database, so they stay quick under any load: a health probe must not
# be shed (a supervisor would restart a server that is merely busy).
UNLIMITED_PREFIXES = ("/healthz", "/static/", "/favicon.ico", "/metrics")


class Admission:
    """Let at most `limit` HTTP requests run at once; the rest wait up to `wait` s, then 503."""

    def __init__(
        self, app: ASGIApp, limit: int = ACTIVE_REQUESTS, wait: float = ADMISSION_WAIT_SECONDS
    ) -> None:
        self.app = app
        self.limit = limit
        self.wait = wait
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _semaphore(self) -> asyncio.Semaphore:
        # Made in the loop that serves: a test client may run the same app in several loops.
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._slots, self._loop = asyncio.Semaphore(self.limit), loop
        return self._slots

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(UNLIMITED_PREFIXES):
            await self.app(scope, receive, send)
            return
        slots = self._semaphore()
        try:
            await asyncio.wait_for(slots.acquire(), self.wait)
        except TimeoutError:
            method, path = scope["method"], scope["path"]
            log.warning("shed %s %s: %d requests at work", method, path, self.limit)
            await unavailable(Request(scope), BUSY, RETRY_BUSY_SECONDS)(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            slots.release()
