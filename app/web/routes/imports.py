"""The import report page: the last import's figures and warnings, file by file."""

from math import ceil
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.content.bank.imports import SOURCES, latest_report
from app.web.deps import AdminDep, SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)
# Files with problems shown a page: a vault's import may warn about thousands of notes.
FILES_PER_PAGE = 50


@router.get("/import")
def import_report(
    request: Request,
    session: SessionDep,
    admin: AdminDep,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
) -> Response:
    """The latest import, whoever started it: running, its report, or what stopped it."""
    report = latest_report(session)
    pages = max(ceil(len(report.files) / FILES_PER_PAGE), 1)
    page = min(page, pages)
    files = report.files[(page - 1) * FILES_PER_PAGE : page * FILES_PER_PAGE]
    context = {"report": report, "sources": SOURCES, "files": files, "page": page}
    return render(request, "import.html", context | {"pages": pages})
