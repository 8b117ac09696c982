"""The `qbank` command: thin wrappers that call one app function each."""

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from app.config import get_settings
from app.content.errors import ContentError, ContentErrors
from app.infra.terminal import others_print_to_stderr, printable

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from pydantic_core import ErrorDetails
    from sqlmodel import Session

    from app.config import Settings
    from app.content.bank.report import FileReport
    from app.infra.db import Database
    from app.infra.models import Learner


def _echo(text: str, *, err: bool = False, lines: bool = False) -> None:
    """Print `text` with its control characters escaped (file names and notes are anyone's)."""
    click.echo(printable(text, lines=lines), err=err)


def _fail(message: str) -> None:
    _echo(f"error: {message}", err=True)
    sys.exit(1)


def _print_problems(problems: list[ContentError], kind: str) -> None:
    for problem in problems:
        _echo(f"{problem} [{kind}]" if kind == "warning" else str(problem), err=True)


@click.group()
def main() -> None:
    """Interview-prep flashcards from Markdown Q&A notes."""


@main.command("check")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="Treat every problem and warning as an error.")
@click.option("--json", "as_json", is_flag=True, help="Print what was found in each note as JSON.")
def check_command(directory: Path | None, strict: bool, as_json: bool) -> None:
    """Show what qbank finds in a folder of notes, touching no database."""
    from app.content.bank.report import as_json as report_json
    from app.content.bank.sync import check_content

    with others_print_to_stderr():
        report = check_content(directory or _settings().content_dir, strict=strict)
    if as_json:
        summary = {
            "decks": report.decks,
            "cards": report.cards,
            "topics": report.topics,
            "errors": len(report.errors),
            "warnings": len(report.warnings),
        }
        found = json.dumps(report_json(report.files, summary), ensure_ascii=False, indent=1)
        _echo(found, lines=True)
    else:
        _print_files(report.files)
        _print_problems(report.errors, "error")
        _print_problems(report.warnings, "warning")
        _echo(
            f"{report.decks} decks, {report.cards} cards, {report.topics} topics, "
            f"{report.formulas} formulas: {len(report.errors)} errors, "
            f"{len(report.warnings)} warnings"
        )
    if report.errors or (strict and report.warnings):
        sys.exit(1)


def _print_files(files: "list[FileReport]") -> None:
    """Per note: its cards, and the headings not taken with why."""
    for report in files:
        if report.kind == "skipped":
            continue
        if report.kind == "topic":
            _echo(f"{report.path}: reading page '{report.title}'")
            continue
        _echo(f"{report.path}: deck '{report.title}', {len(report.cards)} cards")
        for card in report.cards:
            _echo(f"  {card.line}: card [{card.recogniser}] {card.question}")
        for heading in report.headings_not_taken:
            _echo(f"  {heading.line}: not a card ({heading.reason}): {heading.text}")


@main.command("import")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="Refuse the whole import on any error.")
@click.option("--dry-run", is_flag=True, help="Show what would change; keep nothing.")
def import_command(directory: Path | None, strict: bool, dry_run: bool) -> None:
    """Import a folder of notes into the question bank (incremental; history kept)."""
    from app.content.bank.imports import recorded_import
    from app.content.bank.sync import import_content

    settings = _settings()
    root = directory or settings.content_dir
    try:
        with _database() as database:
            # A dry run keeps nothing, so it is no import to report.
            report = (
                import_content(root, database, strict=strict, dry_run=True)
                if dry_run
                else recorded_import(database, root, source="cli", strict=strict)
            )
    except ContentErrors as exc:
        _print_problems(exc.errors, "error")
        _fail(f"import failed with {len(exc.errors)} error(s); the bank is unchanged")
        return
    if dry_run:
        _print_files(report.files)
    _print_problems(report.warnings, "warning")
    _echo(
        ("dry run, nothing kept: " if dry_run else "")
        + f"{report.decks} decks, {report.topics} topics; cards: {report.added} added, "
        f"{report.updated} updated, {report.unchanged} unchanged, {report.retired} retired, "
        f"{report.resumed} resumed; {report.files_read} files read, "
        f"{report.files_skipped} unchanged files skipped; "
        f"{report.formulas_rendered} formulas rendered; {len(report.warnings)} warnings"
    )


@main.command("serve")
@click.option("--host", default=None, help="Address to listen on (default 127.0.0.1).")
@click.option("--port", default=None, type=int, help="Port (default 8000).")
@click.option("--watch", is_flag=True, help="Re-import content when a file under it changes.")
@click.option("--workers", default=1, type=click.IntRange(1, 64), help="Worker processes.")
@click.option(
    "--content",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Content directory (default: QBANK_CONTENT_DIR, else the bundled decks).",
)
@click.argument(
    "notes", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
def serve_command(
    host: str | None,
    port: int | None,
    watch: bool,
    workers: int,
    content: Path | None,
    notes: Path | None,
) -> None:
    """Run the web app over a folder of notes (NOTES, default the bundled decks)."""
    from app.serve import ServeError, serve

    content = notes or content
    if content is not None:
        # Through the environment, so that every worker process reads the same directory.
        os.environ["QBANK_CONTENT_DIR"] = str(content.resolve())
        get_settings.cache_clear()
    settings = _settings()
    try:
        serve(
            settings,
            host=host or settings.host,
            port=port or settings.port,
            watch=watch,
            workers=workers,
        )
    except ContentErrors as exc:
        _print_problems(exc.errors, "error")
        _fail("the content could not be imported; fix it and start again")
    except (ServeError, OSError) as exc:
        _fail(str(exc))


def _os_error(exc: OSError) -> str:
    return f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc)


@main.group("export")
def export_group() -> None:
    """Export cards to Anki, or a learner's history as a backup."""


learner_option = click.option(
    "--learner", "learner_name", default=None, help="Learner name (default: the local learner)."
)


@contextmanager
def _database() -> "Iterator[Database]":
    """The configured bank for this command, its schema brought up to date as it starts."""
    from app.infra.bank import open_database

    database = open_database(_settings())
    try:
        database.upgrade()
        yield database
    finally:
        database.dispose()


@contextmanager
def _bank() -> "Iterator[Session]":
    """A session on the configured bank; refusals and file errors end the command in one line."""
    with _writable_bank() as (_, session):
        yield session


@contextmanager
def _writable_bank() -> "Iterator[tuple[Database, Session]]":
    """The configured bank and a session on it, for commands that write through the bank."""
    from app.errors import AppError

    try:
        with _database() as database, database.session() as session:
            yield database, session
    except AppError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(_os_error(exc))


@export_group.command("anki")
@click.option("--deck", default=None, help="Deck slug (default: every deck).")
@click.option(
    "--base-url",
    default=None,
    help="qbank's public address, to link topics and cards from Anki "
    "(default: QBANK_PUBLIC_URL; without either, links are left out).",
)
@click.option(
    "--learner",
    "learner_name",
    default=None,
    help="Carry this learner's suspended cards, flags and leech tags (default: none).",
)
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def export_anki_command(
    deck: str | None, base_url: str | None, learner_name: str | None, out: Path
) -> None:
    """Write the active cards as an Anki package (.apkg)."""
    from app.config import public_url
    from app.export.anki import export_apkg
    from app.study.marks import learner_marks

    try:
        base_url = public_url(base_url) if base_url else _settings().public_url
    except ValueError as exc:
        _fail(str(exc))
    with _bank() as session:
        marks = None
        if learner_name is not None:
            learner = _open_learner(session, learner_name, create=False)
            marks = learner_marks(session, learner=learner)
        report = export_apkg(
            session=session,
            deck_slug=deck,
            path=out,
            base_url=base_url,
            content_dir=_settings().content_dir,
            marks=marks,
        )
    _echo(f"{report.decks} decks, {report.notes} notes, {report.formulas} formulas: {out}")


def _open_learner(session: "Session", name: str | None, *, create: bool) -> "Learner":
    from app.backup import find_learner
    from app.study import get_learner

    settings = _settings()
    name = name or settings.learner_name
    # The local learner always exists (it is created on first use); others must already exist.
    if create or name == settings.learner_name:
        return get_learner(session, name, settings.timezone)
    return find_learner(session=session, name=name)


@export_group.command("backup")
@learner_option
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def export_backup_command(learner_name: str | None, out: Path) -> None:
    """Write a learner's settings, schedule and review log as JSON."""
    from app.backup import dump_backup, export_learner

    with _bank() as session:
        learner = _open_learner(session, learner_name, create=False)
        data = export_learner(session=session, learner=learner)
        out.write_text(dump_backup(data), encoding="utf-8")
        _echo(
            f"learner '{learner.name}': {len(data['states'])} schedules, "
            f"{len(data['reviews'])} reviews: {out}"
        )


@export_group.command("log")
@learner_option
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
def export_log_command(learner_name: str | None, out: Path) -> None:
    """Write a learner's review log as CSV."""
    from app.backup import log_csv

    with _bank() as session:
        learner = _open_learner(session, learner_name, create=False)
        # With a byte-order mark, spreadsheet programs read the Chinese text as UTF-8.
        out.write_text(log_csv(session=session, learner=learner), encoding="utf-8-sig", newline="")
        _echo(f"learner '{learner.name}': review log written to {out}")


@main.command("restore")
@learner_option
@click.argument("source", type=click.Path(dir_okay=False, path_type=Path))
def restore_command(learner_name: str | None, source: Path) -> None:
    """Merge a JSON backup into a learner's history (safe to repeat)."""
    from app.backup import restore_learner

    with _writable_bank() as (database, session):
        raw = source.read_bytes()
        learner = _open_learner(session, learner_name, create=True)
        report = restore_learner(session=session, learner=learner, data=raw, database=database)
        _echo(
            f"learner '{learner.name}': {report.reviews_added} reviews added "
            f"({report.reviews_present} already present), {report.states_added} schedules "
            f"added, {report.states_updated} updated, {report.states_kept} unchanged; "
            f"{report.practice_added} practice runs added; "
            f"{report.placeholders} cards no longer in the bank kept as retired; "
            f"settings {'updated' if report.settings_changed else 'unchanged'}"
        )
        if report.parameters_refused is not None:
            _echo(
                f"FSRS parameters not restored ({report.parameters_refused}); "
                "the ones in use were kept"
            )


@main.command("optimize")
@learner_option
@click.option("--reset", is_flag=True, help="Go back to the FSRS default parameters.")
def optimize_command(learner_name: str | None, reset: bool) -> None:
    """Fit personal FSRS parameters to a learner's review log; keep them if they predict better."""
    from datetime import UTC, datetime

    from app.infra.jobs import FAILED
    from app.scheduling.optimize import reset_parameters, run_optimize

    with _writable_bank() as (database, session):
        learner = _open_learner(session, learner_name, create=False)
        if reset:
            reset_parameters(session=session, learner=learner, database=database)
            _echo(f"learner '{learner.name}': back to the FSRS default parameters")
            return
        assert learner.id is not None
        job = run_optimize(database, learner_id=learner.id, now=datetime.now(UTC))
        if job.status == FAILED:
            _fail(job.message)
        _echo(f"learner '{learner.name}': {job.message}")


def _settings() -> "Settings":
    """The settings, or one clean line saying which value is wrong."""
    from pydantic import ValidationError

    try:
        return get_settings()
    except ValidationError as exc:
        _fail("; ".join(_setting_problem(e) for e in exc.errors()))
        raise AssertionError("unreachable") from exc


def _setting_problem(error: "ErrorDetails") -> str:
    """One problem with the settings, named by the variable that sets it."""
    message = error["msg"].removeprefix("Value error, ")
    if not error["loc"]:  # a rule over several values, whose message names them
        return message
    field = str(error["loc"][0])
    variable = field if field.isupper() else f"QBANK_{field.upper()}"
    return f"{variable}: {message}"


@main.group("db")
def db_group() -> None:
    """Database schema."""


@db_group.command("upgrade")
def db_upgrade_command() -> None:
    """Apply every pending migration (qbank serve also does this at start)."""
    from app.infra.migrate import current_revision

    with _database() as database:
        _echo(f"database schema at revision {current_revision(database.engine)}")


@main.group("user")
def user_group() -> None:
    """Accounts for team mode."""


def _password(password_stdin: bool) -> str:
    if password_stdin:
        return sys.stdin.readline().rstrip("\n")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


def _user_call(action: "Callable[[Database, Session], str]") -> None:
    with _writable_bank() as (database, session):
        _echo(action(database, session))


@user_group.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True, help="Make the user an administrator.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def user_add_command(name: str, admin: bool, password_stdin: bool) -> None:
    """Create an account."""
    from app.accounts import members

    password = _password(password_stdin)

    def add(database: "Database", session: "Session") -> str:
        made = members.create_user(
            session, database=database, name=name, password=password, is_admin=admin
        )
        return f"created {'administrator' if admin else 'user'} {made.name}"

    _user_call(add)


@user_group.command("list")
def user_list_command() -> None:
    """List accounts."""
    from app.accounts import members

    def listing(session: "Session") -> str:
        rows = [
            "\t".join(
                (
                    printable(u.name),
                    "admin" if u.is_admin else "member",
                    "disabled" if u.disabled else "",
                )
            )
            for u in members.list_users(session)
        ]
        return "\n".join(rows) or "no users"

    # One line a user, each name escaped on its own: the tabs and line feeds are the table's.
    with _bank() as session:
        click.echo(listing(session))


@user_group.command("disable")
@click.argument("name")
def user_disable_command(name: str) -> None:
    """Disable an account and end its sessions."""
    from app.accounts import members

    _user_call(
        lambda database, s: (
            f"disabled {members.set_disabled(s, name=name, disabled=True, database=database).name}"
        )
    )


@user_group.command("enable")
@click.argument("name")
def user_enable_command(name: str) -> None:
    """Re-enable a disabled account."""
    from app.accounts import members

    _user_call(
        lambda database, s: (
            f"enabled {members.set_disabled(s, name=name, disabled=False, database=database).name}"
        )
    )


@user_group.command("reset-password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def user_reset_password_command(name: str, password_stdin: bool) -> None:
    """Set a new password and end all of the user's sessions."""
    from app.accounts import members

    def reset(database: "Database", session: "Session") -> str:
        learner = members.get_user(session, name)
        members.set_password(
            session, learner=learner, password=_password(password_stdin), database=database
        )
        return f"password of {name} reset; their sessions have ended"

    _user_call(reset)
