"""The app's refusals as the code raises them: every error class, and the message key of each
refusal made with a literal code (found by reading app/, so a new refusal is found too)."""

import ast
from pathlib import Path

from app.errors import AppError
from app.web.errors import HTTP_CODES

APP = Path(__file__).resolve().parents[2] / "app"
# Classes whose first argument is a reason whose message lives under another prefix.
REASON_PREFIXES = {"BadParameters": "params.", "FitRefused": "fit."}
# Classes with one code whose first argument is the detail of the message.
ONE_KEY = {"BackupError": "error.backup_invalid"}


def error_classes() -> dict[str, type]:
    def subclasses(cls: type) -> list[type]:
        return [cls, *(c for sub in cls.__subclasses__() for c in subclasses(sub))]

    import app.main  # noqa: F401  (every module that defines an error class)

    return {cls.__name__: cls for cls in subclasses(AppError)}


def raised_keys() -> set[str]:
    """The message key of every refusal made with a literal code in app/."""
    classes = error_classes()
    # Starlette's own refusals, by status.
    keys = {f"error.{code}" for code in (*HTTP_CODES.values(), "http")}
    for path in APP.rglob("*.py"):
        for call in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(call, ast.Call):
                continue
            name = getattr(call.func, "id", getattr(call.func, "attr", ""))
            code = next((k.value for k in call.keywords if k.arg == "code"), None)
            if name == "owned" and isinstance(code, ast.Constant):
                keys.add(f"error.{code.value}")  # owned(..., code=): its NotFound
            first = call.args[0] if call.args else None
            if name not in classes or not isinstance(first, ast.Constant):
                continue
            key = next((k.value for k in call.keywords if k.arg == "key"), None)
            if isinstance(key, ast.Constant):
                keys.add(key.value)
            elif name in ONE_KEY:
                keys.add(ONE_KEY[name])
            elif name in REASON_PREFIXES:
                keys.add(REASON_PREFIXES[name] + first.value)
            elif key is None:
                keys.add(f"error.{first.value}")
    return keys
