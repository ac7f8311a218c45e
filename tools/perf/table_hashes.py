"""Did a change leave the data alone? Build the embedded sample (22 days) and a synthetic month
through the whole graph, one run each, and hash every warehouse table and view (its sorted rows and its
columns; a column that defaults to the clock is named but its values left out) and every report and
site file; then compare two such hash files.

    python -m tools.perf.table_hashes save before.json      # at the commit before the change
    python -m tools.perf.table_hashes save after.json       # after it
    python -m tools.perf.table_hashes compare before.json after.json [old_table=new_table ...]

``compare`` prints, per data set, how many tables and files are identical and which differ (a
renamed table compares under its new name), and exits 1 when any differs. For a restructure that
claims "behaviour unchanged"; a change meant to alter a mart shows exactly which tables moved.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

from tools.perf.figures import ROOT, WORK, dataset, run_child

# data set -> (sample folder, first day, last day)
CASES = {
    "sample": (lambda: ROOT / "vllm_digest" / "samples", "2026-03-01", "2026-03-22"),
    "synthetic": (lambda: dataset(30), "2025-11-01", "2025-11-30"),
}


def build(case: str) -> Path:
    sample_dir, first, last = CASES[case]
    home = WORK / "table-hashes" / case
    shutil.rmtree(home, ignore_errors=True)
    run_child("--home", str(home), "--sample-dir", str(sample_dir()), "--first", first, "--last", last)
    return home


def hashes(home: Path) -> dict[str, str]:
    import duckdb

    out = {}
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        tables = [t for (t,) in con.execute(
            # a view too: a table that became a view over tables stored otherwise (core_item_texts) compares
            # under its own name
            "SELECT table_name FROM information_schema.tables WHERE table_type IN ('BASE TABLE', 'VIEW') ORDER BY 1"
        ).fetchall()]
        for table in tables:
            columns = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = $t ORDER BY ordinal_position",
                {"t": table},
            ).fetchall()]
            # a column that defaults to the clock (when a narrative verdict was stored) differs between any
            # two builds, a re-run after a crash included: its values are left out, the column is not
            clock = {c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = $t "
                "AND lower(column_default) LIKE '%current_timestamp%'", {"t": table},
            ).fetchall()}
            kept = ", ".join(f'"{c}"' for c in columns if c not in clock)
            rows = sorted(repr(r) for r in con.execute(f'SELECT {kept} FROM "{table}"').fetchall())
            digest = hashlib.sha256(("\n".join(rows) + "\n#" + ",".join(columns)).encode()).hexdigest()
            out[f"table:{table}"] = f"{digest}:{len(rows)}"
    finally:
        con.close()
    for folder in ("reports", "site"):
        for path in sorted((home / folder).rglob("*")):
            if path.is_file():
                out[f"file:{path.relative_to(home)}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def compare(before: dict, after: dict, renames: dict[str, str]) -> int:
    differing = 0
    for case in before:
        old = {(f"table:{renames.get(k[6:], k[6:])}" if k.startswith("table:") else k): v
               for k, v in before[case].items()}
        new = after.get(case, {})
        same = sum(old.get(k) == new.get(k) for k in old)
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        print(f"{case}: {same} of {len(old)} tables and files identical ({len(new)} after); "
              f"differing: {', '.join(diff) or 'none'}")
        differing += len(diff)
    return 1 if differing else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "save":
        result = {case: hashes(build(case)) for case in CASES}
        Path(argv[1]).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        for case, found in result.items():
            tables = sum(k.startswith("table:") for k in found)
            print(f"{case}: {tables} tables, {len(found) - tables} files -> {argv[1]}")
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        before, after = (json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:3])
        return compare(before, after, dict(r.split("=", 1) for r in argv[3:]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
