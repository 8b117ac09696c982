"""Where routes that do their own database work run it: the study loop's API calls."""

import asyncio
import functools
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from fastapi import Request

from app.db import WouldWait, study_threads

T = TypeVar("T")

# How long a write keeps retrying in the event loop before it waits in a thread instead.
WRITE_RETRY_SECONDS = 0.1


async def run_in_study_thread(request: Request, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` in a worker thread, at most `study_threads` of them at once.

    Other routes share anyio's default pool of 40 threads; these get a limiter of their own,
    sized for the database (app.db.study_threads), created in the running event loop.
    """
    state = request.app.state
    loop = asyncio.get_running_loop()
    limiter = getattr(state, "study_limiter", None)
    if limiter is None or state.study_limiter_loop is not loop:
        limiter = anyio.CapacityLimiter(study_threads(state.engine))
        state.study_limiter, state.study_limiter_loop = limiter, loop
    return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)


async def run_read(request: Request, fn: Callable[..., T], *args: Any) -> T:
    """Run the read-only `fn(*args)`: on SQLite in the event loop itself, else in a thread.

    A thread hop costs ~0.2 ms of CPU, more than a study request's queries on SQLite, which
    run in this process and hold the GIL for most of their time anyway. In WAL mode a reader
    never waits for a writer, so the loop is not held up by an import or a rating; `fn` must
    write nothing (a write could wait for another process's write lock, stalling every
    request of this worker). PostgreSQL queries wait on the network: they take the thread.
    """
    if request.app.state.engine.dialect.name == "sqlite":
        return fn(*args)
    return await run_in_study_thread(request, fn, *args)


async def run_write(request: Request, fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args, wait=…)`, which writes: on SQLite in the event loop if it need not wait.

    On SQLite `fn` runs here with `wait=False`, and must then raise app.db.WouldWait rather
    than wait more than a moment for a lock (app.db.writes_without_waiting). It is tried again
    after short sleeps that let the loop serve other requests, and after WRITE_RETRY_SECONDS it
    runs in a thread with
    `wait=True`, which waits as long as it takes (an import holds the lock for seconds).
    Waiting in threads from the start made every rating of the process queue behind one that
    held the process's writer lock while SQLite's busy handler slept.
    """
    if request.app.state.engine.dialect.name == "sqlite":
        loop = asyncio.get_running_loop()
        give_up = loop.time() + WRITE_RETRY_SECONDS
        delay = 0.0005
        while True:
            try:
                return fn(*args, wait=False)
            except WouldWait:
                if loop.time() + delay > give_up:
                    break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.008)
    return await run_in_study_thread(request, functools.partial(fn, *args, wait=True))
