"""The import rules of docs/architecture.md, read from every module's imports with ast, and the
map's coverage: every package and module of vllm_digest, and every SQL file, is named there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "vllm_digest"
STAGES = ("ingest", "warehouse", "analytics", "report", "narrative", "site", "delivery")
SHARED = ("model", "settings", "partitions", "sample_coverage", "day_file", "files", "gc_pause", "deadline", "taxonomy", "i18n",
          "planned_events")

# where a module belongs: the longest matching prefix wins
PLACE = {
    **{f"vllm_digest.{s}": s for s in STAGES},
    **{f"vllm_digest.{s}": "shared" for s in SHARED},
    "vllm_digest.schedules": "schedules",
    # the sensor that re-renders later days from the warehouse: it selects analytics, report and site
    "vllm_digest.rerender": "rerender",
}
ANY_STAGE = {f"vllm_digest.{s}" for s in STAGES}
FORBIDDEN = {
    "shared": ANY_STAGE,
    "schedules": ANY_STAGE,
    "ingest": ANY_STAGE - {"vllm_digest.ingest"},
    "warehouse": {f"vllm_digest.{s}" for s in ("analytics", "report", "narrative", "site")},
    "analytics": {f"vllm_digest.{s}" for s in ("ingest", "report", "narrative", "site")},
    "report": {"vllm_digest.ingest", "vllm_digest.site"},
    "narrative": {"vllm_digest.ingest", "vllm_digest.site"},
    "site": {f"vllm_digest.{s}" for s in ("ingest", "warehouse", "analytics", "narrative")},
    # a re-render reads the warehouse; it never fetches
    "rerender": {"vllm_digest.ingest"},
    # delivery sends what the report and site wrote to disk: it reads their files, not their code
    "delivery": {f"vllm_digest.{s}" for s in ("ingest", "analytics", "report", "narrative", "site")},
}
# of ingest, the warehouse reads only where a day's files are and the raw asset's key
WAREHOUSE_MAY_READ_FROM_INGEST = {"vllm_digest.ingest.raw_store", "vllm_digest.ingest.assets"}
# (importer, imported): each must still occur, so an exception goes once it is not needed
EXCEPTIONS = {("vllm_digest.settings", "vllm_digest.narrative.config")}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from vllm_digest.x import y` may import the module vllm_digest.x.y
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name.startswith("vllm_digest")}


def place_of(module: str) -> str | None:
    matches = [p for p in PLACE if module == p or module.startswith(p + ".")]
    return PLACE[max(matches, key=len)] if matches else None


def under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def all_imports() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for importer, imported in graph.items():
        place = place_of(importer)
        for name in imported:
            banned = any(under(name, p) for p in FORBIDDEN.get(place, ()))
            if place == "warehouse" and under(name, "vllm_digest.ingest"):
                banned = not any(under(name, m) for m in WAREHOUSE_MAY_READ_FROM_INGEST)
            if banned:
                found.add((importer, name))
    return found


def test_every_module_has_a_place():
    unplaced = [m for m in all_imports() if place_of(m) is None]
    # the entry points, which assemble or run every stage
    assert set(unplaced) <= {"vllm_digest", "vllm_digest.definitions", "vllm_digest.demo"}, unplaced


def test_no_module_imports_what_its_place_forbids():
    found = violations(all_imports())
    # a name imported from a module (`from vllm_digest.narrative.config import X`) counts as that module
    found = {(a, b) for a, b in found if not any(b == m or b.startswith(m + ".") for _, m in EXCEPTIONS if _ == a)}
    assert found == set(), sorted(found)


def test_each_listed_exception_is_still_needed():
    graph = all_imports()
    for importer, imported in EXCEPTIONS:
        assert imported in graph[importer], f"{importer} no longer imports {imported}: drop the exception"


# planted imports the rules must refuse: (importer, imported) -> the importer's place
PLANTED = {
    ("vllm_digest.report.x", "vllm_digest.ingest.github.client"): "report",
    ("vllm_digest.ingest.x", "vllm_digest.narrative.prompts"): "ingest",
    ("vllm_digest.narrative.x", "vllm_digest.ingest.sample"): "narrative",
    ("vllm_digest.model", "vllm_digest.warehouse.writes"): "shared",
    ("vllm_digest.warehouse.x", "vllm_digest.ingest.github.plan"): "warehouse",
}


@pytest.mark.parametrize("importer, imported", PLANTED)
def test_the_rules_catch_a_forbidden_import(importer, imported):
    assert place_of(importer) == PLANTED[importer, imported]
    assert violations({importer: {imported}}) == {(importer, imported)}


def test_the_map_names_every_package_module_and_sql_file():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for path in sorted(PACKAGE.iterdir()):
        if path.name.startswith(("_", ".")) or path.name in ("samples", "sql") or path.suffix not in ("", ".py"):
            continue
        assert f"{path.stem}/" in text or f"{path.name}" in text, path.name
    # the modules of the stages upstream of the report (report/, narrative/ and site/ are named as packages)
    for stage in ("ingest", "ingest/github", "warehouse", "analytics"):
        for path in sorted((PACKAGE / stage).glob("*.py")):
            if path.name != "__init__.py":
                assert path.name in text, f"{stage}/{path.name}"
    for path in sorted((ROOT / "sql").glob("*.sql")):
        stem = path.stem
        covered = path.name in text or f"`{stem}`" in text or f"`{stem.split('_')[0]}_*.sql`" in text
        assert covered, path.name
