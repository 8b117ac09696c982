"""No module of app/ imports, however indirectly, a module that imports it back."""

import ast
from functools import cache
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module's imports of other app modules, function-level imports included."""
    return {module: set(targets) for module, targets in _parsed_graph().items()}


@cache  # five tests read the graph; parsing every module of app/ once is enough
def _parsed_graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in APP.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, base] if base else parent)
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while (member := stack.pop()) != node:
                group.append(member)
            if group:
                found.append(sorted([*group, node]))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_study_package() -> None:
    graph = import_graph()
    assert "app.study.reviews" in graph["app.study.service"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_app_has_no_import_cycle() -> None:
    assert cycles(import_graph()) == []


# The package order: each layer imports only the layers below it. Inside a layer, packages in
# one tier are independent of each other and import only later tiers (and the layers below).
LAYERS: list[tuple[str, list[set[str]]]] = [
    ("entry points", [{"cli"}, {"serve"}, {"main"}]),
    ("web", [{"web"}]),
    ("features", [{"backup"}, {"interview", "practice", "export", "search", "stats"}]),
    ("core", [{"study"}, {"content", "accounts"}, {"scheduling"}]),
    ("base", [{"infra"}, {"config"}, {"errors"}, {"strings"}]),
]


def package_of(module: str) -> str:
    """`app.study.queue` -> `study`; a top-level module is its own package."""
    return module.split(".")[1]


def rank() -> dict[str, tuple[int, int]]:
    return {
        package: (layer, tier)
        for layer, (_, tiers) in enumerate(LAYERS)
        for tier, packages in enumerate(tiers)
        for package in packages
    }


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a package at the same or a higher place in LAYERS."""
    order = rank()
    found = []
    for module, targets in sorted(graph.items()):
        if module == "app":
            continue
        for target in sorted(targets - {"app"}):
            here, there = package_of(module), package_of(target)
            if here != there and order[here] >= order[there]:
                found.append(f"{module} -> {target}")
    return found


def test_every_package_has_a_place_in_the_layers() -> None:
    packages = {package_of(module) for module in import_graph() if module != "app"}
    assert packages == set(rank())


def test_the_layer_check_sees_an_upward_import() -> None:
    graph = {"app.errors": {"app.web.i18n"}, "app.web.i18n": {"app.errors"}}
    assert upward_imports(graph) == ["app.errors -> app.web.i18n"]
    assert upward_imports({"app.study.a": {"app.content.b"}}) == []
    sideways = {"app.content.b": {"app.accounts.c"}}
    assert upward_imports(sideways) == ["app.content.b -> app.accounts.c"]


def test_packages_import_only_downward() -> None:
    assert upward_imports(import_graph()) == []


def test_the_package_graph_has_no_cycle() -> None:
    graph = import_graph()
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        if module != "app":
            packages.setdefault(package_of(module), set()).update(
                package_of(t) for t in targets - {"app"} if package_of(t) != package_of(module)
            )
    assert cycles(packages) == []
