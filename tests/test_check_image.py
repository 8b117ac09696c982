"""deploy/check-image.sh names only modules, names and commands that exist.

The script runs only where buildah can build the image, so a module it imports inside the
container (once `app.migrate`, since moved) or a `qbank` command it runs could go stale unseen.
"""

import importlib
import re
import shlex
import subprocess
from pathlib import Path

import click

from app.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "deploy/check-image.sh"
DOCKERFILE = ROOT / "Dockerfile"


def joined(path: Path) -> str:
    """The file with backslash-continued lines joined."""
    return re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))


def imported_names(text: str) -> list[tuple[str, str | None]]:
    """(module, name) for each `from app… import …`, `import app…` and `-m app…` in `text`."""
    found: list[tuple[str, str | None]] = []
    for module, names in re.findall(r"^\s*from (app[\w.]*) import ([\w, ]+)", text, re.M):
        found += [(module, name.strip()) for name in names.split(",")]
    found += [(m, None) for m in re.findall(r"^\s*import (app[\w.]*)", text, re.M)]
    found += [(m, None) for m in re.findall(r"-m (app[\w.]*)", text)]
    return found


def qbank_commands(text: str) -> list[list[str]]:
    """The arguments of each `qbank …` the text runs (after `--`, a path or a JSON CMD)."""
    commands = [
        shlex.split(words)
        for words in re.findall(r"(?:--\s+|/bin/)qbank((?: +(?:--)?[\w-]+)*)", text)
    ]
    for cmd in re.findall(r"^CMD \[(.*)\]", text, re.M):
        argv = [part.strip().strip('"') for part in cmd.split(",")]
        if argv[0] == "qbank":
            commands.append(argv[1:])
    return commands


def check_command(argv: list[str]) -> None:
    """Fail unless every subcommand and option of `argv` is one the `qbank` command has."""
    command: click.Command = main
    words = list(argv)
    while isinstance(command, click.Group) and words and not words[0].startswith("-"):
        name = words.pop(0)
        assert name in command.commands, f"qbank has no command {' '.join(argv)!r}"
        command = command.commands[name]
    known = {"--help"} | {o for p in command.params for o in [*p.opts, *p.secondary_opts]}
    for word in words:
        if word.startswith("--"):
            assert word in known, f"`qbank {' '.join(argv)}`: no option {word}"


def test_every_module_and_name_the_script_imports_exists() -> None:
    names = imported_names(joined(SCRIPT))
    assert ("app.infra.migrate", "MIGRATIONS") in names
    for module, name in names:
        loaded = importlib.import_module(module)
        assert name is None or hasattr(loaded, name), f"{module} has no {name}"


def test_every_qbank_command_the_image_runs_exists() -> None:
    commands = qbank_commands(joined(SCRIPT)) + qbank_commands(joined(DOCKERFILE))
    assert ["user", "add", "checker", "--admin", "--password-stdin"] in commands
    assert ["serve", "--host", "0.0.0.0", "--port", "8000"] in commands
    for argv in commands:
        check_command(argv)
    # The script adds `--workers 2` to the image's own command, `qbank serve`.
    assert "command+=(--workers 2)" in SCRIPT.read_text(encoding="utf-8")
    check_command(["serve", "--workers"])


def test_the_check_fails_on_a_moved_module_or_a_missing_command() -> None:
    moved = imported_names("python -c '\nfrom app.migrate import MIGRATIONS\n'")
    assert moved == [("app.migrate", "MIGRATIONS")]
    try:
        check_command(["user", "remove-everything"])
    except AssertionError:
        pass
    else:
        raise AssertionError("a missing command passed the check")


def test_the_files_the_script_reads_exist_and_it_parses() -> None:
    for path in ("Dockerfile", "docker-compose.yml", "content/decks"):
        assert (ROOT / path).exists(), path
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
