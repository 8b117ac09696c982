"""HTTP clients for the tests' own servers on loopback.

The servers speak plain HTTP, but every httpx client builds a TLS context of its own unless
given one, loading the whole CA bundle (~20 ms of CPU): the bursts make dozens of clients at
once. They share one context instead.
"""

import ssl
from typing import Any

import httpx2 as httpx

_TLS = ssl.create_default_context()


def client(url: str, **options: Any) -> httpx.Client:
    """A client for the server at `url`."""
    return httpx.Client(base_url=url, verify=_TLS, **options)


def async_client(url: str, **options: Any) -> httpx.AsyncClient:
    """An asyncio client for the server at `url`."""
    return httpx.AsyncClient(base_url=url, verify=_TLS, **options)
