"""The package metadata, and the lock file deployments install from."""

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _locked() -> dict[str, str]:
    pins = re.findall(
        r"^([A-Za-z0-9._-]+)==([^ \\;]+)", (ROOT / "requirements.lock").read_text(), re.M
    )
    return {canonicalize_name(name): version for name, version in pins}


def test_the_lock_pins_every_dependency_within_its_range() -> None:
    locked = _locked()
    assert locked and PYPROJECT["project"]["dependencies"]
    for line in PYPROJECT["project"]["dependencies"]:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is not in requirements.lock: run the command at its top"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"requirements.lock pins {name}=={locked[name]}, outside {requirement.specifier}"
        )


def test_license_expression_is_supported_by_the_setuptools_floor() -> None:
    # A license given as an SPDX string (PEP 639) needs setuptools 77 or later.
    assert isinstance(PYPROJECT["project"]["license"], str)
    (setuptools,) = (
        Requirement(r) for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")
    )
    assert not setuptools.specifier.contains("76.9"), setuptools
    assert (ROOT / "LICENSE").is_file()


def test_the_image_and_compose_file_trust_no_forwarded_addresses_by_default() -> None:
    # Anyone reaching the container directly could otherwise pick their own address for the
    # sign-in throttle with X-Forwarded-For.
    from app.config import Settings

    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "FORWARDED_ALLOW_IPS" not in dockerfile
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    settings = re.findall(r"QBANK_FORWARDED_ALLOW_IPS:\s*(\S+)", compose)
    assert settings == ["${QBANK_FORWARDED_ALLOW_IPS:-}"]
    assert Settings(_env_file=None).forwarded_allow_ips == ""  # type: ignore[call-arg]


def test_the_lock_holds_every_package_the_app_needs_here() -> None:
    """Everything qbank's dependencies pull in on this platform is locked, transitively.

    The image installs the lock with `--require-hashes` and qbank with `--no-deps` (and runs
    `pip check`); a package missing from the lock would only show there.
    """
    from importlib.metadata import distribution

    locked = _locked()
    needed: set[str] = set()
    todo = [(Requirement(r), "") for r in distribution("qbank").requires or ()]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in needed:
            continue
        needed.add(key)
        for line in distribution(name).requires or ():
            for wanted in ("", *requirement.extras):
                todo.append((Requirement(line), wanted))
    names = {key.split("[")[0] for key in needed}
    assert len(names) > 30, names
    assert sorted(names - set(locked)) == [], "not in requirements.lock: run the command at its top"


def test_ci_runs_the_readme_test_command_in_parallel() -> None:
    command = re.compile(r"^python3 -m venv \.venv && .*pytest.*$", re.M)
    readme = command.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    ci = command.findall((ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert len(readme) == 1, readme
    assert ci == readme
    assert "-n auto" in readme[0]
    assert "pytest-xdist" in " ".join(PYPROJECT["project"]["optional-dependencies"]["dev"])
