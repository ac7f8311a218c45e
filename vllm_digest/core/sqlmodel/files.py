"""Find and read the SQL models: each stage's ``sql/`` folder, in a checkout or an installed wheel."""

from __future__ import annotations

import functools
import re
from pathlib import Path

# string literals and comments are matched first so a '$x' inside them is skipped
_TOKENS = re.compile(r"'(?:[^']|'')*'|--[^\n]*|\"(?:[^\"]|\"\")*\"|(?<![\w$])\$([A-Za-z_][A-Za-z0-9_]*)")


# the package: each stage keeps its SQL beside its code, in ``vllm_digest/<stage>/sql/``
PACKAGE = Path(__file__).resolve().parents[2]


@functools.lru_cache(maxsize=1)
def sql_files() -> dict[str, Path]:
    """Every SQL model by name, from each stage's ``sql/`` folder; a name is unique across stages."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.glob("*/sql/*.sql")):
        if path.stem in found:
            raise RuntimeError(f"SQL model {path.stem!r} is in both {str(found[path.stem])!r} and {str(path)!r}")
        found[path.stem] = path
    if not found:
        raise FileNotFoundError(f"no SQL models in {str(PACKAGE)!r}/<stage>/sql/")
    return found


@functools.lru_cache(maxsize=None)
def read_sql(name: str) -> str:
    path = sql_files().get(name)
    if path is None:
        raise FileNotFoundError(f"no SQL model {name!r} in {str(PACKAGE)!r}/<stage>/sql/")
    return path.read_text(encoding="utf-8")


def purpose(name: str) -> str:
    """The model's leading ``--`` comment: what the table holds."""
    lines = []
    for line in read_sql(name).splitlines():
        if not line.startswith("--"):
            break
        lines.append(line[2:].strip())
    text = " ".join(lines)
    return text.split(":", 1)[1].strip() if text.startswith(f"{name}:") else text


def parameters(sql: str) -> set[str]:
    """Named ``$parameters`` a statement uses (DuckDB refuses unused ones)."""
    return {m.group(1) for m in _TOKENS.finditer(sql) if m.group(1)}


def suffix_parameters(sql: str, names: set[str], suffix: str) -> str:
    """``sql`` with each ``$name`` in ``names`` renamed ``$name<suffix>``, literals and comments untouched:
    copies of one statement can then share a query, each with its own values."""
    def rename(m: re.Match) -> str:
        name = m.group(1)
        return f"${name}{suffix}" if name in names else m.group(0)

    return _TOKENS.sub(rename, sql)


def bind(sql: str, values: dict) -> dict:
    wanted = parameters(sql)
    missing = wanted - set(values)
    if missing:
        raise KeyError(f"SQL needs parameters {sorted(missing)} that were not given")
    return {k: values[k] for k in wanted}


# The DuckDB file a schema file's tables live in: the warehouse, unless the file says ``-- store: state`` on a
# line of its opening comment: the state store (``state.py``), which keeps what a rebuild of the warehouse must not
# lose (the delivery log, the narrative cache).
WAREHOUSE, STATE = "warehouse", "state"
STORES = (WAREHOUSE, STATE)
_STORE_LINE = re.compile(r"^-- store: (\w+)\s*$", re.M)


def schema_store(path: Path) -> str:
    """Which file (``WAREHOUSE`` or ``STATE``) a schema file's tables live in."""
    match = _STORE_LINE.search(path.read_text(encoding="utf-8"))
    store = match.group(1) if match else WAREHOUSE
    if store not in STORES:
        raise RuntimeError(f"schema file {str(path)!r} says '-- store: {store}': not one of {', '.join(STORES)}")
    return store


def schema_files(store: str | None = None) -> list[Path]:
    """Every ``schema*.sql`` file (tables and macros), ``schema.sql`` first; only ``store``'s when given."""
    return sorted((p for n, p in sql_files().items() if n.startswith("schema")
                   and (store is None or schema_store(p) == store)),
                  key=lambda p: (p.name != "schema.sql", p.name))


@functools.lru_cache(maxsize=None)
def schema_statements(store: str | None = None) -> tuple[str, ...]:
    """The schema files' statements: every store's (an in-memory build of all declared tables), or one store's."""
    return tuple(p.read_text(encoding="utf-8") for p in schema_files(store))
