"""The harness's layout is its architecture: packages grouped by job, stacked in layers that
import only downwards, no import cycle between any two modules, and no module reaching into
another's private names. Read from the source's own import statements (run-time imports;
those under TYPE_CHECKING are annotations only)."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import serbench

HARNESS = Path(serbench.__file__).parent
# bottom to top; a package imports only packages of lower layers (and its own modules). Each
# layer says the job of what is in it.
LAYERS = [
    {""},                                        # the package's face (__version__)
    {"ids"},                                     # identifiers from outside, checked
    {"params", "paths"},                         # a plan's parameters; where things are kept
    {"cell", "provenance", "stats", "steady", "models"},  # the shared vocabulary
    {"results"},                                 # the results database, exports and imports
    {"drivers", "datasets"},                     # the driver contract; the canonical data
    {"network"},                                 # nodes, links and placements
    {"tasks"},                                   # one module per task
    {"plan", "compare"},                         # plans into cells; runs against runs
    {"run"},                                     # the run loop and verify
    {"reproduce"},                               # the published figures' cells and estimate
    {"report"},                                  # one run as a page and a summary
    {"cli"},                                     # the `serbench` command
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def module_of(path: Path) -> tuple[str, str]:
    """(module, the package its relative imports start from), dotted under serbench."""
    parts = list(path.relative_to(HARNESS).with_suffix("").parts)
    if parts[-1] == "__init__":
        module = ".".join(parts[:-1])
        return module, module
    return ".".join(parts), ".".join(parts[:-1])


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(the module imported, the names taken from it) of each run-time relative import."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []
    _, package = module_of(path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".") if package else []
            base = base[:len(base) - node.level + 1] if node.level > 1 else base
            target = ".".join([*base, *([node.module] if node.module else [])])
            names = [alias.name for alias in node.names]
            if node.module:
                found.append((target, names))
            else:  # `from .. import stats`: each name a module (or the package's face)
                found += [(f"{target}.{n}".strip("."), []) if _is_module(f"{target}.{n}")
                          else (target, [n]) for n in names]
    return found


def _is_module(dotted: str) -> bool:
    path = HARNESS.joinpath(*dotted.strip(".").split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def top(module: str) -> str:
    return module.split(".")[0]


MODULES = {module_of(p)[0]: p for p in HARNESS.rglob("*.py")}


def test_every_package_has_a_layer():
    assert {top(m) for m in MODULES} <= set(LAYER), "place a new package in LAYERS"


def test_packages_import_only_from_lower_layers():
    for module, path in MODULES.items():
        for target, _ in imports(path):
            if top(target) != top(module):
                assert LAYER[top(target)] < LAYER[top(module)], \
                    f"{module} imports {target}, which is not below it"


def test_no_module_imports_another_modules_private_names():
    for module, path in MODULES.items():
        for target, names in imports(path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            assert target == module or not private, f"{module} takes {private} from {target}"


def test_no_import_cycle_between_any_modules():
    graph = defaultdict(set)
    for module, path in MODULES.items():
        for target, names in imports(path):
            graph[module].add(target)
            graph[module] |= {f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES}
    done, active = set(), []

    def visit(module: str) -> None:
        if module in active:
            cycle = active[active.index(module):] + [module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        active.append(module)
        for target in sorted(graph[module]):
            if target in MODULES and target != module:
                visit(target)
        active.pop()
        done.add(module)

    for module in sorted(MODULES):
        visit(module)


def test_the_imports_are_read_as_written():
    """What the rules above see: relative imports resolved to their modules (so that the
    rules cannot pass by reading nothing)."""
    found = imports(HARNESS / "cli" / "__init__.py")
    assert ("report", ["ReportError"]) in found and ("ids", ["IdError"]) in found
    runner = imports(HARNESS / "run" / "runner.py")
    assert ("compare", ["noise"]) in runner and ("", ["steady"]) not in runner
    assert ("steady", []) in runner
