"""The `qbank` command: thin wrappers that call one app function each."""

import sys
from pathlib import Path

import click

from app.config import get_settings
from app.content.errors import ContentError, ContentErrors


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _print_problems(problems: list[ContentError], kind: str) -> None:
    for problem in problems:
        click.echo(f"{problem} [{kind}]" if kind == "warning" else str(problem), err=True)


@click.group()
def main() -> None:
    """Interview-prep flashcards from Markdown Q&A notes."""


@main.command("check")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
def check_command(directory: Path | None, strict: bool) -> None:
    """Validate content without touching the database."""
    from app.content.sync import check_content

    report = check_content(directory or get_settings().content_dir)
    _print_problems(report.errors, "error")
    _print_problems(report.warnings, "warning")
    click.echo(
        f"{report.decks} decks, {report.cards} cards, {report.topics} topics, "
        f"{report.formulas} formulas: {len(report.errors)} errors, {len(report.warnings)} warnings"
    )
    if report.errors or (strict and report.warnings):
        sys.exit(1)


@main.command("import")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
def import_command(directory: Path | None) -> None:
    """Import content into the question bank (incremental, all-or-nothing)."""
    from app.bank import open_engine
    from app.content.sync import import_content

    settings = get_settings()
    try:
        report = import_content(directory or settings.content_dir, open_engine(settings))
    except ContentErrors as exc:
        _print_problems(exc.errors, "error")
        _fail(f"import failed with {len(exc.errors)} error(s); the bank is unchanged")
        return
    _print_problems(report.warnings, "warning")
    click.echo(
        f"{report.decks} decks, {report.topics} topics; cards: {report.added} added, "
        f"{report.updated} updated, {report.unchanged} unchanged, {report.retired} retired, "
        f"{report.resumed} resumed; {report.files_read} files read, "
        f"{report.files_skipped} unchanged files skipped; "
        f"{report.formulas_rendered} formulas rendered; {len(report.warnings)} warnings"
    )


@main.command("serve")
@click.option("--host", default=None, help="Address to listen on (default 127.0.0.1).")
@click.option("--port", default=None, type=int, help="Port (default 8000).")
@click.option("--watch", is_flag=True, help="Re-import content when a file under it changes.")
def serve_command(host: str | None, port: int | None, watch: bool) -> None:
    """Run the web app, importing the bundled content first when the bank is empty."""
    from app.serve import serve

    settings = get_settings()
    try:
        serve(settings, host=host or settings.host, port=port or settings.port, watch=watch)
    except ContentErrors as exc:
        _print_problems(exc.errors, "error")
        _fail("the content could not be imported; fix it and start again")
    except OSError as exc:
        _fail(str(exc))
