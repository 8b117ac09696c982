"""Every route with an id in its path: an id past the integer columns names nothing (404)."""

import re
import typing

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient

from app.web.deps import RowId

PAST_64_BITS = "9223372036854775808"
PAST_32_BITS = "2147483648"


def _id_routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path) of every route with a RowId in its path, that id out of range."""
    found = []
    for route in iter_route_contexts(app.router.routes):
        if not isinstance(route.original_route, APIRoute):
            continue
        hints = typing.get_type_hints(route.endpoint, include_extras=True)
        names = re.findall(r"{(\w+)}", route.path)
        ids = [name for name in names if hints.get(name) == RowId]
        if not ids:
            continue
        path = route.path
        for name in names:
            path = path.replace(f"{{{name}}}", PAST_64_BITS if name in ids else "x")
        found += [(method, path) for method in sorted(route.methods or ())]
    return found


def test_no_path_takes_an_unbounded_integer(app: FastAPI) -> None:
    unbounded = []
    for route in iter_route_contexts(app.router.routes):
        if isinstance(route.original_route, APIRoute):
            hints = typing.get_type_hints(route.endpoint, include_extras=True)
            for name in re.findall(r"{(\w+)}", route.path):
                if hints.get(name) is int:
                    unbounded.append((route.path, name))
    assert unbounded == [], "path ids must be RowId (bounded to the integer columns)"


def test_every_id_route_is_found_and_answers_404_past_the_columns(
    app: FastAPI, client: TestClient
) -> None:
    routes = _id_routes(app)
    # The routes this guards: practice, jobs, interviews, mock interviews, recordings, tokens.
    assert len(routes) >= 15, routes
    assert any("/account/tokens/" in path for _, path in routes)
    for method, path in routes:
        for value in (PAST_64_BITS, PAST_32_BITS):
            target = path.replace(PAST_64_BITS, value)
            response = client.request(method, target, follow_redirects=False)
            assert response.status_code == 404, (method, target, response.status_code)


@pytest.mark.parametrize("value", ["-1", "abc"])
def test_a_negative_or_non_numeric_id_is_not_a_500(client: TestClient, value: str) -> None:
    response = client.get(f"/practice/{value}")
    assert response.status_code in (400, 404, 422)
