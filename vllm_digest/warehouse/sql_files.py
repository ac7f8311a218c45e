"""Find and read the SQL models, from a checkout (``sql/``) or an installed wheel."""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path

# string literals and comments are matched first so a '$x' inside them is skipped
_TOKENS = re.compile(r"'(?:[^']|'')*'|--[^\n]*|\"(?:[^\"]|\"\")*\"|(?<![\w$])\$([A-Za-z_][A-Za-z0-9_]*)")


@functools.lru_cache(maxsize=1)
def sql_dir() -> Path:
    packaged = Path(str(resources.files("vllm_digest"))) / "sql"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "sql"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"SQL models not found in {str(packaged)!r} nor {str(checkout)!r}")


@functools.lru_cache(maxsize=None)
def read_sql(name: str) -> str:
    path = sql_dir() / f"{name}.sql"
    if not path.is_file():
        raise FileNotFoundError(f"no SQL model {name!r} at {str(path)!r}")
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


def schema_files() -> list[Path]:
    """Every ``schema*.sql`` file (tables and macros), ``schema.sql`` first."""
    return sorted(sql_dir().glob("schema*.sql"), key=lambda p: (p.name != "schema.sql", p.name))


@functools.lru_cache(maxsize=1)
def schema_statements() -> tuple[str, ...]:
    return tuple(p.read_text(encoding="utf-8") for p in schema_files())
