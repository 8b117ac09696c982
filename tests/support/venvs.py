"""A virtual environment holding one wheel and, of what is installed here, what it requires.

pip resolving, fetching and unpacking the wheel's requirements once more costs several times
the CPU of the tests that use the environment. The distributions this checkout's environment
already resolved are copied instead, file by file from their records: only those the wheel's
own metadata requires (with their markers and extras, and theirs in turn), so a requirement the
wheel forgets to declare is missing there and fails its tests as it would for a user.
"""

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement


def venv_with_wheel(wheel: Path, target: Path) -> Path:
    """A new virtual environment at `target` holding `wheel` and its requirements; its path."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", target], check=True)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(target)}))
    for dist in _required(_wheel_requirements(wheel)):
        _copy(dist, site)
    # The wheel itself by pip, with its entry points; its requirements are all there now.
    install = [sys.executable, "-m", "pip", "--python", target / "bin" / "python", "install"]
    subprocess.run([*install, "-q", "--no-deps", "--no-compile", wheel], check=True)
    return target


def _wheel_requirements(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        headers = Parser().parsestr(archive.read(name).decode())
    return [Requirement(value) for value in headers.get_all("Requires-Dist") or []]


def _required(requirements: list[Requirement]) -> list[metadata.Distribution]:
    """The installed distributions `requirements` need, transitively; each once."""
    found: dict[str, metadata.Distribution] = {}
    wanted = [(requirement, "") for requirement in requirements]
    while wanted:
        requirement, extra = wanted.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        dist = metadata.distribution(requirement.name)
        assert dist.version in requirement.specifier, f"{dist.name} {dist.version}: {requirement}"
        key = dist.metadata["Name"].lower()
        extras = sorted(requirement.extras)
        if key in found and not extras:
            continue
        found[key] = dist
        for needed in dist.requires or []:
            wanted += [(Requirement(needed), each) for each in ["", *extras]]
    return list(found.values())


def _copy(dist: metadata.Distribution, site: Path) -> None:
    """The files `dist` installed into site-packages (not its scripts), copied into `site`."""
    for file in dist.files or []:
        if file.parts[0] == ".." or file.suffix == ".pyc":
            continue  # a script in bin/, or bytecode the new environment makes for itself
        source = Path(str(dist.locate_file(file)))
        if source.is_file():
            (site / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, site / file)
