"""The import contract of docs/architecture.md, read from the code with ast (every import, also those
inside functions), and the map's coverage. No exceptions list: a rule holds everywhere or it is changed.

- layers: core < ingest < warehouse < analytics < report < site | delivery < orchestration < definitions
  (and demo, which runs the definitions); a module never imports a higher layer, and site and delivery
  never import each other;
- no circle between modules, nor between packages (each folder of vllm_digest);
- no first-party import inside a function or a conditional: a module's imports are its first lines;
- the product never imports vllm_digest.testing (the emulators and the harness the tests and tools share);
- tests and tools import vllm_digest.testing, never each other;
- no `_private` name is imported from another module;
- each stage's sql/ holds only its own tables: a model sits beside the schema that declares its table,
  and its name carries one of its stage's prefixes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from vllm_digest.testing.pipeline import ROOT

PACKAGE = ROOT / "vllm_digest"
LAYER = {"core": 0, "ingest": 1, "warehouse": 2, "analytics": 3, "report": 4, "site": 5, "delivery": 5,
         "orchestration": 6, "definitions": 7, "demo": 8}
# the SQL file names each stage's sql/ may hold (a table's role is its prefix; schema files declare them)
SQL_PREFIXES = {
    "warehouse": ("schema", "stg_", "core_", "mart_", "run_"),
    "analytics": ("schema_analytics", "ref_", "int_", "mart_", "run_"),
    "report": ("schema_narrative", "report_"),
    "delivery": ("schema_delivery", "delivery_"),
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def python_files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py") if "__pycache__" not in p.parts)


def imports(path: Path) -> list[tuple[str, list[str], bool]]:
    """(module, names, at top level) for every import of the file; relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    top = {id(node) for node in tree.body}
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            found.append((module, [alias.name for alias in node.names], id(node) in top))
    return found


def package_modules() -> dict[str, Path]:
    return {module_name(p): p for p in python_files("vllm_digest")}


def resolve(name: str, known: dict[str, Path]) -> str | None:
    """The first-party module ``name`` lands in (``pkg.mod.func`` -> ``pkg.mod``), or None."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the first-party modules it imports (a name imported from a package that is a module counts
    as that module)."""
    out = {}
    for name, path in modules.items():
        deps = set()
        for module, names, _ in imports(path):
            for target in [module, *(f"{module}.{n}" for n in names)]:
                found = resolve(target, modules) if target.startswith("vllm_digest") else None
                if found and found != name:
                    deps.add(found)
        out[name] = deps
    return out


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "vllm_digest"


def upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for importer, deps in graph.items():
        a = layer_of(importer)
        for dep in deps:
            b = layer_of(dep)
            if a == b or a == "testing":
                continue
            if b == "testing" or b not in LAYER or a not in LAYER or LAYER[b] >= LAYER[a]:
                found.add((importer, dep))
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def package_graph(graph: dict[str, set[str]], modules: dict[str, Path]) -> dict[str, set[str]]:
    def package(m: str) -> str:
        return m if modules[m].name == "__init__.py" else m.rpartition(".")[0]

    out: dict[str, set[str]] = {}
    for importer, deps in graph.items():
        for dep in deps:
            if package(importer) != package(dep):
                out.setdefault(package(importer), set()).add(package(dep))
    return out


def test_no_module_imports_a_higher_layer():
    assert upward(graph(package_modules())) == set()


def test_no_circle_between_modules():
    assert circles(graph(package_modules())) == []


def test_no_circle_between_packages():
    modules = package_modules()
    assert circles(package_graph(graph(modules), modules)) == []


def test_first_party_imports_are_at_the_top_of_each_module():
    inner = [(module_name(p), m) for p in python_files("vllm_digest") for m, _, top in imports(p)
             if m.startswith("vllm_digest") and not top]
    assert inner == []


def test_tests_and_tools_import_each_other_only_through_vllm_digest_testing():
    crossing = []
    for folder, foreign in (("tests", ("tools",)), ("tools", ("tests", "conftest"))):
        for path in python_files(folder):
            own_tests = folder == "tools" and "tests" in path.relative_to(ROOT).parts
            for module, _, _ in imports(path):
                root = module.split(".")[0]
                # a tool's own tests import the tool they test
                if root in foreign and not (own_tests and root == "tools"):
                    crossing.append((str(path.relative_to(ROOT)), module))
    assert crossing == []


def private_imports(paths: list[Path]) -> list[tuple[str, str, str]]:
    return [(str(p.relative_to(ROOT)), m, n) for p in paths for m, names, _ in imports(p)
            for n in names if n.startswith("_") and not n.startswith("__")
            and m.split(".")[0] in ("vllm_digest", "tests", "tools", "conftest")]


def test_no_private_name_is_imported_from_another_module():
    assert private_imports(python_files("vllm_digest", "tests", "tools")) == []


def declared_tables(folder: Path) -> set[str]:
    text = "\n".join(p.read_text(encoding="utf-8") for p in folder.rglob("*.sql"))
    return set(re.findall(r"CREATE (?:OR REPLACE )?(?:TEMP |TEMPORARY )?(?:TABLE|VIEW) (?:IF NOT EXISTS )?(\w+)",
                          text, re.I))


def sql_misplaced() -> list[str]:
    wrong = []
    stage_tables = {stage: declared_tables(PACKAGE / stage / "sql") for stage in SQL_PREFIXES}
    for folder in sorted(PACKAGE.glob("*/sql")):
        stage = folder.parent.name
        for path in sorted(folder.rglob("*.sql")):
            name = path.stem
            if path.parent.name == "migrations":
                # a change a CREATE cannot say, applied once in order (core/sqlmodel/migrate.py)
                if not re.fullmatch(r"\d{4}_\w+", name):
                    wrong.append(f"{stage}/sql/migrations/{path.name}: not NNNN_what.sql")
                continue
            if stage not in SQL_PREFIXES or not name.startswith(SQL_PREFIXES[stage]):
                wrong.append(f"{stage}/sql/{path.name}: not one of {stage}'s prefixes")
            owners = [s for s, tables in stage_tables.items() if name in tables]
            if owners and owners != [stage]:
                wrong.append(f"{stage}/sql/{path.name}: its table is declared in {owners}")
    return wrong


def test_each_stage_sql_folder_holds_only_its_own_tables():
    assert sql_misplaced() == []


def test_the_product_never_imports_the_test_harness():
    assert not {(a, b) for a, b in upward(graph(package_modules())) if layer_of(b) == "testing"}
    harness = [a for a, deps in graph(package_modules()).items() for b in deps
               if layer_of(b) == "testing" and layer_of(a) != "testing"]
    assert harness == []


# Every rule must be able to fail: planted imports and files it has to refuse.
PLANTED_UPWARD = [
    ("vllm_digest.core.x", "vllm_digest.ingest.sample"),
    ("vllm_digest.warehouse.x", "vllm_digest.analytics.build"),
    ("vllm_digest.report.x", "vllm_digest.orchestration.jobs"),
    ("vllm_digest.site.x", "vllm_digest.delivery.deliver"),
    ("vllm_digest.delivery.x", "vllm_digest.site.build"),
    ("vllm_digest.orchestration.x", "vllm_digest.definitions"),
    ("vllm_digest.analytics.x", "vllm_digest.testing.pipeline"),
]


@pytest.mark.parametrize("importer, imported", PLANTED_UPWARD)
def test_the_layer_rule_catches_a_planted_import(importer, imported):
    assert upward({importer: {imported}}) == {(importer, imported)}


def test_the_circle_rules_catch_planted_circles():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    modules = {"p.x": Path("p/x.py"), "q.y": Path("q/y.py"), "q.z": Path("q/z.py")}
    assert circles(package_graph({"p.x": {"q.y"}, "q.z": {"p.x"}, "q.y": set()}, modules)) == [["p", "q"]]


def test_the_inner_import_and_private_rules_catch_planted_code(tmp_path, monkeypatch):
    planted = PACKAGE / "core" / "_planted_for_the_contract_test.py"
    planted.write_text("def f():\n    from vllm_digest.core.files import _x\n    return _x\n")
    try:
        found = [m for m, _, top in imports(planted) if not top]
        assert found == ["vllm_digest.core.files"]
        assert private_imports([planted]) == [(str(planted.relative_to(ROOT)), "vllm_digest.core.files", "_x")]
    finally:
        planted.unlink()


def test_the_sql_rule_catches_a_misplaced_model():
    planted = PACKAGE / "report" / "sql" / "mart_planted_for_the_contract_test.sql"
    planted.write_text("-- planted\nSELECT 1\n")
    try:
        assert any("mart_planted_for_the_contract_test" in w for w in sql_misplaced())
    finally:
        planted.unlink()


def test_the_map_names_every_package_module_and_sql_file():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for path in sorted(PACKAGE.rglob("*")):
        rel = path.relative_to(PACKAGE)
        if any(part.startswith(("_", ".")) for part in rel.parts) or "samples" in rel.parts:
            continue
        if path.is_dir() and path.name not in ("sql", "templates"):
            assert f"{path.name}/" in text, f"package {rel}"
        elif path.suffix == ".py":
            assert path.name in text, f"module {rel}"
        elif path.suffix == ".sql":
            stem = path.stem
            covered = path.name in text or f"`{stem}`" in text or f"{stem.split('_')[0]}_*.sql" in text \
                or (path.parent.name == "migrations" and "migrations/" in text)
            assert covered, f"SQL {rel}"
