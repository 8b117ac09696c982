"""The import report page: the last import's figures and warnings, file by file."""

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.content.bank.imports import SOURCES, latest_report
from app.web.deps import AdminDep, SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)


@router.get("/import")
def import_report(request: Request, session: SessionDep, admin: AdminDep) -> Response:
    """The latest import, whoever started it: running, its report, or what stopped it."""
    return render(request, "import.html", {"report": latest_report(session), "sources": SOURCES})
